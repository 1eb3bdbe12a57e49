// What the tests of the docs' example apps share (quickstart.test.ts, examples.test.ts): the fenced code
// blocks of a doc section become the app's files, the app installs its packages from the npm registry and
// this repository's tarballs (test/packages/npm.ts), runs as its own process, and TLS sits in front of it
// as the docs ask. Every wait is bounded.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { dirname, join } from 'node:path';
import type { Page } from 'playwright-core';

/**
 * The fenced code blocks of the doc's section under `heading` (a `## ` line starting so), by the file name
 * each names in its first two lines (`// name`, `<!-- name -->`).
 */
export function sectionFiles(markdown: string, heading: string): Map<string, string> {
  const start = markdown.indexOf(`\n## ${heading}`);
  if (start < 0) throw new Error(`no section "## ${heading}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  const files = new Map<string, string>();
  for (const match of section.matchAll(/^```\w*\n([\s\S]*?)^```$/gm)) {
    const code = match[1]!;
    const named = code
      .split('\n')
      .slice(0, 2)
      .map((line) => /^(?:\/\/|<!--)\s*([\w./-]+\.(?:mjs|js|jsx|html))\s*(?:-->)?$/.exec(line)?.[1])
      .find(Boolean);
    if (named) files.set(named, code);
  }
  return files;
}

/**
 * The packages of the doc's `npm install …` line that names `framework`, as written (a `# comment` cut);
 * `-D` lines are not matched.
 */
export function installedPackages(markdown: string, framework: string): string[] {
  for (const line of markdown.split('\n')) {
    const words = line.replace(/#.*$/, '').trim().split(/\s+/);
    if (words[0] === 'npm' && words[1] === 'install' && words[2] === framework) return words.slice(2);
  }
  throw new Error(`no "npm install ${framework} …" line`);
}

/** Writes `files` (name → text, names may hold folders) under `dir`. */
export async function writeFiles(dir: string, files: ReadonlyMap<string, string>): Promise<void> {
  for (const [name, code] of files) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), code);
  }
}

/**
 * TLS in front of an app, as the docs ask: every request passed through to the app's port, with the
 * `X-Forwarded-Proto` and `X-Forwarded-For` a TLS proxy adds (so the app's session sets its Secure cookie).
 */
export function tlsFront(certChain: string, key: string, appPort: number): Server {
  return createHttpsServer({ cert: certChain, key }, (incoming, outgoing) => {
    const headers = {
      ...incoming.headers,
      'x-forwarded-proto': 'https',
      'x-forwarded-for': incoming.socket.remoteAddress ?? '127.0.0.1',
    };
    const forward = httpRequest(
      { host: '127.0.0.1', port: appPort, method: incoming.method, path: incoming.url, headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on('error', () => outgoing.destroy());
    incoming.pipe(forward);
  });
}

/**
 * Listens on 127.0.0.1 at `port`, by default one the kernel picks, and resolves with the port; rejects if
 * listening fails (say, the port was taken), so a test never waits on a listen that will not happen.
 */
export function listenLocal(server: Server, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export interface AppProcess {
  readonly process: ChildProcess;
  output(): string;
  stop(): void;
}

/** `node <script>` in `dir` with `env`; resolves once it printed `ready` (bounded), else rejects with its output. */
export async function startApp(
  dir: string,
  script: string,
  env: Readonly<Record<string, string>>,
  ready: string,
): Promise<AppProcess> {
  let output = '';
  const child = spawn(process.execPath, [script], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  child.stdout!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  const deadline = Date.now() + 20_000;
  while (!output.includes(ready)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${script} did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { process: child, output: () => output, stop: () => void child.kill('SIGTERM') };
}

/** Waits (bounded) until the element matching `selector` shows text, and returns it. */
export async function textOf(page: Page, selector: string): Promise<string> {
  await page.waitForFunction(
    (wanted) => {
      const node = document.querySelector(wanted) as HTMLElement | null;
      return node !== null && !node.hidden && (node.textContent ?? '').trim() !== '';
    },
    selector,
    { timeout: 20_000 },
  );
  return ((await page.textContent(selector)) ?? '').trim();
}
