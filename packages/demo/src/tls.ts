// The demo's development HTTPS certificate: a small local CA (trusted once by the developer) and a server
// certificate it signs for the demo's hostnames. Generated on first start into `<dataDir>/demo-tls/`;
// the server certificate is re-issued when the hostnames change or it nears expiry, the CA is kept.
// The CA carries name constraints (localhost names and loopback addresses, plus any configured development
// hostname), so even a leaked CA key cannot vouch for a real site.
//
// The certificates are built with @peculiar/x509 on node's WebCrypto (passed in each call: the library's
// global crypto provider is never set), the NameConstraints value with its ASN.1 schemas.
import { randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
// @peculiar/x509 resolves its algorithms through tsyringe, which needs the Reflect metadata polyfill loaded
// before it (a global, and the only one: loaded with the demo, never by the service).
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { AsnConvert } from '@peculiar/asn1-schema';
import { GeneralName, GeneralSubtree, GeneralSubtrees, NameConstraints } from '@peculiar/asn1-x509';

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
const CA_NAME: x509.JsonName = [{ O: ['passkey-server development'] }, { CN: ['passkey-server demo development CA'] }];

interface Meta {
  readonly hostnames: readonly string[];
  readonly caPermitted: readonly string[];
}

/** Loads the certificate from `dir`, creating or renewing what is missing, stale or does not cover `hostnames`. */
export async function ensureDevCertificate(
  dir: string,
  hostnames: readonly string[],
  now = new Date(),
): Promise<DevCertificate> {
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
  if (
    !ca ||
    !meta ||
    !covers(meta.caPermitted, permitted) ||
    Date.parse(new X509Certificate(ca.cert).validTo) < now.getTime() + SERVER_LIFETIME_DAYS * DAY
  ) {
    ca = await createCa(permitted, now);
    await writePrivate(paths.caKey, ca.key);
    await writeFile(paths.caCert, ca.cert);
    created = true;
  }
  let server = await readPair(paths.cert, paths.key);
  const serverStale =
    !server ||
    created ||
    !meta ||
    meta.hostnames.join(',') !== names.join(',') ||
    Date.parse(new X509Certificate(server.cert).validTo) < now.getTime() + RENEW_BEFORE_DAYS * DAY;
  if (serverStale) {
    server = await createServerCertificate(names, ca, now);
    await writePrivate(paths.key, server.key);
    await writeFile(paths.cert, server.cert);
    await writeFile(
      paths.meta,
      `${JSON.stringify({ hostnames: names, caPermitted: created ? permitted : meta!.caPermitted }, null, 2)}\n`,
    );
  }
  return { certChain: `${server!.cert}${ca.cert}`, key: server!.key, caPath: paths.caCert, created };
}

interface Pair {
  readonly cert: string;
  readonly key: string;
}

const crypto = webcrypto as unknown as Crypto;
const EC_KEY = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;

async function newKeyPair(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey(EC_KEY, true, ['sign', 'verify']);
}

/** A positive serial of 16 random octets (RFC 5280 §4.1.2.2), as the hex the builder takes. */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return bytes.toString('hex');
}

async function createCa(permitted: readonly string[], now: Date): Promise<Pair> {
  const keys = await newKeyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serialNumber(),
      name: CA_NAME,
      notBefore: new Date(now.getTime() - DAY),
      notAfter: new Date(now.getTime() + 10 * 365 * DAY),
      keys,
      signingAlgorithm: SIGNING,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        new x509.Extension('2.5.29.30', true, nameConstraints(permitted)),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  return { cert: `${cert.toString('pem')}\n`, key: await pemOf(keys.privateKey) };
}

async function createServerCertificate(names: readonly string[], ca: Pair, now: Date): Promise<Pair> {
  const keys = await newKeyPair();
  const caCert = new x509.X509Certificate(ca.cert);
  const caKey = await crypto.subtle.importKey('pkcs8', Uint8Array.from(pemBody(ca.key, 'PRIVATE KEY')), EC_KEY, false, [
    'sign',
  ]);
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serialNumber(),
      subject: [{ O: ['passkey-server development'] }, { CN: [names[0] ?? 'localhost'] }],
      issuer: caCert.subjectName,
      notBefore: new Date(now.getTime() - DAY),
      notAfter: new Date(now.getTime() + SERVER_LIFETIME_DAYS * DAY),
      publicKey: keys.publicKey,
      signingKey: caKey,
      signingAlgorithm: SIGNING,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([TLS_SERVER_AUTH]),
        new x509.SubjectAlternativeNameExtension([
          ...names.filter((name) => !isIp(name)).map((value) => ({ type: 'dns' as const, value })),
          ...['127.0.0.1', '::1', ...names.filter(isIp)].map((value) => ({ type: 'ip' as const, value })),
        ]),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
        await x509.AuthorityKeyIdentifierExtension.create(caCert, false, crypto),
      ],
    },
    crypto,
  );
  return { cert: `${cert.toString('pem')}\n`, key: await pemOf(keys.privateKey) };
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
function nameConstraints(dnsNames: readonly string[]): ArrayBuffer {
  const subtree = (base: GeneralName) => new GeneralSubtree({ base });
  const permitted = new GeneralSubtrees([
    ...dnsNames.map((dNSName) => subtree(new GeneralName({ dNSName }))),
    subtree(new GeneralName({ iPAddress: '127.0.0.0/8' })),
    subtree(new GeneralName({ iPAddress: '::1/128' })),
  ]);
  return AsnConvert.serialize(new NameConstraints({ permittedSubtrees: permitted }));
}

function isIp(name: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(name) || name.includes(':');
}

async function pemOf(key: CryptoKey): Promise<string> {
  const body = Buffer.from(await crypto.subtle.exportKey('pkcs8', key))
    .toString('base64')
    .replace(/.{1,64}/g, '$&\n');
  return `-----BEGIN PRIVATE KEY-----\n${body}-----END PRIVATE KEY-----\n`;
}

function pemBody(pem: string, label: string): Buffer {
  return Buffer.from(
    pem.replace(`-----BEGIN ${label}-----`, '').replace(`-----END ${label}-----`, '').replace(/\s+/g, ''),
    'base64',
  );
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
