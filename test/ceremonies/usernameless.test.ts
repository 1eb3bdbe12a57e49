// Sign-in without a user name (`#<domain>`, `#localhost`), the identity fields of every ok result, and the
// conditional create's UP rule, over a real socket in both variants (docs/api.md "Sign-in without a user name").
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '../../src/http/app.js';
import { openApiDocument } from '../../src/admin/openapi.js';
import { checkResponse } from '../support/openapi-lookup.js';
import { CLIENT_ID, DOMAIN, Harness, ORIGIN, PATHS, VENDOR, applicationConfig } from '../support/harness.js';
import { LOCAL_PAGE } from './local/support.js';
import { SoftAuthenticator, type AuthenticateOptions, type RegisterOptions } from '../support/soft-authenticator.js';

const OTHER_CLIENT = 'other-client';
const ENVELOPE_KEYS = ['errorMessage', 'sessionId', 'status'];
const IDENTITY_KEYS = [
  'aaguid',
  'acr',
  'amr',
  'authenticatorName',
  'authenticatorVerified',
  'backupEligible',
  'backupState',
  'credentialId',
  'signCount',
  'userHandle',
  'userVerified',
  'username',
];
const REGISTRATION_KEYS = [
  ...IDENTITY_KEYS,
  'attestationFormat',
  'attestationTrusted',
  'attestationType',
  'discoverable',
];

interface Reply {
  readonly path: string;
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  readonly body: any;
}

const DOCUMENT = openApiDocument();

/** The app on 127.0.0.1:0; posts as a relay would for the variant (origin header only in standard). */
class Socket {
  private server: Server | undefined;
  private url = '';

  constructor(private readonly app: App) {}

  async start(): Promise<void> {
    this.server = createServer(this.app.handler);
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  async post(path: string, body: unknown, origin: string | null, clientId = CLIENT_ID): Promise<Reply> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': `${VENDOR} AppID: ${clientId}`,
    };
    if (origin !== null) headers.origin = origin;
    const res = await fetch(this.url + path, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    return {
      path,
      status: res.status,
      contentType: res.headers.get('content-type') ?? '',
      text,
      body: JSON.parse(text),
    };
  }
}

/** An ok answer, as the OpenAPI document describes it (the identity fields included). */
function ok(reply: Reply): any {
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  assert.equal(reply.body.status, 'ok', JSON.stringify(reply.body));
  assert.deepEqual(
    checkResponse(DOCUMENT, {
      path: reply.path,
      method: 'POST',
      status: reply.status,
      contentType: reply.contentType,
      body: reply.text,
    }),
    [],
  );
  return reply.body;
}

/** A failure is the bare envelope: none of the identity fields (`extra`: the signals it may carry). */
function failure(reply: Reply, name: string, status = 400, extra: readonly string[] = []): void {
  assert.equal(reply.status, status, JSON.stringify(reply.body));
  assert.equal(reply.body.errorMessage[0], name, JSON.stringify(reply.body));
  assert.deepEqual(Object.keys(reply.body).sort(), [...ENVELOPE_KEYS, ...extra].sort());
  assert.deepEqual(
    checkResponse(DOCUMENT, {
      path: reply.path,
      method: 'POST',
      status: reply.status,
      contentType: reply.contentType,
      body: reply.text,
    }),
    [],
  );
}

/** The standard variant's ok answers carry the Signal API's arguments and a credentials token; the local variant's neither. */
const signalKeys = (v: Variant): string[] => (v.name === 'standard' ? ['credentialsToken', 'signals'] : []);

interface Variant {
  readonly name: 'standard' | 'local';
  readonly domain: string;
  /** The origin header of every call (local sends none). */
  readonly header: string | null;
  readonly page: string;
}

const VARIANTS: readonly Variant[] = [
  { name: 'standard', domain: DOMAIN, header: ORIGIN, page: ORIGIN },
  { name: 'local', domain: 'localhost', header: null, page: LOCAL_PAGE },
];

/** What a relay keeps of a registration: the credential id and, in the local variant, the blob. */
interface Registered {
  readonly id: string;
  readonly userHandle: string;
  readonly blob?: string;
  readonly answer: any;
}

class Client {
  readonly authenticator: SoftAuthenticator;

  constructor(
    readonly socket: Socket,
    readonly v: Variant,
    readonly clientId = CLIENT_ID,
  ) {
    this.authenticator = new SoftAuthenticator({ origin: v.page });
  }

  post(path: string, body: unknown): Promise<Reply> {
    return this.socket.post(path, body, this.v.header, this.clientId);
  }

  async register(
    user: string,
    registerOptions: RegisterOptions = {},
    optionsBody: Record<string, unknown> = {},
  ): Promise<{ reply: Reply; options: any; id: string }> {
    const options = ok(
      await this.post(PATHS.attestationOptions, { username: `${user}#${this.v.domain}`, ...optionsBody }),
    );
    const made = this.authenticator.register(options, registerOptions);
    const credential =
      this.v.name === 'local' ? { ...made, extensions: { ...made.extensions, localhost: true } } : made;
    return {
      reply: await this.post(PATHS.attestationResult, { ...credential, authenticatorAttachment: 'platform' }),
      options,
      id: made.id,
    };
  }

  async registered(user: string, registerOptions: RegisterOptions = {}): Promise<Registered> {
    const { reply, options, id } = await this.register(user, registerOptions);
    const answer = ok(reply);
    return { id, userHandle: options.user.id, answer, ...(this.v.name === 'local' && { blob: answer.localhost }) };
  }

  /** Options without a user name, then the authenticator's assertion with `credential`; `mutate` sees what is sent. */
  async signIn(
    credential: Registered,
    authenticate: AuthenticateOptions = {},
    mutate: (sent: any) => any = (sent) => sent,
  ): Promise<{ reply: Reply; sent: any; options: any }> {
    const options = ok(await this.post(PATHS.assertionOptions, { username: `#${this.v.domain}` }));
    const made = this.authenticator.authenticate(options, { credentialId: credential.id, ...authenticate });
    const withBlob =
      credential.blob === undefined
        ? made
        : { ...made, extensions: { ...made.extensions, localhost: credential.blob } };
    const sent = mutate(JSON.parse(JSON.stringify(withBlob)));
    return { reply: await this.post(PATHS.assertionResult, sent), sent, options };
  }
}

for (const v of VARIANTS) {
  describe(`sign-in without a user name, ${v.name} variant (real socket)`, () => {
    const h = new Harness({
      apps: [
        applicationConfig(),
        applicationConfig({
          clientId: OTHER_CLIENT,
          domain: 'other.example.test',
          origins: ['https://other.example.test'],
        }),
      ],
    });
    const socket = new Socket(h.app);
    let client: Client;
    let alice: Registered;
    let bob: Registered;

    before(async () => {
      await socket.start();
      client = new Client(socket, v);
      alice = await client.registered('alice');
      bob = await client.registered('bob', { flags: { be: true, bs: true } });
    });
    after(() => socket.close());

    it('options for the empty user part: an empty allowCredentials, the same for everyone, bound to the variant', async () => {
      const first = ok(
        await client.post(PATHS.assertionOptions, { username: `#${v.domain}`, userVerification: 'required' }),
      );
      assert.deepEqual(first.allowCredentials, []);
      assert.equal(first.rpId, v.domain);
      assert.equal(first.userVerification, 'required');
      const second = ok(await client.post(PATHS.assertionOptions, { username: `#${v.domain}` }));
      assert.equal(second.userVerification, 'preferred');
      // Nothing in the answer depends on who is registered: only the challenge differs.
      const fresh = new Socket(new Harness().app);
      await fresh.start();
      try {
        const empty = ok(await fresh.post(PATHS.assertionOptions, { username: `#${v.domain}` }, v.header));
        assert.deepEqual({ ...empty, challenge: '' }, { ...second, challenge: '' });
      } finally {
        await fresh.close();
      }
    });

    it('answers ok with who signed in, taken from the credential (its owner, not any request field)', async () => {
      const { reply, sent } = await client.signIn(bob, { flags: { be: true, bs: true } }, (s) => ({
        ...s,
        authenticatorAttachment: 'cross-platform',
      }));
      const body = ok(reply);
      assert.deepEqual(
        Object.keys(body).sort(),
        [...ENVELOPE_KEYS, 'authenticatorAttachment', ...IDENTITY_KEYS, ...signalKeys(v)].sort(),
      );
      assert.equal(body.username, `bob#${v.domain}`);
      assert.equal(body.userHandle, bob.userHandle);
      assert.equal(body.credentialId, bob.id);
      assert.equal(body.userVerified, true);
      assert.equal(body.backupEligible, true);
      assert.equal(body.backupState, true);
      assert.equal(body.authenticatorAttachment, 'cross-platform');
      assert.equal(body.signCount, Buffer.from(sent.response.authenticatorData, 'base64url').readUInt32BE(33));
      assert.equal(body.aaguid, bob.answer.aaguid);
      assert.equal(body.authenticatorName, null);
    });

    it("a registration answers who and how too: discoverable, the attestation, the browser's attachment", () => {
      const body = alice.answer;
      const expected = [
        ...ENVELOPE_KEYS,
        'authenticatorAttachment',
        ...REGISTRATION_KEYS,
        ...(v.name === 'local' ? ['localhost'] : []),
        ...signalKeys(v),
      ];
      assert.deepEqual(Object.keys(body).sort(), expected.sort());
      assert.equal(body.username, `alice#${v.domain}`);
      assert.equal(body.userHandle, alice.userHandle);
      assert.equal(body.credentialId, alice.id);
      assert.equal(body.discoverable, true);
      assert.equal(body.attestationFormat, 'none');
      assert.equal(body.attestationType, 'none');
      assert.equal(body.attestationTrusted, false);
      assert.equal(body.authenticatorAttachment, 'platform');
      assert.equal(body.backupEligible, false);
      assert.equal(body.signCount, 0);
    });

    it('the user handle is required: missing, empty or null fails with USER_HANDLE_MISSING', async () => {
      failure((await client.signIn(alice, { userHandle: null })).reply, 'USER_HANDLE_MISSING');
      failure((await client.signIn(alice, { userHandle: '' })).reply, 'USER_HANDLE_MISSING');
      failure(
        (await client.signIn(alice, {}, (s) => ({ ...s, response: { ...s.response, userHandle: null } }))).reply,
        'USER_HANDLE_MISSING',
      );
    });

    it("another user's handle with this credential fails, whoever the handle names", async () => {
      // Standard: the user the handle names has no credential with this id, as for an unknown id (decisions.md).
      const [expected, extra] =
        v.name === 'local' ? ['LOCAL_BLOB_USER_MISMATCH', []] : ['CREDENTIAL_ID_NOT_FOUND', ['signals']];
      failure((await client.signIn(alice, { userHandle: bob.userHandle })).reply, expected, 400, extra);
      failure((await client.signIn(alice, { breaks: 'userHandle' })).reply, expected, 400, extra);
    });

    it('a credential of another application is not found (standard) or not accepted (local blob)', async () => {
      const other = new Client(
        socket,
        v.name === 'standard'
          ? {
              ...v,
              domain: 'other.example.test',
              header: 'https://other.example.test',
              page: 'https://other.example.test',
            }
          : v,
        OTHER_CLIENT,
      );
      const theirs = await other.registered('carol');
      // The same authenticator now signs this application's challenge with the other application's credential.
      client.authenticator.credentials.push(other.authenticator.credential(theirs.id)!);
      const { reply } = await client.signIn(theirs, v.name === 'standard' ? { rpId: DOMAIN } : {});
      if (v.name === 'local') {
        failure(reply, 'LOCAL_BLOB_APPLICATION_MISMATCH');
      } else {
        // Unknown to this application: the page may tell the password manager (docs/api.md "Signals").
        failure(reply, 'CREDENTIAL_ID_NOT_FOUND', 400, ['signals']);
        assert.deepEqual(reply.body.signals, { unknownCredential: { rpId: DOMAIN, credentialId: theirs.id } });
      }
    });

    it('a replayed discoverable assertion fails: its ceremony is used', async () => {
      const { reply, sent } = await client.signIn(alice);
      ok(reply);
      failure(await client.post(PATHS.assertionResult, sent), 'SESSION_ALREADY_REVOKED');
    });

    it('the usual checks still apply: a bad signature, UV required but not done, UP clear', async () => {
      failure((await client.signIn(alice, { breaks: 'flipSignature' })).reply, 'ASSERTION_SIGNATURE_VERIFICATION_FAIL');
      failure((await client.signIn(alice, { flags: { up: false } })).reply, 'USER_PRESENCE_FLAG_NOT_SET');
      const options = ok(
        await client.post(PATHS.assertionOptions, { username: `#${v.domain}`, userVerification: 'required' }),
      );
      const made = client.authenticator.authenticate(options, { credentialId: alice.id, flags: { uv: false } });
      const sent = alice.blob === undefined ? made : { ...made, extensions: { localhost: alice.blob } };
      failure(await client.post(PATHS.assertionResult, sent), 'USER_VERIFICATION_FLAG_NOT_SET');
    });

    it("a sign-in by name still answers who and how, and still offers only the user's credentials", async () => {
      const options = ok(await client.post(PATHS.assertionOptions, { username: `alice#${v.domain}` }));
      if (v.name === 'standard')
        assert.deepEqual(
          options.allowCredentials.map((c: { id: string }) => c.id),
          [alice.id],
        );
      const made = client.authenticator.authenticate(options, { credentialId: alice.id });
      const sent = alice.blob === undefined ? made : { ...made, extensions: { localhost: alice.blob } };
      const body = ok(await client.post(PATHS.assertionResult, sent));
      assert.equal(body.username, `alice#${v.domain}`);
      assert.equal(body.credentialId, alice.id);
      assert.equal('authenticatorAttachment' in body, false, 'reported only when the browser sent it');
      // Bob's blob or credential under Alice's name fails as before.
      const forBob = ok(await client.post(PATHS.assertionOptions, { username: `alice#${v.domain}` }));
      const bobs = client.authenticator.authenticate(forBob, { credentialId: bob.id });
      const bobSent = bob.blob === undefined ? bobs : { ...bobs, extensions: { localhost: bob.blob } };
      failure(
        await client.post(PATHS.assertionResult, bobSent),
        v.name === 'local' ? 'LOCAL_BLOB_USER_MISMATCH' : 'CREDENTIAL_ID_NOT_FOUND',
      );
    });

    it('a registration cannot be started without a user name', async () => {
      failure(await client.post(PATHS.attestationOptions, { username: `#${v.domain}` }), 'INVALID_USERNAME');
    });
  });

  describe(`conditional create (automatic upgrade), ${v.name} variant (real socket)`, () => {
    const h = new Harness();
    const socket = new Socket(h.app);
    let client: Client;
    before(async () => {
      await socket.start();
      client = new Client(socket, v);
    });
    after(() => socket.close());

    it('mediation "conditional" is echoed, and its result accepts a credential without UP', async () => {
      const { reply, options } = await client.register('dana', { flags: { up: false } }, { mediation: 'conditional' });
      assert.equal(options.mediation, 'conditional');
      const body = ok(reply);
      assert.equal(body.username, `dana#${v.domain}`);
    });

    it('an ordinary registration (no mediation, "optional" or "required") keeps requiring UP, and is not echoed', async () => {
      for (const body of [{}, { mediation: 'optional' }, { mediation: 'required' }]) {
        const { reply, options } = await client.register('erin', { flags: { up: false } }, body);
        assert.equal(options.mediation, undefined);
        failure(reply, 'USER_PRESENCE_FLAG_NOT_SET');
      }
    });

    it('UV follows the request as usual in a conditional create', async () => {
      const { reply } = await client.register(
        'fay',
        { flags: { up: false, uv: false } },
        {
          mediation: 'conditional',
          authenticatorSelection: { userVerification: 'required' },
        },
      );
      failure(reply, 'USER_VERIFICATION_FLAG_NOT_SET');
    });

    it('an unknown mediation value is refused', async () => {
      for (const mediation of ['silent', 'CONDITIONAL', true]) {
        failure(
          await client.post(PATHS.attestationOptions, { username: `gil#${v.domain}`, mediation }),
          'INVALID_REQUEST_BODY',
        );
      }
    });

    it('a sign-in never accepts a missing UP, conditional or not', async () => {
      const gil = await client.registered('gil');
      failure((await client.signIn(gil, { flags: { up: false } })).reply, 'USER_PRESENCE_FLAG_NOT_SET');
    });
  });
}
