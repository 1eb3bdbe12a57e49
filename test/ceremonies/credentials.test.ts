// Stored credentials: duplicates, which credential may sign, user handles, counters (compare-and-set),
// backup flags, and the enumeration defence of assertion options.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryCredentialStore } from '../../src/stores/memory/credentials.js';
import type { CredentialUse } from '../../src/stores/types.js';
import { FidoError } from '../../src/errors/catalogue.js';
import { KeyCache } from '../../src/ceremonies/key-cache.js';
import { fakeCredentialFor, fakeCredentialKey } from '../../src/ceremonies/fake-credential.js';
import { importCosePublicKey } from '../../src/webauthn/cose-key.js';
import type { TrustEvaluator } from '../../src/webauthn/attestation/types.js';
import { createChain } from '../support/pki.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import {
  CLIENT_ID,
  DOMAIN,
  Flow,
  Harness,
  LOCAL_ORIGIN,
  ORIGIN,
  PATHS,
  applicationConfig,
  expectFailure,
  expectOk,
  username,
} from '../support/harness.js';

describe('registration storage', () => {
  it('the same credential id registered twice → DUPLICATED_CREDENTIAL_ID, the first stays', async () => {
    const h = new Harness();
    const id = Buffer.alloc(16, 5);
    const first = new Flow(h, username('dup1'));
    const { credential } = await first.register({ credentialId: id });
    const stored = await h.deps.credentials.find(CLIENT_ID, credential.id);
    const second = new Flow(h, username('dup2'));
    expectFailure((await second.register({ credentialId: id })).res, 'DUPLICATED_CREDENTIAL_ID', 400);
    assert.deepEqual(await h.deps.credentials.find(CLIENT_ID, credential.id), stored);
  });

  it('an AAGUID on the deny list (or missing from an allow list) → AAGUID_NOT_ALLOWED, nothing stored', async () => {
    const aaguid = '11111111-2222-3333-4444-555555555555';
    const aaguidBytes = Buffer.from(aaguid.replace(/-/g, ''), 'hex');
    // The lists decide on an AAGUID a chain to the application's anchor proved.
    const chain = createChain();
    const statement = { attestation: { x5c: chain.x5c, privateKey: chain.leaf.privateKey } };
    const anchors = [chain.root.cert];
    const policy = { trustAnchors: [], requireTrusted: false, metadata: null, aaguidAllow: [], aaguidDeny: [aaguid] };
    const deniedHarness = new Harness({ apps: [applicationConfig({ attestation: policy })], anchors });
    const denied = new Flow(deniedHarness, username('deny'), { fmt: 'packed' });
    const refused = await denied.register({ aaguid: aaguidBytes, statement });
    expectFailure(refused.res, 'AAGUID_NOT_ALLOWED', 400);
    assert.equal(await deniedHarness.deps.credentials.find(CLIENT_ID, refused.credential.id), undefined);
    const allowOnly = { ...policy, aaguidDeny: [], aaguidAllow: [aaguid] };
    const h = new Harness({ apps: [applicationConfig({ attestation: allowOnly })], anchors });
    expectFailure(
      (await new Flow(h, username('other'), { fmt: 'packed' }).register({ statement })).res,
      'AAGUID_NOT_ALLOWED',
      400,
    );
    expectOk(
      (await new Flow(h, username('listed'), { fmt: 'packed' }).register({ aaguid: aaguidBytes, statement })).res,
    );
  });

  it('with an AAGUID list, an attestation that does not prove its AAGUID → AAGUID_NOT_PROVEN, nothing stored', async () => {
    const aaguid = '11111111-2222-3333-4444-555555555555';
    const aaguidBytes = Buffer.from(aaguid.replace(/-/g, ''), 'hex');
    for (const lists of [
      { aaguidAllow: [aaguid], aaguidDeny: [] },
      { aaguidAllow: [], aaguidDeny: ['cb69481e-8ff7-4039-93ec-0a2729a154a8'] },
    ]) {
      const h = new Harness({
        apps: [
          applicationConfig({ attestation: { trustAnchors: [], requireTrusted: false, metadata: null, ...lists } }),
        ],
      });
      for (const fmt of ['none', 'packed'] as const) {
        const { res, credential } = await new Flow(h, username(`unproven-${fmt}`), { fmt }).register({
          aaguid: aaguidBytes,
        });
        expectFailure(res, 'AAGUID_NOT_PROVEN', 400);
        assert.equal(await h.deps.credentials.find(CLIENT_ID, credential.id), undefined);
      }
    }
  });

  it("the trust decision's authenticatorName is stored on the credential when the AAGUID is proven, not otherwise", async () => {
    const named: TrustEvaluator = {
      evaluate: () => ({ trusted: true, aaguidProven: true, authenticatorName: 'Example Security Key' }),
    };
    const h = new Harness({ trust: named });
    const { credential } = await new Flow(h, username('named')).register();
    const stored = await h.deps.credentials.find(CLIENT_ID, credential.id);
    assert.equal(stored?.authenticatorName, 'Example Security Key');
    assert.equal(stored?.attestationTrusted, true);
    // A name looked up from a claimed AAGUID is a hint the verification result carries, never stored as fact.
    const claimed: TrustEvaluator = {
      evaluate: () => ({ trusted: false, aaguidProven: false, authenticatorName: 'Example Security Key' }),
    };
    const h2 = new Harness({ trust: claimed });
    const second = await new Flow(h2, username('claimed')).register();
    expectOk(second.res);
    assert.equal((await h2.deps.credentials.find(CLIENT_ID, second.credential.id))?.authenticatorName ?? null, null);
  });

  it('credProps.rk is stored when the client reports it, null otherwise', async () => {
    const h = new Harness();
    const a = await new Flow(h, username('rk1')).register({ clientExtensionResults: { credProps: { rk: false } } });
    const b = await new Flow(h, username('rk2')).register({ clientExtensionResults: {} });
    assert.equal((await h.deps.credentials.find(CLIENT_ID, a.credential.id))?.residentKey, false);
    assert.equal((await h.deps.credentials.find(CLIENT_ID, b.credential.id))?.residentKey, null);
  });

  it('clientExtensionResults / getClientExtensionResults are read when extensions is absent', async () => {
    const h = new Harness();
    const { credential } = await new Flow(h, username('ext')).register({}, {}, (c) => {
      delete c.extensions;
      c.clientExtensionResults = { credProps: { rk: true } };
      c.authenticatorAttachment = 'platform';
      return c;
    });
    assert.equal((await h.deps.credentials.find(CLIENT_ID, credential.id))?.residentKey, true);
  });

  it('id and rawId that differ → CREDENTIAL_ID_NOT_MATCHED', async () => {
    const flow = new Flow(new Harness(), username('raw'));
    expectFailure((await flow.register({ breaks: 'rawIdMismatch' })).res, 'CREDENTIAL_ID_NOT_MATCHED', 400);
  });
});

/** Accepts every registration; at authentication refuses the AAGUIDs in `compromised`, as metadata status would. */
function refusingAtAuthentication(compromised: Set<string>): TrustEvaluator & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    evaluate: () => ({ trusted: false, aaguidProven: false, authenticatorName: null }),
    checkAuthentication: ({ aaguid, now }) => {
      assert.ok(now instanceof Date);
      asked.push(aaguid);
      if (compromised.has(aaguid))
        throw new FidoError('AUTHENTICATOR_STATUS_NOT_ACCEPTED', 'metadata reports it compromised');
    },
  };
}

describe('authenticator status at authentication (TrustEvaluator.checkAuthentication)', () => {
  const AAGUID = '0a1b2c3d-4e5f-4071-8293-a4b5c6d7e8f9';
  const aaguidBytes = Buffer.from(AAGUID.replace(/-/g, ''), 'hex');

  it('a credential whose authenticator is now reported compromised → AUTHENTICATOR_STATUS_NOT_ACCEPTED, nothing written', async () => {
    const compromised = new Set<string>();
    const trust = refusingAtAuthentication(compromised);
    const h = new Harness({ trust });
    const flow = new Flow(h, username('status'), { fmt: 'packed' });
    const { credential } = await flow.register({ aaguid: aaguidBytes });
    expectOk((await flow.authenticate()).res);
    assert.deepEqual(trust.asked, [AAGUID]);
    const before = await h.deps.credentials.find(CLIENT_ID, credential.id);

    compromised.add(AAGUID);
    expectFailure((await flow.authenticate()).res, 'AUTHENTICATOR_STATUS_NOT_ACCEPTED', 400);
    assert.deepEqual(await h.deps.credentials.find(CLIENT_ID, credential.id), before);
  });

  it('the local variant asks too, with the AAGUID sealed in the blob', async () => {
    const compromised = new Set<string>([AAGUID]);
    const trust = refusingAtAuthentication(compromised);
    const h = new Harness({ trust });
    const flow = new Flow(h, username('status', 'localhost'), { fmt: 'packed' }, LOCAL_ORIGIN);
    const options = await flow.attestationOptions({}, { origin: null });
    const registration: any = JSON.parse(JSON.stringify(flow.authenticator.register(options, { aaguid: aaguidBytes })));
    registration.extensions = { localhost: true };
    const blob = expectOk(await h.post(PATHS.attestationResult, registration, { origin: null })).localhost;
    const assertionOptions = await flow.assertionOptions({}, { origin: null });
    const assertion: any = JSON.parse(JSON.stringify(flow.authenticator.authenticate(assertionOptions)));
    assertion.extensions = { localhost: blob };
    expectFailure(
      await h.post(PATHS.assertionResult, assertion, { origin: null }),
      'AUTHENTICATOR_STATUS_NOT_ACCEPTED',
      400,
    );
    assert.deepEqual(trust.asked, [AAGUID]);
  });
});

describe('which credential may sign in', () => {
  it('a credential not offered in allowCredentials → CREDENTIAL_ID_NOT_FOUND', async () => {
    const h = new Harness();
    const alice = new Flow(h, username('alice'));
    const bob = new Flow(h, username('bob'));
    await alice.register();
    await bob.register();
    // Bob's authenticator answers Alice's challenge with Bob's credential.
    const options = await alice.assertionOptions();
    const assertion = bob.authenticator.authenticate({ ...options, allowCredentials: [] });
    const detail = expectFailure(await h.post(PATHS.assertionResult, assertion), 'CREDENTIAL_ID_NOT_FOUND', 400);
    assert.match(detail, /not offered/);
  });

  it('a userHandle of another user → USER_HANDLE_NOT_MATCHED', async () => {
    const flow = new Flow(new Harness(), username('handle'));
    await flow.register();
    expectFailure((await flow.authenticate({ breaks: 'userHandle' })).res, 'USER_HANDLE_NOT_MATCHED', 400);
  });

  it('a missing or null userHandle is accepted (non-discoverable credential)', async () => {
    const flow = new Flow(new Harness(), username('nohandle'));
    await flow.register();
    expectOk((await flow.authenticate({ userHandle: null })).res);
    expectOk(
      (
        await flow.authenticate({}, {}, (c) => {
          c.response.userHandle = null;
          return c;
        })
      ).res,
    );
  });

  it('a counter that increases is stored; one that goes back → SIGNATURE_COUNTER_NOT_INCREASED', async () => {
    const h = new Harness();
    const flow = new Flow(h, username('counter'), { counter: { start: 10, increment: 5 } });
    const { credential } = await flow.register();
    expectOk((await flow.authenticate()).res);
    assert.equal((await h.deps.credentials.find(CLIENT_ID, credential.id))?.signCount, 15);
    expectFailure((await flow.authenticate({ signCount: 3 })).res, 'SIGNATURE_COUNTER_NOT_INCREASED', 400);
    assert.equal((await h.deps.credentials.find(CLIENT_ID, credential.id))?.signCount, 15);
  });

  it('counterPolicy "warn": a counter that goes back is accepted, marked as a clone warning, never stored lower', async () => {
    const h = new Harness({ apps: [applicationConfig({ counterPolicy: 'warn' })] });
    const flow = new Flow(h, username('warn'), { counter: { start: 10 } });
    const { credential } = await flow.register();
    expectOk((await flow.authenticate({ signCount: 4 })).res);
    const stored = await h.deps.credentials.find(CLIENT_ID, credential.id);
    assert.equal(stored?.signCount, 10);
    assert.equal(stored?.cloneWarning, true);
    assert.ok(h.logs.some((l) => l.level === 'warn' && /counter/.test(l.message)));
  });

  it('two sign-ins racing with the same counter: the compare-and-set lets one win, the other → SIGNATURE_COUNTER_NOT_INCREASED', async () => {
    // A store whose counter moves between our read and our write, as a concurrent sign-in would make it.
    const store = new MemoryCredentialStore();
    const racing = Object.create(store) as MemoryCredentialStore;
    racing.recordUse = async (clientId: string, credentialId: string, use: CredentialUse) => {
      await store.recordUse(clientId, credentialId, { ...use, signCount: use.signCount + 100 });
      return store.recordUse(clientId, credentialId, use);
    };
    racing.find = store.find.bind(store);
    racing.create = store.create.bind(store);
    racing.createCounted = store.createCounted.bind(store);
    racing.listByUser = store.listByUser.bind(store);
    racing.importedUserHandle = store.importedUserHandle.bind(store);
    const h = new Harness({ credentials: racing });
    const flow = new Flow(h, username('race'));
    await flow.register();
    expectFailure((await flow.authenticate()).res, 'SIGNATURE_COUNTER_NOT_INCREASED', 400);
  });

  it('BE changing between ceremonies is recorded, not failed: stored with BS, reported once; BS without BE fails', async () => {
    const h = new Harness();
    const flow = new Flow(h, username('backup'), { flags: { be: false, bs: false } });
    const { credential } = await flow.register();
    const stored = async () => {
      const record = await h.deps.credentials.find(CLIENT_ID, credential.id);
      return { be: record?.backupEligible, bs: record?.backupState };
    };
    expectOk((await flow.authenticate({ flags: { be: true, bs: true } })).res);
    // Never BE=false with BS=true in the store.
    assert.deepEqual(await stored(), { be: true, bs: true });
    assert.deepEqual(h.outcomes.at(-1)?.backupEligibilityChange, { from: false, to: true });
    expectOk((await flow.authenticate({ flags: { be: true, bs: false } })).res);
    assert.deepEqual(await stored(), { be: true, bs: false });
    assert.equal(h.outcomes.at(-1)?.backupEligibilityChange ?? null, null);
    expectOk((await flow.authenticate({ flags: { be: false, bs: false } })).res);
    assert.deepEqual(await stored(), { be: false, bs: false });
    assert.deepEqual(h.outcomes.at(-1)?.backupEligibilityChange, { from: true, to: false });
    expectFailure((await flow.authenticate({ breaks: 'bsWithoutBe' })).res, 'INVALID_BACKUP_STATE_FLAG_SET', 400);
    assert.deepEqual(await stored(), { be: false, bs: false });
  });
});

describe('enumeration defence (assertion options for unknown users)', () => {
  it("an unknown user gets options shaped like a known user's, with one stable fake credential", async () => {
    const h = new Harness();
    await new Flow(h, username('known')).register();
    const known = expectOk(await h.post(PATHS.assertionOptions, { username: username('known') }));
    const unknown1 = expectOk(await h.post(PATHS.assertionOptions, { username: username('ghost') }));
    const unknown2 = expectOk(await h.post(PATHS.assertionOptions, { username: username('ghost') }));
    const other = expectOk(await h.post(PATHS.assertionOptions, { username: username('phantom') }));
    assert.deepEqual(Object.keys(unknown1).sort(), Object.keys(known).sort());
    assert.equal(unknown1.allowCredentials.length, 1);
    assert.equal(unknown1.allowCredentials[0].type, 'public-key');
    // Shaped like the application's credentials its options listed: the same id length and transports.
    assert.equal(unknown1.allowCredentials[0].id.length, known.allowCredentials[0].id.length);
    assert.deepEqual(unknown1.allowCredentials[0].transports, known.allowCredentials[0].transports);
    assert.deepEqual(unknown1.allowCredentials, unknown2.allowCredentials);
    assert.notDeepEqual(unknown1.allowCredentials, other.allowCredentials);
    assert.equal(unknown1.userVerification, known.userVerification);
    assert.equal(unknown1.rpId, known.rpId);
  });

  it('a sign-in with the fake credential fails exactly like a real credential with a bad signature', async () => {
    const h = new Harness();
    await new Flow(h, username('known')).register();
    // The attacker's own authenticator, holding a key of its own under each offered id.
    const attempt = async (user: string, userHandle: string | null): Promise<{ status: number; body: string }> => {
      const options = expectOk(await h.post(PATHS.assertionOptions, { username: username(user) }));
      const stranger = new SoftAuthenticator({ origin: ORIGIN });
      stranger.register(
        {
          rp: { id: DOMAIN },
          user: { id: 'AAAA' },
          challenge: 'AAAA',
          pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
        },
        { credentialId: Buffer.from(options.allowCredentials[0].id, 'base64url') },
      );
      const res = await h.post(PATHS.assertionResult, stranger.authenticate(options, { userHandle }));
      return { status: res.status, body: res.body };
    };
    for (const userHandle of [null, 'AAAA']) {
      const real = await attempt('known', userHandle);
      const fake = await attempt('ghost', userHandle);
      assert.deepEqual(fake, real);
      const name = userHandle === null ? 'ASSERTION_SIGNATURE_VERIFICATION_FAIL' : 'USER_HANDLE_NOT_MATCHED';
      assert.equal(JSON.parse(real.body).errorMessage[0], name);
      assert.equal(real.status, 400);
    }
  });

  it('the fake credential is verified on the path of a real one: its dummy key is imported once into the key cache, then served from it', async () => {
    const keys = new KeyCache();
    const h = new Harness({ keyCache: keys });
    const options = expectOk(await h.post(PATHS.assertionOptions, { username: username('ghost') }));
    const stranger = new SoftAuthenticator({ origin: ORIGIN });
    stranger.register(
      {
        rp: { id: DOMAIN },
        user: { id: 'AAAA' },
        challenge: 'AAAA',
        pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
      },
      { credentialId: Buffer.from(options.allowCredentials[0].id, 'base64url') },
    );
    expectFailure(
      await h.post(PATHS.assertionResult, stranger.authenticate(options, { userHandle: null })),
      'ASSERTION_SIGNATURE_VERIFICATION_FAIL',
      400,
    );
    assert.equal(keys.imports, 1);
    assert.equal(keys.size, 1);
    const again = expectOk(await h.post(PATHS.assertionOptions, { username: username('ghost') }));
    expectFailure(
      await h.post(PATHS.assertionResult, stranger.authenticate(again, { userHandle: null })),
      'ASSERTION_SIGNATURE_VERIFICATION_FAIL',
      400,
    );
    assert.equal(keys.imports, 1);
    // The steps before the signature run too: a wrong origin in the client data is named as for a real credential.
    const third = expectOk(await h.post(PATHS.assertionOptions, { username: username('ghost') }));
    expectFailure(
      await h.post(PATHS.assertionResult, stranger.authenticate(third, { userHandle: null, breaks: 'origin' })),
      'ORIGIN_NOT_MATCHED',
      400,
    );
  });

  it('the dummy key is a P-256 point no one holds the private key of, one per user-handle key, derived once', () => {
    const secret = Buffer.alloc(32, 7);
    const a = fakeCredentialKey(secret);
    assert.equal(fakeCredentialKey(secret), a);
    const b = fakeCredentialKey(Buffer.alloc(32, 8));
    assert.notDeepEqual(a, b);
    const key = importCosePublicKey(Buffer.from(a)).keyObject;
    assert.equal(key.asymmetricKeyType, 'ec');
    assert.equal(key.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  });

  it("the fake credential is derived once per (key, Client ID, username) and looks like a platform passkey's", () => {
    const key = Buffer.alloc(32, 7);
    const first = fakeCredentialFor(key, CLIENT_ID, username('ghost'));
    assert.equal(fakeCredentialFor(key, CLIENT_ID, username('ghost')), first);
    assert.notEqual(fakeCredentialFor(key, CLIENT_ID, username('phantom')).id, first.id);
    assert.notEqual(fakeCredentialFor(key, 'other-client', username('ghost')).id, first.id);
    assert.equal(Buffer.from(first.id, 'base64url').length, 20);
    assert.deepEqual(first.transports, [...first.transports].sort());
  });

  it('revealUnknownUsers: an unknown user → CREDENTIAL_ID_NOT_FOUND at options', async () => {
    const h = new Harness({ apps: [applicationConfig({ revealUnknownUsers: true })] });
    expectFailure(
      await h.post(PATHS.assertionOptions, { username: username('ghost') }),
      'CREDENTIAL_ID_NOT_FOUND',
      400,
    );
  });
});

describe('hostile bytes inside well-formed JSON', () => {
  it('truncated authenticatorData, non-JSON clientDataJSON, bad CBOR, oversized ids: precise names, nothing changes', async () => {
    const h = new Harness();
    const flow = new Flow(h, username('hostile'));
    const { credential } = await flow.register();
    const stored = await h.deps.credentials.find(CLIENT_ID, credential.id);
    const cases: [string, (c: any) => void, string][] = [
      [
        'authenticatorData truncated to 20 bytes',
        (c) => {
          c.response.authenticatorData = Buffer.from(c.response.authenticatorData, 'base64url')
            .subarray(0, 20)
            .toString('base64url');
        },
        'INVALID_AUTHENTICATOR_DATA',
      ],
      [
        'clientDataJSON not JSON',
        (c) => {
          c.response.clientDataJSON = Buffer.from('not json at all').toString('base64url');
        },
        'INVALID_FORMAT_CLIENT_DATA_JSON',
      ],
      [
        'clientDataJSON a JSON array',
        (c) => {
          c.response.clientDataJSON = Buffer.from('[1,2]').toString('base64url');
        },
        'INVALID_FORMAT_CLIENT_DATA_JSON',
      ],
      [
        'id of 2000 characters',
        (c) => {
          c.id = 'A'.repeat(2000);
          c.rawId = c.id;
        },
        'INVALID_REQUEST_BODY',
      ],
      [
        'signature with a space',
        (c) => {
          c.response.signature = 'ab cd';
        },
        'INVALID_REQUEST_BODY',
      ],
    ];
    for (const [, mutate, name] of cases) {
      const options = await flow.assertionOptions();
      const assertion = JSON.parse(JSON.stringify(flow.authenticator.authenticate(options)));
      mutate(assertion);
      expectFailure(await h.post(PATHS.assertionResult, assertion), name, 400);
      assert.deepEqual(await h.deps.credentials.find(CLIENT_ID, credential.id), stored);
    }

    const badCbor = await flow.register({}, {}, (c) => {
      c.response.attestationObject = Buffer.from([0xa3, 0x63, 0x66, 0x6d]).toString('base64url');
      return c;
    });
    expectFailure(badCbor.res, 'INVALID_FORMAT_ATTESTATION_OBJECT', 400);
    const deepCbor = await flow.register({}, {}, (c) => {
      c.response.attestationObject = Buffer.alloc(5000, 0x81).toString('base64url');
      return c;
    });
    expectFailure(deepCbor.res, 'INVALID_FORMAT_ATTESTATION_OBJECT', 400);
    assert.equal((await h.deps.credentials.listByUser(CLIENT_ID, stored!.userHandle)).length, 1);
  });
});
