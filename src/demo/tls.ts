// The demo's development HTTPS certificate: a small local CA (trusted once by the developer) and a server
// certificate it signs for the demo's hostnames. Generated on first start into `<dataDir>/demo-tls/`;
// the server certificate is re-issued when the hostnames change or it nears expiry, the CA is kept.
// The CA carries name constraints (localhost names and loopback addresses, plus any configured development
// hostname), so even a leaked CA key cannot vouch for a real site.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { generateKeyPair } from '../util/keys.js';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as der from '../util/der.js';
import { buildCertificate, keyIdentifier } from '../util/x509-builder.js';

export interface DevCertificate {
  /** PEM: the server certificate followed by the CA certificate. */
  readonly certChain: string;
  readonly key: string;
  /** The file to trust (import as an authority) in the browser or the operating system. */
  readonly caPath: string;
  readonly created: boolean;
}

const DAY = 86_400_000;
const SERVER_LIFETIME_DAYS = 365;
const RENEW_BEFORE_DAYS = 30;
const TLS_SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CA_NAME = { O: 'passkey-server development', CN: 'passkey-server demo development CA' } as const;

interface Meta {
  readonly hostnames: readonly string[];
  readonly caPermitted: readonly string[];
}

/** Loads the certificate from `dir`, creating or renewing what is missing, stale or does not cover `hostnames`. */
export async function ensureDevCertificate(dir: string, hostnames: readonly string[], now = new Date()): Promise<DevCertificate> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const paths = {
    caCert: join(dir, 'ca.pem'),
    caKey: join(dir, 'ca-key.pem'),
    cert: join(dir, 'server.pem'),
    key: join(dir, 'server-key.pem'),
    meta: join(dir, 'meta.json'),
  };
  const names = [...new Set(hostnames.map((name) => name.toLowerCase()))].sort();
  const meta = await readJson<Meta>(paths.meta);
  const permitted = permittedNames(names);

  let created = false;
  let ca = await readPair(paths.caCert, paths.caKey);
  if (!ca || !meta || !covers(meta.caPermitted, permitted) || Date.parse(new X509Certificate(ca.cert).validTo) < now.getTime() + SERVER_LIFETIME_DAYS * DAY) {
    ca = createCa(permitted, now);
    await writePrivate(paths.caKey, ca.key);
    await writeFile(paths.caCert, ca.cert);
    created = true;
  }
  let server = await readPair(paths.cert, paths.key);
  const serverStale = !server || created || !meta || meta.hostnames.join(',') !== names.join(',') ||
    Date.parse(new X509Certificate(server.cert).validTo) < now.getTime() + RENEW_BEFORE_DAYS * DAY;
  if (serverStale) {
    server = createServerCertificate(names, ca, now);
    await writePrivate(paths.key, server.key);
    await writeFile(paths.cert, server.cert);
    await writeFile(paths.meta, `${JSON.stringify({ hostnames: names, caPermitted: created ? permitted : meta!.caPermitted }, null, 2)}\n`);
  }
  return { certChain: `${server!.cert}${ca.cert}`, key: server!.key, caPath: paths.caCert, created };
}

interface Pair {
  readonly cert: string;
  readonly key: string;
}

function createCa(permitted: readonly string[], now: Date): Pair {
  const { publicKey, privateKey } = generateKeyPair({ type: 'ec', curve: 'P-256' });
  const built = buildCertificate({
    publicKey,
    signingKey: privateKey,
    subject: CA_NAME,
    notBefore: new Date(now.getTime() - DAY),
    notAfter: new Date(now.getTime() + 10 * 365 * DAY),
    basicConstraints: { ca: true, pathLength: 0 },
    keyUsage: ['keyCertSign', 'cRLSign'],
    extensions: [{ oid: '2.5.29.30', critical: true, valueDer: nameConstraints(permitted) }],
  });
  return { cert: built.pem, key: pemOf(privateKey) };
}

function createServerCertificate(names: readonly string[], ca: Pair, now: Date): Pair {
  const { publicKey, privateKey } = generateKeyPair({ type: 'ec', curve: 'P-256' });
  const caCert = new X509Certificate(ca.cert);
  const caKey = createPrivateKey(ca.key);
  const built = buildCertificate({
    publicKey,
    signingKey: caKey,
    subject: { O: 'passkey-server development', CN: names[0] ?? 'localhost' },
    issuer: CA_NAME,
    notBefore: new Date(now.getTime() - DAY),
    notAfter: new Date(now.getTime() + SERVER_LIFETIME_DAYS * DAY),
    basicConstraints: { ca: false },
    keyUsage: ['digitalSignature'],
    extendedKeyUsage: [TLS_SERVER_AUTH],
    subjectAltName: { dns: names.filter((name) => !isIp(name)), ip: ['127.0.0.1', '::1', ...names.filter(isIp)] },
    authorityKeyIdentifier: keyIdentifier(caCert.publicKey),
  });
  return { cert: built.pem, key: pemOf(privateKey) };
}

/** `localhost` (which covers *.localhost) plus every configured hostname that is not under it. */
function permittedNames(names: readonly string[]): string[] {
  const outside = names.filter((name) => !isIp(name) && name !== 'localhost' && !name.endsWith('.localhost'));
  return ['localhost', ...outside].sort();
}

function covers(existing: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((name) => existing.includes(name));
}

/** NameConstraints (RFC 5280 §4.2.1.10) with permitted DNS subtrees and the loopback address ranges. */
function nameConstraints(dnsNames: readonly string[]): Buffer {
  const subtree = (generalName: Buffer) => der.sequence([generalName]);
  const ipv4 = Buffer.from([127, 0, 0, 0, 255, 0, 0, 0]);
  const ipv6 = Buffer.concat([Buffer.alloc(15), Buffer.from([1]), Buffer.alloc(16, 0xff)]);
  const subtrees = [
    ...dnsNames.map((name) => subtree(der.implicit(2, Buffer.from(name, 'latin1')))),
    subtree(der.implicit(7, ipv4)),
    subtree(der.implicit(7, ipv6)),
  ];
  return der.sequence([der.implicit(0, Buffer.concat(subtrees), true)]);
}

function isIp(name: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(name) || name.includes(':');
}

function pemOf(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

async function readPair(certPath: string, keyPath: string): Promise<Pair | undefined> {
  try {
    return { cert: await readFile(certPath, 'utf8'), key: await readFile(keyPath, 'utf8') };
  } catch {
    return undefined;
  }
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

async function writePrivate(path: string, pem: string): Promise<void> {
  await writeFile(path, pem, { mode: 0o600 });
  await chmod(path, 0o600);
}
