// Passkeys an authenticator already holds (held-passkeys.ts), written the way each source system writes them
// (docs/migration.md): SimpleWebAuthn's Passkey model, a Keycloak realm export with its credentialData JSON
// text, Hanko's user import list, LINE fido2-server's USER_KEY rows as CSV with quoted fields. The import
// tests (test/transfer/from-keycloak.test.ts and the other readers' tests, test/admin/cli-import-sources.test.ts) read these back.
import { randomUUID } from 'node:crypto';
import type { SourceItem } from '../../src/transfer/record.js';
import { heldPasskey, type HeldPasskey } from './held-passkeys.js';
import { DOMAIN, ORIGIN } from './imported-sign-in.js';

export const AAGUID = 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4';
const CREATED = Date.UTC(2025, 0, 2, 3, 4, 5);

export interface SourcePasskey {
  readonly held: HeldPasskey;
  readonly user: string;
  readonly signCount: number;
}

/** A held passkey of `user` whose authenticator holds `userHandle` (random bytes when not given). */
export function sourcePasskey(user: string, alg: number, signCount: number, userHandle?: Buffer): SourcePasskey {
  return {
    held: heldPasskey({
      alg,
      rpId: DOMAIN,
      origin: ORIGIN,
      signCount,
      ...(userHandle === undefined ? {} : { userHandle }),
    }),
    user,
    signCount,
  };
}

/** One SimpleWebAuthn `Passkey` as an app dumps it: publicKey as Node writes a Buffer in JSON. */
export function simpleWebAuthnPasskey(p: SourcePasskey): Record<string, unknown> {
  return {
    id: p.held.credentialId,
    publicKey: { type: 'Buffer', data: [...p.held.cose] },
    user: { id: 17, username: p.user },
    webauthnUserID: p.held.userHandle,
    counter: p.signCount,
    deviceType: 'multiDevice',
    backedUp: true,
    transports: ['internal', 'hybrid'],
  };
}

/** A Keycloak user id for a held passkey: Keycloak's handle is the id's UTF-8 bytes. */
export function keycloakUser(user: string, alg: number, signCount: number): SourcePasskey & { readonly id: string } {
  const id = randomUUID();
  return { ...sourcePasskey(user, alg, signCount, Buffer.from(id, 'utf8')), id };
}

/** A realm export (`kc.sh export`) holding these users, each with one passkey, beside the realm's other data. */
export function keycloakRealm(users: readonly (SourcePasskey & { readonly id: string })[], rpId = DOMAIN): string {
  const realm = {
    id: 'b1c8b9a6-0000-4000-8000-000000000001',
    realm: 'main',
    enabled: true,
    roles: { realm: [{ id: 'r1', name: 'offline_access', composite: false }] },
    webAuthnPolicyRpId: rpId,
    webAuthnPolicySignatureAlgorithms: ['ES256', 'RS256'],
    webAuthnPolicyPasswordlessRpId: rpId,
    users: users.map((u, i) => ({
      id: u.id,
      username: u.user,
      firstName: 'Ann',
      lastName: `Example ${i}`,
      email: `${u.user}@example.com`,
      enabled: true,
      credentials: [
        { id: randomUUID(), type: 'password', createdDate: CREATED, secretData: '{"value":"x"}', credentialData: '{}' },
        {
          id: randomUUID(),
          type: i % 2 === 0 ? 'webauthn-passwordless' : 'webauthn',
          userLabel: `${u.user}'s key`,
          createdDate: CREATED,
          secretData: '{}',
          credentialData: JSON.stringify({
            aaguid: AAGUID,
            credentialId: Buffer.from(u.held.credentialId, 'base64url').toString('base64'),
            counter: u.signCount,
            attestationStatement: null,
            credentialPublicKey: u.held.cose.toString('base64url'),
            attestationStatementFormat: 'none',
            transports: ['usb', 'nfc'],
          }),
          priority: 10,
        },
      ],
      realmRoles: ['default-roles-main'],
    })),
    clients: [{ id: 'c1', clientId: 'account', redirectUris: ['/realms/main/account/*'] }],
  };
  return JSON.stringify(realm, null, 2);
}

/** A Hanko user (`user_id` a UUID: Hanko's handle is its 16 bytes) with one passkey. */
export function hankoUser(user: string, alg: number, signCount: number): SourcePasskey & { readonly id: string } {
  const id = randomUUID();
  return { ...sourcePasskey(user, alg, signCount, Buffer.from(id.replace(/-/g, ''), 'hex')), id };
}

/** Hanko's user import list: names as e-mail addresses, ids and keys in base64url, a Go time. */
export function hankoList(users: readonly (SourcePasskey & { readonly id: string })[]): string {
  return JSON.stringify(
    users.map((u) => ({
      user_id: u.id,
      emails: [{ address: `${u.user}@example.com`, is_primary: true, is_verified: true }],
      webauthn_credentials: [
        {
          id: u.held.credentialId,
          name: `${u.user}'s passkey`,
          public_key: u.held.cose.toString('base64url'),
          attestation_type: 'none',
          aaguid: AAGUID,
          sign_count: u.signCount,
          last_used_at: null,
          created_at: '2025-01-02T03:04:05.123456789Z',
          updated_at: '2025-01-02T03:04:05.123456789Z',
          transports: ['internal', 'hybrid'],
          backup_eligible: true,
          backup_state: true,
          mfa_only: false,
          user_handle: null,
        },
      ],
      created_at: '2025-01-02T03:04:05.123456789Z',
      updated_at: '2025-01-02T03:04:05.123456789Z',
    })),
  );
}

export const LINE_COLUMNS = [
  'id',
  'rp_entity_id',
  'user_id',
  'username',
  'user_display_name',
  'user_icon',
  'aaguid',
  'credential_id',
  'public_key',
  'signature_algorithm',
  'sign_counter',
  'attestation_type',
  'rk',
  'cred_protect',
  'registered_timestamp',
  'authenticated_timestamp',
  'transports',
] as const;

/** One USER_KEY row joined with its transports, by column. */
export function lineRow(p: SourcePasskey, alg: number, n: number, rpId = DOMAIN): Record<string, string | null> {
  return {
    id: String(n),
    rp_entity_id: rpId,
    user_id: p.held.userHandle,
    username: p.user,
    user_display_name: `${p.user}, "the" user`,
    user_icon: null,
    aaguid: AAGUID,
    credential_id: p.held.credentialId,
    public_key: p.held.spki!.toString('base64url'),
    signature_algorithm: String(alg),
    sign_counter: String(p.signCount),
    attestation_type: '0',
    rk: '1',
    cred_protect: '1',
    registered_timestamp: '2025-01-02 03:04:05.123',
    authenticated_timestamp: null,
    transports: 'usb,nfc',
  };
}

/** Rows as a SQL client exports them: a header, every text quoted, NULL as an empty unquoted field. */
export function lineCsv(rows: readonly Record<string, string | null>[]): string {
  const cell = (value: string | null) => (value === null ? '' : `"${value.replace(/"/g, '""')}"`);
  return [LINE_COLUMNS.join(','), ...rows.map((row) => LINE_COLUMNS.map((c) => cell(row[c] ?? null)).join(','))]
    .map((line) => `${line}\r\n`)
    .join('');
}

/** `text` as a stream of `size`-byte chunks: cut mid-line, mid-string and mid-UTF-8 sequence. */
export async function* chunked(text: string | Buffer, size: number): AsyncIterable<Uint8Array> {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** Every item a reader yields. */
export async function readAll<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** An item with its key as a Buffer, so that deepEqual compares it with a held passkey's COSE bytes. */
export function plainItem(item: SourceItem): SourceItem {
  return 'record' in item
    ? { at: item.at, record: { ...item.record, publicKey: Buffer.from(item.record.publicKey) } }
    : item;
}
