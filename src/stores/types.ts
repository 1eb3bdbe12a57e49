// Storage interfaces. Every backend (memory/, sqlite/, postgres/, redis/) implements those it serves, and one
// contract suite per interface (test/stores/contract.ts, local-contract.ts, applications-audit-contract.ts)
// runs against each. All operations are async so that network backends fit.

import type { UserVerification, Variant } from '../service-config.js';
import type { AttestationType } from '../webauthn/types.js';
import type { MarkRequest, OutboxMessage, WebhookOutbox, WebhookStore } from '../webhooks/types.js';
import type { ImportBatchResult, ImportedUserHandle, ImportLookupOf } from './import-types.js';

export type {
  MarkRequest,
  OutboxCounts,
  OutboxDelivery,
  OutboxMessage,
  StoredWebhook,
  WebhookChanges,
  WebhookEndpoint,
  WebhookOutbox,
  WebhookStore,
} from '../webhooks/types.js';
export type { ImportBatchResult, ImportedUserHandle, ImportOwner } from './import-types.js';
export type {
  ApplicationRecord,
  ApplicationStore,
  AuditQuery,
  AuditStore,
  BucketDecision,
  BucketRequest,
  BucketStore,
} from './operator-types.js';

export type CeremonyType = 'registration' | 'authentication';

/** What an options call promised; the result call finds it by (clientId, challenge). */
export interface CeremonyRecord {
  /** base64url of the random challenge bytes. */
  readonly challenge: string;
  readonly clientId: string;
  readonly variant: Variant;
  readonly type: CeremonyType;
  /** The full `username` as sent (`user#domain`; `#domain` for a sign-in without a user name). */
  readonly username: string;
  /** base64url user handle (user.id) the options carried; empty for a sign-in without a user name. */
  readonly userHandle: string;
  /** Authentication without a user name: the credential is found by the result's id and user handle. */
  readonly discoverable?: boolean;
  /** Registration started with `mediation: "conditional"` (automatic upgrade): its result may lack UP. */
  readonly conditional?: boolean;
  /** Registration: the user.displayName its options answered (stored with the credential for the Signal API). */
  readonly displayName?: string;
  /** The user verification the ceremony requires (after applying the application's policy). */
  readonly userVerification: UserVerification;
  /** Standard variant: the origin header of the options call; local: null. */
  readonly origin: string | null;
  /** Authentication: the credential ids (base64url) offered in allowCredentials. */
  readonly allowCredentials?: readonly string[];
  /** Epoch milliseconds after which the ceremony is gone. */
  readonly expiresAt: number;
}

export type TakeResult =
  | { readonly state: 'taken'; readonly record: CeremonyRecord }
  | { readonly state: 'used' }
  | { readonly state: 'missing' };

/**
 * A credential the local variant registered, remembered without its key (the key travels only in the
 * sealed blob) so that assertion options can list its id for a security key (docs/api.md). Development
 * data: it expires, and the list is bounded per user and in total (LOCAL_CREDENTIAL_LIMITS).
 */
export interface LocalCredentialRecord {
  readonly clientId: string;
  /** base64url user handle. */
  readonly userHandle: string;
  /** base64url credential id. */
  readonly credentialId: string;
  readonly transports: readonly string[];
  /** Epoch milliseconds after which it is forgotten. */
  readonly expiresAt: number;
}

/**
 * How many of the local variant's credential ids a store remembers. (How long is the ceremony's choice,
 * `expiresAt`: src/ceremonies/attestation-result.ts, LOCAL_CREDENTIAL_LIFETIME_MS.)
 */
export interface LocalCredentialLimits {
  /** Per (Client ID, user handle): beyond it the user's oldest is forgotten. */
  readonly perUser: number;
  /** Per Client ID: beyond it the oldest of anyone's in that application is forgotten. */
  readonly total: number;
}

export const LOCAL_CREDENTIAL_LIMITS: LocalCredentialLimits = Object.freeze({ perUser: 16, total: 10_000 });

export interface ChallengeStore {
  put(record: CeremonyRecord): Promise<void>;
  /**
   * Atomically removes and returns the ceremony, across processes. A second take of the same challenge
   * (until it would have expired) answers `used`; an unknown or expired one `missing`. `now` is epoch ms.
   */
  take(clientId: string, challenge: string, now: number): Promise<TakeResult>;
  /**
   * Local variant: remembers a registered credential id for its user (replacing that user's entry of the
   * same credential id, never another user's), then forgets what expired before `now` and, oldest first,
   * what exceeds the limits (per user, per application). Kept where ceremonies are kept: both short-lived.
   */
  rememberLocalCredential(record: LocalCredentialRecord, now: number): Promise<void>;
  /** The user's remembered credentials that have not expired at `now`, oldest first. */
  listLocalCredentials(clientId: string, userHandle: string, now: number): Promise<LocalCredentialRecord[]>;
  close(): Promise<void>;
  /** Resolves when the backend answers (readiness probe); rejects when it does not. */
  ping(): Promise<void>;
}

export interface CredentialRecord {
  readonly clientId: string;
  /** base64url credential id. */
  readonly credentialId: string;
  /** base64url user handle. */
  readonly userHandle: string;
  readonly username: string;
  /** The credential public key exactly as the authenticator sent it (COSE_Key bytes). */
  readonly publicKey: Uint8Array;
  readonly algorithm: number;
  readonly signCount: number;
  readonly transports: readonly string[];
  /** Lower-case dashed UUID; all zeros when the authenticator gives none. */
  readonly aaguid: string;
  readonly attestationFormat: string;
  readonly attestationType: AttestationType;
  /** Whether the attestation chained to a trust anchor. */
  readonly attestationTrusted: boolean;
  /**
   * Whether that chain proved the AAGUID (the application's anchors or its metadata statement's roots;
   * never self or none attestation); absent = false, the shape every backend returns.
   */
  readonly aaguidProven?: boolean;
  readonly backupEligible: boolean;
  readonly backupState: boolean;
  readonly userVerified: boolean;
  /** credProps.rk as the client reported it, or null. */
  readonly residentKey: boolean | null;
  /** Set when a non-increasing counter was accepted under the `warn` counter policy. */
  readonly cloneWarning: boolean;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  /** A name the user or an administrator gave the credential (admin API rename); absent or null = none. */
  readonly nickname?: string | null;
  /** The authenticator's description from FIDO metadata at registration (TrustDecision.authenticatorName); absent or null = unknown. */
  readonly authenticatorName?: string | null;
  /**
   * The user.displayName the registration's options carried, so that signals.currentUserDetails repeats what
   * the password manager was given; absent or null = unknown (stored before it was kept).
   */
  readonly displayName?: string | null;
  /**
   * The FIDO metadata status that marked the credential's authenticator model as compromised or revoked
   * (`markAuthenticatorStatus`); absent or null = not marked.
   */
  readonly authenticatorStatus?: string | null;
  /** Epoch ms when it was marked; absent or null = not marked. */
  readonly authenticatorStatusAt?: number | null;
}

/** What an import reads before it decides on a batch (CredentialStore.importLookup). */
export type ImportLookup = ImportLookupOf<CredentialRecord>;

/** What countByAlgorithms answers. */
export interface AlgorithmUsage {
  readonly users: number;
  readonly credentials: number;
}

/**
 * The change one successful authentication makes; applied only to the row the verification read, unchanged
 * in what it decided on: the same `createdAt` (not a credential deleted and registered again under its id),
 * counter and authenticator status (a sign-in may verify against what its options read,
 * credential-snapshots.ts).
 */
export interface CredentialUse {
  readonly expectedSignCount: number;
  /** The stored `authenticatorStatus` the verification read; null = not marked. */
  readonly expectedAuthenticatorStatus: string | null;
  /** The stored `createdAt` the verification read. */
  readonly expectedCreatedAt: number;
  readonly signCount: number;
  /** BE as this authentication reported it: stored with BS, so that BS is never stored without BE. */
  readonly backupEligible: boolean;
  readonly backupState: boolean;
  readonly userVerified: boolean;
  readonly cloneWarning: boolean;
  readonly usedAt: number;
}

/**
 * Every change below takes the webhook messages (`events`) that report it and writes them into the outbox in
 * the same transaction, only if the change was made (docs/decisions.md "Webhooks").
 */
export interface CredentialStore {
  /** Inserts durably; resolves only after the row is committed. `duplicate` if (clientId, credentialId) exists. */
  create(record: CredentialRecord, events?: readonly OutboxMessage[]): Promise<'created' | 'duplicate'>;
  /**
   * `create`, only while the user (clientId, userHandle) has fewer than `limit` credentials (the application's
   * maxPasskeysPerUser), answering instead of `created` how many they have with this one: what `listByUser`
   * would count right after the insert. A registration reads the user's list only when that is more than 1
   * (docs/performance.md). `limit` (nothing written) when the user had `limit` or more; a stored id is
   * `duplicate` whatever the count. Atomic: of several registrations of one user at once, at most enough to
   * reach the limit are stored, on every backend (docs/decisions.md "A user's passkey limit").
   */
  createCounted(
    record: CredentialRecord,
    limit: number,
    events?: readonly OutboxMessage[],
  ): Promise<number | 'duplicate' | 'limit'>;
  find(clientId: string, credentialId: string): Promise<CredentialRecord | undefined>;
  listByUser(clientId: string, userHandle: string): Promise<CredentialRecord[]>;
  /** Compare-and-set on signCount: false (nothing written) if the stored counter is no longer `expectedSignCount`. */
  recordUse(
    clientId: string,
    credentialId: string,
    use: CredentialUse,
    events?: readonly OutboxMessage[],
  ): Promise<boolean>;
  /** The webhook outbox, on the same database (events written alone, delivery, dead letters). */
  readonly outbox: WebhookOutbox;
  /** The webhooks the admin API added, on the same database. */
  readonly webhooks: WebhookStore;
  /**
   * Marks every credential of `clientId` with `aaguid` that does not carry `status` yet; `events` gives the
   * messages reporting the marked ones, written in the same transaction. Resolves to the marked credentials.
   */
  markAuthenticatorStatus(
    request: MarkRequest,
    events: (marked: readonly CredentialRecord[]) => readonly OutboxMessage[],
  ): Promise<CredentialRecord[]>;
  /** Marked credentials of an application, ordered by credentialId, the first `limit` after `after`. */
  listMarked(clientId: string, page: { readonly limit: number; readonly after?: string }): Promise<CredentialRecord[]>;
  /**
   * Removes every credential of one user, and the user handle an import kept for it; `events` gives the messages reporting what was removed, written
   * in the same transaction. Resolves to the removed credentials.
   */
  deleteUser(
    clientId: string,
    userHandle: string,
    events: (deleted: readonly CredentialRecord[]) => readonly OutboxMessage[],
  ): Promise<CredentialRecord[]>;
  close(): Promise<void>;

  // --- Imported users (issue 34) ---
  /** The user handle an import kept for `username` (`user#domain`); undefined: the user's handle is derived. */
  importedUserHandle(clientId: string, username: string): Promise<string | undefined>;
  /** One read of what an import must know about a batch (bounded by the batch). */
  importLookup(
    clientId: string,
    query: {
      readonly credentialIds: readonly string[];
      readonly usernames: readonly string[];
      readonly userHandles: readonly string[];
    },
  ): Promise<ImportLookup>;
  /**
   * Writes one batch of an import in ONE transaction: the user handles to keep (one already kept for the
   * same user name is left as it is), then the credentials (one whose id exists is left as it is; one whose
   * user has `maxPasskeysPerUser` passkeys by then is left out, as createCounted leaves it), then `events`
   * when a credential was written.
   */
  importBatch(
    clientId: string,
    handles: readonly ImportedUserHandle[],
    records: readonly CredentialRecord[],
    events?: readonly OutboxMessage[],
    maxPasskeysPerUser?: number,
  ): Promise<ImportBatchResult>;

  // --- Administration (the admin API and CLI) ---
  /** Credentials of an application ordered by credentialId, the first `limit` after `after` (exclusive). */
  listByApplication(
    clientId: string,
    page: { readonly limit: number; readonly after?: string },
  ): Promise<CredentialRecord[]>;
  /** Removes one credential; false if there was none. */
  delete(clientId: string, credentialId: string, events?: readonly OutboxMessage[]): Promise<boolean>;
  /** Sets (or with null clears) the nickname; false if there is no such credential. */
  rename(
    clientId: string,
    credentialId: string,
    nickname: string | null,
    events?: readonly OutboxMessage[],
  ): Promise<boolean>;
  /** How many users, and credentials, of an application have a credential of one of `algorithms` (one query). */
  countByAlgorithms(clientId: string, algorithms: readonly number[]): Promise<AlgorithmUsage>;
  /** Removes every credential of an application, and its kept user handles (application deletion); resolves to how many credentials. */
  deleteByApplication(clientId: string): Promise<number>;
  /** Resolves when the backend answers (readiness probe); rejects (StoreUnavailableError) when it does not. */
  ping(): Promise<void>;
}
