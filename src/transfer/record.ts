// What every source reader hands the import, and what the import answers (docs/migration.md): the one
// contract between the readers (one file per source format) and the importer, so that a new source is one
// reader and one row in READERS, and the import's checks are written once.

/** The formats `--from` names, in the order docs/migration.md describes them. */
export const IMPORT_FORMATS = ['passkey-server', 'simplewebauthn', 'keycloak', 'hanko', 'line-fido2-server'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** The formats `--to` names: our own (lossless) and Hanko's, so that leaving is as easy as arriving. */
export const EXPORT_FORMATS = ['passkey-server', 'hanko'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * Why a record was not imported: the `reason` of a refusal in the report. A name is API, as error names are
 * (docs/migration.md lists them).
 */
export const REFUSAL_REASONS = {
  /** Not a record of the format: not JSON or CSV, a field missing or of the wrong type, an id that does not decode. */
  MALFORMED_RECORD: 'The record is not one of the format: a field is missing, of the wrong type or does not decode.',
  /** The key does not decode, or is not a valid key of its algorithm (a point off its curve, a bad modulus). */
  INVALID_PUBLIC_KEY: 'The public key does not decode as a valid key of its algorithm.',
  /** The key's algorithm is not among the application's `algorithms`. */
  ALGORITHM_NOT_ALLOWED: "The key's algorithm is not one the application accepts.",
  /** The source states an RP ID other than the application's domain. */
  RP_ID_MISMATCH: "The record's RP ID is not the application's domain.",
  /** The user name ends in `#<domain>` of another domain. */
  USERNAME_DOMAIN_MISMATCH: "The user name names another application's domain.",
  /** The credential id is stored (or earlier in the file) with another key or for another user. */
  CREDENTIAL_ID_CONFLICT: 'The credential id is already registered with another key or for another user.',
  /** The user already has another user handle, or the handle belongs to another user. */
  USER_HANDLE_CONFLICT: 'The user handle is already kept for another user, or the user has another one.',
  /** The user already has as many passkeys as the application allows. */
  PASSKEY_LIMIT_REACHED: 'The user already has as many passkeys as the application allows.',
} as const;
export type RefusalReason = keyof typeof REFUSAL_REASONS;

/** What registration proved about a passkey, as the service's own export states it (informative on import). */
export interface StatedAttestation {
  readonly format: string;
  readonly type: string;
  readonly trusted: boolean;
}

/** One passkey as a source states it, decoded into our encodings but not yet checked against the application. */
export interface SourceRecord {
  /** The user's name as the source gives it (the import applies the `#<domain>` rule). */
  readonly username: string;
  /** base64url of the user handle the authenticator holds. */
  readonly userHandle: string;
  readonly displayName: string | null;
  /** base64url. */
  readonly credentialId: string;
  /** COSE_Key bytes (a reader turns other encodings, such as an X.509 SubjectPublicKeyInfo, into COSE). */
  readonly publicKey: Uint8Array;
  readonly signCount: number;
  readonly transports: readonly string[];
  readonly backupEligible: boolean;
  readonly backupState: boolean;
  /** Lower-case dashed UUID as the source stated it; all zeros when it states none. */
  readonly aaguid: string;
  /** The name the user gave the passkey; null = none. */
  readonly nickname: string | null;
  /** Epoch milliseconds; null = not stated (the import's time is used). */
  readonly createdAt: number | null;
  readonly lastUsedAt: number | null;
  /** The RP ID the source states for the record; null = not stated. */
  readonly rpId: string | null;
  /** credProps.rk where the source states it; null = unknown. */
  readonly residentKey: boolean | null;
  /** Only the service's own format states these two; null elsewhere. */
  readonly attestation: StatedAttestation | null;
  /** The FIDO metadata status that marked the authenticator (compromised, revoked); null = not marked. */
  readonly status: string | null;
}

/** Where a record is in its file: a line number (1-based) for line formats, a JSON path for documents. */
export type RecordPlace = number | string;

/** What a reader yields for each record it meets, in file order. */
export type SourceItem =
  | { readonly at: RecordPlace; readonly record: SourceRecord }
  | { readonly at: RecordPlace; readonly refused: { readonly reason: RefusalReason; readonly message: string } };

/**
 * A source reader: the file's bytes in (a stream: never the whole file in memory), one item per record out.
 * A record it cannot read is a `refused` item; the reader goes on with the next.
 */
export type SourceReader = (input: AsyncIterable<Uint8Array>) => AsyncIterable<SourceItem>;

/** A refused record in the report. */
export interface Refusal {
  readonly line: RecordPlace;
  readonly reason: RefusalReason;
  readonly message: string;
}

/** What an import answers, on the CLI's standard output and from the admin API alike. */
export interface ImportReport {
  readonly imported: number;
  readonly skipped: number;
  readonly refused: readonly Refusal[];
  readonly dryRun: boolean;
}
