// docs/configuration.md documents every key and every environment variable the loader knows.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APPLICATION_KEYS, ATTESTATION_KEYS } from '../../src/config/application.js';
import { ENV_OVERRIDES } from '../../src/config/env.js';
import { ConfigFileSchema, LimitsSchema } from '../../src/schemas/config.js';
import { AdminSchema, AuditSchema, RateLimitsSchema } from '../../src/schemas/config-ops.js';

const TOP_LEVEL_KEYS = Object.keys(ConfigFileSchema.properties);
const keysOf = (schema: { properties: object }) => Object.keys(schema.properties);
import { LOCAL_BLOB_KEYS_ENV, USER_HANDLE_KEY_ENV } from '../../src/config/secrets.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const doc = readFileSync(join(repo, 'docs', 'configuration.md'), 'utf8');

describe('docs/configuration.md', () => {
  it('lists every top-level key', () => {
    for (const key of TOP_LEVEL_KEYS) assert.ok(doc.includes(`| \`${key}\``), key);
    const nested = { limits: LimitsSchema, admin: AdminSchema, rateLimits: RateLimitsSchema, audit: AuditSchema };
    for (const [top, schema] of Object.entries(nested)) {
      for (const key of keysOf(schema)) assert.ok(doc.includes(`| \`${top}.${key}\``), `${top}.${key}`);
    }
    assert.ok(doc.includes('| `demo.devHostnames`'));
  });

  it('lists every application and attestation key', () => {
    for (const key of APPLICATION_KEYS) assert.ok(doc.includes(`| \`${key}\``), key);
    for (const key of ATTESTATION_KEYS) assert.ok(doc.includes(`| \`attestation.${key}\``), key);
  });

  it('lists every environment variable with its setting', () => {
    for (const override of ENV_OVERRIDES)
      assert.ok(doc.includes(`| \`${override.name}\` | \`${override.key.join('.')}\` |`), override.name);
    for (const name of [USER_HANDLE_KEY_ENV, LOCAL_BLOB_KEYS_ENV, 'PASSKEY_LOG_LEVEL'])
      assert.ok(doc.includes(`| \`${name}\``), name);
  });
});
