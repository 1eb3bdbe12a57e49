#!/usr/bin/env node
// passkey-server command line: `serve` (what `npm start` runs), `check-config`, `migrate`, `local-keys rotate`,
// `secrets init`, `apps list`, `metadata check`. See `passkey-server help` and docs/configuration.md.
import { processIo } from './io.js';
import { runCli } from './run.js';

const code = await runCli(process.argv.slice(2), processIo());
// `serve` keeps running (its signal handlers end the process); the other commands end here.
if (code !== undefined) process.exitCode = code;
