// The benchmark tools run from a fresh build and print what BENCHMARKS.md quotes: a smoke test of each at
// its smallest setting. No figure is asserted (figures belong in BENCHMARKS.md, never in a test), only that
// the tools finish, fail nothing and print their tables.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanEnv, runNode } from '../support/cli-process.js';

const BENCH = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench');
const LIMIT_MS = 90_000;

function run(script: string, args: readonly string[]) {
  return runNode([join(BENCH, script), ...args], { env: cleanEnv({ NODE_ENV: 'production' }), limitMs: LIMIT_MS });
}

describe('bench tools (smoke)', () => {
  it('run.js --only inprocess: the verification table, ours next to SimpleWebAuthn', async () => {
    const { code, stdout, stderr } = await run('run.js', ['--only', 'inprocess', '--verify-seconds', '0.05']);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^\| raw node:crypto P-256 verify \(the floor\) \| [\d.]+ \| \| \|$/m);
    for (const row of ['registration (none)', 'registration (packed self)', 'authentication (ES256)']) {
      const name = row.replace(/[()]/g, '\\$&');
      assert.match(stdout, new RegExp(`^\\| ${name} \\| [\\d.]+ \\| [\\d.]+ \\| \\*\\*[\\d.]+ ×\\*\\* \\|$`, 'm'), row);
    }
    for (const level of [44, 65, 87]) {
      assert.match(stdout, new RegExp(`^\\| ML-DSA-${level}, @noble/post-quantum \\| [\\d.]+ \\| [\\d.]+ × \\|$`, 'm'));
    }
  });

  it('run.js --only http: ours, the comparison server and the null server, with the ratios', async () => {
    const { code, stdout, stderr } = await run('run.js', [
      '--only',
      'http',
      '--seconds',
      '0.3',
      '--rounds',
      '1',
      '--flows',
      '4',
    ]);
    assert.equal(code, 0, stderr);
    for (const server of ['our service', 'SimpleWebAuthn \\+ Fastify', 'null server']) {
      assert.match(stdout, new RegExp(`^\\| ${server} \\| \\d+ \\| \\d+ \\| [\\d.]+ / [\\d.]+ \\|`, 'm'), server);
    }
    assert.match(stdout, /sign-in \*\*[\d.]+ ×\*\*, registration \*\*[\d.]+ ×\*\*/);
    assert.doesNotMatch(stdout, /First failure/);
  });

  it('pair.js: two servers in alternating slices, a ratio per slice and the median', async () => {
    const { code, stdout, stderr } = await run('pair.js', [
      '--a',
      'null',
      '--b',
      'ours',
      '--slices',
      '2',
      '--seconds',
      '0.5',
      '--flows',
      '4',
    ]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^\| 1 \| [\d.]+ \| [\d.]+ \| [\d.]+ \|$/m);
    assert.match(stdout, /A: [\d.]+ µs\/op over \d+ ops \(0 failed\); B: [\d.]+ µs\/op over \d+ ops \(0 failed\)/);
    assert.match(stdout, /B \/ A: median [\d.]+/);
  });

  it('transfer.js: the CLI imports then exports on SQLite and PostgreSQL, a row per backend and size', async () => {
    const { code, stdout, stderr } = await run('transfer.js', ['--records', '200', '--backends', 'sqlite,postgres']);
    assert.equal(code, 0, stderr);
    for (const backend of ['sqlite', 'postgres']) {
      for (const size of [20, 200])
        assert.match(stdout, new RegExp(`^\\| ${backend} \\| ${size} \\| \\d+ \\| \\d+ \\| \\d+ \\| \\d+ \\|$`, 'm'));
    }
  });

  it('enumeration.js: registered against unknown users, interleaved, with a KS statistic per row', async () => {
    const { code, stdout, stderr } = await run('enumeration.js', ['--n', '100', '--users', '5', '--max-seconds', '60']);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /answer floor 5 ms/, "the shipped floor, on the service's own timers");
    for (const row of ['assertion options', 'assertion result, bad signature']) {
      assert.match(
        stdout,
        new RegExp(
          `^${row} +n=\\d+\\+\\d+ +median registered [\\d.]+ µs, unknown [\\d.]+ µs +KS D=[\\d.]+ p=\\S+$`,
          'm',
        ),
        row,
      );
    }
  });

  it('enumeration.js --control --floor 0: both kinds registered (names and order drawn per run), both rows', async () => {
    const { code, stdout, stderr } = await run('enumeration.js', [
      '--n',
      '100',
      '--users',
      '4',
      '--control',
      '--floor',
      '0',
      '--max-seconds',
      '60',
    ]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /answer floor off/);
    for (const row of ['assertion options', 'assertion result, bad signature']) {
      assert.match(stdout, new RegExp(`^${row} +n=100\\+100 `, 'm'), row);
    }
  });

  it('enumeration.js --store sqlite --only options: the shipped SQLite stores, one row', async () => {
    const { code, stdout, stderr } = await run('enumeration.js', [
      '--n',
      '100',
      '--users',
      '3',
      '--store',
      'sqlite',
      '--only',
      'options',
      '--max-seconds',
      '60',
    ]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /sqlite stores/);
    assert.match(stdout, /^assertion options +n=\d+\+\d+ /m);
    assert.doesNotMatch(stdout, /assertion result/);
  });

  it('enumeration.js --http: the same rows through a real socket on 127.0.0.1', async () => {
    const { code, stdout, stderr } = await run('enumeration.js', [
      '--n',
      '100',
      '--users',
      '3',
      '--http',
      '--max-seconds',
      '60',
    ]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /over HTTP \(127\.0\.0\.1\)/);
    for (const row of ['assertion options', 'assertion result, bad signature'])
      assert.match(stdout, new RegExp(`^${row} +n=\\d+\\+\\d+ .* KS D=[\\d.]+ p=\\S+$`, 'm'), row);
  });
});
