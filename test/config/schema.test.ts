// The config file's schema (src/schemas/config.ts) is where the loader's known keys come from and what
// editors read (assets/config.schema.json). Kept true here: the shipped file is the schema written out, the
// documented examples and the built-in configuration pass it, and shape mistakes fail both it and the loader.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtInConfig, validateConfig } from '../../src/config/load.js';
import { Problems } from '../../src/config/checks.js';
import { ApplicationConfigSchema } from '../../src/schemas/applications.js';
import { configJsonSchema, ConfigFileSchema } from '../../src/schemas/config.js';
import { compile } from '../../src/schemas/typebox.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const schema = compile(ConfigFileSchema);

/** The first ```json block after `marker` in a doc. */
function example(doc: string, marker: string): unknown {
  const text = readFileSync(join(repo, 'docs', doc), 'utf8');
  const from = text.indexOf('```json', text.indexOf(marker));
  return JSON.parse(text.slice(from + 7, text.indexOf('```', from + 7)));
}

function loaderProblems(raw: unknown): string[] {
  const problems = new Problems();
  validateConfig(raw, problems, (_key, value) => join('/tmp', value));
  return problems.list;
}

describe('the config file schema', () => {
  it('is what assets/config.schema.json holds (regenerate: node scripts/gen-config-schema.mjs)', () => {
    const shipped = readFileSync(join(repo, 'assets', 'config.schema.json'), 'utf8');
    assert.equal(shipped, `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
  });

  it('accepts the built-in configuration and the documented examples', () => {
    const configs = {
      builtIn: builtInConfig(),
      configuration: example('configuration.md', 'Unknown keys are errors'),
      decisions: example('decisions.md', 'The config file has at least these keys'),
    };
    for (const [name, config] of Object.entries(configs)) assert.deepEqual(schema.explain(config), [], name);
  });

  it('refuses the shape mistakes the loader refuses, at the same key', () => {
    const base = builtInConfig();
    const app = (base.applications as Record<string, unknown>[])[0]!;
    const cases: [string, Record<string, unknown>][] = [
      ['databse', { ...base, databse: 'sqlite:x.db' }],
      ['listen.port', { ...base, listen: { port: 70_000 } }],
      ['limits.usernameLength', { ...base, limits: { usernameLength: 2 } }],
      ['applications[0].timeoutMs', { ...base, applications: [{ ...app, timeoutMs: 5 }] }],
      ['applications[0].variants[0]', { ...base, applications: [{ ...app, variants: ['global'] }] }],
      [
        'applications[0].attestation.trustAnchor',
        { ...base, applications: [{ ...app, attestation: { trustAnchor: [] } }] },
      ],
      ['admin.prot', { ...base, admin: { prot: 1 } }],
      ['rateLimits.perAddress.burst', { ...base, rateLimits: { perAddress: { burst: 0, perSecond: 1 } } }],
    ];
    for (const [key, config] of cases) {
      assert.notDeepEqual(schema.explain(config), [], `the schema accepts a bad ${key}`);
      assert.ok(
        loaderProblems(config).some((p) => p.startsWith(key)),
        `the loader accepts a bad ${key}: ${loaderProblems(config).join('; ')}`,
      );
    }
    assert.deepEqual(loaderProblems(base), []);
  });

  it('a validated application is what ApplicationConfigSchema (the type of ApplicationConfig) says', () => {
    const base = builtInConfig();
    const app = {
      ...(base.applications as Record<string, unknown>[])[0]!,
      hints: ['hybrid'],
      backupEligibility: 'required',
    };
    const config = validateConfig({ ...base, applications: [app] }, new Problems(), (_key, value) =>
      join('/tmp', value),
    );
    assert.ok(config !== undefined);
    assert.deepEqual(compile(ApplicationConfigSchema).explain(config.applications[0]), []);
  });
});
