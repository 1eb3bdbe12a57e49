// An application's attestation trust policy as the config file writes it (`applications[].attestation`) and
// as the loader resolves it (docs/attestation.md); src/config/attestation-policy.ts checks its files.
import { type TSchema, Type } from './typebox.js';
import { nullable } from './values.js';

/** A list of the config file: at most 1000 entries (fewer where given), each at most once. */
export const list = <T extends TSchema>(items: T, notes: Record<string, unknown>) =>
  Type.Array(items, { maxItems: 1000, uniqueItems: true, ...notes });
const file = Type.String({ minLength: 1, maxLength: 4096 });
/** An AAGUID as the config file writes it: any case (the loader lowers it). */
const aaguidText = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  patternDetail: 'an AAGUID is a dashed UUID such as "cb69481e-8ff7-4039-93ec-0a2729a154a8"',
});

/** The application's attestation trust policy (docs/attestation.md). */
export const AttestationPolicySchema = Type.Object(
  {
    trustAnchors: Type.Optional(
      list(file, {
        default: [],
        description:
          'PEM files of trust anchors (several certificates per file allowed). Each must exist and hold parseable certificates.',
      }),
    ),
    requireTrusted: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Refuse registrations whose attestation does not chain to a trust anchor (`none` and self included). Without it, a chain is still refused when it does not lead to the trust material that applies to it (the `trustAnchors`, or the roots of its AAGUID\'s metadata statement): `docs/attestation.md`, "Trust is proven, never claimed".',
      }),
    ),
    metadata: Type.Optional(nullable(file, { default: null, description: 'A FIDO MDS3 BLOB file. Must exist.' })),
    metadataRoots: Type.Optional(
      list(file, {
        default: [],
        defaultText: '`[]` (the bundled FIDO MDS roots)',
        description:
          "PEM roots that sign the `metadata` BLOB (e.g. the conformance tool's test MDS). Needs `metadata`.",
      }),
    ),
    metadataCrls: Type.Optional(
      list(file, {
        maxItems: 64,
        defaultText: "none (revocation of the BLOB's chain not checked)",
        description:
          'CRL files (PEM `-----BEGIN X509 CRL-----`, several per file allowed, or DER) of the `metadata` BLOB\'s signing chain: each certificate below the root needs a current CRL of its issuer here and must not be listed on it, or the BLOB is refused (`docs/attestation.md`, "Revocation of the BLOB\'s signing chain"). Each must exist and hold CRLs that parse; at most 64. Needs `metadata`.',
      }),
    ),
    enforceStatusAtAuthentication: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Refuse authentication by an authenticator model the metadata now reports compromised.',
      }),
    ),
    aaguidAllow: Type.Optional(
      list(aaguidText, {
        default: [],
        defaultText: '`[]` (any)',
        description:
          'Only these AAGUIDs may register (dashed UUIDs, any case). The lists decide only on an AAGUID the attestation proved (a chain to `trustAnchors` or to the roots of its metadata statement): with a list, any other registration, `none` included, fails with `AAGUID_NOT_PROVEN`.',
      }),
    ),
    aaguidDeny: Type.Optional(
      list(aaguidText, {
        default: [],
        description:
          'These AAGUIDs may never register. An AAGUID may not be in both lists. Like `aaguidAllow`, it needs a proven AAGUID.',
      }),
    ),
  },
  { additionalProperties: false, default: {}, description: 'Attestation trust policy (see `docs/attestation.md`).' },
);

/** The policy as the loader resolves it: the first five keys always present, paths absolute. */
const POLICY_ALWAYS = ['trustAnchors', 'requireTrusted', 'metadata', 'aaguidAllow', 'aaguidDeny'] as const;
export const ResolvedAttestationPolicySchema = Type.Object(
  {
    ...Type.Required(Type.Pick(AttestationPolicySchema, POLICY_ALWAYS)).properties,
    ...Type.Omit(AttestationPolicySchema, POLICY_ALWAYS).properties,
  },
  {
    additionalProperties: false,
    description: 'The attestation trust policy, resolved: paths absolute, defaults filled in.',
  },
);
