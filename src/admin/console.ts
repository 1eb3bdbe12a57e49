// The web console's files on the admin listener, under /console/: what `npm run build` made with Vite in
// console/dist/ (repository root, or the installed package's root), found by climbing from this module (it
// runs from dist/admin/, .build/src/admin/ or a helper's .build-<name>/src/admin/). Read once, on the
// first request, into memory: a fixed set of files, so no path of a request reaches the file system. Every
// answer carries a strict Content-Security-Policy: scripts and styles only from the listener's own files,
// no inline script or style, no connection but to the listener itself (docs/admin.md, "Console").
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Answer } from './answers.js';

export const CONSOLE_PATH = '/console/';

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // The authenticators' icons are data: URIs (docs/admin.md, "Credentials of an application").
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  // The sign-in form is never submitted: a browser without the script must not put the token in a URL.
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** console/dist above `start`, or null when the console was not built. */
export function findConsoleFolder(start = dirname(fileURLToPath(import.meta.url))): string | null {
  let folder = start;
  for (let i = 0; i < 6; i += 1) {
    const candidate = join(folder, 'console', 'dist');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    folder = resolve(folder, '..');
  }
  return null;
}

interface ConsoleFile {
  readonly body: string;
  readonly contentType: string;
  /** Vite names its assets by their hash: they never change under one name. */
  readonly immutable: boolean;
}

/** URL path → file, for index.html and the files of assets/ (text files only). */
function readConsole(folder: string): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  const index = readFileSync(join(folder, 'index.html'), 'utf8');
  files.set(CONSOLE_PATH, { body: index, contentType: TYPES['.html']!, immutable: false });
  const assets = join(folder, 'assets');
  for (const name of existsSync(assets) ? readdirSync(assets) : []) {
    const type = TYPES[name.slice(name.lastIndexOf('.'))];
    if (type === undefined) continue;
    const body = readFileSync(join(assets, name), 'utf8');
    files.set(`${CONSOLE_PATH}assets/${name}`, { body, contentType: type, immutable: true });
  }
  return files;
}

export type ConsoleFiles = (path: string, method: string) => Answer;

/**
 * The answers of the console's paths: GET or HEAD of a known file, `/console` redirected to `/console/`,
 * anything else 404 (405 for another method). `folder` null: the console was not built (404 saying so).
 */
export function consoleFiles(folder: string | null = findConsoleFolder()): ConsoleFiles {
  let files: Map<string, ConsoleFile> | undefined;
  const plain = (status: number, text: string, headers: Record<string, string> = {}): Answer => ({
    status,
    body: `${text}\n`,
    contentType: 'text/plain; charset=utf-8',
    headers: { ...SECURITY_HEADERS, ...headers },
  });
  return (path, method) => {
    if (method !== 'GET' && method !== 'HEAD') return plain(405, 'Method not allowed.', { allow: 'GET, HEAD' });
    if (path === '/console') return plain(308, 'See /console/.', { location: CONSOLE_PATH });
    if (folder === null) return plain(404, 'The console was not built (npm run build).');
    files ??= readConsole(folder);
    const file = files.get(path === `${CONSOLE_PATH}index.html` ? CONSOLE_PATH : path);
    if (file === undefined) return plain(404, 'Not found.');
    return {
      status: 200,
      body: file.body,
      contentType: file.contentType,
      headers: {
        ...SECURITY_HEADERS,
        'cache-control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      },
    };
  };
}
