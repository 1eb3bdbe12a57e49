// The FIDO conformance-tool server cases (docs/conformance.md §2.1-2.9, §2.13-2.16) that
// our design can run, through inject with the soft authenticator. Each title starts with the catalogue
// case id; docs/conformance.md maps every case to its test (or says why it is not run).
//
// Differences from the tool that are ours by design (docs/decisions.md, docs/conformance.md): username is
// "<user>#<domain>"; errorMessage is [NAME, text]; attestation options add credProps to extensions; user
// presence is always required (the tool's Resp-3 P-4/P-6/P-7 "UP=0 is ok" cases fail here on purpose).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_ALGORITHMS } from '../../src/schemas/values.js';
import { decodeCbor } from '../../src/webauthn/cbor.js';
import type { CborEncodable } from '../../src/webauthn/cbor-encode.js';
import { encodeCbor } from '../../src/webauthn/cbor-encode.js';
import { createChain, createIntermediate, createLeaf, createRoot, type TestChain } from '../support/pki.js';
import type { StatementOptions } from '../support/statements/index.js';
import {
  CLIENT_ID,
  Flow,
  Harness,
  PATHS,
  applicationConfig,
  expectFailure,
  expectOk,
  username,
} from '../support/harness.js';

/** "Not of type X" values the tool picks from (catalogue §1.7), minus the valid type. */
const NOT_STRING: unknown[] = [{}, [], 42, true];
const NOT_OBJECT: unknown[] = ['text', [], 42, true];

let userCounter = 0;
const freshUser = () => username(`conf${++userCounter}`);

function full(chain: TestChain): StatementOptions {
  return { attestation: { x5c: chain.x5c, privateKey: chain.leaf.privateKey } };
}

/** Decodes response.attestationObject, lets `edit` change the map, re-encodes it. */
function editAttestationObject(credential: any, edit: (map: Map<string, unknown>) => void): any {
  const map = decodeCbor(Buffer.from(credential.response.attestationObject, 'base64url')) as Map<string, unknown>;
  edit(map);
  credential.response.attestationObject = encodeCbor(map as unknown as CborEncodable).toString('base64url');
  return credential;
}

function editAttStmt(credential: any, edit: (attStmt: Map<string, unknown>) => void): any {
  return editAttestationObject(credential, (map) => edit(map.get('attStmt') as Map<string, unknown>));
}

/** Registers with `flow` after mutating the credential; asserts the failure and that nothing was stored. */
async function registrationFails(
  flow: Flow,
  name: string,
  registerOptions: Parameters<Flow['register']>[0],
  mutate: (c: any) => any,
  optionsBody: Record<string, unknown> = {},
): Promise<string> {
  const { res, credential } = await flow.register(registerOptions, optionsBody, mutate);
  const detail = expectFailure(res, name, 400);
  if (typeof credential.id === 'string') {
    assert.equal(
      await flow.h.deps.credentials.find(CLIENT_ID, credential.id),
      undefined,
      'a failed registration stored a credential',
    );
  }
  return detail;
}

describe('§2.1 Server-ServerPublicKeyCredentialCreationOptions-Req-1', () => {
  it("P-1: creation options with every field of the tool's request", async () => {
    const h = new Harness();
    const sent = {
      username: freshUser(),
      displayName: 'Jane Doe',
      authenticatorSelection: { requireResidentKey: false, userVerification: 'preferred' },
      attestation: 'direct',
      extensions: { 'example.extension': true },
    };
    const body = expectOk(await h.post(PATHS.attestationOptions, sent));
    assert.equal(body.errorMessage, '');
    assert.equal(body.user.name, sent.username);
    assert.equal(body.user.displayName, 'Jane Doe');
    assert.match(body.user.id, /^[A-Za-z0-9_-]+$/);
    assert.ok(Buffer.from(body.user.id, 'base64url').length <= 64);
    assert.ok(typeof body.rp.name === 'string' && body.rp.name.length > 0);
    assert.ok(typeof body.rp.id === 'string' && body.rp.id.length > 0);
    assert.match(body.challenge, /^[A-Za-z0-9_-]{22,}$/);
    const challengeBytes = Buffer.from(body.challenge, 'base64url').length;
    assert.ok(challengeBytes >= 16 && challengeBytes <= 64);
    assert.ok(body.pubKeyCredParams.some((p: any) => p.type === 'public-key' && p.alg === -7));
    assert.ok(body.timeout > 0);
    assert.equal(body.attestation, 'direct');
    assert.deepEqual(body.authenticatorSelection, sent.authenticatorSelection);
    // Ours: the requested extensions are echoed and credProps is added (docs/decisions.md).
    assert.equal(body.extensions['example.extension'], true);
    assert.deepEqual(body.extensions, { 'example.extension': true, credProps: true });
    for (const key of ['userVerification', 'allowCredentials', 'rpId']) assert.equal(key in body, false, key);
  });

  it('P-2: attestation "none" without extensions is echoed', async () => {
    const h = new Harness();
    const body = expectOk(
      await h.post(PATHS.attestationOptions, { username: freshUser(), displayName: 'J', attestation: 'none' }),
    );
    assert.equal(body.attestation, 'none');
  });

  it('P-3: two option calls give different challenges', async () => {
    const h = new Harness();
    const user = freshUser();
    const a = expectOk(await h.post(PATHS.attestationOptions, { username: user, displayName: 'J' }));
    const b = expectOk(await h.post(PATHS.attestationOptions, { username: user, displayName: 'J' }));
    assert.notEqual(a.challenge, b.challenge);
  });
});

describe('§2.2 Server-ServerAuthenticatorAttestationResponse-Resp-1 (packed full attestation)', () => {
  const chain = createChain();
  const statement = { fmt: 'packed', statement: full(chain) };

  it('P-1: register, then the next creation options list the credential first in excludeCredentials', async () => {
    const h = new Harness();
    const flow = new Flow(h, freshUser());
    const { res, credential } = await flow.register(statement);
    expectOk(res);
    const again = await flow.attestationOptions();
    assert.equal(again.excludeCredentials[0].id, credential.id);
    assert.equal(again.excludeCredentials[0].type, 'public-key');
  });

  const structural: [string, (c: any, v?: unknown) => void, unknown[]][] = [
    [
      'F-1: id removed',
      (c) => {
        delete c.id;
      },
      [undefined],
    ],
    [
      'F-2: id not a string',
      (c, v) => {
        c.id = v;
      },
      NOT_STRING,
    ],
    [
      'F-3: id as standard base64 with == padding',
      (c) => {
        c.id = `${Buffer.from(c.id, 'base64url').toString('base64')}==`;
      },
      [undefined],
    ],
    [
      'F-4: type removed',
      (c) => {
        delete c.type;
      },
      [undefined],
    ],
    [
      'F-5: type not a string',
      (c, v) => {
        c.type = v;
      },
      NOT_STRING,
    ],
    [
      'F-6: type another string',
      (c) => {
        c.type = 'private-key';
      },
      [undefined],
    ],
    [
      'F-7: response removed',
      (c) => {
        delete c.response;
      },
      [undefined],
    ],
    [
      'F-8: response not an object',
      (c, v) => {
        c.response = v;
      },
      NOT_OBJECT,
    ],
    [
      'F-9: response.clientDataJSON removed',
      (c) => {
        delete c.response.clientDataJSON;
      },
      [undefined],
    ],
    [
      'F-10: response.clientDataJSON not a string',
      (c, v) => {
        c.response.clientDataJSON = v;
      },
      NOT_STRING,
    ],
    [
      'F-11: response.clientDataJSON empty',
      (c) => {
        c.response.clientDataJSON = '';
      },
      [undefined],
    ],
    [
      'F-12: response.attestationObject removed',
      (c) => {
        delete c.response.attestationObject;
      },
      [undefined],
    ],
    [
      'F-13: response.attestationObject not a string',
      (c, v) => {
        c.response.attestationObject = v;
      },
      NOT_STRING,
    ],
    [
      'F-14: response.attestationObject empty',
      (c) => {
        c.response.attestationObject = '';
      },
      [undefined],
    ],
  ];
  for (const [title, mutate, values] of structural) {
    it(`${title} → INVALID_REQUEST_BODY, nothing stored, ceremony not consumed`, async () => {
      const h = new Harness();
      for (const value of values) {
        const flow = new Flow(h, freshUser());
        const options = await flow.attestationOptions();
        const good = flow.authenticator.register(options, statement);
        const bad = JSON.parse(JSON.stringify(good));
        mutate(bad, value);
        expectFailure(await h.post(PATHS.attestationResult, bad), 'INVALID_REQUEST_BODY', 400);
        assert.equal(await h.deps.credentials.find(CLIENT_ID, good.id), undefined);
        // A malformed body never reaches the ceremony: the intact credential still registers.
        expectOk(await h.post(PATHS.attestationResult, good));
      }
    });
  }
});

describe('§2.3 Server-ServerAuthenticatorAttestationResponse-Resp-2 (client data at registration)', () => {
  const cases: [string, Record<string, unknown> | undefined, string | undefined, string][] = [
    ['F-1: type missing', { type: undefined }, undefined, 'INVALID_FORMAT_CLIENT_DATA_JSON'],
    ['F-2: type not a string', { type: 42 }, undefined, 'INVALID_FORMAT_CLIENT_DATA_JSON'],
    ['F-3: type empty', { type: '' }, undefined, 'INVALID_FORMAT_CLIENT_DATA_JSON'],
    ['F-4: type another string', { type: 'webauthn.other' }, undefined, 'INVALID_OPERATION_TYPE'],
    ['F-5: type "webauthn.get"', undefined, 'type', 'INVALID_OPERATION_TYPE'],
    ['F-6: challenge missing', { challenge: undefined }, undefined, 'INVALID_FORMAT_CLIENT_DATA_JSON'],
    ['F-7: challenge not a string', { challenge: 1234 }, undefined, 'INVALID_FORMAT_CLIENT_DATA_JSON'],
    ['F-8: challenge empty', { challenge: '' }, undefined, 'INVALID_FORMAT_CLIENT_DATA_JSON'],
    [
      'F-9: challenge not base64url',
      { challenge: 'aGVsbG8gd29ybGQ+Pz8/==' },
      undefined,
      'INVALID_FORMAT_CLIENT_DATA_JSON',
    ],
    ['F-10: challenge another random value', undefined, 'challenge', 'SESSION_NOT_FOUND'],
    ['F-11: origin missing', { origin: undefined }, undefined, 'INVALID_FORMAT_CLIENT_DATA_JSON'],
    ['F-12: origin not a string', { origin: [] }, undefined, 'INVALID_FORMAT_CLIENT_DATA_JSON'],
    ['F-13: origin empty', { origin: '' }, undefined, 'INVALID_FORMAT_CLIENT_DATA_JSON'],
    ['F-14: origin foreign', undefined, 'origin', 'ORIGIN_NOT_MATCHED'],
    ['F-15: tokenBinding not an object', undefined, 'tokenBindingNotObject', 'TOKEN_BINDING_STATUS_MISSING'],
    ['F-16: tokenBinding without status', undefined, 'tokenBindingStatus', 'TOKEN_BINDING_STATUS_MISSING'],
    [
      'F-17: tokenBinding.status unknown',
      { tokenBinding: { status: 'bogus' } },
      undefined,
      'TOKEN_BINDING_STATUS_MISSING',
    ],
  ];
  for (const [title, clientData, breaks, name] of cases) {
    it(`${title} → ${name}`, async () => {
      const h = new Harness();
      const flow = new Flow(h, freshUser(), { fmt: 'packed' });
      await registrationFails(
        flow,
        name,
        { ...(clientData && { clientData }), ...(breaks && { breaks: breaks as any }) },
        (c) => c,
      );
    });
  }
});

describe('§2.4 Server-ServerAuthenticatorAttestationResponse-Resp-3 (attestation object)', () => {
  it('P-1: requested extension, ED=1 with an extension map in authData → ok', async () => {
    const h = new Harness();
    const flow = new Flow(h, freshUser(), { fmt: 'packed' });
    const { res } = await flow.register(
      { authenticatorExtensions: new Map([['example.extension', 'This is an example extension!']]) },
      { extensions: { 'example.extension': 'This is an example extension!' } },
    );
    expectOk(res);
  });

  it('F-1: random text before the base64url attestationObject → fails', async () => {
    const flow = new Flow(new Harness(), freshUser(), { fmt: 'packed' });
    await registrationFails(flow, 'INVALID_FORMAT_ATTESTATION_OBJECT', {}, (c) => {
      c.response.attestationObject = `Zm9vYmFy${c.response.attestationObject}`;
      return c;
    });
  });

  const mapCases: [string, (m: Map<string, unknown>) => void, string][] = [
    ['F-2: fmt missing', (m) => m.delete('fmt'), 'INVALID_FORMAT_ATTESTATION_OBJECT'],
    ['F-3: fmt not a text string', (m) => m.set('fmt', 7), 'INVALID_FORMAT_ATTESTATION_OBJECT'],
    ['F-4: attStmt missing', (m) => m.delete('attStmt'), 'INVALID_FORMAT_ATTESTATION_OBJECT'],
    ['F-5: attStmt not a map', (m) => m.set('attStmt', [1, 2]), 'INVALID_FORMAT_ATTESTATION_OBJECT'],
    ['F-6: authData missing', (m) => m.delete('authData'), 'INVALID_FORMAT_ATTESTATION_OBJECT'],
    ['F-7: authData not a byte string', (m) => m.set('authData', 'text'), 'INVALID_FORMAT_ATTESTATION_OBJECT'],
    ['F-8: authData empty', (m) => m.set('authData', Buffer.alloc(0)), 'INVALID_FORMAT_ATTESTATION_OBJECT'],
    [
      'F-10: AT clear and no attested credential data',
      (m) => {
        const authData = Buffer.from(m.get('authData') as Buffer).subarray(0, 37);
        authData[32] = authData[32]! & ~0x40;
        m.set('authData', authData);
      },
      'CREDENTIAL_NOT_INCLUDED',
    ],
    [
      'F-11: AT set but attested credential data empty',
      (m) => m.set('authData', Buffer.from(m.get('authData') as Buffer).subarray(0, 37)),
      'CREDENTIAL_NOT_INCLUDED',
    ],
    [
      'F-12: 32 bytes appended after the attested credential data',
      (m) => m.set('authData', Buffer.concat([m.get('authData') as Buffer, Buffer.alloc(32, 0xab)])),
      'INVALID_AUTHENTICATOR_DATA',
    ],
    ['F-13: packed attStmt is an empty map', (m) => m.set('attStmt', new Map()), 'INVALID_ATTESTATION_FORMAT'],
    [
      'F-14: attStmt.alg missing',
      (m) => (m.get('attStmt') as Map<string, unknown>).delete('alg'),
      'INVALID_ATTESTATION_FORMAT',
    ],
    [
      'F-15: attStmt.alg not a number',
      (m) => (m.get('attStmt') as Map<string, unknown>).set('alg', 'ES256'),
      'INVALID_ATTESTATION_FORMAT',
    ],
    [
      'F-16: attStmt.alg = -42',
      (m) => (m.get('attStmt') as Map<string, unknown>).set('alg', -42),
      'PACKED_ATTESTATION_ALGORITHM_NOT_MATCHED',
    ],
    [
      'F-17: attStmt.sig missing',
      (m) => (m.get('attStmt') as Map<string, unknown>).delete('sig'),
      'INVALID_ATTESTATION_FORMAT',
    ],
    [
      'F-18: attStmt.sig not a byte string',
      (m) => (m.get('attStmt') as Map<string, unknown>).set('sig', 'signature'),
      'INVALID_ATTESTATION_FORMAT',
    ],
    [
      'F-19: attStmt.sig empty',
      (m) => (m.get('attStmt') as Map<string, unknown>).set('sig', Buffer.alloc(0)),
      'INVALID_ATTESTATION_FORMAT',
    ],
  ];
  for (const [title, edit, name] of mapCases) {
    it(`${title} → ${name}`, async () => {
      const flow = new Flow(new Harness(), freshUser(), { fmt: 'packed' });
      await registrationFails(flow, name, {}, (c) => editAttestationObject(c, edit));
    });
  }

  it('F-9: AT clear while attested credential data is present → INVALID_AUTHENTICATOR_DATA', async () => {
    const flow = new Flow(new Harness(), freshUser(), { fmt: 'packed' });
    await registrationFails(flow, 'INVALID_AUTHENTICATOR_DATA', { breaks: 'atFlagCleared' }, (c) => c);
  });
});

describe('§2.5 Server-ServerAuthenticatorAttestationResponse-Resp-4 (algorithms, packed self attestation)', () => {
  const algorithms: [string, number][] = [
    ['P-2: RSASSA-PSS SHA-256 (-37)', -37],
    ['P-3: RSASSA-PSS SHA-384 (-38)', -38],
    ['P-4: RSASSA-PSS SHA-512 (-39)', -39],
    ['P-5: RSASSA-PKCS1-v1_5 SHA-256 (-257)', -257],
    ['P-6: RSASSA-PKCS1-v1_5 SHA-384 (-258)', -258],
    ['P-7: RSASSA-PKCS1-v1_5 SHA-512 (-259)', -259],
    ['P-9: ECDSA P-256 SHA-256 (-7)', -7],
    ['P-10: ECDSA P-384 SHA-384 (-35)', -35],
    ['P-11: ECDSA P-521 SHA-512 (-36)', -36],
    ['P-12: EdDSA Ed25519 (-8)', -8],
  ];
  for (const [title, alg] of algorithms) {
    it(`${title} → ok, then signs in`, async () => {
      const h = new Harness();
      const flow = new Flow(h, freshUser(), { fmt: 'packed' });
      expectOk((await flow.register({ alg })).res);
      expectOk((await flow.authenticate()).res);
    });
  }

  it('P-8: RS1 (-65535) → ok where the application offers it; refused (NOT_ALLOWED_COSE_ALGORITHM) by default', async () => {
    const withRs1 = new Harness({ apps: [applicationConfig({ algorithms: [...DEFAULT_ALGORITHMS, -65535] })] });
    const flow = new Flow(withRs1, freshUser(), { fmt: 'packed' });
    expectOk((await flow.register({ alg: -65535 })).res);
    expectOk((await flow.authenticate()).res);
    const plain = new Flow(new Harness(), freshUser(), { fmt: 'packed' });
    await registrationFails(plain, 'NOT_ALLOWED_COSE_ALGORITHM', { alg: -65535 }, (c) => c);
  });
});

describe('§2.6 Server-ServerAuthenticatorAttestationResponse-Resp-5 (packed full attestation)', () => {
  it('P-1: x5c = [batch leaf] → ok', async () => {
    const chain = createChain({ intermediateCount: 0 });
    const flow = new Flow(new Harness(), freshUser(), { fmt: 'packed' });
    expectOk((await flow.register({ statement: full(chain) })).res);
  });

  it('P-2: x5c = [leaf, intermediate] chaining to a configured root, trusted attestation required → ok and recorded as trusted', async () => {
    const chain = createChain({ intermediateCount: 1 });
    const h = new Harness({
      apps: [
        applicationConfig({
          attestation: { trustAnchors: [], requireTrusted: true, metadata: null, aaguidAllow: [], aaguidDeny: [] },
        }),
      ],
      anchors: [chain.root.cert],
    });
    const flow = new Flow(h, freshUser(), { fmt: 'packed' });
    const { res, credential } = await flow.register({ statement: full(chain) });
    expectOk(res);
    const stored = await h.deps.credentials.find(CLIENT_ID, credential.id);
    assert.equal(stored?.attestationTrusted, true);
    assert.equal(stored?.attestationType, 'basic');
  });

  it('P-3: the trust anchor is the batch leaf itself → ok', async () => {
    const chain = createChain({ intermediateCount: 0 });
    const h = new Harness({
      apps: [
        applicationConfig({
          attestation: { trustAnchors: [], requireTrusted: true, metadata: null, aaguidAllow: [], aaguidDeny: [] },
        }),
      ],
      anchors: [chain.leaf.cert],
    });
    const flow = new Flow(h, freshUser(), { fmt: 'packed' });
    expectOk((await flow.register({ statement: full(chain) })).res);
  });

  it('F-1: unknown fmt → UNSUPPORTED_ATTESTATION_FORMAT', async () => {
    const flow = new Flow(new Harness(), freshUser(), { fmt: 'packed' });
    await registrationFails(
      flow,
      'UNSUPPORTED_ATTESTATION_FORMAT',
      { statement: full(createChain()), breaks: 'unknownFmt' },
      (c) => c,
    );
  });

  it('F-2: damaged sig → ATTESTATION_SIGNATURE_VERIFICATION_FAIL', async () => {
    const flow = new Flow(new Harness(), freshUser(), { fmt: 'packed' });
    await registrationFails(
      flow,
      'ATTESTATION_SIGNATURE_VERIFICATION_FAIL',
      { statement: full(createChain()), breaks: 'flipSignature' },
      (c) => c,
    );
  });

  const x5cCases: [string, (a: Map<string, unknown>) => void, string][] = [
    // Without x5c the statement reads as self attestation, whose sig the credential key did not make.
    ['F-3: x5c missing', (a) => a.delete('x5c'), 'ATTESTATION_SIGNATURE_VERIFICATION_FAIL'],
    ['F-4: x5c not an array', (a) => a.set('x5c', Buffer.alloc(10)), 'INVALID_ATTESTATION_FORMAT'],
    ['F-5: x5c empty', (a) => a.set('x5c', []), 'INVALID_ATTESTATION_FORMAT'],
  ];
  for (const [title, edit, name] of x5cCases) {
    it(`${title} → ${name}`, async () => {
      const flow = new Flow(new Harness(), freshUser(), { fmt: 'packed' });
      await registrationFails(flow, name, { statement: full(createChain()) }, (c) => editAttStmt(c, edit));
    });
  }

  it('F-6: leaf expired → CERTIFICATE_EXPIRED', async () => {
    const chain = createChain({
      intermediateCount: 0,
      leaf: { notBefore: new Date('2019-01-01'), notAfter: new Date('2020-01-01') },
    });
    const flow = new Flow(new Harness(), freshUser(), { fmt: 'packed' });
    await registrationFails(flow, 'CERTIFICATE_EXPIRED', { statement: full(chain) }, (c) => c);
  });

  it('F-7: leaf not yet valid → CERTIFICATE_NOT_YET_VALID', async () => {
    const chain = createChain({
      intermediateCount: 0,
      leaf: { notBefore: new Date('2040-01-01'), notAfter: new Date('2045-01-01') },
    });
    const flow = new Flow(new Harness(), freshUser(), { fmt: 'packed' });
    await registrationFails(flow, 'CERTIFICATE_NOT_YET_VALID', { statement: full(chain) }, (c) => c);
  });

  it('F-8: leaf key of another algorithm than attStmt.alg → PACKED_ATTESTATION_ALGORITHM_NOT_MATCHED', async () => {
    const chain = createChain({ intermediateCount: 0, leaf: { key: 'p384' } });
    const flow = new Flow(new Harness(), freshUser(), { fmt: 'packed' });
    await registrationFails(
      flow,
      'PACKED_ATTESTATION_ALGORITHM_NOT_MATCHED',
      { statement: { attestation: { x5c: chain.x5c, privateKey: chain.leaf.privateKey, alg: -7 } } },
      (c) => c,
    );
  });

  it('F-9: the chain cannot be built (wrong intermediate) → CERTIFICATE_SIGNATURE_INVALID', async () => {
    const root = createRoot();
    const intermediate = createIntermediate(root);
    const stranger = createIntermediate(createRoot());
    const leaf = createLeaf(intermediate);
    const h = new Harness({
      apps: [
        applicationConfig({
          attestation: { trustAnchors: [], requireTrusted: true, metadata: null, aaguidAllow: [], aaguidDeny: [] },
        }),
      ],
      anchors: [root.cert],
    });
    const flow = new Flow(h, freshUser(), { fmt: 'packed' });
    const { res } = await flow.register({
      statement: { attestation: { x5c: [leaf.der, stranger.der], privateKey: leaf.privateKey } },
    });
    expectFailure(res, 'CERTIFICATE_SIGNATURE_INVALID', 400);
  });

  it('F-10: x5c includes the root (trust anchor) → CERTIFICATE_CHAIN_INCLUDES_ROOT', async () => {
    const chain = createChain({ intermediateCount: 1 });
    const h = new Harness({
      apps: [
        applicationConfig({
          attestation: { trustAnchors: [], requireTrusted: true, metadata: null, aaguidAllow: [], aaguidDeny: [] },
        }),
      ],
      anchors: [chain.root.cert],
    });
    const flow = new Flow(h, freshUser(), { fmt: 'packed' });
    const { res } = await flow.register({
      statement: { attestation: { x5c: [...chain.x5c, chain.root.der], privateKey: chain.leaf.privateKey } },
    });
    expectFailure(res, 'CERTIFICATE_CHAIN_INCLUDES_ROOT', 400);
  });

  it('F-11: chain out of order [intermediate, leaf] → ATTESTATION_SIGNATURE_VERIFICATION_FAIL (x5c[0] did not sign)', async () => {
    const chain = createChain({ intermediateCount: 1 });
    const flow = new Flow(new Harness(), freshUser(), { fmt: 'packed' });
    const { res } = await flow.register({
      statement: { attestation: { x5c: [...chain.x5c].reverse(), privateKey: chain.leaf.privateKey } },
    });
    expectFailure(res, 'ATTESTATION_SIGNATURE_VERIFICATION_FAIL', 400);
  });

  it('F-12: intermediate expired → CERTIFICATE_EXPIRED', async () => {
    const chain = createChain({
      intermediateCount: 1,
      intermediate: { notBefore: new Date('2010-01-01'), notAfter: new Date('2011-01-01') },
    });
    const flow = new Flow(new Harness(), freshUser(), { fmt: 'packed' });
    await registrationFails(flow, 'CERTIFICATE_EXPIRED', { statement: full(chain) }, (c) => c);
  });

  it("F-13: sig made with another key than the leaf's → ATTESTATION_SIGNATURE_VERIFICATION_FAIL", async () => {
    const chain = createChain({ intermediateCount: 0 });
    const other = createChain({ intermediateCount: 0 });
    const flow = new Flow(new Harness(), freshUser(), { fmt: 'packed' });
    await registrationFails(
      flow,
      'ATTESTATION_SIGNATURE_VERIFICATION_FAIL',
      { statement: { attestation: { x5c: chain.x5c, privateKey: other.leaf.privateKey } } },
      (c) => c,
    );
  });

  it('F-14: sig made with the credential key while x5c is present → ATTESTATION_SIGNATURE_VERIFICATION_FAIL', async () => {
    const chain = createChain({ intermediateCount: 0 });
    const h = new Harness();
    const flow = new Flow(h, freshUser(), { fmt: 'packed' });
    const options = await flow.attestationOptions();
    const selfSigned = flow.authenticator.register(options, { alg: -7 });
    // Keep the self signature, add the x5c of a certificate whose key did not make it.
    const credential = editAttStmt(JSON.parse(JSON.stringify(selfSigned)), (a) => a.set('x5c', [...chain.x5c]));
    expectFailure(await h.post(PATHS.attestationResult, credential), 'ATTESTATION_SIGNATURE_VERIFICATION_FAIL', 400);
  });
});

describe('§2.7 Server-ServerAuthenticatorAttestationResponse-Resp-6 (packed self attestation)', () => {
  it('P-1: valid self attestation → ok, recorded as "self"', async () => {
    const h = new Harness();
    const flow = new Flow(h, freshUser(), { fmt: 'packed' });
    const { res, credential } = await flow.register();
    expectOk(res);
    assert.equal((await h.deps.credentials.find(CLIENT_ID, credential.id))?.attestationType, 'self');
  });

  it('F-1: bad sig → ATTESTATION_SIGNATURE_VERIFICATION_FAIL', async () => {
    const flow = new Flow(new Harness(), freshUser(), { fmt: 'packed' });
    await registrationFails(flow, 'ATTESTATION_SIGNATURE_VERIFICATION_FAIL', { breaks: 'flipSignature' }, (c) => c);
  });

  it('F-3: unknown fmt → UNSUPPORTED_ATTESTATION_FORMAT', async () => {
    const flow = new Flow(new Harness(), freshUser(), { fmt: 'packed' });
    await registrationFails(flow, 'UNSUPPORTED_ATTESTATION_FORMAT', { breaks: 'unknownFmt' }, (c) => c);
  });
});

describe('§2.8 Server-ServerAuthenticatorAttestationResponse-Resp-7 ("none")', () => {
  it('P-1: options with attestation "none"; fmt none, empty attStmt, zero AAGUID → ok', async () => {
    const flow = new Flow(new Harness(), freshUser(), { fmt: 'none', aaguid: Buffer.alloc(16) });
    expectOk((await flow.register({}, { attestation: 'none' })).res);
  });

  it('P-2: options with "none" but the authenticator sends packed self attestation → ok', async () => {
    const flow = new Flow(new Harness(), freshUser(), { fmt: 'packed' });
    expectOk((await flow.register({}, { attestation: 'none' })).res);
  });

  it('F-1: a full packed attStmt relabelled fmt "none" → INVALID_ATTESTATION_FORMAT', async () => {
    const flow = new Flow(new Harness(), freshUser(), { fmt: 'packed' });
    await registrationFails(
      flow,
      'INVALID_ATTESTATION_FORMAT',
      { statement: full(createChain()) },
      (c) => editAttestationObject(c, (m) => m.set('fmt', 'none')),
      { attestation: 'direct' },
    );
  });
});

describe('§2.9 Server-ServerAuthenticatorAttestationResponse-Resp-8 (fido-u2f)', () => {
  it('P-1: valid fido-u2f (one certificate, zero AAGUID) → ok, then signs in', async () => {
    const flow = new Flow(new Harness(), freshUser(), { fmt: 'fido-u2f' });
    expectOk((await flow.register()).res);
    expectOk((await flow.authenticate()).res);
  });

  it('F-1: non-zero AAGUID → U2F_ATTESTATION_AAGUID_INVALID', async () => {
    const flow = new Flow(new Harness(), freshUser(), { fmt: 'fido-u2f' });
    await registrationFails(
      flow,
      'U2F_ATTESTATION_AAGUID_INVALID',
      { aaguid: Buffer.from('937dd8ca647e4ed3972943a796cf572a', 'hex') },
      (c) => c,
    );
  });

  it('F-2: bad sig → ATTESTATION_SIGNATURE_VERIFICATION_FAIL', async () => {
    const flow = new Flow(new Harness(), freshUser(), { fmt: 'fido-u2f' });
    await registrationFails(flow, 'ATTESTATION_SIGNATURE_VERIFICATION_FAIL', { breaks: 'flipSignature' }, (c) => c);
  });
});

describe('§2.13 Server-ServerPublicKeyCredentialGetOptionsResponse-Req-1', () => {
  it('P-1: request options for a registered user: one allowCredential, userVerification and extensions echoed', async () => {
    const h = new Harness();
    const flow = new Flow(h, freshUser(), { fmt: 'packed' });
    const { credential } = await flow.register({}, { attestation: 'direct' });
    const body = await flow.assertionOptions({
      userVerification: 'required',
      extensions: { 'example.extension': true },
    });
    assert.equal(body.status, 'ok');
    assert.equal(body.errorMessage, '');
    assert.match(body.challenge, /^[A-Za-z0-9_-]{22,}$/);
    assert.equal(body.extensions['example.extension'], true);
    assert.ok(body.timeout > 0);
    assert.equal(body.allowCredentials.length, 1);
    assert.equal(body.allowCredentials[0].type, 'public-key');
    assert.equal(body.allowCredentials[0].id, credential.id);
    assert.equal(body.userVerification, 'required');
    for (const key of ['rp', 'user', 'pubKeyCredParams', 'excludeCredentials', 'authenticatorSelection', 'attestation'])
      assert.equal(key in body, false, key);
  });

  it('P-2: two calls give different challenges', async () => {
    const flow = new Flow(new Harness(), freshUser());
    await flow.register();
    const a = await flow.assertionOptions();
    const b = await flow.assertionOptions();
    assert.notEqual(a.challenge, b.challenge);
  });
});

describe('§2.14 Server-ServerAuthenticatorAssertionResponse-Resp-1 (assertion structure)', () => {
  it('P-1: a valid assertion → ok', async () => {
    const flow = new Flow(new Harness(), freshUser());
    await flow.register();
    expectOk((await flow.authenticate()).res);
  });

  const structural: [string, (c: any, v?: unknown) => void, unknown[]][] = [
    [
      'F-1: id missing',
      (c) => {
        delete c.id;
      },
      [undefined],
    ],
    [
      'F-2: id not a string',
      (c, v) => {
        c.id = v;
      },
      NOT_STRING,
    ],
    [
      'F-3: id as standard base64 with ==',
      (c) => {
        c.id = `${Buffer.from(c.id, 'base64url').toString('base64')}==`;
      },
      [undefined],
    ],
    [
      'F-4: type missing',
      (c) => {
        delete c.type;
      },
      [undefined],
    ],
    [
      'F-5: type not a string',
      (c, v) => {
        c.type = v;
      },
      NOT_STRING,
    ],
    [
      'F-6: type another string',
      (c) => {
        c.type = 'secret-key';
      },
      [undefined],
    ],
    [
      'F-7: response missing',
      (c) => {
        delete c.response;
      },
      [undefined],
    ],
    [
      'F-8: response not an object',
      (c, v) => {
        c.response = v;
      },
      NOT_OBJECT,
    ],
    [
      'F-9: clientDataJSON missing',
      (c) => {
        delete c.response.clientDataJSON;
      },
      [undefined],
    ],
    [
      'F-10: clientDataJSON not a string',
      (c, v) => {
        c.response.clientDataJSON = v;
      },
      NOT_STRING,
    ],
    [
      'F-11: clientDataJSON empty',
      (c) => {
        c.response.clientDataJSON = '';
      },
      [undefined],
    ],
    [
      'F-12: authenticatorData missing',
      (c) => {
        delete c.response.authenticatorData;
      },
      [undefined],
    ],
    [
      'F-13: authenticatorData not a string',
      (c, v) => {
        c.response.authenticatorData = v;
      },
      NOT_STRING,
    ],
    [
      'F-14: authenticatorData as standard base64 with ==',
      (c) => {
        c.response.authenticatorData = `${Buffer.from(c.response.authenticatorData, 'base64url').toString('base64')}==`;
      },
      [undefined],
    ],
    [
      'F-15: authenticatorData empty',
      (c) => {
        c.response.authenticatorData = '';
      },
      [undefined],
    ],
    [
      'F-16: signature missing',
      (c) => {
        delete c.response.signature;
      },
      [undefined],
    ],
    [
      'F-17: signature not a string',
      (c, v) => {
        c.response.signature = v;
      },
      NOT_STRING,
    ],
    [
      'F-18: signature as standard base64 with ==',
      (c) => {
        c.response.signature = `${Buffer.from(c.response.signature, 'base64url').toString('base64')}==`;
      },
      [undefined],
    ],
    [
      'F-19: signature empty',
      (c) => {
        c.response.signature = '';
      },
      [undefined],
    ],
    [
      'F-21: userHandle not a string',
      (c, v) => {
        c.response.userHandle = v;
      },
      [{}, [], 42, true],
    ],
  ];
  for (const [title, mutate, values] of structural) {
    it(`${title} → INVALID_REQUEST_BODY; the ceremony and the counter stay untouched`, async () => {
      const h = new Harness();
      const flow = new Flow(h, freshUser());
      const { credential: registered } = await flow.register();
      for (const value of values) {
        const options = await flow.assertionOptions();
        const good = flow.authenticator.authenticate(options);
        const bad = JSON.parse(JSON.stringify(good));
        mutate(bad, value);
        const before = await h.deps.credentials.find(CLIENT_ID, registered.id);
        expectFailure(await h.post(PATHS.assertionResult, bad), 'INVALID_REQUEST_BODY', 400);
        assert.deepEqual(await h.deps.credentials.find(CLIENT_ID, registered.id), before);
        expectOk(await h.post(PATHS.assertionResult, good));
      }
    });
  }

  it('F-20: one signature byte changed → ASSERTION_SIGNATURE_VERIFICATION_FAIL', async () => {
    const h = new Harness();
    const flow = new Flow(h, freshUser());
    const { credential } = await flow.register();
    expectFailure(
      (await flow.authenticate({ breaks: 'flipSignature' })).res,
      'ASSERTION_SIGNATURE_VERIFICATION_FAIL',
      400,
    );
    assert.equal((await h.deps.credentials.find(CLIENT_ID, credential.id))?.lastUsedAt, null);
  });
});

describe('§2.15 Server-ServerAuthenticatorAssertionResponse-Resp-2 (client data at assertion)', () => {
  const cases: [string, Record<string, unknown> | undefined, string | undefined, string][] = [
    ['F-1: type missing', { type: undefined }, undefined, 'INVALID_FORMAT_CLIENT_DATA_JSON'],
    ['F-2: type not a string', { type: {} }, undefined, 'INVALID_FORMAT_CLIENT_DATA_JSON'],
    ['F-3: type empty', { type: '' }, undefined, 'INVALID_FORMAT_CLIENT_DATA_JSON'],
    ['F-4: type another string', { type: 'webauthn.other' }, undefined, 'INVALID_OPERATION_TYPE'],
    ['F-5: type "webauthn.create"', undefined, 'type', 'INVALID_OPERATION_TYPE'],
    ['F-6: challenge missing', { challenge: undefined }, undefined, 'INVALID_FORMAT_CLIENT_DATA_JSON'],
    ['F-7: challenge not a string', { challenge: true }, undefined, 'INVALID_FORMAT_CLIENT_DATA_JSON'],
    ['F-8: challenge empty', { challenge: '' }, undefined, 'INVALID_FORMAT_CLIENT_DATA_JSON'],
    ['F-9: challenge not base64url', { challenge: 'aGVsbG8+Pz8/==' }, undefined, 'INVALID_FORMAT_CLIENT_DATA_JSON'],
    ['F-10: challenge another random value', undefined, 'challenge', 'SESSION_NOT_FOUND'],
    ['F-11: origin missing', { origin: undefined }, undefined, 'INVALID_FORMAT_CLIENT_DATA_JSON'],
    ['F-12: origin not a string', { origin: 7 }, undefined, 'INVALID_FORMAT_CLIENT_DATA_JSON'],
    ['F-13: origin empty', { origin: '' }, undefined, 'INVALID_FORMAT_CLIENT_DATA_JSON'],
    ['F-14: origin foreign', undefined, 'origin', 'ORIGIN_NOT_MATCHED'],
    ['F-15: tokenBinding not an object', undefined, 'tokenBindingNotObject', 'TOKEN_BINDING_STATUS_MISSING'],
    ['F-16: tokenBinding without status', undefined, 'tokenBindingStatus', 'TOKEN_BINDING_STATUS_MISSING'],
    [
      'F-17: tokenBinding.status unknown',
      { tokenBinding: { status: 'bogus' } },
      undefined,
      'TOKEN_BINDING_STATUS_MISSING',
    ],
  ];
  for (const [title, clientData, breaks, name] of cases) {
    it(`${title} → ${name}; the counter is unchanged`, async () => {
      const h = new Harness();
      const flow = new Flow(h, freshUser());
      const { credential } = await flow.register();
      const { res } = await flow.authenticate({
        ...(clientData && { clientData }),
        ...(breaks && { breaks: breaks as any }),
      });
      expectFailure(res, name, 400);
      assert.equal((await h.deps.credentials.find(CLIENT_ID, credential.id))?.lastUsedAt, null);
    });
  }
});

describe('§2.16 Server-ServerAuthenticatorAssertionResponse-Resp-3 (authenticator data)', () => {
  it('P-1: registration and assertion with counter 0 → ok', async () => {
    const flow = new Flow(new Harness(), freshUser(), { counter: 'zero' });
    expectOk((await flow.register()).res);
    expectOk((await flow.authenticate()).res);
  });

  it('P-2 / P-3: userVerification "required", UP=1 UV=1 → ok', async () => {
    const flow = new Flow(new Harness(), freshUser());
    await flow.register();
    expectOk((await flow.authenticate({ flags: { up: true, uv: true } }, { userVerification: 'required' })).res);
  });

  it('P-4 (deviation by design): "preferred", UP=0 UV=0 → USER_PRESENCE_FLAG_NOT_SET (we always require user presence)', async () => {
    const flow = new Flow(new Harness(), freshUser());
    await flow.register();
    expectFailure(
      (await flow.authenticate({ flags: { up: false, uv: false } }, { userVerification: 'preferred' })).res,
      'USER_PRESENCE_FLAG_NOT_SET',
      400,
    );
  });

  it('P-5: "discouraged", UP=1 UV=0 → ok', async () => {
    const flow = new Flow(new Harness(), freshUser());
    await flow.register();
    expectOk((await flow.authenticate({ flags: { up: true, uv: false } }, { userVerification: 'discouraged' })).res);
  });

  it('P-6 / P-7 (deviation by design): "discouraged", UP=0 → USER_PRESENCE_FLAG_NOT_SET', async () => {
    const flow = new Flow(new Harness(), freshUser());
    await flow.register();
    expectFailure(
      (await flow.authenticate({ flags: { up: false, uv: true } }, { userVerification: 'discouraged' })).res,
      'USER_PRESENCE_FLAG_NOT_SET',
      400,
    );
    expectFailure(
      (await flow.authenticate({ flags: { up: false, uv: false } }, { userVerification: 'discouraged' })).res,
      'USER_PRESENCE_FLAG_NOT_SET',
      400,
    );
  });

  it('P-8: requested extension; ED=1 with an extension map → ok', async () => {
    const flow = new Flow(new Harness(), freshUser());
    await flow.register();
    const { res } = await flow.authenticate(
      { authenticatorExtensions: new Map([['example.extension', 'This is an example extension!']]) },
      { extensions: { 'example.extension': 'This is an example extension!' } },
    );
    expectOk(res);
  });

  it('F-1: bytes appended to authenticatorData → INVALID_AUTHENTICATOR_DATA', async () => {
    const flow = new Flow(new Harness(), freshUser());
    await flow.register();
    expectFailure((await flow.authenticate({ breaks: 'trailingBytes' })).res, 'INVALID_AUTHENTICATOR_DATA', 400);
  });

  it('F-2: random rpIdHash → RPID_HASH_NOT_MATCHED', async () => {
    const flow = new Flow(new Harness(), freshUser());
    await flow.register();
    expectFailure((await flow.authenticate({ breaks: 'rpIdHash' })).res, 'RPID_HASH_NOT_MATCHED', 400);
  });

  it('F-3: signature over another clientDataHash → ASSERTION_SIGNATURE_VERIFICATION_FAIL', async () => {
    const flow = new Flow(new Harness(), freshUser());
    await flow.register();
    expectFailure(
      (await flow.authenticate({ breaks: 'signedData' })).res,
      'ASSERTION_SIGNATURE_VERIFICATION_FAIL',
      400,
    );
  });

  it('F-4: assertion counter equal to the stored one → SIGNATURE_COUNTER_NOT_INCREASED', async () => {
    const h = new Harness();
    const flow = new Flow(h, freshUser(), { counter: { start: 42 } });
    const { credential } = await flow.register();
    expectFailure(
      (await flow.authenticate({ breaks: 'counterNotIncreased' })).res,
      'SIGNATURE_COUNTER_NOT_INCREASED',
      400,
    );
    assert.equal((await h.deps.credentials.find(CLIENT_ID, credential.id))?.signCount, 42);
  });

  it('F-5: "required", UP=1 UV=0 → USER_VERIFICATION_FLAG_NOT_SET', async () => {
    const flow = new Flow(new Harness(), freshUser());
    await flow.register();
    expectFailure(
      (await flow.authenticate({ flags: { up: true, uv: false } }, { userVerification: 'required' })).res,
      'USER_VERIFICATION_FLAG_NOT_SET',
      400,
    );
  });
});

describe('tokenBinding: the string forms real clients sent (deviation from Resp-2 F-15, docs/conformance.md)', () => {
  it('"unused" (an older client) registers and signs in; so do the other non-present statuses as strings', async () => {
    for (const tokenBinding of ['unused', 'not-supported', 'supported']) {
      const flow = new Flow(new Harness(), freshUser());
      expectOk((await flow.register({ clientData: { tokenBinding } })).res);
      expectOk((await flow.authenticate({ clientData: { tokenBinding } })).res);
    }
  });

  it('a "present" status, as a string or an object, fails: no token binding can be verified', async () => {
    for (const tokenBinding of ['present', { status: 'present', id: 'AAAA' }]) {
      const flow = new Flow(new Harness(), freshUser());
      await registrationFails(flow, 'TOKEN_BINDING_INFO_NOT_MATCHED', { clientData: { tokenBinding } }, (c) => c);
      expectOk((await flow.register()).res);
      expectFailure(
        (await flow.authenticate({ clientData: { tokenBinding } })).res,
        'TOKEN_BINDING_INFO_NOT_MATCHED',
        400,
      );
    }
  });
});
