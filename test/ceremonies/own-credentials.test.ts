// A user's own passkeys over a real socket (docs/api.md "A user's own passkeys"): POST /api/credentials/list
// and /delete with the credentialsToken of a recent ok result. Refusals: another user's credential (as if
// it did not exist), another application's, an unknown id, another user's or application's token, an
// altered, missing or expired token, the local variant, an origin not listed. Deletions are audited.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AuditLog, createAuditHooks } from '../../src/audit/index.js';
import { MemoryAuditStore } from '../../src/stores/memory/audit.js';
import { CREDENTIALS_TOKEN_MS } from '../../src/ceremonies/credentials-token.js';
import type { InjectResponse } from '../../src/http/app.js';
import { checkResponse } from '../support/openapi-lookup.js';
import { openApiDocument } from '../../src/admin/openapi.js';
import {
  CLIENT_ID,
  DOMAIN,
  Flow,
  ORIGIN,
  applicationConfig,
  expectFailure,
  expectOk,
  username,
} from '../support/harness.js';
import { captureLog, testRuntime } from '../support/admin-fixtures.js';
import { SocketHarness } from '../support/socket-harness.js';

const LIST = '/api/credentials/list';
const DELETE = '/api/credentials/delete';
const OTHER_CLIENT = 'other-client';
const OTHER_ORIGIN = 'https://other.example.test';
const DOCUMENT = openApiDocument();

function conforms(path: string, res: InjectResponse): void {
  assert.deepEqual(
    checkResponse(DOCUMENT, {
      path,
      method: 'POST',
      status: res.status,
      contentType: res.headers['content-type'] ?? '',
      body: res.body,
    }),
    [],
  );
}

/** A failure that says nothing about whose credential or token it was: the bare envelope. */
function refused(res: InjectResponse, name: string, status: number, path: string): void {
  expectFailure(res, name, status);
  assert.deepEqual(Object.keys(res.json()).sort(), ['errorMessage', 'sessionId', 'status']);
  conforms(path, res);
}

describe("a user's own passkeys: list and delete with a recent sign-in (real socket)", () => {
  const audit = new AuditLog(new MemoryAuditStore(), testRuntime(), captureLog());
  let h: SocketHarness;
  let alice: Flow;
  let aliceIds: string[];
  let aliceToken: string;
  let bobId: string;
  let bobToken: string;
  let otherToken: string;
  let otherId: string;

  before(async () => {
    h = await SocketHarness.start({
      apps: [
        applicationConfig(),
        applicationConfig({ clientId: OTHER_CLIENT, domain: 'other.example.test', origins: [OTHER_ORIGIN] }),
      ],
      hooks: createAuditHooks(audit),
    });
    alice = new Flow(h, username('alice'));
    const first = await alice.register({}, { displayName: 'Alice' });
    h.clock.advance(1000);
    const second = await alice.register({}, { displayName: 'Alice Example' });
    aliceIds = [first.credential.id, second.credential.id];
    // The token of a sign-in (a registration's is as good: both are ok results of this user).
    aliceToken = expectOk((await alice.authenticate({ credentialId: aliceIds[0] })).res).credentialsToken;
    const bob = new Flow(h, username('bob'));
    const bobs = expectOk((await bob.register()).res);
    bobId = bobs.credentialId;
    bobToken = bobs.credentialsToken;
    const other = new Flow(h, username('alice', 'other.example.test'), {}, OTHER_ORIGIN);
    const theirs = await other.attestationOptions({}, { clientId: OTHER_CLIENT });
    const made = other.authenticator.register(theirs);
    const answer = expectOk(
      await h.post('/api/attestation/result', made, { clientId: OTHER_CLIENT, origin: OTHER_ORIGIN }),
    );
    otherToken = answer.credentialsToken;
    otherId = answer.credentialId;
  });
  after(async () => h.close());

  it('ok results carry a credentialsToken (standard variant)', () => {
    assert.match(aliceToken, /^v1\.[0-9a-z]+\.[A-Za-z0-9_-]{43}$/);
    assert.notEqual(aliceToken, bobToken);
  });

  it("lists the user's credentials with names, sync state and dates, and the signals", async () => {
    const res = await h.post(LIST, { username: username('alice'), credentialsToken: aliceToken });
    conforms(LIST, res);
    const body = expectOk(res);
    assert.equal(body.username, 'alice#idp.example.test');
    assert.deepEqual(
      body.credentials.map((c: any) => c.credentialId),
      aliceIds,
    );
    const [first] = body.credentials;
    assert.equal(first.backupEligible, false);
    assert.equal(first.discoverable, true);
    assert.equal(first.authenticatorVerified, false);
    assert.equal(typeof first.createdAt, 'string');
    assert.equal(typeof first.lastUsedAt, 'string');
    assert.equal(body.credentials[1].lastUsedAt, null);
    assert.deepEqual(body.signals.allAcceptedCredentials.allAcceptedCredentialIds, aliceIds);
    // The newest registration's display name: what the IdP said last.
    assert.equal(body.signals.currentUserDetails.displayName, 'Alice Example');
  });

  it("refuses another user's credential as if it did not exist, and deletes nothing", async () => {
    const theirs = await h.post(DELETE, {
      username: username('alice'),
      credentialId: bobId,
      credentialsToken: aliceToken,
    });
    const unknown = await h.post(DELETE, {
      username: username('alice'),
      credentialId: 'bm90LWEtY3JlZGVudGlhbA',
      credentialsToken: aliceToken,
    });
    refused(theirs, 'CREDENTIAL_ID_NOT_FOUND', 400, DELETE);
    refused(unknown, 'CREDENTIAL_ID_NOT_FOUND', 400, DELETE);
    assert.equal(theirs.json().errorMessage[1], unknown.json().errorMessage[1]);
    assert.ok(await h.deps.credentials.find(CLIENT_ID, bobId));
  });

  it("refuses another application's credential, and a token of another application or user", async () => {
    refused(
      await h.post(DELETE, { username: username('alice'), credentialId: otherId, credentialsToken: aliceToken }),
      'CREDENTIAL_ID_NOT_FOUND',
      400,
      DELETE,
    );
    // The other application's token for its own "alice" does not open this application's alice.
    refused(
      await h.post(LIST, { username: username('alice'), credentialsToken: otherToken }),
      'CREDENTIALS_TOKEN_INVALID',
      403,
      LIST,
    );
    // Bob's token names bob: it cannot be used for alice, even with bob's own credential id.
    refused(
      await h.post(DELETE, { username: username('alice'), credentialId: bobId, credentialsToken: bobToken }),
      'CREDENTIALS_TOKEN_INVALID',
      403,
      DELETE,
    );
    refused(
      await h.post(LIST, { username: username('alice'), credentialsToken: bobToken }),
      'CREDENTIALS_TOKEN_INVALID',
      403,
      LIST,
    );
    assert.ok(await h.deps.credentials.find(OTHER_CLIENT, otherId));
  });

  it('refuses a missing, made-up or altered token', async () => {
    refused(await h.post(LIST, { username: username('alice') }), 'INVALID_REQUEST_BODY', 400, LIST);
    refused(
      await h.post(LIST, { username: username('alice'), credentialsToken: 'anything' }),
      'CREDENTIALS_TOKEN_INVALID',
      403,
      LIST,
    );
    const [version, expiry, mac] = aliceToken.split('.');
    const later = `${version}.${(Number.parseInt(expiry!, 36) + 3_600_000).toString(36)}.${mac}`;
    refused(
      await h.post(LIST, { username: username('alice'), credentialsToken: later }),
      'CREDENTIALS_TOKEN_INVALID',
      403,
      LIST,
    );
    const flipped = `${version}.${expiry}.${mac!.startsWith('A') ? 'B' : 'A'}${mac!.slice(1)}`;
    refused(
      await h.post(LIST, { username: username('alice'), credentialsToken: flipped }),
      'CREDENTIALS_TOKEN_INVALID',
      403,
      LIST,
    );
  });

  it("needs the application's origin and the standard variant, like the four operations", async () => {
    refused(
      await h.post(LIST, { username: username('alice'), credentialsToken: aliceToken }, { origin: null }),
      'ORIGIN_HEADER_MISSING',
      400,
      LIST,
    );
    refused(
      await h.post(
        LIST,
        { username: username('alice'), credentialsToken: aliceToken },
        { origin: 'https://evil.example' },
      ),
      'ORIGIN_NOT_ALLOWED',
      403,
      LIST,
    );
    refused(
      await h.post(LIST, { username: 'alice#localhost', credentialsToken: aliceToken }, { origin: null }),
      'VARIANT_NOT_ALLOWED',
      403,
      LIST,
    );
    refused(
      await h.post(LIST, { username: username('alice'), credentialsToken: aliceToken }, { clientId: 'nobody' }),
      'CLIENT_ID_UNKNOWN',
      403,
      LIST,
    );
  });

  it("deletes one of the user's own credentials, answers those left, and audits it", async () => {
    const res = await h.post(DELETE, {
      username: username('alice'),
      credentialId: aliceIds[1],
      credentialsToken: aliceToken,
    });
    conforms(DELETE, res);
    const body = expectOk(res);
    assert.equal(body.credentialId, aliceIds[1]);
    assert.deepEqual(body.signals.allAcceptedCredentials, {
      rpId: DOMAIN,
      userId: alice.authenticator.credential(aliceIds[0]!)!.userHandle.toString('base64url'),
      allAcceptedCredentialIds: [aliceIds[0]],
    });
    assert.equal(await h.deps.credentials.find(CLIENT_ID, aliceIds[1]!), undefined);
    // Again: it is gone, the same answer as any id that is not hers.
    refused(
      await h.post(DELETE, { username: username('alice'), credentialId: aliceIds[1], credentialsToken: aliceToken }),
      'CREDENTIAL_ID_NOT_FOUND',
      400,
      DELETE,
    );
    const events = await audit.query({ action: 'credential.delete-own', limit: 10 });
    const ok = events.find((e) => e.result === 'ok');
    assert.equal(ok?.actor, `client:${CLIENT_ID}`);
    assert.equal(ok?.subject, 'alice#idp.example.test');
    assert.equal(ok?.target, aliceIds[1]);
    assert.ok(events.some((e) => e.result === 'failed' && e.errorName === 'CREDENTIAL_ID_NOT_FOUND'));
    // A listing that succeeds is not an event; one that fails is.
    assert.equal(
      (await audit.query({ action: 'credential.list-own', limit: 50 })).every((e) => e.result === 'failed'),
      true,
    );
  });

  it('a delete refused for its token is audited with the credential it aimed at', async () => {
    const altered = `${bobToken.slice(0, -2)}${bobToken.endsWith('AA') ? 'BB' : 'AA'}`;
    const res = await h.post(DELETE, { username: username('bob'), credentialId: bobId, credentialsToken: altered });
    assert.equal(res.status >= 400 && res.status < 500, true, res.body);
    await new Promise((resolve) => setImmediate(resolve));
    const events = await audit.query({ action: 'credential.delete-own', limit: 50 });
    const refusal = events.find((e) => e.result === 'failed' && e.subject === username('bob'));
    assert.ok(refusal, JSON.stringify(events));
    assert.equal(refusal.target, bobId);
  });

  it('refuses an expired token: 10 minutes after the sign-in that issued it', async () => {
    h.clock.advance(CREDENTIALS_TOKEN_MS - 1);
    expectOk(await h.post(LIST, { username: username('bob'), credentialsToken: bobToken }));
    h.clock.advance(1);
    refused(
      await h.post(LIST, { username: username('bob'), credentialsToken: bobToken }),
      'CREDENTIALS_TOKEN_EXPIRED',
      403,
      LIST,
    );
    refused(
      await h.post(DELETE, { username: username('bob'), credentialId: bobId, credentialsToken: bobToken }),
      'CREDENTIALS_TOKEN_EXPIRED',
      403,
      DELETE,
    );
    assert.ok(await h.deps.credentials.find(CLIENT_ID, bobId));
    assert.equal(ORIGIN, 'https://idp.example.test');
  });
});
