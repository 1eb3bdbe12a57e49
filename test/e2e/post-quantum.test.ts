// Post-quantum passkeys (ML-DSA-44/65/87, RFC 9964) over a real socket: registration (`none` and `packed`
// self) and sign-in in both variants, with each ML-DSA verifier the runtime has; and the defects a
// classical key can have fail with the same error names when the key is an ML-DSA one.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServiceServer } from '../../src/http/server.js';
import {
  DEFAULT_ML_DSA_VERIFIER,
  ML_DSA_SIZES,
  NODE_ML_DSA,
  NOBLE_ML_DSA,
  runtimeHasMlDsa,
  type MlDsaVerifier,
} from '../../src/webauthn/ml-dsa.js';
import { CLIENT_ID, Harness, LOCAL_ORIGIN, ORIGIN, PATHS, VENDOR, applicationConfig } from '../support/harness.js';
import { SoftAuthenticator, type RegisterOptions } from '../support/soft-authenticator.js';

const ML_DSA = [
  { alg: -48, level: 44 },
  { alg: -49, level: 65 },
  { alg: -50, level: 87 },
] as const;
const ES256 = -7;
const OFFERED = [ES256, -48, -49, -50];

/** node:crypto's verifier only where the runtime has ML-DSA (Node.js 24.7+); the pure-JS one everywhere. */
const VERIFIERS: readonly MlDsaVerifier[] = runtimeHasMlDsa() ? [NODE_ML_DSA, NOBLE_ML_DSA] : [NOBLE_ML_DSA];

interface Answer {
  readonly status: number;
  readonly body: any;
}

class SocketService {
  readonly h: Harness;
  #server: Server | undefined;
  #url = '';

  constructor(mlDsa: MlDsaVerifier, algorithms: readonly number[] = OFFERED) {
    this.h = new Harness({ apps: [applicationConfig({ algorithms })], mlDsa });
  }

  async start(): Promise<void> {
    this.#server = createServiceServer(this.h.app);
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()) ?? resolve());
  }

  async post(path: string, body: unknown, origin: string | null): Promise<Answer> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': `${VENDOR} AppID: ${CLIENT_ID}`,
    };
    if (origin !== null) headers.origin = origin;
    const res = await fetch(`${this.#url}${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(20_000),
    });
    return { status: res.status, body: await res.json() };
  }
}

/** One user's passkey in one variant: options → soft authenticator → result, over the socket. */
class Passkey {
  readonly authenticator: SoftAuthenticator;
  blob: string | undefined;

  constructor(
    readonly service: SocketService,
    readonly user: string,
    readonly variant: 'standard' | 'local',
  ) {
    this.authenticator = new SoftAuthenticator({ origin: variant === 'standard' ? ORIGIN : LOCAL_ORIGIN });
  }

  get username(): string {
    return this.variant === 'standard' ? `${this.user}#idp.example.test` : `${this.user}#localhost`;
  }

  get originHeader(): string | null {
    return this.variant === 'standard' ? ORIGIN : null;
  }

  async register(opts: RegisterOptions): Promise<Answer> {
    const options = await this.service.post(PATHS.attestationOptions, { username: this.username }, this.originHeader);
    assert.equal(options.status, 200, JSON.stringify(options.body));
    const credential = this.authenticator.register(options.body, opts);
    const sent = this.variant === 'local' ? { ...credential, extensions: { localhost: true } } : credential;
    const res = await this.service.post(PATHS.attestationResult, sent, this.originHeader);
    if (res.status === 200 && this.variant === 'local') this.blob = res.body.localhost;
    return res;
  }

  async signIn(breaks?: 'flipSignature'): Promise<Answer> {
    const options = await this.service.post(PATHS.assertionOptions, { username: this.username }, this.originHeader);
    assert.equal(options.status, 200, JSON.stringify(options.body));
    const credentialId = this.authenticator.credentials[0]!.id.toString('base64url');
    const credential = this.authenticator.authenticate(options.body, { credentialId, ...(breaks && { breaks }) });
    const sent = this.variant === 'local' ? { ...credential, extensions: { localhost: this.blob } } : credential;
    return this.service.post(PATHS.assertionResult, sent, this.originHeader);
  }
}

function expectOk(res: Answer): void {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.status, 'ok');
}

function errorName(res: Answer): string {
  assert.notEqual(res.status, 200, 'a defect must fail');
  assert.equal(res.body.status, 'failed');
  return res.body.errorMessage[0];
}

describe('ML-DSA verifiers of this runtime', () => {
  it('uses node:crypto exactly where the runtime has ML-DSA', () => {
    assert.equal(DEFAULT_ML_DSA_VERIFIER, runtimeHasMlDsa() ? NODE_ML_DSA : NOBLE_ML_DSA);
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    // Node.js 24.7 brought ML-DSA into node:crypto (OpenSSL 3.5); 20 and 22 have none.
    if (major < 24) assert.equal(runtimeHasMlDsa(), false);
    if (major > 24 || (major === 24 && minor >= 7)) assert.equal(runtimeHasMlDsa(), true);
  });
});

for (const verifier of VERIFIERS) {
  describe(`post-quantum passkeys over a socket, verified by ${verifier.name}`, () => {
    const service = new SocketService(verifier);
    before(() => service.start());
    after(() => service.stop());

    for (const { alg, level } of ML_DSA) {
      for (const variant of ['standard', 'local'] as const) {
        it(`ML-DSA-${level} (${alg}), ${variant} variant: registers (none, packed self) and signs in`, async () => {
          for (const fmt of ['none', 'packed'] as const) {
            const passkey = new Passkey(service, `pq${level}-${fmt}`, variant);
            expectOk(await passkey.register({ alg, fmt }));
            const stored = passkey.authenticator.credentials[0]!;
            assert.equal(stored.cose.length > ML_DSA_SIZES[level].publicKey, true);
            expectOk(await passkey.signIn());
            const again = await passkey.signIn();
            expectOk(again);
            if (variant === 'standard') {
              const records = await service.h.deps.credentials.listByUser(CLIENT_ID, again.body.userHandle);
              assert.equal(records.length, 1);
              assert.equal(records[0]!.algorithm, alg);
              assert.deepEqual(Buffer.from(records[0]!.publicKey), stored.cose);
            } else {
              assert.ok(typeof passkey.blob === 'string' && passkey.blob.length > ML_DSA_SIZES[level].publicKey);
            }
          }
        });
      }
    }
  });
}

describe('ML-DSA defects fail with the names of the same defect in a classical key', () => {
  const services = VERIFIERS.map((v) => new SocketService(v));
  const narrow = new SocketService(DEFAULT_ML_DSA_VERIFIER, [ES256]);
  before(async () => {
    for (const s of [...services, narrow]) await s.start();
  });
  after(async () => {
    for (const s of [...services, narrow]) await s.stop();
  });

  /** The error of `defect` done to an ES256 credential, and to each ML-DSA one, on every verifier. */
  async function sameNames(
    what: string,
    defect: (service: SocketService, alg: number, user: string) => Promise<Answer>,
  ): Promise<void> {
    const classical = errorName(await defect(services[0]!, ES256, `es-${what}`));
    for (const service of services)
      for (const { alg, level } of ML_DSA)
        assert.equal(
          errorName(await defect(service, alg, `pq${level}-${what}`)),
          classical,
          `${what}: ML-DSA-${level}`,
        );
  }

  it('a tampered sign-in signature: ASSERTION_SIGNATURE_VERIFICATION_FAIL, both variants', async () => {
    for (const variant of ['standard', 'local'] as const)
      await sameNames(`tampered-${variant}`, async (service, alg, user) => {
        const passkey = new Passkey(service, user, variant);
        expectOk(await passkey.register({ alg }));
        return passkey.signIn('flipSignature');
      });
    const passkey = new Passkey(services[0]!, 'named-tamper', 'standard');
    expectOk(await passkey.register({ alg: -50 }));
    assert.equal(errorName(await passkey.signIn('flipSignature')), 'ASSERTION_SIGNATURE_VERIFICATION_FAIL');
  });

  it('a tampered packed self-attestation signature: ATTESTATION_SIGNATURE_VERIFICATION_FAIL', async () => {
    await sameNames('tampered-packed', (service, alg, user) =>
      new Passkey(service, user, 'standard').register({ alg, fmt: 'packed', breaks: 'flipSignature' }),
    );
  });

  it('a key of the wrong size: USER_PUBLIC_KEY_INVALID_KEY_SPEC', async () => {
    await sameNames('short-key', (service, alg, user) =>
      new Passkey(service, user, 'standard').register({
        alg,
        // x of EC2, pub of AKP: one byte short.
        coseKey: (map) => {
          const label = alg === ES256 ? -2 : -1;
          const bytes = map.get(label) as Buffer;
          return new Map(map).set(label, bytes.subarray(1));
        },
      }),
    );
    // An ML-DSA-44 key labelled ML-DSA-87: the size of another level is the wrong size.
    const passkey = new Passkey(services[0]!, 'relabelled', 'standard');
    const res = await passkey.register({ alg: -48, coseKey: (map) => new Map(map).set(3, -50) });
    assert.equal(errorName(res), 'USER_PUBLIC_KEY_INVALID_KEY_SPEC');
  });

  it('an algorithm the application does not offer: the name a classical one gets', async () => {
    const offered = await narrow.post(PATHS.attestationOptions, { username: 'x#idp.example.test' }, ORIGIN);
    assert.deepEqual(
      offered.body.pubKeyCredParams.map((p: { alg: number }) => p.alg),
      [ES256],
      'ML-DSA is offered only when configured',
    );
    const classical = errorName(await new Passkey(narrow, 'eddsa', 'standard').register({ alg: -8 }));
    for (const { alg, level } of ML_DSA)
      assert.equal(errorName(await new Passkey(narrow, `pq${level}`, 'standard').register({ alg })), classical);
  });

  it('packed self attestation whose alg disagrees with the AKP key: PACKED_ATTESTATION_ALGORITHM_NOT_MATCHED', async () => {
    await sameNames('alg-disagrees', (service, alg, user) =>
      new Passkey(service, user, 'standard').register({ alg, fmt: 'packed', breaks: 'attStmtAlg' }),
    );
    const res = await new Passkey(services[0]!, 'disagree-name', 'standard').register({
      alg: -49,
      fmt: 'packed',
      breaks: 'attStmtAlg',
    });
    assert.equal(errorName(res), 'PACKED_ATTESTATION_ALGORITHM_NOT_MATCHED');
  });
});
