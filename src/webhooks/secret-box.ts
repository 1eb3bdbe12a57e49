// The signing secrets of the webhooks the admin API adds, encrypted at rest (docs/admin.md, "Webhook signing
// secrets at rest"): AES-256-GCM under a key derived (HKDF-SHA-256, its own label) from the newest
// local-blob key of the secrets file, so the keys the service already keeps and rotates protect them and
// a local blob and a sealed secret never share a key. A sealed secret names its key id and is bound to its
// webhook (the Client ID and webhook id are its associated data): copied onto another row it does not open.
// Every key of the secrets file opens; the newest seals, and `isCurrent` tells the start-up pass
// (compose/features/webhooks.ts) which rows to seal again after a rotation or an upgrade from clear secrets.
import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';
import type { LocalBlobKey } from '../service-config.js';

const PREFIX = 'whenc:v1:';
const LABEL = 'passkey-server webhook signing secret v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** The row a secret belongs to. */
export interface SecretOwner {
  readonly clientId: string;
  readonly id: string;
}

export interface WebhookSecretBox {
  /** `whenc:v1:<key id>:<base64url of nonce, ciphertext, tag>` under the newest key. */
  seal(owner: SecretOwner, secret: string): string;
  /**
   * The secret a stored value holds: a sealed one opened, a clear `whsec_` one (a row from before
   * sealing) as it is; undefined when no configured key opens it (its key was retired, or it was tampered).
   */
  open(owner: SecretOwner, stored: string): string | undefined;
  /** Whether a stored value is sealed under the newest key (nothing to do at start). */
  isCurrent(stored: string): boolean;
}

export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

function derive(key: LocalBlobKey): Buffer {
  return Buffer.from(hkdfSync('sha256', key.key, Buffer.alloc(0), LABEL, 32));
}

const associated = (owner: SecretOwner) => Buffer.from(`${owner.clientId}\n${owner.id}`, 'utf8');

/** The box of the service's local-blob keys (newest first). */
export function webhookSecretBox(
  keys: readonly LocalBlobKey[],
  randomBytes: (size: number) => Buffer,
): WebhookSecretBox {
  const derived = new Map(keys.map((key) => [key.id, derive(key)]));
  const newest = keys[0];
  return {
    seal(owner, secret) {
      if (newest === undefined) throw new Error('no local-blob key is configured: webhook secrets cannot be sealed');
      const nonce = Buffer.from(randomBytes(NONCE_BYTES));
      const cipher = createCipheriv('aes-256-gcm', derived.get(newest.id)!, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(associated(owner));
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${PREFIX}${newest.id}:${Buffer.concat([nonce, sealed]).toString('base64url')}`;
    },
    open(owner, stored) {
      if (!isSealed(stored)) return stored.startsWith('whsec_') ? stored : undefined;
      const rest = stored.slice(PREFIX.length);
      const cut = rest.indexOf(':');
      const key = derived.get(rest.slice(0, cut));
      if (cut < 0 || key === undefined) return undefined;
      const bytes = Buffer.from(rest.slice(cut + 1), 'base64url');
      if (bytes.length <= NONCE_BYTES + TAG_BYTES) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, NONCE_BYTES), {
          authTagLength: TAG_BYTES,
        });
        decipher.setAAD(associated(owner));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        const clear = Buffer.concat([
          decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)),
          decipher.final(),
        ]);
        return clear.toString('utf8');
      } catch {
        return undefined;
      }
    },
    isCurrent(stored) {
      return newest !== undefined && stored.startsWith(`${PREFIX}${newest.id}:`);
    },
  };
}
