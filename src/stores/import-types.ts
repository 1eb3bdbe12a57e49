// What an import of passkeys (issue 34) keeps and reads in a credential store (types.ts CredentialStore,
// "Imported users"). `Credential` is types.ts's CredentialRecord (a parameter: types.ts imports this file).
/**
 * A user handle an import brought for a user (docs/migration.md): the authenticators hold it, so the user
 * keeps it instead of the one derived from the name (src/ceremonies/user-handle.ts). Unique per application
 * both ways: one handle per user name, one user name per handle.
 */
export interface ImportedUserHandle {
  /** The full name, `user#domain`. */
  readonly username: string;
  /** base64url. */
  readonly userHandle: string;
}

/** Who owns stored credentials under a user handle, and how many (the application's passkey limit). */
export interface ImportOwner extends ImportedUserHandle {
  readonly passkeys: number;
}

/** What importBatch did with a batch's credentials. */
export interface ImportBatchResult {
  /** How many it wrote. */
  readonly written: number;
  /**
   * The ids it left out because their user had the application's limit of passkeys by then: a registration
   * of the user committed between the batch's read and its write.
   */
  readonly overLimit: readonly string[];
}

/** What an import reads before it decides on a batch (issue 34, importLookup). */
export interface ImportLookupOf<Credential> {
  /** The stored credentials among the ids asked for. */
  readonly credentials: readonly Credential[];
  /** The kept user handles whose user name or handle is among those asked for. */
  readonly handles: readonly ImportedUserHandle[];
  /** Who owns stored credentials under the handles asked for: one entry per (handle, user name). */
  readonly owners: readonly ImportOwner[];
}
