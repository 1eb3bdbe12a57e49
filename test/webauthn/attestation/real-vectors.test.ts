// Real captured registrations (npm fido2-helpers, see test/vectors/SOURCES.md), verified with the
// ceremony clock set to when their certificates were valid: Windows Hello TPM, Android SafetyNet, a YubiKey
// (packed and fido-u2f) chained to the Yubico root, and the FIDO MDS2 TOC JWS chained to its test root.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { createRequire } from 'node:module';
import { verifyAttestationStatement } from '../../../src/webauthn/attestation/index.js';
import { parseAuthenticatorData, formatAaguid } from '../../../src/webauthn/authenticator-data.js';
import { decodeCbor } from '../../../src/webauthn/cbor.js';
import { buildPath } from '../../../src/webauthn/certificates.js';
import { verifyMetadataBlob } from '../../../src/webauthn/metadata/index.js';
import { createTrustEvaluator } from '../../../src/webauthn/trust.js';
import type { CborValue } from '../../../src/webauthn/types.js';
import type { AttestationInput } from '../../../src/webauthn/attestation/types.js';

interface CapturedResponse {
  response: { clientDataJSON: string; attestationObject: string };
}
const helpers = createRequire(import.meta.url)('fido2-helpers') as {
  server: Record<string, CapturedResponse>;
  certs: Record<string, ArrayBuffer>;
  mds: Record<string, string>;
};

function decode(
  msg: CapturedResponse,
  now: (attStmt: Map<CborValue, CborValue>) => Date,
): { fmt: string; input: AttestationInput } {
  const object = decodeCbor(Buffer.from(msg.response.attestationObject, 'base64')) as Map<CborValue, CborValue>;
  const attStmt = object.get('attStmt') as Map<CborValue, CborValue>;
  const authData = parseAuthenticatorData(object.get('authData') as Buffer);
  const clientDataHash = createHash('sha256').update(Buffer.from(msg.response.clientDataJSON, 'base64')).digest();
  return {
    fmt: object.get('fmt') as string,
    input: {
      attStmt,
      authData,
      credentialKey: authData.attestedCredentialData!.publicKey,
      clientDataHash,
      now: now(attStmt),
    },
  };
}

const leafTime = (attStmt: Map<CborValue, CborValue>) => {
  const [leaf] = attStmt.get('x5c') as Buffer[];
  return new Date(Date.parse(new X509Certificate(leaf!).validFrom) + 86_400_000);
};

describe('real captured vectors', () => {
  it('Windows Hello tpm: every §8.3 check passes and the AIK chain is internally valid', () => {
    const { fmt, input } = decode(helpers.server.challengeResponseAttestationTpmB64UrlMsg!, leafTime);
    assert.equal(fmt, 'tpm');
    const outcome = verifyAttestationStatement(fmt, input);
    assert.equal(outcome.type, 'attca');
    // Microsoft's TPM root is not bundled: the path is valid and ends untrusted.
    assert.equal(buildPath(outcome.trustPath, [], input.now).anchor, undefined);
    // The same statement fails when the ceremony clock says its AIK certificate has expired.
    const late = { ...input, now: new Date('2040-01-01T00:00:00Z') };
    assert.throws(
      () =>
        createTrustEvaluator({ anchors: [], requireTrusted: false }).evaluate({
          fmt,
          aaguid: formatAaguid(input.authData.attestedCredentialData!.aaguid),
          outcome,
          now: late.now,
        }),
      (e: unknown) => (e as { code?: string }).code === 'CERTIFICATE_EXPIRED',
    );
  });

  it('android-safetynet (a 2018 pre-standard capture): hostname and JWS signature verify, its unhashed nonce is refused', () => {
    const msg = helpers.server.challengeResponseAttestationSafetyNetMsgB64Url!;
    const { fmt, input } = decode(msg, (attStmt) => {
      const payload = JSON.parse(
        Buffer.from((attStmt.get('response') as Buffer).toString().split('.')[1]!, 'base64url').toString(),
      ) as { timestampMs: number };
      return new Date(payload.timestampMs + 1_000);
    });
    assert.equal(fmt, 'android-safetynet');
    // Chrome of 2018 put base64(authenticatorData ‖ clientDataHash) in the nonce, without the SHA-256 that
    // §8.5 requires. The hostname and signature checks come first, so reaching the nonce check proves them.
    const response = (input.attStmt.get('response') as Buffer).toString();
    const nonce = (JSON.parse(Buffer.from(response.split('.')[1]!, 'base64url').toString()) as { nonce: string }).nonce;
    assert.ok(Buffer.from(nonce, 'base64').equals(Buffer.concat([input.authData.raw, input.clientDataHash])));
    assert.throws(
      () => verifyAttestationStatement(fmt, input),
      (e: unknown) => (e as { code?: string }).code === 'ANDROID_SAFETYNET_ATTESTATION_NONCE_NOT_MATCHED',
    );
    const header = JSON.parse(Buffer.from(response.split('.')[0]!, 'base64url').toString()) as { x5c: string[] };
    const chain = header.x5c.map((b64) => new X509Certificate(Buffer.from(b64, 'base64')));
    assert.equal(chain[0]!.checkHost('attest.android.com', { wildcards: false }), 'attest.android.com');
    buildPath(chain, [], input.now);
  });

  it('YubiKey fido-u2f attestation chains to the Yubico U2F root (a real vendor certificate parses and verifies)', () => {
    const { fmt, input } = decode(helpers.server.challengeResponseAttestationU2fMsgB64Url!, leafTime);
    assert.equal(fmt, 'fido-u2f');
    const outcome = verifyAttestationStatement(fmt, input);
    const yubicoRoot = new X509Certificate(Buffer.from(helpers.certs.yubicoRoot as ArrayBuffer));
    const decision = createTrustEvaluator({ anchors: [yubicoRoot], requireTrusted: true }).evaluate({
      fmt,
      aaguid: formatAaguid(input.authData.attestedCredentialData!.aaguid),
      outcome,
      now: input.now,
    });
    assert.equal(decision.trusted, true);
  });

  it('Feitian packed attestation that sends its whole chain, root included', () => {
    const { fmt, input } = decode(helpers.server.challengeResponseAttestationPackedB64UrlMsg!, leafTime);
    assert.equal(fmt, 'packed');
    const outcome = verifyAttestationStatement(fmt, input);
    assert.equal(outcome.trustPath.length, 3);
    const aaguid = formatAaguid(input.authData.attestedCredentialData!.aaguid);
    // Without anchors the chain is valid and untrusted (the default policy records it).
    assert.deepEqual(
      createTrustEvaluator({ anchors: [], requireTrusted: false }).evaluate({ fmt, aaguid, outcome, now: input.now }),
      { trusted: false, aaguidProven: false, authenticatorName: null },
    );
    // Configured as an anchor, the sent root is refused for packed (FIDO conformance: x5c must not include it).
    const root = outcome.trustPath[2]!;
    assert.throws(
      () =>
        createTrustEvaluator({ anchors: [root], requireTrusted: false }).evaluate({
          fmt,
          aaguid,
          outcome,
          now: input.now,
        }),
      (e: unknown) => (e as { code?: string }).code === 'CERTIFICATE_CHAIN_INCLUDES_ROOT',
    );
  });

  it('the FIDO MDS2 TOC: an ES256 JWS whose x5c chains to the FIDO test root', () => {
    const root = new X509Certificate(helpers.mds.mdsRootCert!);
    const toc = verifyMetadataBlob(helpers.mds.mds2TocJwt!, [root], new Date('2018-06-01T00:00:00Z'));
    assert.equal(toc.serial, 2);
    assert.equal(toc.nextUpdate, '2018-06-18');
    assert.ok(toc.entries.length > 0);
    assert.throws(
      () => verifyMetadataBlob(helpers.mds.mds2TocJwt!, [root], new Date('2019-01-01T00:00:00Z')),
      (e: unknown) => (e as { code?: string }).code === 'METADATA_BLOB_SIGNATURE_INVALID',
    );
  });
});
