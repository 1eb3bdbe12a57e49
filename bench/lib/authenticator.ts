// The load generator's own software authenticator: ES256 only, `none` or `packed` self attestation,
// built with node:crypto and a few lines of CBOR. It is deliberately independent of the code under test
// (src/webauthn) so that a bug there cannot make both sides agree. Key pairs come from a small pool made
// once: generating a P-256 key per registration would spend the generator's core on keygen, and servers
// do not (and cannot) notice two credentials sharing a public key.

import { createHash, randomBytes, sign, type KeyObject } from 'node:crypto';
import { generateKeyPair } from '../../test/support/keys.js';

// ----- Minimal CBOR (RFC 8949) for the shapes an authenticator emits -----

type Cbor = number | string | Buffer | Map<number | string, Cbor>;

function head(major: number, value: number): Buffer {
  if (value < 24) return Buffer.from([(major << 5) | value]);
  if (value < 0x100) return Buffer.from([(major << 5) | 24, value]);
  if (value < 0x10000) return Buffer.from([(major << 5) | 25, value >> 8, value & 0xff]);
  const out = Buffer.alloc(5);
  out[0] = (major << 5) | 26;
  out.writeUInt32BE(value, 1);
  return out;
}

export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  const parts: Buffer[] = [head(5, value.size)];
  for (const [k, v] of value) parts.push(cbor(k), cbor(v));
  return Buffer.concat(parts);
}

// ----- Keys -----

export interface KeyPair {
  readonly privateKey: KeyObject;
  /** COSE_Key (EC2, P-256, ES256). */
  readonly cose: Buffer;
}

export function makeKeyPair(): KeyPair {
  // The tests' key maker: generateKeyPairSync can hang Node 20 here (test/support/keys.ts).
  const { privateKey, publicKey } = generateKeyPair({ type: 'ec', curve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const cose = cbor(
    new Map<number, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]),
  );
  return { privateKey, cose };
}

export function keyPool(size: number): KeyPair[] {
  return Array.from({ length: size }, makeKeyPair);
}

// ----- Ceremonies -----

export interface Credential {
  readonly id: Buffer;
  readonly idText: string;
  readonly key: KeyPair;
  readonly userHandle: string;
  readonly rpIdHash: Buffer;
  signCount: number;
}

export interface RegistrationJSON {
  readonly id: string;
  readonly rawId: string;
  readonly type: 'public-key';
  readonly response: { clientDataJSON: string; attestationObject: string; transports: string[] };
  readonly clientExtensionResults: Record<string, never>;
}

export interface AssertionJSON {
  readonly id: string;
  readonly rawId: string;
  readonly type: 'public-key';
  readonly response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle: string };
  readonly clientExtensionResults: Record<string, never>;
}

export type Fmt = 'none' | 'packed';

const sha256 = (data: Buffer | string): Buffer => createHash('sha256').update(data).digest();
const UP_UV = 0x05;
const AT = 0x40;

function clientData(type: string, challenge: string, origin: string): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
}

export class Authenticator {
  readonly #rpIdHash: Buffer;

  constructor(
    readonly rpId: string,
    readonly origin: string,
  ) {
    this.#rpIdHash = sha256(rpId);
  }

  /** A registration response for `challenge` (base64url) and user id (base64url) with the given key. */
  register(
    challenge: string,
    userHandle: string,
    key: KeyPair,
    fmt: Fmt,
  ): { json: RegistrationJSON; credential: Credential } {
    const id = randomBytes(32);
    const cdj = clientData('webauthn.create', challenge, this.origin);
    const counter = Buffer.alloc(4);
    const idLength = Buffer.from([0, id.length]);
    const aaguid = Buffer.alloc(16);
    const authData = Buffer.concat([
      this.#rpIdHash,
      Buffer.from([UP_UV | AT]),
      counter,
      aaguid,
      idLength,
      id,
      key.cose,
    ]);
    const attStmt =
      fmt === 'none'
        ? new Map<string, Cbor>()
        : new Map<string, Cbor>([
            ['alg', -7],
            ['sig', sign('sha256', Buffer.concat([authData, sha256(cdj)]), key.privateKey)],
          ]);
    const attestationObject = cbor(
      new Map<string, Cbor>([
        ['fmt', fmt],
        ['attStmt', attStmt],
        ['authData', authData],
      ]),
    );
    const idText = id.toString('base64url');
    return {
      json: {
        id: idText,
        rawId: idText,
        type: 'public-key',
        response: {
          clientDataJSON: cdj.toString('base64url'),
          attestationObject: attestationObject.toString('base64url'),
          transports: ['internal'],
        },
        clientExtensionResults: {},
      },
      credential: { id, idText, key, userHandle, rpIdHash: this.#rpIdHash, signCount: 0 },
    };
  }

  /** An assertion over `challenge` with this credential; the counter goes up by one each time. */
  assert(challenge: string, credential: Credential): AssertionJSON {
    credential.signCount += 1;
    const cdj = clientData('webauthn.get', challenge, this.origin);
    const authData = Buffer.alloc(37);
    credential.rpIdHash.copy(authData, 0);
    authData[32] = UP_UV;
    authData.writeUInt32BE(credential.signCount, 33);
    const signature = sign('sha256', Buffer.concat([authData, sha256(cdj)]), credential.key.privateKey);
    return {
      id: credential.idText,
      rawId: credential.idText,
      type: 'public-key',
      response: {
        clientDataJSON: cdj.toString('base64url'),
        authenticatorData: authData.toString('base64url'),
        signature: signature.toString('base64url'),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
    };
  }
}
