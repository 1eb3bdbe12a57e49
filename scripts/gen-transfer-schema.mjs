#!/usr/bin/env node
// Writes docs/passkey-server-record.schema.json, the JSON Schema of one line of the service's own export
// format, from the schema the reader checks lines against (src/schemas/transfer.ts).
// test/schemas/transfer.test.ts fails when it differs, so after changing the format run:
//   npm run pretest && node scripts/gen-transfer-schema.mjs
// (It reads the tests' build, .build/.)
import { writeFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const { passkeyServerRecordJsonSchema } = await import(new URL('.build/src/schemas/transfer.js', root).href);
writeFileSync(
  new URL('docs/passkey-server-record.schema.json', root),
  `${JSON.stringify(passkeyServerRecordJsonSchema(), null, 2)}\n`,
);
