// The admin API's paths of relay secrets (docs/admin.md "Relay secrets"):
//   GET|POST /admin/applications/{clientId}/relay-secrets, DELETE …/relay-secrets/{id}
import { type Answer, json, methodNotAllowed } from './answers.js';
import type { RelaySecretAdmin } from './relay-secrets.js';
import type { WebhookRequest } from './webhook-routes.js';

/** The answer, or undefined when the path is not one of these. */
export async function relaySecretRoute(r: WebhookRequest, secrets: RelaySecretAdmin): Promise<Answer | undefined> {
  const [resource, clientId, sub, id, ...rest] = r.segments;
  if (resource !== 'applications' || clientId === undefined || sub !== 'relay-secrets' || rest.length > 0)
    return undefined;
  if (id === undefined) {
    if (r.method === 'GET') return json(200, await secrets.list(clientId));
    if (r.method === 'POST') return json(201, await secrets.create(r.actor, clientId, await r.body()));
    throw methodNotAllowed(['GET', 'POST']);
  }
  if (r.method === 'DELETE') return json(200, await secrets.revoke(r.actor, clientId, id));
  throw methodNotAllowed(['DELETE']);
}
