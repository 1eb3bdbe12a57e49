// The passkey-server format's one schema (src/schemas/transfer.ts) is what docs/ publishes, and what the
// service's own export writes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { passkeyServerRecordJsonSchema } from '../../src/schemas/transfer.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

describe('the passkey-server format schema', () => {
  it('docs/passkey-server-record.schema.json is the schema (regenerate: node scripts/gen-transfer-schema.mjs)', () => {
    const published = JSON.parse(readFileSync(join(repo, 'docs', 'passkey-server-record.schema.json'), 'utf8'));
    assert.deepEqual(published, passkeyServerRecordJsonSchema());
  });

  it('docs/migration.md links it', () => {
    assert.match(readFileSync(join(repo, 'docs', 'migration.md'), 'utf8'), /passkey-server-record\.schema\.json/);
  });
});
