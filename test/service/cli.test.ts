// The compiled command line, spawned as users run it: check-config, serve (start, answer, graceful stop),
// migrate, local-keys rotate, secrets init, apps list, and clear failures with non-zero exit codes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { minimalApp, tempDir, writeFile } from '../config/support.js';
import { CLI, cleanEnv, LIMIT_MS, runCliCommand } from '../support/cli-process.js';


interface Served {
  readonly child: ChildProcess;
  readonly url: string;
  stdout(): string;
  stderr(): string;
  /** Sends the signal and waits (bounded) for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `serve` and waits (bounded) for the line with the bound address. */
function serve(args: string[], options: { cwd: string; env?: Record<string, string>; wrapper?: readonly string[] }): Promise<Served> {
  return new Promise((resolve, reject) => {
    // `wrapper`: a command that execs node, such as taskset with a CPU list.
    const [command, ...wrapperArgs] = [...(options.wrapper ?? []), process.execPath];
    const child = spawn(command!, [...wrapperArgs, CLI, 'serve', ...args], { cwd: options.cwd, env: cleanEnv(options.env) });
    let stdout = '';
    let stderr = '';
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`serve did not start:\n${stdout}\n${stderr}`)); }, LIMIT_MS);
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /service listening on (http:\/\/\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve({
          child, url: match[1]!, stdout: () => stdout, stderr: () => stderr,
          stop: async (signal = 'SIGTERM') => {
            child.kill(signal);
            const guard = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
            const code = await exited;
            clearTimeout(guard);
            return code;
          },
        });
      }
    });
    void exited.then((code) => { clearTimeout(timer); reject(new Error(`serve exited with ${code}:\n${stdout}\n${stderr}`)); });
  });
}

async function registrationOptions(url: string, clientId = 'app-1', origin = 'https://idp.example.test', username = 'alice#idp.example.test') {
  const response = await fetch(`${url}/api/attestation/options`, {
    method: 'POST',
    headers: { 'User-agent': `Vendor AppID: ${clientId}`, origin, 'content-type': 'application/json' },
    body: JSON.stringify({ username, displayName: 'Alice' }),
  });
  return { status: response.status, body: await response.json() as Record<string, unknown> };
}

function configDir(content: Record<string, unknown> = {}): { dir: string; file: string } {
  const dir = tempDir('passkey-cli-');
  const file = writeFile(dir, 'config.json', { listen: { host: '127.0.0.1', port: 0 }, applications: [minimalApp()], ...content });
  return { dir, file };
}

describe('cli: check-config', () => {
  it('a valid file: exit 0 and a summary', async () => {
    const { dir, file } = configDir();
    const result = await runCliCommand(['check-config', '--config', file], { cwd: dir });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /configuration OK/);
    assert.match(result.stdout, /applications: app-1/);
  });

  it('the built-in default is valid', async () => {
    const result = await runCliCommand(['check-config'], { cwd: tempDir() });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /built-in defaults/);
    assert.match(result.stdout, /demo-client/);
  });

  it('every problem printed at once, exit 1', async () => {
    const { dir, file } = configDir({ listen: { port: 'x' }, vendor: 'a b', applications: [minimalApp({ domain: 'BAD_' }), minimalApp()] });
    const result = await runCliCommand(['check-config', '--config', file], { cwd: dir, env: { PASSKEY_LOCAL_ENABLED: 'perhaps' } });
    assert.equal(result.code, 1);
    for (const words of ['5 problems', 'PASSKEY_LOCAL_ENABLED', 'listen.port', 'vendor', 'applications[0].domain', 'applications[1].clientId']) {
      assert.ok(result.stderr.includes(words), `${words} missing from:\n${result.stderr}`);
    }
    assert.ok(!/\n\s+at /.test(result.stderr), 'no stack trace');
  });

  it('a missing file: exit 1 with the reason', async () => {
    const result = await runCliCommand(['check-config', '--config', 'nope.json'], { cwd: tempDir() });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /cannot read the config file \(ENOENT\)/);
  });
});

describe('cli: bad calls exit 2 with the usage', () => {
  for (const args of [['frobnicate'], ['check-config', '--colour'], ['check-config', 'extra'], ['serve', '--port', 'abc'],
    ['serve', '--port', '70000'], ['local-keys'], ['apps', 'remove'], ['secrets', 'init', '--file', ''], ['check-config', '--config']]) {
    it(args.join(' '), async () => {
      const result = await runCliCommand(args, { cwd: tempDir() });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /Usage: passkey-server/);
    });
  }

  it('help prints the usage, exit 0', async () => {
    const result = await runCliCommand(['help'], { cwd: tempDir() });
    assert.equal(result.code, 0);
    assert.match(result.stdout, /check-config/);
  });
});

describe('cli: serve', () => {
  it('sqliteWriter auto: the writer thread with two or more cores, inline when taskset confines the process to one', async () => {
    const { file } = configDir({ local: { enabled: false } });
    const started = (text: string) => /"sqliteWriter":"(\w+)"/.exec(text.split('\n').find((line) => line.includes('service started')) ?? '')?.[1];
    const free = await serve(['--config', file], { cwd: tempDir() });
    assert.equal(await free.stop(), 0);
    assert.equal(started(free.stdout() + free.stderr()), availableParallelism() >= 2 ? 'thread' : 'inline');
    const pinned = await serve(['--config', file], { cwd: tempDir(), wrapper: ['taskset', '-c', '0'] });
    assert.equal((await registrationOptions(pinned.url)).status, 200);
    assert.equal(await pinned.stop(), 0);
    assert.equal(started(pinned.stdout() + pinned.stderr()), 'inline');
  });

  it('starts from a config file on port 0, answers, and stops gracefully on SIGTERM', async () => {
    const { dir, file } = configDir();
    const served = await serve(['--config', file], { cwd: tempDir() });
    assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.doesNotMatch(served.url, /:0$/, 'the real bound port is printed');
    const answer = await registrationOptions(served.url);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.status, 'ok');
    assert.equal(await served.stop('SIGTERM'), 0);
    assert.match(served.stderr(), /local variant is enabled|LOCAL variant is ENABLED/);
    assert.ok(existsSync(join(dir, 'data', 'fido2.db')), 'SQLite file next to the config file');
    assert.equal((JSON.parse(readFileSync(join(dir, 'data', 'secrets.json'), 'utf8')) as { version: number }).version, 1);
  });

  it('stops on SIGINT too, and the secrets generated at the first start are kept at the next', async () => {
    const { dir, file } = configDir();
    const first = await serve(['--config', file], { cwd: dir });
    assert.equal(await first.stop('SIGINT'), 0);
    const secrets = readFileSync(join(dir, 'data', 'secrets.json'), 'utf8');
    const second = await serve(['--config', file], { cwd: dir });
    assert.equal(await second.stop(), 0);
    assert.equal(readFileSync(join(dir, 'data', 'secrets.json'), 'utf8'), secrets);
  });

  it('without a config: the built-in default (SQLite in ./data, demo application), --port and --no-demo', async () => {
    const cwd = tempDir();
    const served = await serve(['--port', '0', '--no-demo'], { cwd });
    const answer = await registrationOptions(served.url, 'demo-client', 'https://demo.localhost:8443', 'alice#demo.localhost');
    assert.equal(answer.body.status, 'ok', JSON.stringify(answer.body));
    assert.equal(await served.stop(), 0);
    assert.ok(existsSync(join(cwd, 'data', 'fido2.db')));
    assert.doesNotMatch(served.stdout(), /demo page/);
  });

  it('environment overrides apply (PASSKEY_PORT=0, PASSKEY_LOCAL_ENABLED=false: no warning)', async () => {
    const { dir, file } = configDir({ listen: { port: 1 } });
    const served = await serve(['--config', file], { cwd: dir, env: { PASSKEY_PORT: '0', PASSKEY_LOCAL_ENABLED: 'false' } });
    assert.equal(await served.stop(), 0);
    assert.doesNotMatch(served.stderr(), /LOCAL variant is ENABLED/);
  });

  it('a port in use: exit 1 with a clear message', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { dir, file } = configDir();
      const result = await runCliCommand(['serve', '--config', file, '--port', String(port)], { cwd: dir });
      assert.equal(result.code, 1);
      assert.match(result.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: EADDRINUSE`));
    } finally {
      blocker.close();
    }
  });

  it('a bad config: exit 1 listing the problems, nothing listens', async () => {
    const { dir, file } = configDir({ database: 'nosql:x' });
    const result = await runCliCommand(['serve', '--config', file], { cwd: dir });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /database: must be "sqlite:<path>"/);
    assert.doesNotMatch(result.stdout, /listening/);
  });

  it('PostgreSQL without configured secrets: refuses to start, naming the variables', async () => {
    const { dir, file } = configDir({ database: 'postgres://postgres@127.0.0.1:5432/test' });
    const result = await runCliCommand(['serve', '--config', file], { cwd: dir });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /PASSKEY_USER_HANDLE_KEY/);
    assert.ok(!existsSync(join(dir, 'data', 'secrets.json')), 'no secrets generated');
  });
});

describe('cli: migrate, local-keys rotate, secrets init, apps list', () => {
  it('migrate applies the SQLite migrations once', async () => {
    const { dir, file } = configDir();
    const first = await runCliCommand(['migrate', '--config', file], { cwd: dir });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /schema version 0 → \d+ \(applied: 1 /);
    const second = await runCliCommand(['migrate', '--config', file], { cwd: dir });
    assert.match(second.stdout, /is up to date/);
  });

  it('local-keys rotate adds a key to the secrets file; without a file it fails clearly', async () => {
    const { dir, file } = configDir();
    const missing = await runCliCommand(['local-keys', 'rotate', '--config', file], { cwd: dir });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /does not exist/);
    assert.equal((await runCliCommand(['secrets', 'init', '--config', file], { cwd: dir })).code, 0);
    const rotated = await runCliCommand(['local-keys', 'rotate', '--config', file], { cwd: dir });
    assert.equal(rotated.code, 0, rotated.stderr);
    const id = /added local-blob key (\S+)/.exec(rotated.stdout)?.[1];
    const keys = (JSON.parse(readFileSync(join(dir, 'data', 'secrets.json'), 'utf8')) as { localBlobKeys: { id: string }[] }).localBlobKeys;
    assert.equal(keys.length, 2);
    assert.equal(keys[0]!.id, id);
  });

  it('secrets init --file creates a file once and never overwrites it', async () => {
    const cwd = tempDir();
    assert.equal((await runCliCommand(['secrets', 'init', '--file', 'keys/s.json'], { cwd })).code, 0);
    assert.ok(existsSync(join(cwd, 'keys', 's.json')));
    const again = await runCliCommand(['secrets', 'init', '--file', 'keys/s.json'], { cwd });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists already/);
  });

  it('apps list, as text and as JSON', async () => {
    const { dir, file } = configDir({ applications: [minimalApp(), minimalApp({ clientId: 'app-2', name: 'Two', variants: ['local'], origins: [] })] });
    const text = await runCliCommand(['apps', 'list', '--config', file], { cwd: dir });
    assert.equal(text.code, 0);
    assert.match(text.stdout, /app-1 {2}App One/);
    assert.match(text.stdout, /app-2 {2}Two\n {2}domain: +idp\.example\.test\n {2}variants: +local/);
    const json = await runCliCommand(['apps', 'list', '--json', '--config', file], { cwd: dir });
    assert.deepEqual((JSON.parse(json.stdout) as { clientId: string }[]).map((a) => a.clientId), ['app-1', 'app-2']);
  });
});
