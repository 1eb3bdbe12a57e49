// The operations module as the service runs it: `serve` (a real process, port 0) prints the admin listener,
// which answers /health, /ready and /metrics; an admin token made with the CLI works against it; the admin
// listener's port is taken → a clear failure. In process: `metadata check` gets the CLI's streams,
// environment and folder; a metadata BLOB that does not verify is a configuration error, a stale one is
// logged as a warning; the demo gets `demo.devHostnames` and its CA path is printed; the answer floor's
// timers are prepared when the service starts, only with a floor above 0.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { runCli } from '../src/cli/run.js';
import { startService } from '../src/main.js';
import { systemRuntime, type Runtime } from '../src/util/runtime.js';
import { blobPayload, createTestMds } from './support/mds.js';
import { minimalApp, tempDir, writeFile } from './config/support.js';
import { runCliCommand, startServe } from './support/cli-process.js';
import { configDir, registrationOptions } from './cli/support.js';

/** `configDir` of ./support.ts without the local variant (the admin listener's tests do not need it). */
const opsConfigDir = (content: Record<string, unknown> = {}) =>
  configDir({ local: { enabled: false }, ...content }, 'passkey-ops-wiring-');

async function registrationStatus(url: string): Promise<number> {
  return (await registrationOptions(url)).status;
}

function capture() {
  let stdout = '';
  let stderr = '';
  return {
    stdout: {
      write: (text: string) => {
        stdout += text;
        return true;
      },
    },
    stderr: {
      write: (text: string) => {
        stderr += text;
        return true;
      },
    },
    out: () => stdout,
    err: () => stderr,
  };
}

describe('serve with the operations module', () => {
  it('on port 0 prints the admin listener, also on a free port, and it answers /health, /ready and /metrics', async () => {
    const { dir, file } = opsConfigDir();
    const served = await startServe(['--config', file], { cwd: dir, admin: true });
    try {
      assert.match(served.adminUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.doesNotMatch(
        served.adminUrl ?? '',
        /:(0|8788)$/,
        'next to a service on port 0, the admin listener takes a free port too',
      );
      assert.notEqual(served.adminUrl, served.url);

      const health = await fetch(`${served.adminUrl}/health`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: 'ok' });
      const ready = await fetch(`${served.adminUrl}/ready`);
      const readyBody = (await ready.json()) as { status: string; checks: Record<string, string> };
      assert.equal(ready.status, 200, JSON.stringify(readyBody));
      assert.equal(readyBody.status, 'ready');
      for (const store of ['credentials', 'challenges', 'applications', 'audit', 'rate-limits']) {
        assert.equal(readyBody.checks[store], 'ok', `${store} in ${JSON.stringify(readyBody.checks)}`);
      }

      // The four operations report to the metrics through the hooks main.ts wires.
      assert.equal(await registrationStatus(served.url), 200);
      const metrics = await fetch(`${served.adminUrl}/metrics`);
      assert.equal(metrics.status, 200);
      assert.match(metrics.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const text = await metrics.text();
      assert.match(
        text,
        /passkey_requests_total\{[^}]*operation="attestation\/options"[^}]*client_id="app-1"[^}]*\} 1/,
      );
      assert.match(text, /passkey_ceremony_options_issued_total\{[^}]*client_id="app-1"[^}]*\} 1/);
      assert.match(served.output(), /"event":"request"/, 'one log line per request');

      // A failed result call is audited; on SQLite its row goes through the writer, whose group commit
      // /metrics counts.
      const failed = await fetch(`${served.url}/api/attestation/result`, {
        method: 'POST',
        headers: {
          'User-agent': 'Vendor AppID: app-1',
          origin: 'https://idp.example.test',
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          id: 'AAAA',
          rawId: 'AAAA',
          type: 'public-key',
          response: { clientDataJSON: 'e30', attestationObject: 'oA' },
        }),
      });
      assert.equal(((await failed.json()) as { status: string }).status, 'failed');
      // The audit row is written after the answer (it never delays it): poll, bounded.
      let after = '';
      const total = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(after)?.[1]);
      for (let attempt = 0; attempt < 50 && !(total('passkey_sqlite_writes_total') >= 1); attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        after = await (await fetch(`${served.adminUrl}/metrics`)).text();
      }
      assert.ok(total('passkey_sqlite_writes_total') >= 1, after);
      assert.ok(total('passkey_sqlite_write_groups_total') >= 1, after);
      assert.ok(total('passkey_sqlite_write_groups_total') <= total('passkey_sqlite_writes_total'));
    } finally {
      assert.equal(await served.stop(), 0, 'graceful stop');
    }
  });

  it('an admin token made with the CLI (before and while the service runs) opens the admin API of the spawned service', async () => {
    const { dir, file } = opsConfigDir();
    const before = await runCliCommand(['admin', 'token', 'create', 'before', '--config', file], { cwd: dir });
    assert.equal(before.code, 0, before.stderr);
    const first = JSON.parse(before.stdout) as { token: string };
    assert.match(first.token, /^pks_admin_/);
    const served = await startServe(['--config', file], { cwd: dir, admin: true });
    try {
      const list = async (token?: string) =>
        fetch(`${served.adminUrl}/admin/applications`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
      assert.equal((await list()).status, 401);
      assert.equal((await list('pks_admin_not-a-token')).status, 401);
      const answer = await list(first.token);
      assert.equal(answer.status, 200);
      const body = (await answer.json()) as { applications: { clientId: string; approved: boolean }[] };
      assert.deepEqual(
        body.applications.map((a) => [a.clientId, a.approved]),
        [['app-1', true]],
        "the config file's applications were seeded",
      );

      const during = await runCliCommand(['admin', 'token', 'create', 'during', '--config', file], { cwd: dir });
      assert.equal(during.code, 0, during.stderr);
      const second = JSON.parse(during.stdout) as { token: string };
      assert.equal((await list(second.token)).status, 200, 'the running service re-reads the token file');

      // A change through the admin API reaches the four operations: a disabled application is unknown.
      const disabled = await fetch(`${served.adminUrl}/admin/applications/app-1/disable`, {
        method: 'POST',
        headers: { authorization: `Bearer ${second.token}` },
      });
      assert.equal(disabled.status, 200);
      assert.equal(await registrationStatus(served.url), 403);
    } finally {
      assert.equal(await served.stop(), 0);
    }
    // The CLI sees what the service stored (same SQLite database): the change and its audit event.
    const shown = await runCliCommand(['admin', 'app', 'show', 'app-1', '--config', file], { cwd: dir });
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal((JSON.parse(shown.stdout) as { disabled: boolean }).disabled, true);
    const audit = await runCliCommand(['admin', 'audit', 'list', '--action', 'application.', '--config', file], {
      cwd: dir,
    });
    assert.equal(audit.code, 0, audit.stderr);
    assert.match(audit.stdout, /"actor": "admin:during"/);
  });

  it('an admin port in use: exit 1 with the setting to change, no stack trace', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const { dir, file } = opsConfigDir();
      const result = await runCliCommand(['serve', '--config', file], {
        cwd: dir,
        env: { PASSKEY_ADMIN_PORT: String(port) },
      });
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, new RegExp(`admin listener cannot listen on 127\\.0\\.0\\.1:${port}: EADDRINUSE`));
      assert.match(result.stderr, /PASSKEY_ADMIN_PORT/);
      assert.ok(!/\n\s+at /.test(result.stderr), 'no stack trace');
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('PASSKEY_ADMIN_ENABLED=false: no admin listener', async () => {
    const { dir, file } = opsConfigDir();
    const io = capture();
    const running = await startService({
      configFile: file,
      env: { PASSKEY_ADMIN_ENABLED: 'false' },
      cwd: dir,
      stdout: io.stdout,
      stderr: io.stderr,
    });
    try {
      assert.equal(running.adminUrl, null);
      assert.doesNotMatch(io.out(), /admin listening/);
      assert.equal(await registrationStatus(running.url), 200, 'the service runs without it');
    } finally {
      await running.close();
    }
  });

  it('the configured rate limits answer 429 with Retry-After on the service listener', async () => {
    const { dir, file } = opsConfigDir({
      rateLimits: { perApplication: null, perAddress: { burst: 2, perSecond: 0.01 } },
    });
    const io = capture();
    const running = await startService({ configFile: file, env: {}, cwd: dir, stdout: io.stdout, stderr: io.stderr });
    try {
      assert.equal(await registrationStatus(running.url), 200);
      assert.equal(await registrationStatus(running.url), 200);
      const refused = await fetch(`${running.url}/api/attestation/options`, {
        method: 'POST',
        headers: {
          'User-agent': 'Vendor AppID: app-1',
          origin: 'https://idp.example.test',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ username: 'alice#idp.example.test', displayName: 'Alice' }),
      });
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      assert.equal(((await refused.json()) as { errorMessage: string[] }).errorMessage[0], 'RATE_LIMITED');
    } finally {
      await running.close();
    }
  });

  it('help lists the admin commands', async () => {
    const result = await runCliCommand(['help'], { cwd: tempDir() });
    assert.equal(result.code, 0);
    assert.match(result.stdout, /admin <command>/);
    assert.match(result.stdout, /token create <name>/);
    assert.match(result.stdout, /metadata check/);
  });
});

describe('the answer floor at start', () => {
  it("the runtime's timers are prepared when the service starts, only with a floor above 0", async () => {
    for (const [floor, preparations] of [
      ['5', 1],
      ['0', 0],
    ] as const) {
      let prepared = 0;
      const runtime: Runtime = {
        now: () => Date.now(),
        randomBytes: (n: number) => randomBytes(n),
        startTimer: systemRuntime.startTimer,
        prepareTimers: (onStop) => {
          prepared++;
          // As the thread would if it stopped: the service logs it.
          onStop?.({ code: 'PASSKEY_TIMER_THREAD_STOPPED', message: 'the timer thread stopped (test)' });
        },
      };
      const { dir, file } = opsConfigDir();
      const io = capture();
      const running = await startService({
        configFile: file,
        env: { PASSKEY_ANSWER_FLOOR_MS: floor, PASSKEY_ADMIN_ENABLED: 'false' },
        cwd: dir,
        stdout: io.stdout,
        stderr: io.stderr,
        runtime,
      });
      await running.close();
      assert.equal(prepared, preparations, `answerFloorMs ${floor}`);
      const logged = `${io.out()}${io.err()}`
        .split('\n')
        .filter((line) => line.includes('the timer thread stopped (test)'));
      assert.equal(logged.length, preparations, 'the stop is one line of the service log');
      if (preparations > 0)
        assert.match(
          logged[0]!,
          /"level":"warn".*"code":"PASSKEY_TIMER_THREAD_STOPPED"|"code":"PASSKEY_TIMER_THREAD_STOPPED".*"level":"warn"/,
        );
    }
  });
});

describe('metadata at start and `metadata check` (the attestation module)', () => {
  function metadataConfig(nextUpdate: string, blobText?: string): { dir: string; file: string } {
    const mds = createTestMds();
    const dir = tempDir('passkey-ops-mds-');
    writeFile(dir, 'mds/root.pem', mds.root.pem);
    writeFile(dir, 'mds/blob.jwt', blobText ?? mds.sign(blobPayload([], { no: 7, nextUpdate })));
    const file = writeFile(dir, 'config.json', {
      listen: { host: '127.0.0.1', port: 0 },
      local: { enabled: false },
      applications: [minimalApp({ attestation: { metadata: './mds/blob.jwt', metadataRoots: ['./mds/root.pem'] } })],
    });
    return { dir, file };
  }

  it("`metadata check` runs with the CLI's streams, environment and working folder", async () => {
    const { dir } = metadataConfig('2049-12-31');
    const io = capture();
    const code = await runCli(['metadata', 'check', '--config', 'config.json'], { ...io, env: {}, cwd: dir });
    assert.equal(code, 0, io.err());
    assert.match(io.out(), /app-1: metadata BLOB no 7, next update 2049-12-31/);
    const bad = capture();
    assert.equal(
      await runCli(['metadata', 'check', '--config', 'config.json'], {
        ...bad,
        env: { PASSKEY_PORT: 'eighty' },
        cwd: dir,
      }),
      1,
    );
    assert.match(bad.err(), /PASSKEY_PORT/, "the environment given to the CLI, not the process's");
    const usage = capture();
    assert.equal(await runCli(['metadata', 'list'], { ...usage, env: {}, cwd: dir }), 2);
  });

  it("at start, the BLOB is logged (whether its chain's revocation was checked); a stale one is a warning", async () => {
    const { dir, file } = metadataConfig('2026-01-31');
    const io = capture();
    const clock: Runtime = {
      now: () => Date.parse('2026-03-01T00:00:00Z'),
      randomBytes: (n: number) => randomBytes(n),
      startTimer: systemRuntime.startTimer,
    };
    const running = await startService({
      configFile: file,
      env: {},
      cwd: dir,
      stdout: io.stdout,
      stderr: io.stderr,
      runtime: clock,
    });
    await running.close();
    const lines = io
      .err()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const loaded = lines.find((l) => l.msg === 'metadata BLOB loaded');
    assert.ok(loaded, io.err());
    assert.equal(loaded.clientId, 'app-1');
    assert.equal(loaded.serial, 7);
    assert.equal(loaded.nextUpdate, '2026-01-31');
    // Without attestation.metadataCrls the chain's revocation is not checked: a field, and one info line per application.
    assert.equal(loaded.revocationChecked, false);
    const unchecked = lines.filter((l) =>
      String(l.msg).includes("revocation of the metadata BLOB's signing chain is not checked"),
    );
    assert.deepEqual(
      unchecked.map((l) => [l.level, l.clientId, l.revocationChecked]),
      [['info', 'app-1', false]],
      io.err(),
    );
    assert.match(String(unchecked[0]?.msg), /no attestation\.metadataCrls configured \(docs\/attestation\.md\)/);
    const stale = lines.find((l) => l.level === 'warn' && String(l.msg).includes('past its nextUpdate'));
    assert.ok(stale, io.err());

    const fresh = capture();
    const now = await startService({
      configFile: file,
      env: {},
      cwd: dir,
      stdout: fresh.stdout,
      stderr: fresh.stderr,
      runtime: { ...clock, now: () => Date.parse('2026-01-15T00:00:00Z') },
    });
    await now.close();
    assert.match(fresh.err(), /metadata BLOB loaded/);
    assert.doesNotMatch(fresh.err(), /past its nextUpdate/);
  });

  it('a BLOB that does not verify stops `serve` as a configuration error: exit 1, the application named, no stack trace', async () => {
    const { dir, file } = metadataConfig('2049-12-31', 'eyJhbGciOiJFUzI1NiJ9.eyJubyI6MX0.c2ln');
    const result = await runCliCommand(['serve', '--config', file], { cwd: dir });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /Invalid configuration/);
    assert.match(
      result.stderr,
      /applications\[0\]\.attestation\.metadata: .*blob\.jwt cannot be used \(METADATA_BLOB_/,
    );
    assert.ok(!/\n\s+at /.test(result.stderr), `no stack trace:\n${result.stderr}`);
  });

  it('check-config verifies the BLOB too, and shows it', async () => {
    const broken = metadataConfig('2049-12-31', 'eyJhbGciOiJFUzI1NiJ9.eyJubyI6MX0.c2ln');
    const refused = await runCliCommand(['check-config', '--config', broken.file], { cwd: broken.dir });
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(refused.stderr, /applications\[0\]\.attestation\.metadata: .*METADATA_BLOB_/);
    const good = metadataConfig('2049-12-31');
    const shown = await runCliCommand(['check-config', '--config', good.file], { cwd: good.dir });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /metadata: +app-1: BLOB no 7, next update 2049-12-31\n/);
  });
});

describe('the demo from the configuration', () => {
  it('gets demo.devHostnames, and its CA certificate path is printed', async () => {
    const dir = tempDir('passkey-ops-demo-');
    const file = writeFile(dir, 'config.json', {
      listen: { host: '127.0.0.1', port: 0 },
      local: { enabled: true },
      demo: { enabled: true, host: '127.0.0.1', port: 0, devHostnames: ['dev.example.test'] },
      applications: [minimalApp({ localOrigins: ['https://localhost', 'https://dev.example.test'] })],
    });
    const io = capture();
    const running = await startService({ configFile: file, env: {}, cwd: dir, stdout: io.stdout, stderr: io.stderr });
    try {
      const caPath = join(dir, 'data', 'demo-tls', 'ca.pem');
      assert.equal(running.demoCaPath, caPath);
      assert.ok(
        io.out().includes(`passkey-server: demo CA certificate at ${caPath} (trust it once: docs/demo.md)\n`),
        io.out(),
      );
      const demoUrl = running.demoUrls.find((u) => u.startsWith('https://localhost:'));
      assert.ok(demoUrl, running.demoUrls.join(' '));
      const port = Number(new URL(demoUrl).port);
      const body = await new Promise<string>((resolve, reject) => {
        const req = httpsRequest(
          {
            host: '127.0.0.1',
            port,
            path: '/.well-known/webauthn',
            servername: 'localhost',
            headers: { host: `localhost:${port}` },
            ca: readFileSync(caPath),
          },
          (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => {
              text += chunk.toString();
            });
            res.on('end', () => resolve(text));
          },
        );
        req.setTimeout(10_000, () => req.destroy(new Error('timed out')));
        req.on('error', reject);
        req.end();
      });
      assert.deepEqual(JSON.parse(body), { origins: [`https://dev.example.test:${port}`] });
    } finally {
      await running.close();
    }
  });
});
