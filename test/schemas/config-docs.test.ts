// docs/configuration.md's tables of keys, defaults and environment variables are the schema written out
// (src/schemas/config-docs.ts): a key, default, meaning or variable changed on one side only fails here.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENV_OVERRIDES } from '../../src/config/env.js';
import { LOCAL_BLOB_KEYS_ENV, USER_HANDLE_KEY_ENV } from '../../src/secrets/load.js';
import { APPLICATION_KEYS, ATTESTATION_KEYS } from '../../src/schemas/applications.js';
import { ConfigFileSchema } from '../../src/schemas/config.js';
import { AdminSchema, AuditSchema, RateLimitsSchema } from '../../src/schemas/config-ops.js';
import { withConfigTables } from '../../src/schemas/config-docs.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const doc = readFileSync(join(repo, 'docs', 'configuration.md'), 'utf8');

describe('docs/configuration.md', () => {
  it('holds the tables the schema writes (regenerate: node scripts/gen-config-schema.mjs)', () => {
    assert.equal(doc, withConfigTables(doc));
  });

  it('lists every key of the file, of an application and of its attestation policy', () => {
    for (const key of Object.keys(ConfigFileSchema.properties)) assert.ok(doc.includes(`| \`${key}\``), key);
    for (const [top, schema] of Object.entries({
      admin: AdminSchema,
      rateLimits: RateLimitsSchema,
      audit: AuditSchema,
    }))
      for (const key of Object.keys(schema.properties)) assert.ok(doc.includes(`| \`${top}.${key}\``), `${top}.${key}`);
    for (const key of APPLICATION_KEYS) assert.ok(doc.includes(`| \`${key}\``), key);
    for (const key of ATTESTATION_KEYS) assert.ok(doc.includes(`| \`attestation.${key}\``), key);
  });

  it('lists every environment variable with its setting', () => {
    assert.ok(ENV_OVERRIDES.length >= 18);
    for (const override of ENV_OVERRIDES)
      assert.ok(doc.includes(`| \`${override.name}\` | \`${override.key.join('.')}\` |`), override.name);
    for (const name of [
      USER_HANDLE_KEY_ENV,
      LOCAL_BLOB_KEYS_ENV,
      'PASSKEY_LOG_LEVEL',
      'PASSKEY_METADATA_CHECK_INTERVAL_MS',
    ])
      assert.ok(doc.includes(`| \`${name}\``), name);
  });

  it('a table that differs from the schema is found', () => {
    const edited = doc.replace('| `admin.port` | integer 0–65535 |', '| `admin.port` | integer 1–65535 |');
    assert.notEqual(edited, doc);
    assert.notEqual(withConfigTables(edited), edited);
  });
});
