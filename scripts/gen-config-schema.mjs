#!/usr/bin/env node
// Writes what is generated from the config file's schema (src/schemas/config.ts and its parts):
// assets/config.schema.json, the file's JSON Schema for editors (a config file's `$schema` key may point at
// it), and docs/configuration.md's tables of keys, defaults and environment variables (between its
// `<!-- generated: … -->` markers). test/config/schema.test.ts and test/schemas/config-docs.test.ts fail
// when they differ from the schema, so after changing a key run:
//   npm run pretest && node scripts/gen-config-schema.mjs
// (It reads the tests' build, .build/.)
import { readFileSync, writeFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const { configJsonSchema } = await import(new URL('.build/src/schemas/config.js', root).href);
const { withConfigTables } = await import(new URL('.build/src/schemas/config-docs.js', root).href);
writeFileSync(new URL('assets/config.schema.json', root), `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
const doc = new URL('docs/configuration.md', root);
writeFileSync(doc, withConfigTables(readFileSync(doc, 'utf8')));
