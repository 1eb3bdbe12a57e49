// The demo's development certificate: created once, reused, re-issued when the hostnames change; the CA
// is name-constrained to local names and keeps its key private.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:tls';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDevCertificate } from '../src/tls.js';
import { findPublicFolder, pageFiles } from '../src/static-files.js';

const leafOf = (chain: string) => new X509Certificate(chain.slice(0, chain.indexOf('-----END CERTIFICATE-----') + 26));

describe('demo: development certificate', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'demo-tls-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('creates a CA and a server certificate for the hostnames and loopback addresses, signed by that CA', async () => {
    const tls = await ensureDevCertificate(dir, ['localhost', 'demo.localhost']);
    assert.equal(tls.created, true);
    const ca = new X509Certificate(await readFile(tls.caPath));
    const leaf = leafOf(tls.certChain);
    assert.equal(ca.ca, true);
    assert.equal(leaf.ca, false);
    assert.ok(leaf.checkIssued(ca) && leaf.verify(ca.publicKey));
    assert.equal(
      leaf.subjectAltName,
      'DNS:demo.localhost, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1',
    );
    assert.ok(leaf.checkHost('demo.localhost'));
    assert.ok(leaf.checkIP('127.0.0.1'));
    assert.deepEqual(leaf.keyUsage, ['1.3.6.1.5.5.7.3.1']);
    assert.equal((await stat(join(dir, 'ca-key.pem'))).mode & 0o077, 0, 'the CA key is readable by its owner only');
    assert.equal((await stat(join(dir, 'server-key.pem'))).mode & 0o077, 0);
  });

  it('is accepted by a TLS client that trusts only the CA, for each hostname (name constraints included)', async () => {
    const tls = await ensureDevCertificate(dir, ['localhost', 'demo.localhost']);
    const ca = await readFile(tls.caPath, 'utf8');
    const server = createServer({ cert: tls.certChain, key: tls.key }, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const handshake = (servername: string) =>
      new Promise<{ authorized: boolean; error: string | undefined }>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port, servername, ca, rejectUnauthorized: false }, () => {
          resolve({ authorized: socket.authorized, error: socket.authorizationError?.toString() });
          socket.end();
        });
        socket.setTimeout(5_000, () => reject(new Error('TLS handshake timed out')));
        socket.on('error', reject);
      });
    try {
      assert.deepEqual(await handshake('demo.localhost'), { authorized: true, error: undefined });
      assert.deepEqual(await handshake('localhost'), { authorized: true, error: undefined });
      assert.equal((await handshake('example.com')).authorized, false, 'a name the certificate does not carry');
    } finally {
      server.close();
    }
  });

  it('reuses what it created while the hostnames stay the same', async () => {
    const first = await ensureDevCertificate(dir, ['localhost', 'demo.localhost']);
    const second = await ensureDevCertificate(dir, ['demo.localhost', 'localhost']);
    assert.equal(first.created, false);
    assert.equal(second.certChain, first.certChain);
    assert.equal(second.key, first.key);
  });

  it('re-issues the server certificate for new hostnames under *.localhost, keeping the CA the developer trusts', async () => {
    const before = await readFile(join(dir, 'ca.pem'), 'utf8');
    const tls = await ensureDevCertificate(dir, ['localhost', 'demo.localhost', 'other.localhost']);
    assert.equal(tls.created, false);
    assert.equal(await readFile(join(dir, 'ca.pem'), 'utf8'), before);
    assert.ok(leafOf(tls.certChain).checkHost('other.localhost'));
  });

  it("creates a new CA when a hostname falls outside the old one's name constraints", async () => {
    const before = await readFile(join(dir, 'ca.pem'), 'utf8');
    const tls = await ensureDevCertificate(dir, ['localhost', 'dev.example.test']);
    assert.equal(tls.created, true);
    assert.notEqual(await readFile(join(dir, 'ca.pem'), 'utf8'), before);
    const ca = new X509Certificate(await readFile(tls.caPath));
    assert.ok(leafOf(tls.certChain).verify(ca.publicKey));
  });

  it('re-issues a server certificate that is about to expire', async () => {
    const now = new Date();
    const current = await ensureDevCertificate(dir, ['localhost', 'dev.example.test'], now);
    const later = await ensureDevCertificate(
      dir,
      ['localhost', 'dev.example.test'],
      new Date(now.getTime() + 340 * 86_400_000),
    );
    assert.notEqual(later.certChain, current.certChain);
  });
});

describe('demo: page files', () => {
  it('finds public/ by climbing from the compiled module', async () => {
    const folder = findPublicFolder();
    assert.match(await readFile(join(folder, 'index.html'), 'utf8'), /<title>Sign in · Demo IdP<\/title>/);
    assert.match(await readFile(join(folder, 'bench.html'), 'utf8'), /<title>Passkey demo: developer bench<\/title>/);
  });

  it('serves the browser helper from its installed package, and allows the import map by its hash', async () => {
    const page = pageFiles();
    const helper = page.files.get('/vendor/passkey-browser/index.js');
    assert.ok(helper, 'the browser helper is served');
    assert.match(await readFile(helper, 'utf8'), /creationOptionsFromJSON/);
    assert.equal(page.inlineScriptHashes.length, 1);
    assert.match(page.inlineScriptHashes[0]!, /^'sha256-[A-Za-z0-9+/]{43}='$/);
  });
});
