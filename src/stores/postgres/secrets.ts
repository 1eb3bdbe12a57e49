// Checks that this instance uses the same secrets as every other instance on the database. The first
// instance records a fingerprint of each secret (an HMAC under the secret of a fixed text: it reveals
// nothing about the key); every later one compares. A mismatch would silently split the deployment:
// another user-handle key derives other user handles (users' credentials are no longer found), another
// local-blob key under the same id cannot open blobs the others sealed.

import { createHmac } from 'node:crypto';
import { schemaIdentifier, splitSchema, withClient, type PostgresOptions } from './connection.js';

export interface SharedSecrets {
  readonly userHandleKey: Buffer;
  readonly localBlobKeys: readonly { readonly id: string; readonly key: Buffer }[];
}

/** Raised at start when this instance's secrets differ from those the deployment recorded. */
export class SecretsMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretsMismatchError';
  }
}

function fingerprint(key: Buffer, purpose: string): string {
  return createHmac('sha256', key).update(`passkey-server fingerprint v1: ${purpose}`).digest('base64url');
}

function facts(secrets: SharedSecrets): Map<string, { value: string; label: string }> {
  const all = new Map<string, { value: string; label: string }>();
  all.set('secret:user-handle-key', {
    value: fingerprint(secrets.userHandleKey, 'user-handle key'),
    label: 'the user-handle key (PASSKEY_USER_HANDLE_KEY / userHandleKey in the key file)',
  });
  for (const { id, key } of secrets.localBlobKeys) {
    all.set(`secret:local-blob-key:${id}`, {
      value: fingerprint(key, 'local-blob key'),
      label: `the local-blob key with id "${id}" (PASSKEY_LOCAL_BLOB_KEYS / localBlobKeys in the key file)`,
    });
  }
  return all;
}

/**
 * Records the fingerprints this instance's secrets have where none is recorded yet (first start, a newly
 * rotated-in local-blob key), then throws SecretsMismatchError if any recorded one differs.
 */
export async function checkSharedSecrets(
  givenUrl: string,
  secrets: SharedSecrets,
  givenOptions: PostgresOptions = {},
): Promise<void> {
  const { url, options } = splitSchema(givenUrl, givenOptions);
  const schema = schemaIdentifier(options.schema);
  const mine = facts(secrets);
  const names = [...mine.keys()];
  const recorded = await withClient(url, options, 'secret check', async (client) => {
    await client.query(
      `INSERT INTO ${schema}.deployment_facts (name, value) SELECT * FROM unnest($1::text[], $2::text[])
         ON CONFLICT (name) DO NOTHING`,
      [names, names.map((name) => mine.get(name)!.value)],
    );
    const result = await client.query<{ name: string; value: string; recorded_at: Date }>(
      `SELECT name, value, recorded_at FROM ${schema}.deployment_facts WHERE name = ANY($1::text[])`,
      [names],
    );
    return result.rows;
  });
  const different = recorded.filter((row) => mine.get(row.name)?.value !== row.value);
  if (different.length === 0) return;
  const what = different.map((row) => `${mine.get(row.name)!.label}, first recorded ${row.recorded_at.toISOString()}`);
  throw new SecretsMismatchError(
    `This instance's secrets differ from those the other instances on PostgreSQL schema ${schema} use: ${what.join('; ')}. ` +
      'Every instance of one deployment must be given the same secrets (docs/deployment.md). Refusing to start: ' +
      "with other secrets this instance would derive other user handles and could not open the others' local blobs.",
  );
}
