// The package's README matches its API (issue 33): every name a snippet imports from the package is one of
// its exports, every call and building block the tables name is one, every exported function is named in
// the README, and every JavaScript block parses as the module a reader would paste (node --check).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as browser from '../src/index.js';

const here = dirname(fileURLToPath(import.meta.url));
// The tests' build runs from .build/packages/browser/test/; the README is in the repository's package.
const readme = readFileSync(resolve(here, '..', '..', '..', '..', 'packages', 'browser', 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]!);
const exported = new Set(Object.keys(browser));

describe('browser package: its README matches its API', () => {
  it('has JavaScript snippets, and each imports only names the package exports', () => {
    assert.ok(blocks.length >= 3, 'the README shows code');
    for (const block of blocks) {
      for (const match of block.matchAll(/import \{([^}]*)\} from '@passkey-server\/browser'/g)) {
        const names = match[1]!
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean);
        assert.deepEqual(
          names.filter((name) => !exported.has(name)),
          [],
          block,
        );
      }
    }
  });

  it('names in its tables only functions the package exports, and names every exported function', () => {
    const tabled = [...readme.matchAll(/^\| `([a-zA-Z]+)\(/gm)].map((match) => match[1]!);
    assert.ok(tabled.includes('renamePasskey') && tabled.includes('signIn'), tabled.join(' '));
    assert.deepEqual(
      tabled.filter((name) => !exported.has(name)),
      [],
    );
    const functions = Object.entries(browser)
      .filter(([name, value]) => typeof value === 'function' && /^[a-z]/.test(name))
      .map(([name]) => name);
    assert.deepEqual(
      functions.filter((name) => !readme.includes(`\`${name}`) && !readme.includes(` ${name}(`)),
      [],
    );
  });

  it('every JavaScript block parses as an ES module', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'browser-readme-'));
    try {
      for (const [index, block] of blocks.entries()) {
        const file = join(dir, `snippet-${index}.mjs`);
        writeFileSync(file, block);
        await promisify(execFile)(process.execPath, ['--check', file], { timeout: 10_000 }).catch((error) => {
          assert.fail(`snippet ${index} does not parse:\n${block}\n${String(error.stderr ?? error)}`);
        });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
