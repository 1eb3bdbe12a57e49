// Runs one attestation statement builder against its verifier: a fresh credential key, real
// authenticator data and a CBOR round trip of attStmt, exactly what registration hands a format.
import { createHash, randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import { FidoError } from '../../../src/errors/catalogue.js';
import type {
  AttestationFormat,
  AttestationInput,
  AttestationOutcome,
} from '../../../src/webauthn/attestation/types.js';
import { parseAuthenticatorData } from '../../../src/webauthn/authenticator-data.js';
import { decodeCbor } from '../../../src/webauthn/cbor.js';
import { encodeCbor } from '../../../src/webauthn/cbor-encode.js';
import { coseKeyMapFromKeyObject } from '../../support/cose-keys.js';
import type { CborValue } from '../../../src/webauthn/types.js';
import { generateKeyPairFor } from '../../support/soft-authenticator.js';
import type { StatementBuilder } from '../../support/statements/types.js';

export interface RunOptions {
  readonly alg?: number;
  readonly aaguid?: Buffer;
  readonly extra?: Record<string, unknown>;
  readonly now?: Date;
  /** Change attStmt after building (e.g. drop a field). */
  readonly edit?: (attStmt: Map<CborValue, CborValue>) => void;
}

export function buildInput(builder: StatementBuilder, options: RunOptions = {}): AttestationInput {
  const alg = options.alg ?? -7;
  const credential = generateKeyPairFor(alg);
  const cose = encodeCbor(coseKeyMapFromKeyObject(alg, credential.publicKey));
  const aaguid = options.aaguid ?? randomBytes(16);
  const credentialId = randomBytes(32);
  const rpIdHash = createHash('sha256').update('example.test').digest();
  const counter = Buffer.alloc(4);
  const idLength = Buffer.alloc(2);
  idLength.writeUInt16BE(credentialId.length);
  const authDataBytes = Buffer.concat([rpIdHash, Buffer.from([0x45]), counter, aaguid, idLength, credentialId, cose]);
  const clientDataHash = createHash('sha256').update(randomBytes(32)).digest();
  const statement = builder.build({
    authData: authDataBytes,
    clientDataHash,
    rpIdHash,
    aaguid,
    credentialId,
    credential: { alg, privateKey: credential.privateKey, publicKey: credential.publicKey, cose },
    options: { extra: options.extra ?? {} },
  });
  const attStmt = decodeCbor(encodeCbor(statement)) as Map<CborValue, CborValue>;
  options.edit?.(attStmt);
  const authData = parseAuthenticatorData(authDataBytes);
  const credentialKey = authData.attestedCredentialData!.publicKey;
  return { attStmt, authData, credentialKey, clientDataHash, now: options.now ?? new Date() };
}

export function run(
  format: AttestationFormat,
  builder: StatementBuilder,
  options: RunOptions = {},
): AttestationOutcome {
  return format.verify(buildInput(builder, options));
}

export function rejects(
  code: string,
  format: AttestationFormat,
  builder: StatementBuilder,
  options: RunOptions = {},
): void {
  assert.throws(
    () => run(format, builder, options),
    (err: unknown) => {
      if (!(err instanceof FidoError)) throw err;
      assert.equal(err.code, code, err.message);
      return true;
    },
  );
}
