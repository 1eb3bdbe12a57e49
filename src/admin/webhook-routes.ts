// The admin API's paths of webhooks, dead letters and marked credentials (docs/admin.md "Webhooks"):
//   GET|POST /admin/applications/{clientId}/webhooks, PATCH|DELETE …/webhooks/{webhookId}
//   GET /admin/applications/{clientId}/marked-credentials
//   GET /admin/webhooks/dead-letters, POST /admin/webhooks/dead-letters/{id}/resend
import { type Answer, json, methodNotAllowed } from './answers.js';
import type { Actor } from './audited.js';
import { credentialFilter } from './params.js';
import type { WebhookAdmin } from './webhooks.js';

export interface WebhookRequest {
  readonly method: string;
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
  readonly actor: Actor;
  body(): Promise<unknown>;
}

/** The answer, or undefined when the path is not one of these. */
export async function webhookRoute(r: WebhookRequest, webhooks: WebhookAdmin): Promise<Answer | undefined> {
  const [resource, id, sub, subId, action, ...rest] = r.segments;
  if (rest.length > 0) return undefined;
  if (resource === 'applications' && id !== undefined && sub === 'webhooks' && action === undefined) {
    if (subId === undefined) {
      if (r.method === 'GET') return json(200, await webhooks.list(id));
      if (r.method === 'POST') return json(201, await webhooks.create(r.actor, id, await r.body()));
      throw methodNotAllowed(['GET', 'POST']);
    }
    if (r.method === 'PATCH') return json(200, await webhooks.update(r.actor, id, subId, await r.body()));
    if (r.method === 'DELETE') return json(200, await webhooks.delete(r.actor, id, subId));
    throw methodNotAllowed(['PATCH', 'DELETE']);
  }
  if (resource === 'applications' && id !== undefined && sub === 'marked-credentials' && subId === undefined) {
    if (r.method !== 'GET') throw methodNotAllowed(['GET']);
    const { limit, after } = credentialFilter(r.query);
    return json(200, await webhooks.marked(id, { ...(limit ? { limit } : {}), ...(after ? { after } : {}) }));
  }
  if (resource === 'webhooks' && id === 'dead-letters' && action === undefined) {
    if (sub === undefined) {
      if (r.method !== 'GET') throw methodNotAllowed(['GET']);
      const { limit, after } = credentialFilter(r.query);
      const clientId = r.query.get('clientId') ?? undefined;
      return json(
        200,
        await webhooks.deadLetters({
          ...(limit ? { limit } : {}),
          ...(after ? { after } : {}),
          ...(clientId ? { clientId } : {}),
        }),
      );
    }
    if (subId === 'resend') {
      if (r.method !== 'POST') throw methodNotAllowed(['POST']);
      return json(200, await webhooks.resend(r.actor, sub));
    }
  }
  return undefined;
}
