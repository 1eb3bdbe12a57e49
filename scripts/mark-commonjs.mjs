#!/usr/bin/env node
// Marks a CommonJS build folder of a "type": "module" package: Node.js and TypeScript read the nearest
// package.json, so this one file makes the .js and .d.ts files below it CommonJS.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const folder = process.argv[2];
if (!folder) {
  console.error('usage: mark-commonjs.mjs <folder>');
  process.exit(2);
}
writeFileSync(join(folder, 'package.json'), '{\n  "type": "commonjs"\n}\n');
