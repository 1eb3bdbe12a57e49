// Every `passkey-server <command>` the docs show runs as written in a fresh clone: written with `npx` (which
// finds the root package's own bin there, and an installed package's bin elsewhere) and naming a command
// the CLI has.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..', '..');
const cli = resolve(here, '..', '..', 'src', 'cli', 'bin.js');

function documents(): string[] {
  const docs = readdirSync(join(repo, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  const packages = readdirSync(join(repo, 'packages')).map((name) => join('packages', name, 'README.md'));
  return ['README.md', ...docs, ...packages];
}

/**
 * `[file:line, prefix, command]` of each use of the command in the docs. In a `podman|docker run|exec` command
 * (one line, or lines continued by `\`) it is the container image's entry point (docs/deployment.md, "Run the
 * image"): its prefix is `container`.
 */
function commandUses(): [string, string, string][] {
  const uses: [string, string, string][] = [];
  for (const file of documents()) {
    let command = '';
    readFileSync(join(repo, file), 'utf8')
      .split('\n')
      .forEach((line, index) => {
        command = command.endsWith('\\') ? `${command}\n${line}` : line;
        const inContainer = /\b(?:podman|docker) (?:run|exec)\b/.test(command);
        for (const match of line.matchAll(/(?<![\w/.@-])((?:npx (?:--no-install )?)?)passkey-server ([a-z][\w-]*)/g)) {
          uses.push([`${file}:${index + 1}`, inContainer ? 'container' : match[1]!, match[2]!]);
        }
      });
  }
  return uses;
}

describe('packages: the commands the docs show', () => {
  it('are written `npx passkey-server <command>` (or run in a container) and name commands the CLI lists', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [cli, 'help']);
    const commands = new Set([...stdout.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((match) => match[1]!));
    assert.ok(commands.has('serve') && commands.has('admin'), stdout);
    const uses = commandUses();
    assert.ok(uses.length > 10, 'the docs show commands');
    assert.deepEqual(
      uses.filter(([, prefix]) => prefix === ''),
      [],
      'without npx the command is not found in a clone',
    );
    assert.deepEqual(
      uses.filter(([, , command]) => !commands.has(command)),
      [],
      'not a command of the CLI',
    );
  });

  it('the root package names its bin, built with a shebang so npx can run it', () => {
    const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    assert.deepEqual(manifest.bin, { 'passkey-server': 'dist/cli/bin.js' });
    assert.match(readFileSync(cli, 'utf8'), /^#!\/usr\/bin\/env node\n/);
  });
});
