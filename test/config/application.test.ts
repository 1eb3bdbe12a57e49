// Per-application policies over a real socket: hints (request and default, unknown refused), Android app
// origins, related origins (WebAuthn L3 §5.11) and the synced-or-device-bound policy (backupEligibility),
// each with its refusals; and the configuration rules behind them, every problem reported at once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readApplication } from '../../src/config/application.js';
import { Problems } from '../../src/config/checks.js';
import {
  applicationConfig,
  CLIENT_ID,
  DOMAIN,
  expectFailure,
  expectOk,
  Flow,
  ORIGIN,
  PATHS,
  username,
} from '../support/harness.js';
import { SocketHarness } from '../support/socket-harness.js';

const ANDROID_ORIGIN = `android:apk-key-hash:${createHash('sha256').update('signing certificate').digest('base64url')}`;
const RELATED = 'https://shop.example.com';

describe('hints (real socket)', () => {
  let h: SocketHarness;
  let defaults: SocketHarness;
  before(async () => {
    h = await SocketHarness.start();
    defaults = await SocketHarness.start({ apps: [applicationConfig({ hints: ['security-key', 'hybrid'] })] });
  });
  after(async () => {
    await h.close();
    await defaults.close();
  });

  it('answers the hints a request sends, in its order, in both options calls (a repeated hint once)', async () => {
    const create = expectOk(
      await h.post(PATHS.attestationOptions, {
        username: username('hinted'),
        hints: ['client-device', 'security-key', 'client-device'],
      }),
    );
    assert.deepEqual(create.hints, ['client-device', 'security-key']);
    const get = expectOk(await h.post(PATHS.assertionOptions, { username: username('hinted'), hints: ['hybrid'] }));
    assert.deepEqual(get.hints, ['hybrid']);
  });

  it("answers no hints member when neither the request nor the application has any (the specification's answer)", async () => {
    assert.equal('hints' in expectOk(await h.post(PATHS.attestationOptions, { username: username('plain') })), false);
    assert.equal('hints' in expectOk(await h.post(PATHS.assertionOptions, { username: username('plain') })), false);
  });

  it("answers the application's default hints when the request sends none, and the request's (even none) when it does", async () => {
    assert.deepEqual(expectOk(await defaults.post(PATHS.attestationOptions, { username: username('d') })).hints, [
      'security-key',
      'hybrid',
    ]);
    assert.deepEqual(expectOk(await defaults.post(PATHS.assertionOptions, { username: username('d') })).hints, [
      'security-key',
      'hybrid',
    ]);
    assert.deepEqual(
      expectOk(await defaults.post(PATHS.assertionOptions, { username: username('d'), hints: ['client-device'] }))
        .hints,
      ['client-device'],
    );
    assert.equal(
      'hints' in expectOk(await defaults.post(PATHS.assertionOptions, { username: username('d'), hints: [] })),
      false,
    );
  });

  it('refuses an unknown hint with UNKNOWN_HINT naming it, and a malformed hints member as INVALID_REQUEST_BODY', async () => {
    const detail = expectFailure(
      await h.post(PATHS.attestationOptions, { username: username('x'), hints: ['security-key', 'nfc'] }),
      'UNKNOWN_HINT',
      400,
    );
    assert.match(detail, /"nfc"/);
    expectFailure(
      await h.post(PATHS.assertionOptions, { username: username('x'), hints: ['platform'] }),
      'UNKNOWN_HINT',
      400,
    );
    expectFailure(
      await h.post(PATHS.assertionOptions, { username: username('x'), hints: 'hybrid' }),
      'INVALID_REQUEST_BODY',
      400,
    );
    expectFailure(
      await h.post(PATHS.assertionOptions, { username: username('x'), hints: [1] }),
      'INVALID_REQUEST_BODY',
      400,
    );
  });
});

describe('Android app origins (real socket)', () => {
  let h: SocketHarness;
  before(async () => {
    h = await SocketHarness.start({ apps: [applicationConfig({ origins: [ORIGIN, ANDROID_ORIGIN] })] });
  });
  after(async () => h.close());

  it("an app whose backend relay sends android:apk-key-hash:… registers and signs in on the application's RP ID", async () => {
    const flow = new Flow(h, username('android'), {}, ANDROID_ORIGIN);
    const { res, options } = await flow.register();
    expectOk(res);
    assert.equal(options.rp.id, DOMAIN);
    expectOk((await flow.authenticate()).res);
  });

  it("refuses another app's key hash as the origin header, and a clientDataJSON.origin that is not the header", async () => {
    const other = `android:apk-key-hash:${createHash('sha256').update('another app').digest('base64url')}`;
    expectFailure(
      await h.post(PATHS.attestationOptions, { username: username('android') }, { origin: other }),
      'ORIGIN_NOT_ALLOWED',
      403,
    );
    const flow = new Flow(h, username('android2'), { origin: other }, ANDROID_ORIGIN);
    expectFailure((await flow.register()).res, 'ORIGIN_NOT_MATCHED', 400);
  });
});

describe('related origins (real socket)', () => {
  let h: SocketHarness;
  before(async () => {
    h = await SocketHarness.start({ apps: [applicationConfig({ relatedOrigins: [RELATED] })] });
  });
  after(async () => h.close());

  it("a page on a related origin registers and signs in with the application's RP ID", async () => {
    const flow = new Flow(h, username('related'), {}, RELATED);
    const { res, options } = await flow.register();
    expectOk(res);
    assert.equal(options.rp.id, DOMAIN);
    const signIn = await flow.authenticate();
    expectOk(signIn.res);
    assert.equal(signIn.options.rpId, DOMAIN);
    // The same credential from the RP ID's own origin too: one RP ID, two sites.
    expectOk(
      await new Flow(h, username('related'), {}, ORIGIN).h.post(PATHS.assertionOptions, {
        username: username('related'),
      }),
    );
  });

  it('refuses an origin that is neither listed nor related, and a related clientDataJSON.origin under another header', async () => {
    expectFailure(
      await h.post(PATHS.assertionOptions, { username: username('related') }, { origin: 'https://evil.example.net' }),
      'ORIGIN_NOT_ALLOWED',
      403,
    );
    const flow = new Flow(h, username('mixed'), { origin: RELATED }, ORIGIN);
    expectFailure((await flow.register()).res, 'ORIGIN_NOT_MATCHED', 400);
  });
});

describe('backupEligibility (real socket)', () => {
  const servers: SocketHarness[] = [];
  const start = async (policy: 'any' | 'required' | 'forbidden' | undefined) => {
    const h = await SocketHarness.start({
      apps: [applicationConfig(policy === undefined ? {} : { backupEligibility: policy })],
    });
    servers.push(h);
    return h;
  };
  after(async () => {
    for (const h of servers) await h.close();
  });
  const register = (h: SocketHarness, user: string, be: boolean) =>
    new Flow(h, username(user)).register({ flags: { be, bs: be } });

  it('"required" takes synced passkeys only: a device-bound credential is refused with BACKUP_ELIGIBILITY_REQUIRED and not stored', async () => {
    const h = await start('required');
    expectOk((await register(h, 'synced', true)).res);
    const refused = await register(h, 'bound', false);
    expectFailure(refused.res, 'BACKUP_ELIGIBILITY_REQUIRED', 400);
    assert.equal(await h.deps.credentials.find(CLIENT_ID, refused.credential.id), undefined);
  });

  it('"forbidden" takes device-bound credentials only: a synced one is refused with BACKUP_ELIGIBILITY_NOT_ALLOWED', async () => {
    const h = await start('forbidden');
    expectOk((await register(h, 'bound', false)).res);
    const refused = await register(h, 'synced', true);
    expectFailure(refused.res, 'BACKUP_ELIGIBILITY_NOT_ALLOWED', 400);
    assert.equal(await h.deps.credentials.find(CLIENT_ID, refused.credential.id), undefined);
  });

  it('"any" and an application without the key take both', async () => {
    for (const h of [await start('any'), await start(undefined)]) {
      expectOk((await register(h, 'synced', true)).res);
      expectOk((await register(h, 'bound', false)).res);
    }
  });
});

describe('configuration of these policies', () => {
  const read = (fields: Record<string, unknown>) => {
    const problems = new Problems();
    const app = readApplication({ problems, resolvePath: (_k, v) => v }, 'applications[0]', {
      clientId: 'c',
      name: 'n',
      domain: 'idp.example.test',
      origins: ['https://idp.example.test'],
      ...fields,
    });
    return { app, problems: problems.list.join('\n') };
  };

  it('takes valid values, and leaves an application without the keys exactly as before', () => {
    const { app, problems } = read({
      origins: ['https://idp.example.test', ANDROID_ORIGIN],
      relatedOrigins: [RELATED],
      hints: ['hybrid'],
      backupEligibility: 'forbidden',
    });
    assert.equal(problems, '');
    assert.deepEqual(
      [app?.origins, app?.relatedOrigins, app?.hints, app?.backupEligibility],
      [['https://idp.example.test', ANDROID_ORIGIN], [RELATED], ['hybrid'], 'forbidden'],
    );
    const plain = read({}).app!;
    assert.equal('hints' in plain || 'relatedOrigins' in plain || 'backupEligibility' in plain, false);
  });

  it('reports every problem at once: bad hint, repeated hint, related origin on the domain or over http, bad Android hash, bad policy', () => {
    const { app, problems } = read({
      origins: ['https://idp.example.test', 'android:apk-key-hash:tooShort'],
      relatedOrigins: ['https://login.idp.example.test', 'http://shop.example.com', 'https://shop.example.com/path'],
      hints: ['hybrid', 'hybrid', 'nfc'],
      backupEligibility: 'sometimes',
    });
    assert.equal(app, undefined);
    for (const expected of [
      /origins\[1\]: .*not an Android app origin/,
      /relatedOrigins\[0\]: .*list it in origins/,
      /relatedOrigins\[1\]: .*https/,
      /relatedOrigins\[2\]: .*not in origin form/,
      /hints\[2\]: must be one of/,
      /hints.*(twice|duplicate|repeat)/i,
      /backupEligibility: must be one of/,
    ])
      assert.match(problems, expected);
  });
});
