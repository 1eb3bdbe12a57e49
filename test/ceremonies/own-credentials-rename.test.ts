// Issue 33 item 7, the service's side: POST /api/credentials/rename over a real socket. The token's user
// names one of their passkeys (trimmed, 1 to 64 characters, null clears it); the answer and
// credentials/list show it as `nickname`; audited as credential.rename-own (refusals too); webhook
// passkey.updated. Another user's, another application's or an unknown id, a bad name, a bad token:
// refused, nothing changed.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AuditLog, createAuditHooks } from '../../src/audit/index.js';
import { MemoryAuditStore } from '../../src/stores/memory/audit.js';
import type { InjectResponse } from '../../src/http/app.js';
import { openApiDocument } from '../../src/admin/openapi.js';
import { checkResponse } from '../support/openapi-lookup.js';
import { CLIENT_ID, Flow, applicationConfig, expectFailure, expectOk, username } from '../support/harness.js';
import { captureLog, testRuntime } from '../support/admin-fixtures.js';
import { SocketHarness } from '../support/socket-harness.js';
import type { ApplicationConfig } from '../../src/service-config.js';
import { endpointsOf } from '../../src/webhooks/events.js';
import { OWN_NICKNAME_MAX } from '../../src/schemas/credentials.js';
import { NICKNAME_MAX } from '../../src/schemas/admin.js';

const RENAME = '/api/credentials/rename';
const LIST = '/api/credentials/list';
const DOCUMENT = openApiDocument();
const SECRET = `whsec_${Buffer.alloc(24, 3).toString('base64')}`;

/** What the stored directory of the operator features gives an application: its webhooks as endpoints. */
function withEndpoints(config: ApplicationConfig): ApplicationConfig {
  return { ...config, webhookEndpoints: endpointsOf(config, []) } as ApplicationConfig;
}

function conforms(res: InjectResponse): void {
  const contentType = res.headers['content-type'] ?? '';
  assert.deepEqual(
    checkResponse(DOCUMENT, { path: RENAME, method: 'POST', status: res.status, contentType, body: res.body }),
    [],
  );
}

describe('a user renames their own passkeys: POST /api/credentials/rename (real socket)', () => {
  const audit = new AuditLog(new MemoryAuditStore(), testRuntime(), captureLog());
  let h: SocketHarness;
  let aliceId: string;
  let aliceToken: string;
  let bobId: string;
  let bobToken: string;

  before(async () => {
    h = await SocketHarness.start({
      apps: [
        withEndpoints(applicationConfig({ webhooks: [{ url: 'https://hooks.example.test/in', secret: SECRET }] })),
      ],
      hooks: createAuditHooks(audit),
    });
    const alice = expectOk((await new Flow(h, username('alice')).register()).res);
    aliceId = alice.credentialId;
    aliceToken = alice.credentialsToken;
    const bob = expectOk((await new Flow(h, username('bob')).register()).res);
    bobId = bob.credentialId;
    bobToken = bob.credentialsToken;
  });
  after(async () => h.close());

  const rename = (body: Record<string, unknown>) =>
    h.post(RENAME, { username: username('alice'), credentialId: aliceId, credentialsToken: aliceToken, ...body });

  async function nicknameOf(id: string, user = 'alice', token = aliceToken): Promise<unknown> {
    const list = expectOk(await h.post(LIST, { username: username(user), credentialsToken: token }));
    return list.credentials.find((c: { credentialId: string }) => c.credentialId === id)?.nickname;
  }

  it('names the passkey (trimmed): the answer and the list show it as nickname', async () => {
    const res = await rename({ nickname: '  Work laptop  ' });
    conforms(res);
    const body = expectOk(res);
    assert.equal(body.username, username('alice'));
    assert.equal(body.credentialId, aliceId);
    assert.equal(body.nickname, 'Work laptop');
    assert.equal(await nicknameOf(aliceId), 'Work laptop');
  });

  it('takes 64 characters (code points, an emoji counts once) and clears with null', async () => {
    assert.equal(OWN_NICKNAME_MAX, 64);
    assert.equal(NICKNAME_MAX, 64);
    const long = `${'🔑'.repeat(4)}${'x'.repeat(60)}`;
    assert.equal(expectOk(await rename({ nickname: long })).nickname, long);
    assert.equal(expectOk(await rename({ nickname: null })).nickname, null);
    assert.equal(await nicknameOf(aliceId), null);
  });

  it('refuses a name outside the rule with INVALID_NICKNAME and a readable sentence, changing nothing', async () => {
    expectOk(await rename({ nickname: 'Phone' }));
    for (const nickname of ['', '   ', 'x'.repeat(65), 'tab\there', 'bell\u0007', 'half \uD800']) {
      const res = await rename({ nickname });
      const detail = expectFailure(res, 'INVALID_NICKNAME', 400);
      assert.match(detail, /1 to 64 characters/);
      conforms(res);
    }
    for (const body of [{ nickname: 5 }, { nickname: ['a'] }, {}]) {
      const res = await h.post(RENAME, {
        username: username('alice'),
        credentialId: aliceId,
        credentialsToken: aliceToken,
        ...body,
      });
      expectFailure(res, 'INVALID_REQUEST_BODY', 400);
    }
    assert.equal(await nicknameOf(aliceId), 'Phone');
  });

  it("refuses another user's credential, an unknown one and a wrong token alike, changing nothing", async () => {
    expectFailure(await rename({ credentialId: bobId, nickname: 'mine now' }), 'CREDENTIAL_ID_NOT_FOUND', 400);
    expectFailure(
      await rename({ credentialId: 'bm90LWEtY3JlZGVudGlhbA', nickname: 'x' }),
      'CREDENTIAL_ID_NOT_FOUND',
      400,
    );
    expectFailure(await rename({ credentialsToken: bobToken, nickname: 'x' }), 'CREDENTIALS_TOKEN_INVALID', 403);
    expectFailure(
      await h.post(RENAME, {
        username: username('bob'),
        credentialId: aliceId,
        credentialsToken: bobToken,
        nickname: 'x',
      }),
      'CREDENTIAL_ID_NOT_FOUND',
      400,
    );
    expectFailure(
      await h.post(
        RENAME,
        { username: 'alice#localhost', credentialId: aliceId, credentialsToken: aliceToken, nickname: 'x' },
        { origin: null },
      ),
      'VARIANT_NOT_ALLOWED',
      403,
    );
    assert.equal(await nicknameOf(bobId, 'bob', bobToken), null);
    assert.equal(await nicknameOf(aliceId), 'Phone');
  });

  it('audits every rename, refused ones too, with the credential it aimed at', async () => {
    await new Promise((resolve) => setImmediate(resolve));
    const events = await audit.query({ action: 'credential.rename-own', limit: 100 });
    const ok = events.filter((e) => e.result === 'ok');
    assert.ok(ok.length >= 4, JSON.stringify(events));
    assert.ok(
      ok.every((e) => e.actor === `client:${CLIENT_ID}` && e.subject === username('alice') && e.target === aliceId),
    );
    const refused = events.filter((e) => e.result === 'failed').map((e) => e.errorName);
    for (const name of [
      'INVALID_NICKNAME',
      'CREDENTIAL_ID_NOT_FOUND',
      'CREDENTIALS_TOKEN_INVALID',
      'INVALID_REQUEST_BODY',
    ])
      assert.ok(refused.includes(name), `${name} in ${refused}`);
    assert.ok(events.some((e) => e.result === 'failed' && e.target === bobId));
  });

  it('reports each rename as passkey.updated, with the change', async () => {
    const messages = await h.memoryCredentials.outbox.lease('test', h.clock.now() + 3_600_000, 60_000, 100);
    const updates = messages.filter((m) => m.type === 'passkey.updated').map((m) => JSON.parse(m.body));
    assert.ok(updates.length >= 4, JSON.stringify(messages.map((m) => m.type)));
    const [first] = updates;
    assert.equal(first.type, 'passkey.updated');
    assert.deepEqual(first.data, {
      clientId: CLIENT_ID,
      username: username('alice'),
      credentialId: aliceId,
      nickname: 'Work laptop',
      changes: { nickname: { from: null, to: 'Work laptop' } },
      by: 'user',
    });
    // Refusals change nothing and report nothing: one message per rename that went through.
    assert.equal(updates.length, 4);
  });
});
