// Issue 33 item 1, the service's side: `applications[].addPasskey: "signed-in"` over a real socket. A name
// that already has a passkey gets attestation options only with the credentials token of that user's recent
// sign-in; without it, with another user's, an altered or an expired one: 400 SIGN_IN_REQUIRED, no challenge
// stored, the refusal audited. A name without a passkey registers as before; the default (`any`) is the
// specification's API, unchanged.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AuditLog, createAuditHooks } from '../../src/audit/index.js';
import { MemoryAuditStore } from '../../src/stores/memory/audit.js';
import { CREDENTIALS_TOKEN_MS } from '../../src/ceremonies/credentials-token.js';
import { openApiDocument } from '../../src/admin/openapi.js';
import { checkResponse } from '../support/openapi-lookup.js';
import { CLIENT_ID, Flow, applicationConfig, expectFailure, expectOk, username } from '../support/harness.js';
import { captureLog, testRuntime } from '../support/admin-fixtures.js';
import { SocketHarness } from '../support/socket-harness.js';

const OPTIONS = '/api/attestation/options';
const OPEN_CLIENT = 'open-client';
const DOCUMENT = openApiDocument();

describe('addPasskey "signed-in": only the signed-in user adds a passkey to their name (real socket)', () => {
  const audit = new AuditLog(new MemoryAuditStore(), testRuntime(), captureLog());
  let h: SocketHarness;
  let alice: Flow;
  let aliceToken: string;
  let bobToken: string;

  before(async () => {
    h = await SocketHarness.start({
      apps: [applicationConfig({ addPasskey: 'signed-in' }), applicationConfig({ clientId: OPEN_CLIENT })],
      hooks: createAuditHooks(audit),
    });
    alice = new Flow(h, username('alice'));
    // A name without a passkey registers as before, and its first registration earns a token.
    aliceToken = expectOk((await alice.register()).res).credentialsToken;
    bobToken = expectOk((await new Flow(h, username('bob')).register()).res).credentialsToken;
  });
  after(async () => h.close());

  async function refusedWith(body: Record<string, unknown>, detail: RegExp): Promise<void> {
    const before = await h.snapshot();
    const res = await h.post(OPTIONS, { username: username('alice'), ...body });
    assert.match(expectFailure(res, 'SIGN_IN_REQUIRED', 400), detail);
    assert.deepEqual(
      checkResponse(DOCUMENT, {
        path: OPTIONS,
        method: 'POST',
        status: res.status,
        contentType: res.headers['content-type'] ?? '',
        body: res.body,
      }),
      [],
    );
    assert.equal(await h.snapshot(), before, 'no challenge stored');
  }

  it('refuses a stranger: no token, 400 SIGN_IN_REQUIRED, nothing stored', async () => {
    await refusedWith({}, /credentialsToken is missing/);
  });

  it("refuses another user's token and an altered one", async () => {
    await refusedWith({ credentialsToken: bobToken }, /not issued for this user/);
    const flipped = `${aliceToken.slice(0, -1)}${aliceToken.endsWith('A') ? 'B' : 'A'}`;
    await refusedWith({ credentialsToken: flipped }, /not issued for this user/);
    await refusedWith({ credentialsToken: 'v1.zzz.nothing' }, /not issued for this user/);
  });

  it('lets the signed-in owner add a passkey with the token of their sign-in', async () => {
    const signedIn = expectOk((await alice.authenticate()).res).credentialsToken;
    const second = await alice.register({}, { credentialsToken: signedIn });
    expectOk(second.res);
    assert.equal(second.options.excludeCredentials.length, 1);
  });

  it('refuses an expired token: 10 minutes after the sign-in', async () => {
    const signedIn = expectOk((await alice.authenticate()).res).credentialsToken;
    h.clock.advance(CREDENTIALS_TOKEN_MS);
    await refusedWith({ credentialsToken: signedIn }, /has expired/);
  });

  it('audits every refusal as a failed registration options call', async () => {
    await new Promise((resolve) => setImmediate(resolve));
    const events = await audit.query({ action: 'ceremony.registration.options', limit: 50 });
    const refusals = events.filter((e) => e.errorName === 'SIGN_IN_REQUIRED');
    assert.equal(refusals.length, 5, JSON.stringify(events));
    for (const event of refusals) {
      assert.equal(event.result, 'failed');
      assert.equal(event.clientId, CLIENT_ID);
      assert.equal(event.subject, username('alice'));
    }
  });

  it('the default, "any", is the specification\'s API: anyone may ask for a name with a passkey', async () => {
    const other = new Flow(h, username('carol'));
    const first = await h.post(OPTIONS, { username: username('carol') }, { clientId: OPEN_CLIENT });
    expectOk(first);
    const made = other.authenticator.register(first.json());
    expectOk(await h.post('/api/attestation/result', made, { clientId: OPEN_CLIENT }));
    const again = expectOk(await h.post(OPTIONS, { username: username('carol') }, { clientId: OPEN_CLIENT }));
    assert.equal(again.excludeCredentials.length, 1);
  });
});
