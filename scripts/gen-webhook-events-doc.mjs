#!/usr/bin/env node
// Writes docs/admin.md's table of webhook events from their one catalogue, src/schemas/webhook-events.ts
// (between the doc's `<!-- generated: webhook-events … -->` markers). test/schemas/webhook-events.test.ts
// fails when the two differ, so after adding or changing an event run:
//   npm run pretest && node scripts/gen-webhook-events-doc.mjs
// (It reads the tests' build, .build/.)
import { readFileSync, writeFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const { withWebhookEventsTable } = await import(new URL('.build/src/schemas/webhook-events.js', root).href);
const doc = new URL('docs/admin.md', root);
writeFileSync(doc, withWebhookEventsTable(readFileSync(doc, 'utf8')));
