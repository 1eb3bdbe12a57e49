// The README works as written (issue 33): `npm start` (its script, `node dist/cli/bin.js serve`, run from the
// build in a fresh folder) prints the lines the README shows, and the README's `curl` from that folder,
// run by bash as written, gets attestation options with the demo's relay secret (without that line the
// service answers 401 RELAY_SECRET_MISSING). Only the ports differ: tests never take fixed ports, so the
// README's 8787 and 8443 become the ports this run picked, through PASSKEY_PORT and PASSKEY_DEMO_PORT.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, startServe, type ServeProcess } from '../support/cli-process.js';
import { REPO } from '../browser/support.js';

const README = readFileSync(join(REPO, 'README.md'), 'utf8');

/** The body of the fenced block that follows `heading`'s section start and begins with `starts`. */
function block(starts: string): string {
  const found = [...README.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].find((match) => match[2]!.startsWith(starts));
  if (!found) throw new Error(`README has no code block starting "${starts}"`);
  return found[2]!;
}

describe('README: the commands as written', { timeout: 120_000 }, () => {
  let dir: string;
  let served: ServeProcess;
  let port: number;
  let demoPort: number;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'passkey-readme-'));
    const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    assert.equal(manifest.scripts.start, 'node dist/cli/bin.js serve', 'npm start runs the service');
    assert.match(block('npm ci'), /^npm ci && npm start\n$/);
    [port, demoPort] = [await freePort(), await freePort()];
    const adminPort = await freePort();
    served = await startServe([], {
      cwd: dir,
      env: { PASSKEY_PORT: String(port), PASSKEY_DEMO_PORT: String(demoPort), PASSKEY_ADMIN_PORT: String(adminPort) },
      admin: true,
      startWithinMs: 60_000,
    });
    // The demo's line comes after the listeners'; wait for it (bounded).
    const deadline = Date.now() + 30_000;
    while (!served.stdout().includes('demo CA certificate') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
  });

  after(async () => {
    await served?.stop('SIGTERM', 10_000);
    await rm(dir, { recursive: true, force: true });
  });

  it('`npm start` prints what the README shows', () => {
    const shown = block('passkey-server: service listening')
      .replaceAll(':8787', `:${port}`)
      .replaceAll(':8788', `:${served.adminUrl ? new URL(served.adminUrl).port : ''}`)
      .replaceAll(':8443', `:${demoPort}`)
      .trim()
      .split('\n');
    const printed = served.stdout().trim().split('\n');
    for (const line of shown) {
      const pattern = new RegExp(`^${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('…', '.+')}$`);
      assert.ok(
        printed.some((one) => pattern.test(one)),
        `"${line}" not printed:\n${served.output()}`,
      );
    }
  });

  it("the README's curl, with the demo's relay secret, gets attestation options", async () => {
    const curl = block('curl ').replaceAll(':8787', `:${port}`).replaceAll(':8443', `:${demoPort}`);
    assert.match(curl, /Authorization: Bearer \$\(cat data\/demo-relay-secret\)/);
    const { stdout } = await promisify(execFile)('bash', ['-c', curl], { cwd: dir, timeout: 20_000 });
    const answer = JSON.parse(stdout) as Record<string, unknown>;
    assert.equal(answer.status, 'ok', stdout);
    assert.equal(typeof answer.challenge, 'string');
    assert.deepEqual(answer.user && (answer.user as Record<string, unknown>).name, 'alice#demo.localhost');

    // The line matters: without it the demo application refuses the call.
    const without = curl.replace(/^.*Authorization: Bearer.*\n/m, '');
    assert.notEqual(without, curl);
    const refused = JSON.parse(
      (await promisify(execFile)('bash', ['-c', without], { cwd: dir, timeout: 20_000 })).stdout,
    );
    assert.equal(refused.errorMessage[0], 'RELAY_SECRET_MISSING');
  });
});
