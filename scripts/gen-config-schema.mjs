#!/usr/bin/env node
// Writes assets/config.schema.json, the config file's JSON Schema for editors (a config file's `$schema`
// key may point at it), from its TypeBox definition in src/schemas/config.ts. test/config/schema.test.ts
// fails when the two differ, so after changing a key run:  npm run pretest && node scripts/gen-config-schema.mjs
// (It reads the tests' build, .build/.)
import { writeFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const { configJsonSchema } = await import(new URL('.build/src/schemas/config.js', root).href);
writeFileSync(new URL('assets/config.schema.json', root), `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
