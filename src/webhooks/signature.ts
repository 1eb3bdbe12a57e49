// Standard Webhooks signatures: `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed
// with the bytes of the secret's base64 after `whsec_`.
import { createHmac } from 'node:crypto';

/** The key bytes of a `whsec_<base64>` secret. */
export function secretKey(secret: string): Buffer {
  if (!secret.startsWith('whsec_')) throw new Error('a webhook secret starts with whsec_');
  return Buffer.from(secret.slice('whsec_'.length), 'base64');
}

/** `v1,<base64 signature>` of one delivery. `timestamp` is in seconds since the epoch. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** A fresh secret: 24 random bytes. */
export function newSecret(randomBytes: (n: number) => Buffer): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}
