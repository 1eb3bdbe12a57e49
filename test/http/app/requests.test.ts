// Malformed and hostile requests: each gets the failed envelope with the precise name and HTTP status, an
// X-Request-Id, and changes nothing stored.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FidoError } from '../../../src/errors/catalogue.js';
import type { CredentialStore } from '../../../src/stores/types.js';
import { StoreUnavailableError } from '../../../src/errors/catalogue.js';
import { MemoryCredentialStore } from '../../../src/stores/memory/credentials.js';
import {
  CLIENT_ID,
  Flow,
  Harness,
  PATHS,
  VENDOR,
  applicationConfig,
  expectFailure,
  expectOk,
  username,
} from '../../support/harness.js';

const OPTIONS_BODY = { username: username('alice') };

async function unchanged(h: Harness, action: () => Promise<void>): Promise<void> {
  const before = await h.snapshot();
  await action();
  assert.equal(await h.snapshot(), before, 'the stores changed');
}

describe('routing', () => {
  it('unknown path → 404 NOT_FOUND envelope, never an HTML page', async () => {
    const h = new Harness();
    for (const url of [
      '/',
      '/api',
      '/api/attestation',
      '/api/attestation/options/',
      '/attestation/options',
      '/API/attestation/options',
      '/favicon.ico',
    ]) {
      const res = await h.app.inject({ method: 'GET', url });
      expectFailure(res, 'NOT_FOUND', 404);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    }
  });

  it('other methods on an operation → 405 METHOD_NOT_ALLOWED with Allow: POST', async () => {
    const h = new Harness();
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const res = await h.app.inject({ method, url: PATHS.attestationOptions, headers: h.headers() });
      expectFailure(res, 'METHOD_NOT_ALLOWED', 405);
      assert.equal(res.headers.allow, 'POST');
    }
  });

  it('a query string does not change the route', async () => {
    const h = new Harness();
    expectOk(await h.post(`${PATHS.attestationOptions}?x=1`, OPTIONS_BODY));
  });

  it('every answer carries a distinct X-Request-Id and no-store caching', async () => {
    const h = new Harness();
    const a = await h.post(PATHS.attestationOptions, OPTIONS_BODY);
    const b = await h.app.inject({ method: 'GET', url: '/nowhere' });
    assert.ok(a.headers['x-request-id'] && b.headers['x-request-id']);
    assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
    assert.equal(a.headers['cache-control'], 'no-store');
  });

  it('reports an outcome for unrouted requests too (operation "other")', async () => {
    const h = new Harness();
    await h.app.inject({ method: 'GET', url: '/x' });
    assert.equal(h.outcomes.length, 1);
    assert.equal(h.outcomes[0]?.operation, 'other');
    assert.equal(h.outcomes[0]?.errorName, 'NOT_FOUND');
  });
});

describe('Client ID in User-agent', () => {
  const send = (h: Harness, userAgent: string | undefined) =>
    h.app.inject({
      method: 'POST',
      url: PATHS.attestationOptions,
      headers: {
        'content-type': 'application/json',
        origin: 'https://idp.example.test',
        ...(userAgent === undefined ? {} : { 'user-agent': userAgent }),
      },
      body: JSON.stringify(OPTIONS_BODY),
    });

  it('missing → 400 CLIENT_ID_MISSING', async () => {
    const h = new Harness();
    expectFailure(await send(h, undefined), 'CLIENT_ID_MISSING', 400);
    expectFailure(await send(h, ''), 'CLIENT_ID_MISSING', 400);
  });

  it('anything but exactly "<vendor> AppID: <id>" → 400 CLIENT_ID_MALFORMED', async () => {
    const h = new Harness();
    for (const value of [
      `Mozilla/5.0 ${VENDOR} AppID: ${CLIENT_ID}`,
      `${VENDOR} AppID: ${CLIENT_ID} extra`,
      `${VENDOR} AppID: ${CLIENT_ID}, ${VENDOR} AppID: ${CLIENT_ID}`,
      `${VENDOR} AppID:${CLIENT_ID}`,
      `${VENDOR} appid: ${CLIENT_ID}`,
      `Other AppID: ${CLIENT_ID}`,
      `${VENDOR} AppID: `,
      `${VENDOR} AppID: caf\u00e9`,
      `${VENDOR} AppID: ${'x'.repeat(129)}`,
    ]) {
      expectFailure(await send(h, value), 'CLIENT_ID_MALFORMED', 400);
    }
  });

  it('unknown Client ID → 403 CLIENT_ID_UNKNOWN', async () => {
    const h = new Harness();
    expectFailure(await send(h, `${VENDOR} AppID: nobody`), 'CLIENT_ID_UNKNOWN', 403);
  });

  it('the vendor word comes from the configuration', async () => {
    const h = new Harness({ config: { vendor: 'Acme' } });
    expectFailure(await send(h, `${VENDOR} AppID: ${CLIENT_ID}`), 'CLIENT_ID_MALFORMED', 400);
    expectOk(await send(h, `Acme AppID: ${CLIENT_ID}`));
  });
});

describe('origin header (standard variant)', () => {
  it('missing → 400 ORIGIN_HEADER_MISSING; unregistered → 403 ORIGIN_NOT_ALLOWED', async () => {
    const h = new Harness();
    await unchanged(h, async () => {
      expectFailure(
        await h.post(PATHS.attestationOptions, OPTIONS_BODY, { origin: null }),
        'ORIGIN_HEADER_MISSING',
        400,
      );
      expectFailure(await h.post(PATHS.assertionOptions, OPTIONS_BODY, { origin: null }), 'ORIGIN_HEADER_MISSING', 400);
      expectFailure(
        await h.post(PATHS.attestationOptions, OPTIONS_BODY, { origin: 'https://evil.example' }),
        'ORIGIN_NOT_ALLOWED',
        403,
      );
      expectFailure(
        await h.post(PATHS.attestationOptions, OPTIONS_BODY, { origin: 'https://idp.example.test:444' }),
        'ORIGIN_NOT_ALLOWED',
        403,
      );
      expectFailure(
        await h.post(PATHS.attestationOptions, OPTIONS_BODY, { origin: 'http://idp.example.test' }),
        'ORIGIN_NOT_ALLOWED',
        403,
      );
    });
  });

  it('result calls check the header before touching the ceremony', async () => {
    const h = new Harness();
    const flow = new Flow(h, username('olga'));
    const options = await flow.attestationOptions();
    const credential = flow.authenticator.register(options);
    expectFailure(await h.post(PATHS.attestationResult, credential, { origin: null }), 'ORIGIN_HEADER_MISSING', 400);
    // The ceremony is still there: the well-formed call succeeds.
    expectOk(await h.post(PATHS.attestationResult, credential));
  });
});

describe('body: media type, size, JSON', () => {
  it('not application/json → 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const h = new Harness();
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/jsonp',
      'application/json; charset=iso-8859-1',
      undefined,
    ]) {
      const headers = h.headers();
      if (type === undefined) delete headers['content-type'];
      else headers['content-type'] = type;
      const res = await h.app.inject({
        method: 'POST',
        url: PATHS.attestationOptions,
        headers,
        body: JSON.stringify(OPTIONS_BODY),
      });
      expectFailure(res, 'UNSUPPORTED_MEDIA_TYPE', 415);
    }
  });

  it('application/json with charset=utf-8 (any case) is accepted', async () => {
    const h = new Harness();
    expectOk(
      await h.post(PATHS.attestationOptions, OPTIONS_BODY, {
        headers: { 'content-type': 'Application/JSON; Charset=UTF-8' },
      }),
    );
  });

  it('over 64 KiB → 413 PAYLOAD_TOO_LARGE and the connection is closed', async () => {
    const h = new Harness();
    const big = JSON.stringify({ username: username('a'), displayName: 'x'.repeat(70_000) });
    await unchanged(h, async () => {
      const res = await h.post(PATHS.attestationOptions, big);
      expectFailure(res, 'PAYLOAD_TOO_LARGE', 413);
      assert.equal(res.headers.connection, 'close');
      const declared = await h.post(PATHS.attestationOptions, '{}', { headers: { 'content-length': '1000000' } });
      expectFailure(declared, 'PAYLOAD_TOO_LARGE', 413);
    });
  });

  it('exactly 64 KiB is read (and then judged on its content)', async () => {
    const h = new Harness();
    const prefix = '{"username":"a#idp.example.test","pad":"';
    const body = `${prefix}${'x'.repeat(65_536 - prefix.length - 2)}"}`;
    assert.equal(Buffer.byteLength(body), 65_536);
    expectOk(await h.post(PATHS.attestationOptions, body));
  });

  it('not JSON, empty, or invalid UTF-8 → 400 MALFORMED_JSON', async () => {
    const h = new Harness();
    for (const body of [
      '',
      '{',
      'username=a',
      '{"username": "a#idp.example.test",}',
      "{'a':1}",
      Buffer.from([0x7b, 0xff, 0x7d]),
    ]) {
      await unchanged(h, async () => {
        expectFailure(await h.post(PATHS.attestationOptions, body), 'MALFORMED_JSON', 400);
      });
    }
  });

  it('deep nesting → 400 INVALID_REQUEST_BODY, without recursion trouble', async () => {
    const h = new Harness();
    const deep = `{"username":"a#idp.example.test","extensions":${'['.repeat(30_000)}${']'.repeat(30_000)}}`;
    const detail = expectFailure(await h.post(PATHS.attestationOptions, deep), 'INVALID_REQUEST_BODY', 400);
    assert.match(detail, /nesting/);
  });

  it('nesting: 16 levels pass the depth check, 17 do not, and brackets inside strings do not count', async () => {
    const h = new Harness();
    const nested = (levels: number) =>
      `{"username":"a#idp.example.test","extensions":{"x":${'['.repeat(levels - 2)}${']'.repeat(levels - 2)}}}`;
    // 16 levels: past the depth check (the schema then judges the extension's value, not the nesting).
    const at16 = await h.post(PATHS.attestationOptions, nested(16));
    assert.doesNotMatch(JSON.stringify(at16.json()), /nesting/);
    assert.match(
      expectFailure(await h.post(PATHS.attestationOptions, nested(17)), 'INVALID_REQUEST_BODY', 400),
      /nesting/,
    );
    // Many brackets, but inside a string: depth 1, so not refused for nesting (the string is judged as a username).
    const inString = `{"username":"${'['.repeat(40)}#idp.example.test"}`;
    assert.doesNotMatch(JSON.stringify((await h.post(PATHS.attestationOptions, inString)).json()), /nesting/);
  });

  it('huge values: a number for username, 1e999, a 60 KiB string → INVALID_REQUEST_BODY, nothing stored', async () => {
    const h = new Harness();
    await unchanged(h, async () => {
      for (const body of [
        '{"username":1e999}',
        `{"username":"${'x'.repeat(60_000)}#idp.example.test"}`,
        '{"username":"a#idp.example.test","displayName":123456789012345678901234567890}',
      ]) {
        expectFailure(await h.post(PATHS.attestationOptions, body), 'INVALID_REQUEST_BODY', 400);
      }
    });
  });

  it('a JSON value that is not an object → 400 INVALID_REQUEST_BODY', async () => {
    const h = new Harness();
    for (const body of ['[]', '"text"', '42', 'null', 'true']) {
      expectFailure(await h.post(PATHS.attestationOptions, body), 'INVALID_REQUEST_BODY', 400);
      expectFailure(await h.post(PATHS.attestationResult, body), 'INVALID_REQUEST_BODY', 400);
    }
  });
});

describe('options request schemas', () => {
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['username missing', {}, /username must be a non-empty string/],
    ['username not a string', { username: 42 }, /username must be a non-empty string/],
    ['username empty', { username: '' }, /username/],
    ['username too long', { username: `${'a'.repeat(300)}#idp.example.test` }, /at most 256/],
    ['username with a control character', { username: 'a\u0000b#idp.example.test' }, /control/],
    ['displayName not a string', { username: 'a#idp.example.test', displayName: {} }, /displayName/],
    [
      'displayName too long',
      { username: 'a#idp.example.test', displayName: 'x'.repeat(257) },
      /displayName must be at most 256/,
    ],
    [
      'authenticatorSelection an array',
      { username: 'a#idp.example.test', authenticatorSelection: ['platform'] },
      /authenticatorSelection must be an object/,
    ],
    [
      'requireResidentKey a string',
      { username: 'a#idp.example.test', authenticatorSelection: { requireResidentKey: 'yes' } },
      /requireResidentKey must be a boolean/,
    ],
    [
      'userVerification unknown',
      { username: 'a#idp.example.test', authenticatorSelection: { userVerification: 'always' } },
      /userVerification must be one of/,
    ],
    [
      'authenticatorAttachment unknown',
      { username: 'a#idp.example.test', authenticatorSelection: { authenticatorAttachment: 'usb' } },
      /authenticatorAttachment/,
    ],
    ['attestation unknown', { username: 'a#idp.example.test', attestation: 'full' }, /attestation must be one of/],
    ['attestation not a string', { username: 'a#idp.example.test', attestation: 1 }, /attestation must be one of/],
    ['extensions an array', { username: 'a#idp.example.test', extensions: [] }, /extensions must be an object/],
    ['extensions null', { username: 'a#idp.example.test', extensions: null }, /extensions must be an object/],
  ];
  for (const [name, body, detail] of bad) {
    it(`attestation options: ${name} → INVALID_REQUEST_BODY`, async () => {
      const h = new Harness();
      await unchanged(h, async () => {
        assert.match(expectFailure(await h.post(PATHS.attestationOptions, body), 'INVALID_REQUEST_BODY', 400), detail);
      });
    });
  }

  it('assertion options: userVerification of the wrong type or value, extensions not an object', async () => {
    const h = new Harness();
    for (const body of [
      { username: 'a#idp.example.test', userVerification: 'maybe' },
      { username: 'a#idp.example.test', userVerification: true },
      { username: 'a#idp.example.test', extensions: 'x' },
      { userVerification: 'required' },
    ]) {
      await unchanged(h, async () => {
        expectFailure(await h.post(PATHS.assertionOptions, body), 'INVALID_REQUEST_BODY', 400);
      });
    }
  });

  it('username without "#", with an empty user part, or with another domain', async () => {
    const h = new Harness();
    for (const path of [PATHS.attestationOptions, PATHS.assertionOptions]) {
      expectFailure(await h.post(path, { username: 'alice' }), 'INVALID_USERNAME', 400);
      expectFailure(await h.post(path, { username: 'alice#other.example' }), 'RPID_NOT_FOUND', 400);
      expectFailure(await h.post(path, { username: 'alice#idp.example.test#x' }), 'RPID_NOT_FOUND', 400);
      expectFailure(await h.post(path, { username: 'alice#' }), 'RPID_NOT_FOUND', 400);
    }
    // An empty user part is a sign-in without a user name: a registration always names its user.
    expectFailure(await h.post(PATHS.attestationOptions, { username: '#idp.example.test' }), 'INVALID_USERNAME', 400);
    expectFailure(
      await h.post(PATHS.attestationOptions, { username: '#localhost' }, { origin: null }),
      'INVALID_USERNAME',
      400,
    );
    expectFailure(await h.post(PATHS.assertionOptions, { username: '#' }), 'RPID_NOT_FOUND', 400);
  });

  it('a username or displayName that is not well-formed Unicode (a lone surrogate) → INVALID_USERNAME / INVALID_DISPLAY_NAME', async () => {
    // UTF-8 turns every lone surrogate into U+FFFD: accepted, these three would be one user.
    const h = new Harness();
    for (const path of [PATHS.attestationOptions, PATHS.assertionOptions]) {
      for (const name of [
        '\ud800x#idp.example.test',
        '\udbffx#idp.example.test',
        'x\udc00#idp.example.test',
        'x#idp.example.test\ud83d',
      ]) {
        await unchanged(h, async () => {
          // The raw JSON text carries the escape, as a hostile client would send it.
          const raw = JSON.stringify({ username: name });
          assert.match(raw, /\\ud[89abcdef]/);
          expectFailure(await h.post(path, raw), 'INVALID_USERNAME', 400);
        });
      }
    }
    const raw = JSON.stringify({ username: username('dn'), displayName: 'Al\udfffice' });
    expectFailure(await h.post(PATHS.attestationOptions, raw), 'INVALID_DISPLAY_NAME', 400);
    // Surrogate pairs (an emoji) and U+FFFD itself are well-formed.
    expectOk(
      await h.post(PATHS.attestationOptions, {
        username: '\ud83d\ude00\ufffd#idp.example.test',
        displayName: 'A \ud83d\ude00',
      }),
    );
  });
});

describe('variants allowed per application and deployment', () => {
  it('standard without "standard" in variants → 403 VARIANT_NOT_ALLOWED', async () => {
    const h = new Harness({ apps: [applicationConfig({ variants: ['local'] })] });
    expectFailure(await h.post(PATHS.attestationOptions, OPTIONS_BODY), 'VARIANT_NOT_ALLOWED', 403);
  });

  it('local without "local" in variants → 403 VARIANT_NOT_ALLOWED; local off → 403 LOCAL_VARIANT_DISABLED', async () => {
    const noLocal = new Harness({ apps: [applicationConfig({ variants: ['standard'] })] });
    expectFailure(
      await noLocal.post(PATHS.attestationOptions, { username: 'a#localhost' }, { origin: null }),
      'VARIANT_NOT_ALLOWED',
      403,
    );
    const off = new Harness({ config: { local: { enabled: false } } });
    expectFailure(
      await off.post(PATHS.attestationOptions, { username: 'a#localhost' }, { origin: null }),
      'LOCAL_VARIANT_DISABLED',
      403,
    );
    expectFailure(
      await off.post(
        PATHS.attestationResult,
        {
          id: 'AA',
          rawId: 'AA',
          type: 'public-key',
          response: { clientDataJSON: 'AA', attestationObject: 'AA' },
          extensions: { localhost: true },
        },
        { origin: null },
      ),
      'LOCAL_VARIANT_DISABLED',
      403,
    );
  });
});

describe('rate limiting, store outages and unexpected errors', () => {
  it('admit refuses → 429 RATE_LIMITED with Retry-After, before the body is read', async () => {
    const asked: unknown[] = [];
    const h = new Harness({
      hooks: {
        admit: async (request) => {
          asked.push(request);
          return { allowed: false, retryAfterSeconds: 2.2 };
        },
      },
    });
    const res = await h.post(PATHS.attestationOptions, 'not even json');
    expectFailure(res, 'RATE_LIMITED', 429);
    assert.equal(res.headers['retry-after'], '3');
    assert.deepEqual(asked, [{ clientId: CLIENT_ID, remoteAddress: '127.0.0.1', scope: 'address' }]);
  });

  it('admit allows → the operation runs, asked for the address, then for the application', async () => {
    const asked: unknown[] = [];
    const h = new Harness({
      hooks: {
        admit: async (request) => {
          asked.push(request);
          return { allowed: true, retryAfterSeconds: 0 };
        },
      },
    });
    expectOk(await h.post(PATHS.attestationOptions, OPTIONS_BODY));
    assert.deepEqual(asked, [
      { clientId: CLIENT_ID, remoteAddress: '127.0.0.1', scope: 'address' },
      { clientId: CLIENT_ID, remoteAddress: '127.0.0.1', scope: 'application' },
    ]);
  });

  it('a store that is unreachable → 503 SERVICE_UNAVAILABLE, logged with the request id', async () => {
    const broken: CredentialStore = Object.assign(Object.create(MemoryCredentialStore.prototype) as CredentialStore, {
      importedUserHandle: async () => undefined,
      listByUser: async () => {
        throw new StoreUnavailableError('connection refused');
      },
    });
    const h = new Harness({ credentials: broken });
    const res = await h.post(PATHS.assertionOptions, OPTIONS_BODY);
    expectFailure(res, 'SERVICE_UNAVAILABLE', 503);
    assert.equal(h.logs.at(-1)?.fields.requestId, res.headers['x-request-id']);
  });

  it('an unexpected exception → 500 INTERNAL_SERVER_ERROR with a generic text; the detail goes only to the log', async () => {
    const h = new Harness({
      credentials: {
        ...new MemoryCredentialStore(),
        importedUserHandle: async () => undefined,
        listByUser: async () => {
          throw new TypeError('secret internal detail');
        },
      } as unknown as CredentialStore,
    });
    const res = await h.post(PATHS.assertionOptions, OPTIONS_BODY);
    const detail = expectFailure(res, 'INTERNAL_SERVER_ERROR', 500);
    assert.doesNotMatch(res.body, /secret internal detail/);
    assert.match(detail, /request id/);
    const line = h.logs.find((l) => l.level === 'error');
    assert.equal(line?.fields.requestId, res.headers['x-request-id']);
    assert.match(String(line?.fields.error), /secret internal detail/);
  });

  it('an outcome hook that throws never changes the answer', async () => {
    const h = new Harness({
      hooks: {
        onOutcome: () => {
          throw new Error('metrics down');
        },
      },
    });
    expectOk(await h.post(PATHS.attestationOptions, OPTIONS_BODY));
  });

  it('FidoError keeps its catalogue status', () => {
    assert.equal(new FidoError('PAYLOAD_TOO_LARGE').status, 413);
  });
});
