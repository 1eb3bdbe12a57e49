// The local (development) variant through the HTTP app: username "…#localhost", rp.id/rpId "localhost", no
// origin header, nothing stored, the sealed `localhost` blob carried by the caller.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  Flow,
  Harness,
  LOCAL_ORIGIN,
  PATHS,
  applicationConfig,
  expectFailure,
  expectOk,
} from '../../support/harness.js';

const localUser = (user: string) => `${user}#localhost`;
const OMIT = Symbol('omit');

/** A local flow: no origin header, browser origin https://localhost:8443, the relay's extensions.localhost. */
class LocalFlow extends Flow {
  blob: string | undefined;

  constructor(h: Harness, user: string, options: ConstructorParameters<typeof Flow>[2] = {}) {
    super(h, localUser(user), options, LOCAL_ORIGIN);
  }

  override async attestationOptions(body: Record<string, unknown> = {}): Promise<any> {
    return super.attestationOptions(body, { origin: null });
  }

  override async assertionOptions(body: Record<string, unknown> = {}): Promise<any> {
    return super.assertionOptions(body, { origin: null });
  }

  /** `mark` is what the relay puts into extensions.localhost; OMIT leaves it out. */
  async registerLocal(mark: unknown = true, registerOptions: Parameters<Flow['register']>[0] = {}) {
    const options = await this.attestationOptions();
    const credential: any = JSON.parse(JSON.stringify(this.authenticator.register(options, registerOptions)));
    if (mark !== OMIT) credential.extensions = { ...credential.extensions, localhost: mark };
    const res = await this.h.post(PATHS.attestationResult, credential, { origin: null });
    if (res.status === 200) this.blob = res.json().localhost;
    return { res, options, credential };
  }

  async authenticateLocal(blob: unknown = this.blob, authenticateOptions: Parameters<Flow['authenticate']>[0] = {}) {
    const options = await this.assertionOptions();
    const credentialId = this.authenticator.credentials[0]
      ? this.authenticator.credentials[0].id.toString('base64url')
      : undefined;
    const credential: any = JSON.parse(
      JSON.stringify(
        this.authenticator.authenticate(options, { ...(credentialId && { credentialId }), ...authenticateOptions }),
      ),
    );
    if (blob !== undefined) credential.extensions = { localhost: blob };
    const res = await this.h.post(PATHS.assertionResult, credential, { origin: null });
    return { res, options, credential };
  }
}

describe('local variant', () => {
  it('options: rp.id and rpId are "localhost", excludeCredentials [], allowCredentials a stand-in before any registration', async () => {
    const h = new Harness();
    const flow = new LocalFlow(h, 'dev');
    const creation = await flow.attestationOptions();
    assert.equal(creation.rp.id, 'localhost');
    assert.equal(creation.user.name, 'dev#localhost');
    assert.deepEqual(creation.excludeCredentials, []);
    const request = await flow.assertionOptions();
    assert.equal(request.rpId, 'localhost');
    // Nothing registered yet: one stand-in, as for an unknown user of the standard variant.
    assert.equal(request.allowCredentials.length, 1);
    assert.deepEqual(request.allowCredentials[0].transports, ['hybrid', 'internal']);
  });

  it('registers (answering the sealed blob as `localhost`), stores nothing, then signs in twice with the blob', async () => {
    const h = new Harness();
    const flow = new LocalFlow(h, 'dev');
    const { res, credential } = await flow.registerLocal();
    const body = expectOk(res);
    assert.match(body.localhost, /^[A-Za-z0-9_-]+$/);
    assert.equal(await h.deps.credentials.find('test-client', credential.id), undefined);
    expectOk((await flow.authenticateLocal()).res);
    expectOk((await flow.authenticateLocal()).res);
    assert.deepEqual(
      h.outcomes.map((o) => o.variant),
      ['local', 'local', 'local', 'local', 'local', 'local'],
    );
  });

  it('accepts any counter, even one that does not increase (the service cannot track it)', async () => {
    const flow = new LocalFlow(new Harness(), 'dev', { counter: { start: 50 } });
    await flow.registerLocal();
    expectOk((await flow.authenticateLocal(undefined, { signCount: 1 })).res);
    expectOk((await flow.authenticateLocal(undefined, { signCount: 1 })).res);
  });

  it('an attestation result without extensions.localhost = true → LOCAL_EXTENSION_MISSING', async () => {
    const h = new Harness();
    const missing = new LocalFlow(h, 'dev');
    // Without the marker the call claims the standard variant: no origin header → refused before the ceremony.
    const detail = expectFailure((await missing.registerLocal(OMIT)).res, 'ORIGIN_HEADER_MISSING', 400);
    // The name is the standard variant's; the text also names the local relay's mistake.
    assert.match(detail, /origin header/);
    assert.match(detail, /extensions\.localhost: true/);
    const wrongValue = new LocalFlow(h, 'dev2');
    expectFailure((await wrongValue.registerLocal('yes')).res, 'LOCAL_EXTENSION_MISSING', 400);
  });

  it('a local ceremony finished through the standard door (origin header, no marker) → LOCAL_EXTENSION_MISSING', async () => {
    const h = new Harness();
    const flow = new LocalFlow(h, 'dev');
    const options = await flow.attestationOptions();
    const credential = flow.authenticator.register(options);
    expectFailure(await h.post(PATHS.attestationResult, credential), 'LOCAL_EXTENSION_MISSING', 400);
  });

  it('a standard ceremony finished with extensions.localhost → LOCAL_EXTENSION_UNEXPECTED', async () => {
    const h = new Harness();
    const flow = new Flow(h, 'std#idp.example.test');
    const options = await flow.attestationOptions();
    const credential: any = flow.authenticator.register(options);
    credential.extensions = { localhost: true };
    expectFailure(
      await h.post(PATHS.attestationResult, credential, { origin: null }),
      'LOCAL_EXTENSION_UNEXPECTED',
      400,
    );
  });

  it('clientDataJSON.origin must be one of localOrigins (an entry without a port allows any port)', async () => {
    const h = new Harness();
    for (const origin of ['https://localhost', 'https://localhost:8443', 'https://localhost:3000']) {
      const flow = new LocalFlow(h, `port${origin.length}`);
      expectOk((await flow.registerLocal(true, { origin })).res);
    }
    for (const origin of ['http://localhost:8443', 'https://evil.example', 'https://localhost.evil.example']) {
      const flow = new LocalFlow(h, 'bad');
      expectFailure((await flow.registerLocal(true, { origin })).res, 'ORIGIN_NOT_MATCHED', 400);
    }
    const pinned = new Harness({ apps: [applicationConfig({ localOrigins: ['https://localhost:8443'] })] });
    expectOk((await new LocalFlow(pinned, 'p').registerLocal(true, { origin: 'https://localhost:8443' })).res);
    expectFailure(
      (await new LocalFlow(pinned, 'q').registerLocal(true, { origin: 'https://localhost:9443' })).res,
      'ORIGIN_NOT_MATCHED',
      400,
    );
  });

  it('an assertion without the blob → LOCAL_BLOB_MISSING; true instead of the blob → LOCAL_BLOB_NOT_STRING', async () => {
    const h = new Harness();
    const flow = new LocalFlow(h, 'dev');
    await flow.registerLocal();
    const options = await flow.assertionOptions();
    const assertion = flow.authenticator.authenticate(options);
    const detail = expectFailure(
      await h.post(PATHS.assertionResult, assertion, { origin: null }),
      'ORIGIN_HEADER_MISSING',
      400,
    );
    assert.match(detail, /origin header/);
    assert.match(detail, /extensions\.localhost: the blob/);
    expectFailure(await h.post(PATHS.assertionResult, assertion), 'LOCAL_BLOB_MISSING', 400);
    expectFailure((await flow.authenticateLocal(true)).res, 'LOCAL_BLOB_NOT_STRING', 400);
  });

  it("a tampered blob → LOCAL_BLOB_TAMPERED; another user's blob → LOCAL_BLOB_CREDENTIAL_MISMATCH / LOCAL_BLOB_USER_MISMATCH", async () => {
    const h = new Harness();
    const alice = new LocalFlow(h, 'alice');
    const bob = new LocalFlow(h, 'bob');
    await alice.registerLocal();
    await bob.registerLocal();
    const blob = alice.blob!;
    const tampered = `${blob.slice(0, -6)}${blob.slice(-6, -5) === 'A' ? 'B' : 'A'}${blob.slice(-5)}`;
    expectFailure((await alice.authenticateLocal(tampered)).res, 'LOCAL_BLOB_TAMPERED', 400);
    // Bob's authenticator signs with Bob's credential but presents Alice's blob.
    expectFailure((await bob.authenticateLocal(alice.blob)).res, 'LOCAL_BLOB_CREDENTIAL_MISMATCH', 400);
    // Alice's credential and blob, but in a ceremony for Bob.
    const options = await bob.assertionOptions();
    const assertion: any = alice.authenticator.authenticate(options, {
      credentialId: alice.authenticator.credentials[0]!.id.toString('base64url'),
    });
    assertion.extensions = { localhost: alice.blob };
    expectFailure(await h.post(PATHS.assertionResult, assertion, { origin: null }), 'LOCAL_BLOB_USER_MISMATCH', 400);
  });

  it('a blob of another application → LOCAL_BLOB_APPLICATION_MISMATCH', async () => {
    const h = new Harness({ apps: [applicationConfig(), applicationConfig({ clientId: 'second' })] });
    const flow = new LocalFlow(h, 'dev');
    await flow.registerLocal();
    const options = expectOk(
      await h.post(PATHS.assertionOptions, { username: localUser('dev') }, { origin: null, clientId: 'second' }),
    );
    const assertion: any = flow.authenticator.authenticate(options, {
      credentialId: flow.authenticator.credentials[0]!.id.toString('base64url'),
    });
    assertion.extensions = { localhost: flow.blob };
    expectFailure(
      await h.post(PATHS.assertionResult, assertion, { origin: null, clientId: 'second' }),
      'LOCAL_BLOB_APPLICATION_MISMATCH',
      400,
    );
  });

  it('a bad signature with a good blob → ASSERTION_SIGNATURE_VERIFICATION_FAIL', async () => {
    const flow = new LocalFlow(new Harness(), 'dev');
    await flow.registerLocal();
    expectFailure(
      (await flow.authenticateLocal(undefined, { breaks: 'flipSignature' })).res,
      'ASSERTION_SIGNATURE_VERIFICATION_FAIL',
      400,
    );
  });

  it('rpIdHash must be of "localhost" → RPID_HASH_NOT_MATCHED otherwise', async () => {
    const flow = new LocalFlow(new Harness(), 'dev');
    expectFailure((await flow.registerLocal(true, { breaks: 'rpIdHash' })).res, 'RPID_HASH_NOT_MATCHED', 400);
  });
});
