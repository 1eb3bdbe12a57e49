// Rate limits count what they protect (issue 35 item 3), over the whole service's real socket: calls
// without a valid relay secret (none, a wrong one, an unknown Client ID) are refused with 401 / 403 and
// take nothing from the application's bucket, so someone who knows the Client ID cannot hold the real relay
// at 429; they count on their address's bucket instead, which refuses them with 429 once it is empty.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { relaySecretHash } from '../../src/config/relay-secret-entries.js';
import { startService, type RunningService } from '../../src/main.js';
import { configDir } from '../cli/support.js';
import { minimalApp } from '../config/support.js';

const SECRET = 'prs_the-relays-own-secret-0123456789abcdefghij';
const sink = { write: () => true };

async function call(url: string, { secret, clientId = 'app-1' }: { secret?: string; clientId?: string }) {
  const response = await fetch(`${url}/api/attestation/options`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': `Vendor AppID: ${clientId}`,
      origin: 'https://idp.example.test',
      ...(secret === undefined ? {} : { authorization: `Bearer ${secret}` }),
    },
    body: JSON.stringify({ username: 'alice#idp.example.test', displayName: 'Alice' }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json()) as { status: string; errorMessage?: string[] };
  return `${response.status} ${body.errorMessage?.[0] ?? body.status}`;
}

describe("calls without a valid relay secret and the application's bucket", () => {
  let running: RunningService;

  before(async () => {
    const { dir, file } = configDir(
      {
        local: { enabled: false },
        // Buckets that do not refill within the test: 3 calls for the application, 14 for the address.
        rateLimits: {
          perApplication: { burst: 3, perSecond: 0.0001 },
          perAddress: { burst: 14, perSecond: 0.0001 },
        },
        applications: [minimalApp({ relaySecrets: [relaySecretHash(SECRET)] })],
      },
      'passkey-relay-buckets-',
    );
    running = await startService({ configFile: file, env: {}, cwd: dir, stdout: sink, stderr: sink });
  });
  after(async () => {
    await running?.close();
  });

  it('refuses them with 401 before the bucket, then per address with 429; the relay keeps its own calls', async () => {
    const refused: string[] = [];
    for (let i = 0; i < 4; i++) refused.push(await call(running.url, {}));
    for (let i = 0; i < 4; i++) refused.push(await call(running.url, { secret: `${SECRET}-wrong` }));
    for (let i = 0; i < 2; i++) refused.push(await call(running.url, { clientId: 'nobody' }));
    assert.deepEqual(refused, [
      ...Array(4).fill('401 RELAY_SECRET_MISSING'),
      ...Array(4).fill('401 RELAY_SECRET_INVALID'),
      ...Array(2).fill('403 CLIENT_ID_UNKNOWN'),
    ]);
    // The application's three tokens are all still there for its relay (the address has 4 left).
    const relay: string[] = [];
    for (let i = 0; i < 3; i++) relay.push(await call(running.url, { secret: SECRET }));
    assert.deepEqual(relay, Array(3).fill('200 ok'));
    assert.equal(await call(running.url, { secret: SECRET }), '429 RATE_LIMITED', 'the application bucket is empty');
    // The address's 14th token went to that refused call: the next call from it is refused by its address.
    assert.equal(await call(running.url, {}), '429 RATE_LIMITED');
  });
});
