// An import into PostgreSQL (src/stores/postgres/imports.ts) keeps the planner's statistics of the tables it
// fills up to date: with a table's statistics from before a large import, each batch's lookup read every
// credential of the application instead of seeking the ids.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openPostgresCredentialStore } from '../../../src/stores/postgres/open.js';
import type { CredentialStore } from '../../../src/stores/types.js';
import { freshSchema, POSTGRES_URL, sql, type TestSchema } from '../../scale/support/backends.js';
import { credential, freshClientId } from '../contract.js';

describe('postgres import statistics', () => {
  let schema: TestSchema;
  let store: CredentialStore & { close(): Promise<void> };
  before(async () => {
    schema = await freshSchema('imports');
    store = await openPostgresCredentialStore(POSTGRES_URL, { schema: schema.schema });
  });
  after(async () => {
    await store.close();
    await schema.drop();
  });

  /** What the planner believes of a table's size: -1 until it is first analysed. */
  const plannedRows = async (table: string) =>
    (
      await sql<{ rows: number }>(
        'SELECT reltuples::int AS rows FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2',
        [schema.schema, table],
      )
    )[0]!.rows;

  it('analyses the credentials and kept handles once an import has written 5,000 rows', async () => {
    const clientId = freshClientId();
    for (let batch = 0; batch < 10; batch++) {
      const records = Array.from({ length: 500 }, (_, i) =>
        credential({ clientId, username: `user${batch * 500 + i}#idp.example.test` }),
      );
      const handles = records.map(({ username, userHandle }) => ({ username, userHandle }));
      assert.equal((await store.importBatch(clientId, handles, records)).written, 500);
    }
    assert.equal(await plannedRows('credentials'), 5_000);
    assert.equal(await plannedRows('user_handles'), 5_000);
  });
});
