// The shapes the high-level calls resolve with: the service's answers (docs/api.md "Who and how" and
// "A user's own passkeys"), with the fields a page reads named and typed.

/** An ok result of a registration or a sign-in: who, with which passkey, and how. */
export interface PasskeyResult {
  readonly status: 'ok';
  /** The credential owner's full `<user>#<domain>`: take the identity from here, never from a form field. */
  readonly username: string;
  readonly userHandle: string;
  readonly credentialId: string;
  readonly userVerified: boolean;
  readonly backupEligible: boolean;
  readonly backupState: boolean;
  readonly aaguid: string;
  readonly authenticatorName: string | null;
  readonly authenticatorVerified: boolean;
  readonly [field: string]: unknown;
}

/** One passkey of the signed-in user. */
export interface PasskeyInfo {
  readonly credentialId: string;
  readonly nickname: string | null;
  readonly authenticatorName: string | null;
  readonly authenticatorVerified: boolean;
  readonly authenticatorIconLight: string | null;
  readonly authenticatorIconDark: string | null;
  readonly aaguid: string;
  readonly backupEligible: boolean;
  readonly backupState: boolean;
  readonly discoverable: boolean | null;
  readonly transports: readonly string[];
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
}

/** The answer of `listPasskeys()`. */
export interface PasskeyList {
  readonly status: 'ok';
  readonly username: string;
  readonly credentials: readonly PasskeyInfo[];
  readonly [field: string]: unknown;
}
