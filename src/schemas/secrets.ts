// The service's key file (docs/configuration.md, "Secrets") and the form of the keys it and the environment
// (PASSKEY_USER_HANDLE_KEY, PASSKEY_LOCAL_BLOB_KEYS) hold, as src/secrets/ reads them.
import { type Shape, Type } from './typebox.js';

export const KEY_BYTES = 32;
/** A key id, stored in every local blob so that the right key opens it (rotation). */
export const KEY_ID_PATTERN = '^[A-Za-z0-9_-]{1,32}$';
/** 32 bytes in standard base64 (padding optional) or base64url, e.g. from `openssl rand -base64 32`. */
export const KEY_PATTERN = '^(?:[A-Za-z0-9+/]{43}={0,2}|[A-Za-z0-9_-]{43})$';

/** The key file (version 1). Keys are base64url when the service writes them; localBlobKeys newest first. */
export const SecretsFileSchema = Type.Object({
  version: Type.Literal(1),
  userHandleKey: Type.String({ pattern: KEY_PATTERN, description: 'The user-handle HMAC key.' }),
  localBlobKeys: Type.Array(
    Type.Object({ id: Type.String({ pattern: KEY_ID_PATTERN }), key: Type.String({ pattern: KEY_PATTERN }) }),
    { minItems: 1, description: 'The local-blob keys, newest first: the first seals, all open.' },
  ),
});
export type SecretsFile = Shape<typeof SecretsFileSchema>;
