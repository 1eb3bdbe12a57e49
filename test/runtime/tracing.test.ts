// Traces over real sockets: the service, started with the standard OTEL_* variables, exports a server span
// per request to an OTLP/HTTP receiver (node:http on 127.0.0.1), in protobuf and in JSON, continuing the
// caller's W3C trace context, with child spans for the verification and the stores, and never a user
// name or a credential id. Without the variables no span is sent.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startService } from '../../src/main.js';
import { configDir } from '../cli/support.js';
import { startOtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';

const ORIGIN = 'https://idp.example.test';
const USERNAME = 'tracy#idp.example.test';

const sink = { write: () => true };

async function post(url: string, path: string, body: unknown, traceparent?: string) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Vendor AppID: app-1',
    origin: ORIGIN,
  };
  if (traceparent !== undefined) headers.traceparent = traceparent;
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** Registers a passkey, each call under the caller's trace, and fails one options call; returns what was sent. */
async function traffic(url: string, traceId: string) {
  const callerSpan = () => randomBytes(8).toString('hex');
  const parents = { options: callerSpan(), result: callerSpan(), failed: callerSpan() };
  const options = await post(
    url,
    '/api/attestation/options',
    { username: USERNAME, displayName: 'Tracy' },
    `00-${traceId}-${parents.options}-01`,
  );
  assert.equal(options.status, 200, JSON.stringify(options.body));
  const credential = new SoftAuthenticator({ origin: ORIGIN }).register(options.body);
  const result = await post(url, '/api/attestation/result', credential, `00-${traceId}-${parents.result}-01`);
  assert.equal(result.status, 200, JSON.stringify(result.body));
  const failed = await post(url, '/api/assertion/result', { id: 'AAAA' }, `00-${traceId}-${parents.failed}-01`);
  assert.equal(failed.status, 400);
  // A malformed traceparent starts a trace of its own; an unsampled caller's is not recorded.
  await post(url, '/api/assertion/options', { username: 'malformed#idp.example.test' }, 'not-a-traceparent');
  const unsampled = randomBytes(16).toString('hex');
  await post(url, '/api/assertion/options', { username: USERNAME }, `00-${unsampled}-${callerSpan()}-00`);
  return {
    parents,
    credentialId: credential.id as string,
    failedError: String(failed.body.errorMessage[0]),
    unsampled,
  };
}

for (const protocol of ['http/protobuf', 'http/json'] as const) {
  describe(`traces over OTLP ${protocol}`, () => {
    it("exports a span per request in the caller's trace, with verification and storage children", async () => {
      const receiver = await startOtlpReceiver();
      const { dir, file } = configDir({ local: { enabled: false } }, 'passkey-traces-');
      const running = await startService({
        configFile: file,
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/otlp/`,
          OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
          OTEL_SERVICE_NAME: 'passkey-traces-test',
          PASSKEY_ADMIN_ENABLED: 'false',
        },
        cwd: dir,
        stdout: sink,
        stderr: sink,
      });
      const traceId = randomBytes(16).toString('hex');
      let sent: Awaited<ReturnType<typeof traffic>>;
      try {
        sent = await traffic(running.url, traceId);
      } finally {
        await running.close(); // flushes the spans still buffered
      }
      await receiver.close();

      assert.ok(receiver.paths().length > 0, 'the receiver got spans');
      assert.ok(receiver.paths().every((path) => path === '/otlp/v1/traces'));
      const spans = receiver.spans();
      const mime = protocol === 'http/json' ? /^application\/json/ : /^application\/x-protobuf/;
      assert.ok(
        spans.every((span) => mime.test(span.contentType)),
        'the protocol asked for',
      );
      assert.ok(spans.every((span) => span.serviceName === 'passkey-traces-test'));

      const server = (route: string, parent: string): ReceivedSpan => {
        const found = spans.filter((span) => span.name === `POST ${route}` && span.parentSpanId === parent);
        assert.equal(found.length, 1, `one span for ${route} under ${parent}: ${JSON.stringify(spans)}`);
        assert.equal(found[0]!.traceId, traceId, "the caller's trace id");
        return found[0]!;
      };
      const options = server('/api/attestation/options', sent.parents.options);
      assert.deepEqual(
        {
          route: options.attributes['http.route'],
          client: options.attributes['passkey.client_id'],
          variant: options.attributes['passkey.variant'],
          outcome: options.attributes['passkey.outcome'],
          status: options.attributes['http.response.status_code'],
        },
        { route: '/api/attestation/options', client: 'app-1', variant: 'standard', outcome: 'ok', status: 200 },
      );
      const result = server('/api/attestation/result', sent.parents.result);
      assert.equal(result.attributes['passkey.outcome'], 'ok');
      const children = spans.filter((span) => span.parentSpanId === result.spanId).map((span) => span.name);
      assert.ok(children.includes('webauthn.verify_registration'), `verification span in ${children}`);
      assert.ok(children.includes('challenges.take'), `challenge store span in ${children}`);
      assert.ok(
        children.some((name) => name.startsWith('credentials.')),
        `credential store span in ${children}`,
      );
      for (const name of children) {
        const child = spans.find((span) => span.name === name && span.parentSpanId === result.spanId)!;
        assert.equal(child.traceId, traceId);
      }

      const failed = server('/api/assertion/result', sent.parents.failed);
      assert.equal(failed.attributes['passkey.outcome'], 'failed');
      assert.equal(failed.attributes['passkey.error'], sent.failedError);
      assert.equal(failed.attributes['http.response.status_code'], 400);

      const own = spans.filter((span) => span.name === 'POST /api/assertion/options');
      assert.equal(own.length, 1, 'the malformed one only: the unsampled call left no span');
      assert.equal(own[0]!.parentSpanId, '');
      assert.notEqual(own[0]!.traceId, traceId);
      assert.ok(!spans.some((span) => span.traceId === sent.unsampled));

      // No user name and no credential id anywhere in what left the service.
      const everything = JSON.stringify(spans);
      assert.doesNotMatch(everything, /tracy|malformed/i);
      assert.ok(!everything.includes(sent.credentialId), 'no credential id');
    });
  });
}

describe('traces off', () => {
  it('without the OTEL_* variables no span leaves the service', async () => {
    const receiver = await startOtlpReceiver();
    const { dir, file } = configDir({ local: { enabled: false } }, 'passkey-traces-off-');
    const running = await startService({
      configFile: file,
      env: { PASSKEY_ADMIN_ENABLED: 'false' },
      cwd: dir,
      stdout: sink,
      stderr: sink,
    });
    try {
      await traffic(running.url, randomBytes(16).toString('hex'));
    } finally {
      await running.close();
      await receiver.close();
    }
    assert.equal(receiver.paths().length, 0);
  });

  it('refuses grpc and a bad endpoint at start, naming the variable', async () => {
    const { dir, file } = configDir({ local: { enabled: false } }, 'passkey-traces-bad-');
    for (const [env, name] of [
      [
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
        /OTEL_EXPORTER_OTLP_PROTOCOL/,
      ],
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector' }, /OTEL_EXPORTER_OTLP_ENDPOINT/],
    ] as const) {
      await assert.rejects(
        startService({
          configFile: file,
          env: { ...env, PASSKEY_ADMIN_ENABLED: 'false' },
          cwd: dir,
          stdout: sink,
          stderr: sink,
        }),
        name,
      );
    }
  });
});
