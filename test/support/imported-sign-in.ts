// Held passkeys (held-passkeys.ts) written in the service's own export format, and signed in with over a
// running service's socket, by name and without a name: what the import tests (test/transfer/,
// test/admin/cli-transfer.test.ts) check an imported passkey does.
import assert from 'node:assert/strict';
import { heldPasskey, type HeldPasskey } from './held-passkeys.js';

export const DOMAIN = 'idp.example.test';
export const ORIGIN = `https://${DOMAIN}`;

/** A held passkey of `user` with the algorithm `alg`, and its line of the passkey-server format. */
export interface ExportedPasskey {
  readonly held: HeldPasskey;
  readonly user: string;
  readonly line: Record<string, unknown>;
}

export function exportedPasskey(user: string, alg: number, signCount = 0): ExportedPasskey {
  const held = heldPasskey({ alg, rpId: DOMAIN, origin: ORIGIN, signCount });
  const line = {
    username: user,
    userHandle: held.userHandle,
    displayName: `${user} (display)`,
    credentialId: held.credentialId,
    publicKey: held.cose.toString('base64url'),
    signCount,
    transports: ['internal', 'hybrid'],
    backupEligible: true,
    backupState: true,
    aaguid: 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4',
    attestation: { format: 'packed', type: 'basic', trusted: true },
    name: `${user}'s phone`,
    createdAt: '2025-01-02T03:04:05.000Z',
    lastUsedAt: null,
    status: null,
  };
  return { held, user, line };
}

export const jsonLines = (lines: readonly unknown[]): string => lines.map((l) => `${JSON.stringify(l)}\n`).join('');

async function post(
  url: string,
  path: string,
  body: unknown,
  clientId: string,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'user-agent': `Vendor AppID: ${clientId}`, origin: ORIGIN, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, body: await res.json() };
}

/**
 * Signs in with `held` over the socket of the service at `url`: by `username`, or without a name when it is
 * null (the authenticator returns the user handle it holds). Resolves to the assertion result's answer.
 */
export async function signIn(
  url: string,
  held: HeldPasskey,
  username: string | null,
  options: { readonly clientId?: string; readonly signCount?: number } = {},
): Promise<{ status: number; body: any }> {
  const clientId = options.clientId ?? 'app-1';
  const asked = await post(url, '/api/assertion/options', { username: username ?? `#${DOMAIN}` }, clientId);
  assert.equal(asked.status, 200, JSON.stringify(asked.body));
  const assertion = held.authenticator.authenticate(asked.body, {
    credentialId: held.credentialId,
    ...(options.signCount === undefined ? {} : { signCount: options.signCount }),
  });
  return post(url, '/api/assertion/result', assertion, clientId);
}
