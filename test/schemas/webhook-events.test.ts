// The webhook events' one catalogue (src/schemas/webhook-events.ts) is what the rest says: docs/admin.md's
// table is the catalogue written out, the OpenAPI document's `webhooks` list every type with its body, and
// the admin API's and config file's event lists are its types.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '../../src/admin/openapi.js';
import { compile } from '../../src/schemas/typebox.js';
import {
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_EVENTS,
  webhookBodySchema,
  withWebhookEventsTable,
} from '../../src/schemas/webhook-events.js';
import { WebhookEventTypeSchema } from '../../src/schemas/webhook-shapes.js';
import { eventProblems } from '../support/webhook-receiver.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const doc = readFileSync(join(repo, 'docs', 'admin.md'), 'utf8');

describe('the webhook events catalogue', () => {
  it('docs/admin.md holds its table (regenerate: node scripts/gen-webhook-events-doc.mjs)', () => {
    assert.equal(doc, withWebhookEventsTable(doc));
    for (const type of WEBHOOK_EVENT_TYPES) assert.ok(doc.includes(`| \`${type}\` |`), type);
  });

  it('the OpenAPI document lists every event type with its body schema', () => {
    const webhooks = openApiDocument().webhooks as Record<string, { post: { requestBody: { content: object } } }>;
    assert.deepEqual(Object.keys(webhooks), WEBHOOK_EVENT_TYPES);
    const body = webhooks['user.deleted']!.post.requestBody.content as Record<
      string,
      { schema: { properties: object } }
    >;
    assert.deepEqual(Object.keys(body['application/json']!.schema.properties), ['type', 'timestamp', 'data']);
  });

  it('the admin API and the config file take exactly its types', () => {
    const check = compile(WebhookEventTypeSchema);
    for (const type of WEBHOOK_EVENT_TYPES) assert.ok(check.check(type), type);
    assert.equal(check.check('credential.renamed'), false);
  });

  it("checks a body against its type's data schema", () => {
    const data = { clientId: 'app', username: 'alice', credentialId: 'AAAA', by: 'admin' };
    const event = { type: 'credential.deleted', timestamp: '2026-01-01T00:00:00Z', data };
    assert.deepEqual(eventProblems(event), []);
    assert.notDeepEqual(eventProblems({ ...event, data: { ...data, by: 'robot' } }), []);
    assert.notDeepEqual(eventProblems({ ...event, data: { ...data, extra: 1 } }), []);
    assert.notDeepEqual(eventProblems({ ...event, type: 'credential.renamed' }), []);
    assert.ok(compile(webhookBodySchema('credential.deleted')).check(event));
    assert.equal(Object.keys(WEBHOOK_EVENTS).length, WEBHOOK_EVENT_TYPES.length);
  });
});
