// A software authenticator (and the browser around it) that produces real WebAuthn responses: it keeps
// key pairs per credential, builds clientDataJSON, authenticator data and attestation statements, and signs.
// `breaks` changes exactly ONE thing before signing, so only that thing is wrong; `flipSignature` damages
// the signature after signing. Every test of the service uses it, so its defaults are a well-behaved passkey.

import { createHash, randomBytes } from 'node:crypto';
import { generateKeyPair } from './keys.js';
import type { CborEncodable } from '../../src/webauthn/cbor-encode.js';
import { encodeCbor } from '../../src/webauthn/cbor-encode.js';
import { COSE_ALGORITHMS, coseAlgorithm } from '../../src/webauthn/cose.js';
import { coseKeyMapFromKeyObject } from './cose-keys.js';
import type { AuthenticationCredentialJSON, RegistrationCredentialJSON } from '../../src/webauthn/types.js';
import { STATEMENT_BUILDERS, type StatementOptions } from './statements/index.js';
import { signWith } from './statements/sign.js';
import { generateMlDsaKeyPair, type SigningKey, type VerifyingKey } from './ml-dsa-keys.js';

// ----- Options as the service sends them (only the fields an authenticator reads) -----

export interface CreationOptionsJSON {
  readonly rp: { readonly id?: string; readonly name?: string };
  readonly user: { readonly id: string; readonly name?: string; readonly displayName?: string };
  readonly challenge: string;
  readonly pubKeyCredParams: readonly { readonly type: string; readonly alg: number }[];
  readonly excludeCredentials?: readonly { readonly id: string }[];
  readonly authenticatorSelection?: { readonly userVerification?: string };
  readonly attestation?: string;
  readonly extensions?: Readonly<Record<string, unknown>>;
}

export interface RequestOptionsJSON {
  readonly challenge: string;
  readonly rpId?: string;
  readonly allowCredentials?: readonly { readonly id: string }[];
  readonly userVerification?: string;
}

// ----- What a test can change -----

/** One thing made wrong before signing (or, for flipSignature, after). */
export type CommonBreak =
  | 'type' // clientData.type is the other ceremony's
  | 'challenge' // clientData.challenge is another random value
  | 'origin' // clientData.origin is https://evil.example
  | 'crossOrigin' // clientData.crossOrigin is true
  | 'topOrigin' // clientData.topOrigin is present
  | 'tokenBindingNotObject' // clientData.tokenBinding is a string that is no status
  | 'tokenBindingStatus' // clientData.tokenBinding is {} (no status)
  | 'rpIdHash' // rpIdHash over another RP ID
  | 'up' // UP flag clear
  | 'uv' // UV flag clear
  | 'bsWithoutBe' // BS set, BE clear
  | 'trailingBytes' // 2 bytes appended to authenticator data (signed over)
  | 'signedData' // the signature covers another clientDataHash
  | 'flipSignature'; // one signature byte flipped after signing

export type RegistrationBreak =
  | CommonBreak
  | 'atFlagCleared' // AT flag clear while the attested credential data is present
  | 'attStmtAlg' // attStmt.alg names another algorithm than the one used
  | 'unknownFmt' // fmt is a name no verifier knows
  | 'credentialIdMismatch' // id and rawId (equal) differ from the credential id in authData
  | 'rawIdMismatch'; // rawId differs from id

export type AuthenticationBreak =
  | CommonBreak
  | 'counterNotIncreased' // the counter is not advanced before signing
  | 'userHandle' // userHandle of another user
  | 'rawIdMismatch'; // rawId differs from id

export interface Flags {
  readonly up?: boolean;
  readonly uv?: boolean;
  readonly be?: boolean;
  readonly bs?: boolean;
}

export type CounterBehaviour =
  | { readonly start?: number; readonly increment?: number }
  /** Always 0, like synced passkeys. */
  | 'zero';

interface CommonOptions {
  readonly origin?: string;
  /** RP ID whose hash goes into authenticator data (default: from the options, else the origin's host). */
  readonly rpId?: string;
  readonly flags?: Flags;
  readonly crossOrigin?: boolean;
  /** Extra members of clientDataJSON (e.g. { topOrigin }); set a key to undefined to drop it. */
  readonly clientData?: Readonly<Record<string, unknown>>;
  /** Authenticator extension outputs (sets ED). */
  readonly authenticatorExtensions?: ReadonlyMap<CborEncodable, CborEncodable>;
  /** Client extension results, sent as `extensions`. */
  readonly clientExtensionResults?: Readonly<Record<string, unknown>>;
}

export interface RegisterOptions extends CommonOptions {
  readonly fmt?: string;
  /** COSE algorithm of the new key (default: the first offered that the table supports). */
  readonly alg?: number;
  readonly aaguid?: Buffer;
  readonly counter?: CounterBehaviour;
  readonly transports?: readonly string[];
  /** Credential id bytes (default 32 random bytes). */
  readonly credentialId?: Buffer;
  /** Use this key pair (of a type that fits `alg`) instead of generating one: RSA generation is slow. */
  readonly keyPair?: { readonly privateKey: SigningKey; readonly publicKey: VerifyingKey };
  /** Replaces the COSE_Key map before encoding (e.g. a key of the wrong size or a disagreeing alg). */
  readonly coseKey?: (map: Map<number, number | Buffer>) => Map<number, number | Buffer>;
  readonly statement?: StatementOptions;
  /**
   * The ceremony clock: the time the statement builder stamps into formats that carry one (a SafetyNet
   * timestampMs must not be after the verifier's `now`). Default: the real clock.
   */
  readonly now?: Date;
  readonly breaks?: RegistrationBreak;
}

export interface AuthenticateOptions extends CommonOptions {
  /** base64url id of the credential to use (default: first allowed one held, else any for the RP ID). */
  readonly credentialId?: string;
  /** base64url userHandle to send; null to omit it (default: the credential's user.id). */
  readonly userHandle?: string | null;
  /** Sign with exactly this counter value (overrides the counter behaviour once). */
  readonly signCount?: number;
  readonly breaks?: AuthenticationBreak;
}

export interface SoftCredential {
  readonly id: Buffer;
  readonly rpId: string;
  readonly userHandle: Buffer;
  readonly alg: number;
  readonly privateKey: SigningKey;
  readonly publicKey: VerifyingKey;
  readonly cose: Buffer;
  signCount: number;
  readonly counter: CounterBehaviour;
  readonly backupEligible: boolean;
}

export interface SoftAuthenticatorOptions {
  /** Default origin for every ceremony (default: https://<rpId>). */
  readonly origin?: string;
  readonly aaguid?: Buffer;
  readonly fmt?: string;
  readonly counter?: CounterBehaviour;
  readonly flags?: Flags;
  readonly transports?: readonly string[];
}

const EVIL_ORIGIN = 'https://evil.example';

export function generateKeyPairFor(alg: number): { privateKey: SigningKey; publicKey: VerifyingKey } {
  const entry = coseAlgorithm(alg);
  if (!entry) throw new Error(`soft authenticator: unsupported COSE algorithm ${alg}`);
  switch (entry.family) {
    case 'ml-dsa':
      return generateMlDsaKeyPair(entry.level);
    // Built from raw material, never generateKeyPairSync: see test/support/keys.ts for the Node 20 deadlock.
    case 'ecdsa':
      return generateKeyPair({ type: 'ec', curve: entry.crv });
    case 'eddsa':
      return generateKeyPair({ type: 'ed25519' });
    case 'rsa-pss':
    case 'rsa-pkcs1':
      return generateKeyPair({ type: 'rsa', modulusLength: 2048 });
  }
}

function sha256(data: string | Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}

function b64u(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

function flagsByte(f: Required<Flags> & { at: boolean; ed: boolean }): number {
  return (
    (f.up ? 0x01 : 0) |
    (f.uv ? 0x04 : 0) |
    (f.be ? 0x08 : 0) |
    (f.bs ? 0x10 : 0) |
    (f.at ? 0x40 : 0) |
    (f.ed ? 0x80 : 0)
  );
}

function flipByte(sig: Buffer): Buffer {
  const out = Buffer.from(sig);
  const i = Math.floor(out.length / 2);
  out[i] = out[i]! ^ 0x01;
  return out;
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];

  constructor(private readonly defaults: SoftAuthenticatorOptions = {}) {}

  /** The credential with this base64url id, if this authenticator holds it. */
  credential(id: string): SoftCredential | undefined {
    return this.credentials.find((c) => b64u(c.id) === id);
  }

  private origin(opts: CommonOptions, rpId: string): string {
    return opts.origin ?? this.defaults.origin ?? `https://${rpId}`;
  }

  private defaultRpId(fromOptions: string | undefined, opts: CommonOptions): string {
    if (opts.rpId) return opts.rpId;
    if (fromOptions) return fromOptions;
    const origin = opts.origin ?? this.defaults.origin;
    if (!origin) throw new Error('soft authenticator: no RP ID in the options and no origin to derive it from');
    return new URL(origin).hostname;
  }

  private clientDataJSON(
    type: string,
    challenge: string,
    origin: string,
    opts: CommonOptions,
    brk: CommonBreak | undefined,
    otherType: string,
  ): Buffer {
    const data: Record<string, unknown> = {
      type: brk === 'type' ? otherType : type,
      challenge: brk === 'challenge' ? b64u(randomBytes(32)) : challenge,
      origin: brk === 'origin' ? EVIL_ORIGIN : origin,
      crossOrigin: brk === 'crossOrigin' ? true : (opts.crossOrigin ?? false),
      ...opts.clientData,
    };
    if (brk === 'topOrigin') data.topOrigin = 'https://top.example';
    if (brk === 'tokenBindingNotObject') data.tokenBinding = 'bogus';
    if (brk === 'tokenBindingStatus') data.tokenBinding = {};
    return Buffer.from(JSON.stringify(data), 'utf8');
  }

  private flags(opts: CommonOptions, brk: CommonBreak | undefined, at: boolean, ed: boolean): number {
    const f = { up: true, uv: true, be: false, bs: false, ...this.defaults.flags, ...opts.flags };
    if (brk === 'up') f.up = false;
    if (brk === 'uv') f.uv = false;
    if (brk === 'bsWithoutBe') {
      f.bs = true;
      f.be = false;
    }
    return flagsByte({ ...f, at, ed });
  }

  private rpIdHash(rpId: string, brk: CommonBreak | undefined): Buffer {
    return sha256(brk === 'rpIdHash' ? 'evil.example' : rpId);
  }

  private extensionsBytes(opts: CommonOptions): Buffer {
    return opts.authenticatorExtensions ? encodeCbor(opts.authenticatorExtensions) : Buffer.alloc(0);
  }

  register(options: CreationOptionsJSON, opts: RegisterOptions = {}): RegistrationCredentialJSON {
    const brk = opts.breaks;
    const commonBrk = brk as CommonBreak | undefined;
    const rpId = this.defaultRpId(options.rp.id, opts);
    const fmt = opts.fmt ?? this.defaults.fmt ?? 'none';
    const builder = STATEMENT_BUILDERS.get(fmt);
    if (!builder) throw new Error(`soft authenticator: no statement builder for fmt "${fmt}"`);
    const offered = options.pubKeyCredParams.map((p) => p.alg);
    const usable = (alg: number) =>
      COSE_ALGORITHMS.some((a) => a.alg === alg) &&
      (!builder.credentialAlgorithms || builder.credentialAlgorithms.includes(alg));
    const alg = opts.alg ?? offered.find(usable);
    if (alg === undefined) throw new Error('soft authenticator: no offered algorithm is supported');
    const { privateKey, publicKey } = opts.keyPair ?? generateKeyPairFor(alg);
    const coseMap = coseKeyMapFromKeyObject(alg, publicKey);
    const cose = encodeCbor(opts.coseKey ? opts.coseKey(coseMap) : coseMap);
    const credentialId = opts.credentialId ?? randomBytes(32);
    const aaguid = opts.aaguid ?? this.defaults.aaguid ?? builder.defaultAaguid ?? randomBytes(16);
    const counter = opts.counter ?? this.defaults.counter ?? {};
    const signCount = counter === 'zero' ? 0 : (counter.start ?? 0);

    const clientDataJSON = this.clientDataJSON(
      'webauthn.create',
      options.challenge,
      this.origin(opts, rpId),
      opts,
      commonBrk,
      'webauthn.get',
    );
    const extensions = this.extensionsBytes(opts);
    let flags = this.flags(opts, commonBrk, true, extensions.length > 0);
    if (brk === 'atFlagCleared') flags &= ~0x40;
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credentialId.length);
    const counterBytes = Buffer.alloc(4);
    counterBytes.writeUInt32BE(signCount);
    const authData = Buffer.concat([
      this.rpIdHash(rpId, commonBrk),
      Buffer.from([flags]),
      counterBytes,
      aaguid,
      idLength,
      credentialId,
      cose,
      extensions,
      brk === 'trailingBytes' ? randomBytes(2) : Buffer.alloc(0),
    ]);

    const clientDataHash = brk === 'signedData' ? sha256('other client data') : sha256(clientDataJSON);
    const attStmt = builder.build({
      authData,
      clientDataHash,
      rpIdHash: authData.subarray(0, 32),
      aaguid,
      credentialId,
      credential: { alg, privateKey, publicKey, cose },
      options: opts.statement ?? {},
      now: opts.now,
    });
    if (brk === 'attStmtAlg') attStmt.set('alg', attStmt.get('alg') === -7 ? -257 : -7);
    if (brk === 'flipSignature') {
      const sig = attStmt.get('sig');
      if (!Buffer.isBuffer(sig)) throw new Error(`soft authenticator: fmt "${fmt}" has no sig to flip`);
      attStmt.set('sig', flipByte(sig));
    }
    const attestationObject = encodeCbor(
      new Map<string, CborEncodable>([
        ['fmt', brk === 'unknownFmt' ? 'unknown-format' : fmt],
        ['attStmt', attStmt],
        ['authData', authData],
      ]),
    );

    const flagsNow = { up: true, uv: true, be: false, bs: false, ...this.defaults.flags, ...opts.flags };
    this.credentials.push({
      id: credentialId,
      rpId,
      userHandle: Buffer.from(options.user.id, 'base64url'),
      alg,
      privateKey,
      publicKey,
      cose,
      signCount,
      counter,
      backupEligible: flagsNow.be,
    });

    const sentId = brk === 'credentialIdMismatch' ? b64u(randomBytes(32)) : b64u(credentialId);
    return {
      id: sentId,
      rawId: brk === 'rawIdMismatch' ? b64u(randomBytes(32)) : sentId,
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        attestationObject: b64u(attestationObject),
        transports: [...(opts.transports ?? this.defaults.transports ?? ['internal', 'hybrid'])],
      },
      extensions: opts.clientExtensionResults ?? { credProps: { rk: true } },
    };
  }

  authenticate(options: RequestOptionsJSON, opts: AuthenticateOptions = {}): AuthenticationCredentialJSON {
    const brk = opts.breaks;
    const commonBrk = brk as CommonBreak | undefined;
    const cred = this.pick(options, opts);
    const rpId = opts.rpId ?? options.rpId ?? cred.rpId;

    // The counter advances before signing (unless the test says it must not).
    if (opts.signCount !== undefined) cred.signCount = opts.signCount;
    else if (cred.counter !== 'zero' && brk !== 'counterNotIncreased') cred.signCount += cred.counter.increment ?? 1;
    const counterBytes = Buffer.alloc(4);
    counterBytes.writeUInt32BE(cred.signCount >>> 0);

    const clientDataJSON = this.clientDataJSON(
      'webauthn.get',
      options.challenge,
      this.origin(opts, rpId),
      opts,
      commonBrk,
      'webauthn.create',
    );
    const extensions = this.extensionsBytes(opts);
    const authData = Buffer.concat([
      this.rpIdHash(rpId, commonBrk),
      Buffer.from([this.flags(opts, commonBrk, false, extensions.length > 0)]),
      counterBytes,
      extensions,
      brk === 'trailingBytes' ? randomBytes(2) : Buffer.alloc(0),
    ]);
    const clientDataHash = brk === 'signedData' ? sha256('other client data') : sha256(clientDataJSON);
    let signature = signWith(cred.alg, cred.privateKey, Buffer.concat([authData, clientDataHash]));
    if (brk === 'flipSignature') signature = flipByte(signature);

    const userHandle =
      brk === 'userHandle'
        ? b64u(randomBytes(32))
        : opts.userHandle === undefined
          ? b64u(cred.userHandle)
          : opts.userHandle;
    const id = b64u(cred.id);
    return {
      id,
      rawId: brk === 'rawIdMismatch' ? b64u(randomBytes(32)) : id,
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        ...(userHandle === null ? {} : { userHandle }),
      },
      extensions: opts.clientExtensionResults ?? {},
    };
  }

  private pick(options: RequestOptionsJSON, opts: AuthenticateOptions): SoftCredential {
    if (opts.credentialId) {
      const cred = this.credential(opts.credentialId);
      if (!cred) throw new Error('soft authenticator: no such credential');
      return cred;
    }
    const allowed = options.allowCredentials ?? [];
    const held =
      allowed.length > 0
        ? allowed.map((c) => this.credential(c.id)).find((c): c is SoftCredential => c !== undefined)
        : this.credentials.find((c) => c.rpId === (opts.rpId ?? options.rpId ?? c.rpId));
    if (!held) throw new Error('soft authenticator: holds no credential for these options');
    return held;
  }
}
