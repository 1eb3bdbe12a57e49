// RFC 9864's fully-specified COSE identifiers (issue 35 item 7) over a real socket: ESP256 (-9), ESP384
// (-51), ESP512 (-52) and Ed25519 (-19), with real keys made here, are offered where an application's
// `algorithms` lists them (and only there), registered (none and packed self attestation) and signed in with
// twice; a key whose COSE `alg` disagrees with its curve or key type is refused as before, and so is an
// identifier the application does not list; a refusal stores nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServiceServer } from '../../src/http/server.js';
import type { InjectResponse } from '../../src/http/app.js';
import { DEFAULT_ALGORITHMS } from '../../src/schemas/values.js';
import { generateKeyPairFor } from '../support/soft-authenticator.js';
import {
  CLIENT_ID,
  expectFailure,
  expectOk,
  Flow,
  Harness,
  type HarnessOptions,
  type RequestOptions,
  applicationConfig,
  username,
} from '../support/harness.js';

const FULLY_SPECIFIED = [
  { alg: -9, name: 'ESP256' },
  { alg: -51, name: 'ESP384' },
  { alg: -52, name: 'ESP512' },
  { alg: -19, name: 'Ed25519' },
] as const;

/** The harness's service behind a listening node:http server: every call goes over the socket. */
class SocketHarness extends Harness {
  server: Server | undefined;
  url = '';

  constructor(options: HarnessOptions) {
    super(options);
  }

  async listen(): Promise<void> {
    this.server = createServiceServer(this.app);
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  override async post(path: string, body: unknown, options: RequestOptions = {}): Promise<InjectResponse> {
    const response = await fetch(`${this.url}${path}`, {
      method: 'POST',
      headers: this.headers(options),
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: text,
      json: () => JSON.parse(text),
    };
  }
}

describe('RFC 9864 fully-specified algorithms over a socket', () => {
  const listed = [-7, ...FULLY_SPECIFIED.map((a) => a.alg)];
  const h = new SocketHarness({
    apps: [applicationConfig({ algorithms: listed }), applicationConfig({ clientId: 'plain', name: 'Plain' })],
  });
  before(() => h.listen());
  after(() => h.close());

  it('are offered in pubKeyCredParams where the application lists them, and only there', async () => {
    const flow = new Flow(h, username('offer'));
    const options = await flow.attestationOptions();
    assert.deepEqual(
      options.pubKeyCredParams,
      listed.map((alg) => ({ type: 'public-key', alg })),
    );
    const plain = expectOk(
      await h.post('/api/attestation/options', { username: username('offer') }, { clientId: 'plain' }),
    );
    assert.deepEqual(
      plain.pubKeyCredParams.map((p: { alg: number }) => p.alg),
      [...DEFAULT_ALGORITHMS],
    );
    for (const { alg } of FULLY_SPECIFIED)
      assert.ok(!DEFAULT_ALGORITHMS.includes(alg), `${alg} is not offered by default`);
  });

  for (const { alg, name } of FULLY_SPECIFIED) {
    for (const fmt of ['none', 'packed'] as const) {
      it(`${name} (${alg}), ${fmt}: registers, is stored with its identifier, signs in twice`, async () => {
        const flow = new Flow(h, username(`${name.toLowerCase()}-${fmt}`), { fmt });
        const { res, credential } = await flow.register({ alg, keyPair: generateKeyPairFor(alg) });
        expectOk(res);
        const stored = await h.deps.credentials.find(CLIENT_ID, credential.id);
        assert.equal(stored?.algorithm, alg);
        for (let i = 0; i < 2; i++) expectOk((await flow.authenticate()).res);
      });
    }
  }

  it('refuses a key whose COSE alg disagrees with its curve or type, storing nothing', async () => {
    const mismatches = [
      // ESP256 names P-256: a P-384 key (crv 2) under it.
      { alg: -9, keyAlg: -51, what: 'ESP256 with a P-384 key' },
      // ESP512 names P-521: a P-256 key under it.
      { alg: -52, keyAlg: -9, what: 'ESP512 with a P-256 key' },
      // Ed25519 is an OKP key: an EC2 P-256 key under it.
      { alg: -19, keyAlg: -9, what: 'Ed25519 with an EC2 key' },
      // ESP384 is EC2: an Ed25519 (OKP) key under it.
      { alg: -51, keyAlg: -19, what: 'ESP384 with an OKP key' },
    ];
    for (const { alg, keyAlg, what } of mismatches) {
      const flow = new Flow(h, username(`mismatch${alg}`));
      // The key and its COSE map are made for keyAlg, then labelled alg (label 3).
      const { res, credential } = await flow.register({
        alg: keyAlg,
        keyPair: generateKeyPairFor(keyAlg),
        coseKey: (map) => new Map([...map].map(([label, value]) => [label, label === 3 ? alg : value])),
      });
      expectFailure(res, 'USER_PUBLIC_KEY_INVALID_KEY_SPEC', 400);
      assert.equal(await h.deps.credentials.find(CLIENT_ID, credential.id), undefined, what);
    }
  });

  it('refuses an identifier the application does not list (NOT_ALLOWED_COSE_ALGORITHM), storing nothing', async () => {
    const flow = new Flow(h, username('unlisted'));
    const { res, credential } = await flow.register({ alg: -9, keyPair: generateKeyPairFor(-9) });
    expectOk(res);
    const options = expectOk(
      await h.post('/api/attestation/options', { username: username('unlisted') }, { clientId: 'plain' }),
    );
    const plainFlow = new Flow(h, username('unlisted'));
    const registered = plainFlow.authenticator.register(options, { alg: -9 });
    const refused = await h.post('/api/attestation/result', registered, { clientId: 'plain' });
    expectFailure(refused, 'NOT_ALLOWED_COSE_ALGORITHM', 400);
    assert.equal(await h.deps.credentials.find('plain', registered.id), undefined);
    assert.ok(await h.deps.credentials.find(CLIENT_ID, credential.id));
  });
});
