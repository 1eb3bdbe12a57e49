// Where one delivery attempt may go (src/webhooks/destination.ts, post.ts), over real sockets to a real
// receiver on 127.0.0.1 and a resolver the test answers (no real DNS): the socket connects to the address the
// check passed (a name no DNS knows reaches the receiver through the injected answer); a name that resolves to
// a non-public address is refused before any connection, whichever address of the answer it is; the answer is
// asked once per attempt, so a resolver that changes its answer between a check and a connect cannot slip
// through; redirects are never followed; the refusal names the kind of address, never the address.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { addedDestinationProblem, type ResolveHost } from '../../src/webhooks/destination.js';
import { postWebhook } from '../../src/webhooks/post.js';
import { fakeResolver } from '../support/resolver.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const HEADERS = { 'webhook-id': 'msg_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' };
const BODY = '{"type":"user.deleted","timestamp":"1970-01-01T00:00:00.000Z","data":{}}';

describe('where a webhook delivery may go', () => {
  const receivers: Receiver[] = [];
  const servers: Server[] = [];
  after(async () => {
    for (const receiver of receivers) await receiver.close();
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
  });

  async function receiver(): Promise<{ receiver: Receiver; port: number }> {
    const started = await startReceiver(SECRET);
    receivers.push(started);
    return { receiver: started, port: Number(new URL(started.url).port) };
  }

  const post = (url: string, resolve: ResolveHost, allowPrivateAddresses: boolean, timeoutMs = 3000) =>
    postWebhook(url, HEADERS, BODY, timeoutMs, { allowPrivateAddresses, resolve });

  it('connects to the address the resolver answered, when private addresses are allowed', async () => {
    const { receiver: r, port } = await receiver();
    const resolver = fakeResolver({ 'hooks.nowhere.test': ['127.0.0.1'] });
    const result = await post(`http://hooks.nowhere.test:${port}/hooks`, resolver.resolve, true);
    assert.deepEqual(result, { status: 204, error: null });
    assert.equal(r.accepted.length, 1);
    assert.deepEqual(resolver.asked, ['hooks.nowhere.test']);
  });

  it('refuses a name that resolves to a non-public address before connecting, and says only its kind', async () => {
    const { receiver: r, port } = await receiver();
    const answers: [readonly string[], RegExp][] = [
      [['127.0.0.1'], /resolves to a loopback address/],
      [['::1'], /resolves to a loopback address/],
      [['::ffff:127.0.0.1'], /resolves to a loopback address/],
      [['93.184.215.14', '10.1.2.3'], /resolves to a private address/],
      [['2606:4700::6810:84e5', 'fd00::5'], /resolves to a unique-local address/],
      [['169.254.169.254'], /resolves to a link-local address/],
    ];
    for (const [addresses, why] of answers) {
      const resolver = fakeResolver({ 'hooks.nowhere.test': addresses });
      const result = await post(`http://hooks.nowhere.test:${port}/hooks`, resolver.resolve, false);
      assert.equal(result.status, null);
      assert.match(result.error ?? '', why, addresses.join());
      assert.match(result.error ?? '', /allowPrivateAddresses/);
      for (const address of addresses) assert.ok(!result.error?.includes(address), 'the address is not repeated');
      assert.equal(resolver.asked.length, 1, 'asked once');
    }
    assert.equal(r.seen.length, 0, 'nothing reached the receiver');
  });

  it('refuses an address literal without asking the resolver', async () => {
    const { receiver: r, port } = await receiver();
    const resolver = fakeResolver();
    for (const host of ['127.0.0.1', '[::1]', '[::ffff:7f00:1]', 'localhost']) {
      const result = await post(`http://${host}:${port}/hooks`, resolver.resolve, false);
      assert.equal(result.status, null, host);
      assert.match(result.error ?? '', /loopback .*allowPrivateAddresses/, host);
    }
    assert.deepEqual(resolver.asked, []);
    assert.equal(r.seen.length, 0);
  });

  it('resolves once per attempt: an answer that turns private after the check never reaches the socket', async () => {
    const { receiver: r, port } = await receiver();
    // A rebinding resolver: public the first time it is asked, loopback ever after. A delivery that checked
    // one answer and then let the socket resolve again would reach the receiver.
    const asked: string[] = [];
    const rebinding: ResolveHost = async (hostname) => {
      asked.push(hostname);
      return [{ address: asked.length === 1 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
    };
    const result = await post(`http://rebind.nowhere.test:${port}/hooks`, rebinding, false, 1000);
    assert.notEqual(result.error, null, 'not delivered (no route to the public address here)');
    assert.deepEqual(asked, ['rebind.nowhere.test'], 'one resolution, the one checked');
    assert.equal(r.seen.length, 0, 'nothing reached the loopback receiver');
    // The next attempt asks again, gets the loopback answer, and is refused.
    const next = await post(`http://rebind.nowhere.test:${port}/hooks`, rebinding, false, 1000);
    assert.match(next.error ?? '', /resolves to a loopback address/);
    assert.equal(r.seen.length, 0);
  });

  it('never follows a redirect', async () => {
    const { receiver: r } = await receiver();
    const redirecting = createServer((_req, res) => res.writeHead(302, { location: r.url }).end('see there'));
    servers.push(redirecting);
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    const port = (redirecting.address() as AddressInfo).port;
    const result = await post(`http://127.0.0.1:${port}/hooks`, fakeResolver().resolve, true);
    assert.deepEqual(result, { status: 302, error: 'HTTP 302 (redirects are not followed)' });
    assert.equal(r.seen.length, 0);
  });

  it('when added: a name that resolves inside is refused; one that does not resolve yet is accepted', async () => {
    const resolver = fakeResolver({ 'in.example': ['192.168.7.7'], 'out.example': ['93.184.215.14'] });
    const strict = { allowPrivateAddresses: false, resolve: resolver.resolve };
    assert.match(
      (await addedDestinationProblem('https://in.example/x', strict)) ?? '',
      /resolves to a private address/,
    );
    assert.equal(await addedDestinationProblem('https://out.example/x', strict), undefined);
    assert.equal(await addedDestinationProblem('https://unknown.example/x', strict), undefined);
    assert.match((await addedDestinationProblem('https://10.0.0.1/x', strict)) ?? '', /is a private address/);
    const asked = resolver.asked.length;
    assert.equal(
      await addedDestinationProblem('https://in.example/x', { ...strict, allowPrivateAddresses: true }),
      undefined,
    );
    assert.equal(resolver.asked.length, asked, 'nothing to check: not asked');
    // A resolver that never answers is bounded.
    const silent: ResolveHost = () => new Promise(() => undefined);
    assert.equal(
      await addedDestinationProblem('https://slow.example/x', { ...strict, resolve: silent }, 50),
      undefined,
    );
  });
});
