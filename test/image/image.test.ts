// The container image (Containerfile, docs/deployment.md "Run the image"), built from the checkout FROM the
// stand-in base (scripts/stand-in-base.sh) and run with podman: what the image holds, then one container
// on SQLite as an operator starts it (read-only, a tmpfs on /tmp, configured by environment variables only),
// through its socket, across `podman restart` and `podman stop`. Run by `npm run test:image`, not `npm test`.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Database } from '../../src/stores/sqlite/open.js';
import { Container, uniqueName } from './support/container.js';
import { imageUnderTest, inspectImage, podman, REPO, standInBase } from './support/podman.js';
import { DEFAULT_APPLICATION, relayHeaders, User } from './support/relay.js';
import { PATHS } from '../support/harness.js';

const BUILD_LIMIT_MS = 45 * 60_000;
const MIB = 1024 * 1024;
const PACKAGE = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
const DATA = '/var/lib/passkey-server';

describe('the image built from the checkout', () => {
  let image: string;
  before(
    async () => {
      image = await imageUnderTest();
    },
    { timeout: BUILD_LIMIT_MS },
  );

  it('adds at most 100 MiB to its base, with the labels, user, volume and command line the docs give', async (t) => {
    const inspected = await inspectImage(image);
    const base = await inspectImage(await standInBase());
    const added = inspected.Size - base.Size;
    t.diagnostic(`image ${(inspected.Size / MIB).toFixed(1)} MiB, added to its base ${(added / MIB).toFixed(1)} MiB`);
    assert.ok(added > 0 && added <= 100 * MIB, `added ${added} bytes`);
    const labels = inspected.Labels;
    assert.equal(labels['org.opencontainers.image.version'], PACKAGE.version);
    assert.equal(labels['org.opencontainers.image.licenses'], PACKAGE.license);
    assert.ok('org.opencontainers.image.source' in labels);
    assert.equal(inspected.Config.User, '10001:10001');
    assert.deepEqual(inspected.Config.Entrypoint, ['passkey-server']);
    assert.deepEqual(inspected.Config.Cmd, ['serve']);
    assert.ok(DATA in inspected.Config.Volumes, JSON.stringify(inspected.Config.Volumes));
  });

  it('holds the service and its production dependencies only, and their SBOM', async () => {
    const listing = await podman(
      [
        'run',
        '--rm',
        '--network',
        'host',
        '--read-only',
        '--entrypoint',
        'sh',
        image,
        '-c',
        'for c in cc gcc g++ make python3; do command -v $c; done; echo ---; ls /opt/passkey-server /opt/passkey-server/node_modules; echo ---; cat /opt/passkey-server/sbom.cdx.json',
      ],
      60_000,
    );
    const [compilers, files, sbomText] = listing.split('---\n');
    assert.equal(compilers, '', 'no compiler on the PATH');
    const names = files!.split(/\s+/);
    for (const absent of ['test', 'src', 'typescript', 'vite', '@biomejs', 'playwright-core', 'better-sqlite3-node20'])
      assert.ok(!names.includes(absent), `${absent} is in the image`);
    for (const present of ['dist', 'better-sqlite3', 'pg', 'redis', 'sbom.cdx.json'])
      assert.ok(names.includes(present));
    const sbom = JSON.parse(sbomText!);
    assert.equal(sbom.bomFormat, 'CycloneDX');
    assert.equal(sbom.metadata.component.name, 'passkey-server');
    const components = new Map(sbom.components.map((c: { name: string; version: string }) => [c.name, c.version]));
    for (const [name, version] of Object.entries<string>(PACKAGE.dependencies)) {
      if (name === 'better-sqlite3-node20') assert.ok(!components.has(name));
      else assert.ok(components.has(name), `${name} (${version}) is in the SBOM`);
    }
  });
});

describe('one container on SQLite: read-only, non-root, through its socket', () => {
  const volume = uniqueName('data');
  let image: string;
  let container: Container;

  before(
    async () => {
      image = await imageUnderTest();
      await podman(['volume', 'create', volume]);
      container = await Container.run({ image, options: ['--volume', `${volume}:/var/lib/passkey-server`] }, 'sqlite');
    },
    { timeout: BUILD_LIMIT_MS },
  );

  after(async () => {
    await container?.remove();
    await podman(['volume', 'rm', '--force', volume]).catch(() => undefined);
  });

  it('starts read-only as its non-root user; /health answers, and the admin Host check holds', async () => {
    assert.equal((await container.inspect()).HostConfig.ReadonlyRootfs, true);
    assert.deepEqual(await container.exec(['id', '-u']), { code: 0, output: '10001\n' });
    const write = await container.exec(['touch', '/opt/passkey-server/written']);
    assert.notEqual(write.code, 0, 'the root file system is read-only');
    assert.match(write.output, /Read-only file system/);
    const health = await fetch(`${container.adminUrl}/health`, { signal: AbortSignal.timeout(10_000) });
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
    assert.deepEqual(await getWithHost(`${container.adminUrl}/health`, 'passkey.example.com'), {
      status: 403,
      error: 'HOST_NOT_ALLOWED',
    });
  });

  it('answers the four operations and a sign-in without a name', async () => {
    const user = new User(DEFAULT_APPLICATION);
    await user.register(container.serviceUrl);
    await user.signIn(container.serviceUrl);
    await user.signInWithoutName(container.serviceUrl);
  });

  it('keeps a passkey registered before `podman restart`', async () => {
    const user = new User(DEFAULT_APPLICATION);
    await user.register(container.serviceUrl);
    await container.restart();
    await user.signIn(container.serviceUrl);
    await user.signInWithoutName(container.serviceUrl);
  });

  it('runs `admin` commands as a one-off `podman run IMAGE admin …` on its volume', async () => {
    const made = await podman([
      'run',
      '--rm',
      '--network',
      'host',
      '--read-only',
      '--volume',
      `${volume}:${DATA}`,
      image,
      'admin',
      'token',
      'create',
      'ops',
    ]);
    const token = /pks_admin_[A-Za-z0-9_-]+/.exec(made)?.[0];
    assert.ok(token, made);
    const listed = await fetch(`${container.adminUrl}/admin/applications`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(10_000),
    });
    assert.equal(listed.status, 200, await listed.text());
  });

  it('backs up SQLite while it runs, as docs/deployment.md shows; the volume holds what the docs list', async () => {
    const docs = readFileSync(join(REPO, 'docs', 'deployment.md'), 'utf8');
    assert.ok(docs.includes(`podman exec passkey node -e "${BACKUP}"`), 'the docs show this command');
    const backup = await container.exec(['node', '-e', BACKUP]);
    assert.deepEqual(backup, { code: 0, output: 'backup.db written\n' });
    const copy = join(mkdtempSync(join(tmpdir(), 'passkey-image-backup-')), 'fido2-backup.db');
    await podman(['cp', `${container.name}:${DATA}/backup.db`, copy]);
    const backedUp = new Database(copy, { readonly: true });
    try {
      const { n } = backedUp.prepare('SELECT count(*) AS n FROM credentials').get() as { n: number };
      assert.ok(n >= 2, `credentials in the backup: ${n}`);
    } finally {
      backedUp.close();
      rmSync(dirname(copy), { recursive: true, force: true });
    }
    const listing = await container.exec(['ls', '-A', DATA]);
    const documented = ['fido2.db', 'fido2.db-wal', 'fido2.db-shm', 'secrets.json', 'admin-tokens.json', 'backup.db'];
    for (const file of listing.output.split('\n').filter(Boolean))
      assert.ok(documented.includes(file), `${file} in the volume`);
  });

  it('`podman stop` ends it gracefully with exit code 0 in under 10 s: a request in flight is answered, what it stored is kept', async (t) => {
    const user = new User(DEFAULT_APPLICATION);
    await user.register(container.serviceUrl);
    const inFlight = halfSent(`${container.serviceUrl}${PATHS.attestationOptions}`, {
      username: `late#${DEFAULT_APPLICATION.domain}`,
    });
    await inFlight.started;
    // Let the service read the headers (it then holds an active request) before the signal.
    await new Promise((resolve) => setTimeout(resolve, 250));
    const stopping = container.stop();
    await container.waitForLog(/SIGTERM received, shutting down/);
    const answer = await inFlight.finish();
    assert.equal(answer.status, 200);
    assert.equal(JSON.parse(answer.body).status, 'ok', answer.body);
    const took = await stopping;
    t.diagnostic(`podman stop took ${Math.round(took)} ms`);
    const state = await container.state();
    assert.equal(state.Status, 'exited');
    assert.equal(state.ExitCode, 0);
    assert.ok(took < 10_000, `podman stop took ${took} ms`);
    const logs = await container.logs();
    assert.match(logs, /SIGTERM received, shutting down/);
    assert.match(logs, /"forcedServers":0,"failedClosers":\[\]/);
    await container.start();
    await user.signIn(container.serviceUrl);
  });
});

/** docs/deployment.md's online backup ("Backups from the volume"), as `podman exec passkey node -e` runs it. */
const BACKUP =
  "const D = require('/opt/passkey-server/node_modules/better-sqlite3'); new D('/var/lib/passkey-server/fido2.db', { readonly: true }).backup('/var/lib/passkey-server/backup.db').then(() => console.log('backup.db written'))";
/**
 * A POST whose headers and first half of the body are sent at once (`started`) and the rest by `finish()`,
 * which answers the response: a request in flight for as long as the test wants.
 */
function halfSent(
  url: string,
  body: unknown,
): { started: Promise<void>; finish(): Promise<{ status: number; body: string }> } {
  const payload = Buffer.from(JSON.stringify(body));
  const half = Math.floor(payload.length / 2);
  const headers = { ...relayHeaders(DEFAULT_APPLICATION), 'content-length': String(payload.length) };
  const request = httpRequest(url, { method: 'POST', headers, signal: AbortSignal.timeout(30_000) });
  const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.on('error', reject);
    request.on('response', (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
  });
  const started = new Promise<void>((resolve) => request.write(payload.subarray(0, half), () => resolve()));
  return {
    started,
    finish: () => {
      request.end(payload.subarray(half));
      return answered;
    },
  };
}

/** GET with a Host header naming another site (what a DNS-rebinding page sends); its status and error. */
function getWithHost(url: string, host: string): Promise<{ status: number; error: unknown }> {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers: { host }, signal: AbortSignal.timeout(10_000) }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, error: JSON.parse(body).error }));
    });
    request.on('error', reject);
  });
}
