// Authenticator names and icons: the bundled lists, their precedence, the refresh script (an empty list
// refused), and the admin API's credential listing over a real socket.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AuditLog } from '../../src/audit/index.js';
import { MemoryAuditStore } from '../../src/stores/memory/audit.js';
import { MemoryApplicationStore } from '../../src/stores/memory/applications.js';
import { seedApplications } from '../../src/applications/directory.js';
import { AdminActions } from '../../src/admin/actions.js';
import { Readiness } from '../../src/runtime/readiness.js';
import { startAdminServer, type AdminServer } from '../../src/admin/server.js';
import { MemoryAdminTokenStore } from '../../src/admin/tokens.js';
import {
  bundledCatalog,
  CatalogError,
  describeAuthenticator,
  findAssetsFolder,
  parseNameList,
  parseProviderList,
} from '../../src/authenticators/index.js';
import { MetricsRegistry } from '../../src/metrics/index.js';
import { MemoryCredentialStore } from '../../src/stores/memory/credentials.js';
import { applicationConfig } from '../support/harness.js';
import { captureLog, credential, testRuntime } from '../support/admin-fixtures.js';
import { POST_QUANTUM_ALGORITHMS } from '../../src/webauthn/cose.js';

const GOOGLE = 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4';
const YUBIKEY_BIO = '90636e1f-ef82-43bf-bdcf-5255f139d12f';
const ZERO = '00000000-0000-0000-0000-000000000000';
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const SCRIPT = join(repo, 'scripts', 'refresh-aaguids.mjs');

describe('authenticator catalogue (bundled lists)', () => {
  const catalog = bundledCatalog();

  it('names passkey providers with light and dark icons from the community list', () => {
    const google = catalog.find(GOOGLE);
    assert.equal(google?.name, 'Google Password Manager');
    assert.match(google?.iconLight ?? '', /^data:image\/svg\+xml;base64,/);
    assert.match(google?.iconDark ?? '', /^data:image\/svg\+xml;base64,/);
    assert.equal(catalog.find(GOOGLE.toUpperCase())?.name, 'Google Password Manager');
  });

  it('names security keys from the aaguids package list (names only), and nothing for the all-zero AAGUID', () => {
    assert.deepEqual(catalog.find(YUBIKEY_BIO), {
      name: 'YubiKey Bio Series - Multi-protocol Edition',
      iconLight: null,
      iconDark: null,
    });
    assert.equal(catalog.find(ZERO), undefined);
    assert.equal(catalog.find('12345678-1234-1234-1234-123456789abc'), undefined);
    assert.ok(catalog.size > 300, `both lists merged: ${catalog.size}`);
  });

  it('FIDO metadata names the model first; the name is verified only when a trusted attestation proved the AAGUID', () => {
    assert.deepEqual(describeAuthenticator({ aaguid: GOOGLE, proven: false }, catalog).name, 'Google Password Manager');
    assert.equal(describeAuthenticator({ aaguid: GOOGLE, proven: false }, catalog).verified, false);
    const fromMetadata = describeAuthenticator(
      { aaguid: YUBIKEY_BIO, metadataName: 'YubiKey Bio (metadata)', proven: true },
      catalog,
    );
    assert.equal(fromMetadata.name, 'YubiKey Bio (metadata)');
    assert.equal(fromMetadata.verified, true);
    assert.deepEqual(describeAuthenticator({ aaguid: ZERO, proven: false }, catalog), {
      name: null,
      iconLight: null,
      iconDark: null,
      verified: false,
    });
  });

  it('refuses a broken list with the entry that is wrong, and an empty list as a retired one', () => {
    assert.throws(
      () => parseProviderList({}, 'x.json'),
      (e: unknown) => e instanceof CatalogError && /empty.*retire/.test(e.message),
    );
    assert.throws(() => parseProviderList([], 'x.json'), CatalogError);
    assert.throws(
      () => parseProviderList({ 'NOT-AN-AAGUID': { name: 'x' } }, 'x.json'),
      /not a lower-case dashed AAGUID/,
    );
    assert.throws(() => parseProviderList({ [GOOGLE]: { name: '' } }, 'x.json'), /no usable name/);
    assert.throws(
      () => parseProviderList({ [GOOGLE]: { name: 'G', icon_light: 'javascript:alert(1)' } }, 'x.json'),
      /icon_light is not an SVG data URI/,
    );
    assert.throws(() => parseNameList({ [GOOGLE]: 42 }, 'y.json'), /no usable name/);
  });
});

describe('scripts/refresh-aaguids.mjs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aaguids-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [SCRIPT, ...args, '--into', dir], { encoding: 'utf8', timeout: 30_000 });

  it('writes a downloaded list, sorted by AAGUID, and says how many entries it holds', () => {
    const downloaded = join(dir, 'download.json');
    writeFileSync(downloaded, JSON.stringify({ [YUBIKEY_BIO]: { name: 'B' }, [GOOGLE]: { name: 'A' } }));
    const result = run('providers', downloaded);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /now holds 2 entries/);
    assert.deepEqual(
      Object.keys(JSON.parse(readFileSync(join(dir, 'passkey-providers.json'), 'utf8'))),
      [YUBIKEY_BIO, GOOGLE].sort(),
    );
  });

  it('refuses an empty list (how the community retires it) and leaves the file as it was', () => {
    const before = readFileSync(join(dir, 'passkey-providers.json'), 'utf8');
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '{}');
    const result = run('providers', empty);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /refused, nothing changed.*empty.*retire/s);
    assert.equal(readFileSync(join(dir, 'passkey-providers.json'), 'utf8'), before);
  });

  it("takes the aaguids package's name list for security keys, and refuses unreadable JSON", () => {
    const names = join(dir, 'aaguids.json');
    writeFileSync(names, JSON.stringify({ [YUBIKEY_BIO]: 'YubiKey Bio' }));
    assert.equal(run('security-keys', names).status, 0);
    assert.deepEqual(JSON.parse(readFileSync(join(dir, 'security-keys.json'), 'utf8')), {
      [YUBIKEY_BIO]: 'YubiKey Bio',
    });
    writeFileSync(names, '{ not json');
    const broken = run('security-keys', names);
    assert.equal(broken.status, 1);
    assert.match(broken.stderr, /cannot be read as JSON/);
  });

  it('the bundled files are what the service reads (assets/aaguids)', () => {
    assert.equal(findAssetsFolder(), join(repo, 'assets', 'aaguids'));
  });
});

describe('admin API credential listing: names and icons (real socket)', () => {
  const runtime = testRuntime();
  const credentials = new MemoryCredentialStore();
  const audit = new AuditLog(new MemoryAuditStore(), runtime, captureLog());
  const tokens = new MemoryAdminTokenStore(runtime);
  const applications = new MemoryApplicationStore();
  let server: AdminServer;
  let token = '';

  before(async () => {
    await seedApplications(applications, [applicationConfig({ clientId: 'demo-client' })], runtime.now());
    await credentials.create(credential({ credentialId: 'passkey', aaguid: GOOGLE }));
    await credentials.create(
      credential({
        credentialId: 'key',
        aaguid: YUBIKEY_BIO,
        attestationTrusted: true,
        aaguidProven: true,
        attestationType: 'basic',
        attestationFormat: 'packed',
      }),
    );
    await credentials.create(
      credential({
        credentialId: 'meta',
        aaguid: YUBIKEY_BIO,
        authenticatorName: 'From metadata',
        attestationTrusted: true,
      }),
    );
    await credentials.create(credential({ credentialId: 'unknown', aaguid: ZERO }));
    token = (await tokens.create('names')).token;
    const actions = new AdminActions({
      applications,
      credentials,
      audit,
      runtime,
      postQuantumAlgorithms: POST_QUANTUM_ALGORITHMS,
    });
    server = await startAdminServer({
      host: '127.0.0.1',
      port: 0,
      actions,
      audit,
      tokens,
      readiness: new Readiness([], 500),
      registry: new MetricsRegistry(),
      runtime,
      log: captureLog(),
      openapi: () => ({}),
    });
  });
  after(async () => server.close());

  it("lists each credential with its authenticator's name, icons and whether the AAGUID was proven", async () => {
    const response = await fetch(`${server.url}/admin/applications/demo-client/credentials`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(response.status, 200);
    const byId = new Map(
      ((await response.json()) as { credentials: any[] }).credentials.map((c) => [c.credentialId, c]),
    );
    const passkey = byId.get('passkey');
    assert.equal(passkey.authenticatorName, 'Google Password Manager');
    assert.match(passkey.authenticatorIconLight, /^data:image\/svg\+xml;base64,/);
    assert.match(passkey.authenticatorIconDark, /^data:image\/svg\+xml;base64,/);
    assert.equal(passkey.authenticatorVerified, false);
    assert.deepEqual(
      [
        byId.get('key').authenticatorName,
        byId.get('key').authenticatorIconLight,
        byId.get('key').authenticatorVerified,
      ],
      ['YubiKey Bio Series - Multi-protocol Edition', null, true],
    );
    assert.equal(byId.get('meta').authenticatorName, 'From metadata');
    assert.deepEqual([byId.get('unknown').authenticatorName, byId.get('unknown').authenticatorIconDark], [null, null]);
  });
});
