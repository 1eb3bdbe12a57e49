// Relay secrets over a real socket (docs/api.md "Relay secrets"): an application with secrets answers
// 401 RELAY_SECRET_MISSING / RELAY_SECRET_INVALID on all six operations without or with a wrong
// `Authorization: Bearer`, before its body is looked at; any of several secrets is accepted (rotation);
// an application without secrets ignores the header. The secret never reaches a log line, an audit
// event, a metric or an answer.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AuditLog, createAuditHooks } from '../../src/audit/index.js';
import { MemoryAuditStore } from '../../src/stores/memory/audit.js';
import { relaySecretHash } from '../../src/config/relay-secret-entries.js';
import { createMetricsHooks } from '../../src/metrics/hooks.js';
import { MetricsRegistry } from '../../src/metrics/registry.js';
import { createRequestLogHooks } from '../../src/runtime/request-log.js';
import { composeHooks } from '../../src/runtime/hooks.js';
import { openApiDocument } from '../../src/admin/openapi.js';
import { checkResponse } from '../support/openapi-lookup.js';
import type { InjectResponse } from '../../src/http/app.js';
import { SocketHarness } from '../support/socket-harness.js';
import { captureLog, testRuntime } from '../support/admin-fixtures.js';
import { applicationConfig, expectFailure, expectOk, Flow, PATHS, username } from '../support/harness.js';

const SECRET = 'prs_rotation-old-0123456789abcdefghijklmnopqrstuvw';
const NEXT = 'prs_rotation-new-0123456789abcdefghijklmnopqrstuvw';
const OPEN_CLIENT = 'open-client';
const OPERATIONS = [...Object.values(PATHS), '/api/credentials/list', '/api/credentials/delete'];
const DOCUMENT = openApiDocument();

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

function refused(res: InjectResponse, name: string, path: string): void {
  expectFailure(res, name, 401);
  assert.equal(res.headers['www-authenticate'], 'Bearer realm="passkey-server"');
  assert.deepEqual(
    checkResponse(DOCUMENT, {
      path,
      method: 'POST',
      status: res.status,
      contentType: res.headers['content-type'] ?? '',
      body: res.body,
      headers: res.headers,
    }),
    [],
  );
}

describe('relay secrets (real socket)', () => {
  const log = captureLog();
  const audit = new AuditLog(new MemoryAuditStore(), testRuntime(), log);
  const registry = new MetricsRegistry();
  const answers: string[] = [];
  let h: SocketHarness;

  before(async () => {
    h = await SocketHarness.start({
      apps: [
        applicationConfig({ relaySecrets: [relaySecretHash(SECRET), relaySecretHash(NEXT)] }),
        applicationConfig({ clientId: OPEN_CLIENT }),
      ],
      hooks: composeHooks(
        createRequestLogHooks(log),
        createMetricsHooks(registry),
        createAuditHooks(audit, { options: 'all' }),
      ),
    });
    const post = h.post.bind(h);
    h.post = async (...args) => {
      const res = await post(...args);
      answers.push(JSON.stringify(res.headers), res.body);
      return res;
    };
  });
  after(async () => h.close());

  it('refuses every operation without the header: 401 RELAY_SECRET_MISSING, before the body is read', async () => {
    for (const path of OPERATIONS) {
      refused(await h.post(path, { username: username('alice') }), 'RELAY_SECRET_MISSING', path);
      // Not JSON, wrong media type: the secret is checked first.
      refused(
        await h.post(path, '{not json', { headers: { 'content-type': 'text/plain' } }),
        'RELAY_SECRET_MISSING',
        path,
      );
      refused(await h.post(path, {}, { headers: { authorization: `Basic ${SECRET}` } }), 'RELAY_SECRET_MISSING', path);
    }
  });

  it('refuses a wrong secret: 401 RELAY_SECRET_INVALID', async () => {
    for (const path of OPERATIONS) {
      refused(await h.post(path, '{not json', { headers: bearer(`${SECRET}x`) }), 'RELAY_SECRET_INVALID', path);
      refused(await h.post(path, {}, { headers: bearer('short') }), 'RELAY_SECRET_INVALID', path);
    }
    // Its hash is not the secret.
    refused(
      await h.post(PATHS.assertionOptions, {}, { headers: bearer(relaySecretHash(SECRET).slice(7)) }),
      'RELAY_SECRET_INVALID',
      PATHS.assertionOptions,
    );
  });

  it('accepts either secret (rotation): a registration with one, the sign-in and list with the other', async () => {
    const alice = new Flow(h, username('alice'));
    const withOld = { headers: bearer(SECRET) };
    const withNew = { headers: bearer(NEXT) };
    const options = expectOk(await h.post(PATHS.attestationOptions, { username: alice.user }, withOld));
    const made = alice.authenticator.register(options);
    const registered = expectOk(await h.post(PATHS.attestationResult, made, withNew));
    const request = expectOk(await h.post(PATHS.assertionOptions, { username: alice.user }, withNew));
    const signedIn = expectOk(await h.post(PATHS.assertionResult, alice.authenticator.authenticate(request), withOld));
    const listed = expectOk(
      await h.post(
        '/api/credentials/list',
        { username: alice.user, credentialsToken: signedIn.credentialsToken },
        withNew,
      ),
    );
    assert.deepEqual(
      listed.credentials.map((c: { credentialId: string }) => c.credentialId),
      [registered.credentialId],
    );
  });

  it('an application without relay secrets keeps answering without the header, and ignores one', async () => {
    const res = await h.post(PATHS.attestationOptions, { username: username('bob') }, { clientId: OPEN_CLIENT });
    expectOk(res);
    expectOk(
      await h.post(
        PATHS.attestationOptions,
        { username: username('bob') },
        { clientId: OPEN_CLIENT, headers: bearer('anything-at-all') },
      ),
    );
  });

  it('the secret never appears in a log line, an audit event, a metric or an answer', async () => {
    const events = await audit.query({ limit: 1000 });
    assert.ok(events.some((event) => event.errorName === 'RELAY_SECRET_INVALID'));
    const everything = [
      JSON.stringify(log.lines),
      JSON.stringify(h.logs),
      JSON.stringify(h.outcomes),
      JSON.stringify(events),
      await registry.expose(),
      ...answers,
    ].join('\n');
    assert.ok(everything.includes('RELAY_SECRET_MISSING'));
    for (const secret of [SECRET, NEXT]) {
      assert.equal(everything.includes(secret), false);
      assert.equal(everything.includes(relaySecretHash(secret).slice(7)), false);
    }
  });
});
