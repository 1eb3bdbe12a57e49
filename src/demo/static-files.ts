// Serves the page files under `demo/public/` (repository root), found by climbing from this module:
// it runs from dist/demo/, .build/src/demo/ or a helper's .build-<name>/src/demo/.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** The only files served: a fixed list, so no path from a request ever reaches the file system. */
const FILES: Record<string, string> = {
  '/': 'index.html',
  '/index.html': 'index.html',
  '/app.js': 'app.js',
  '/webauthn-json.js': 'webauthn-json.js',
  '/style.css': 'style.css',
};

export function findPublicFolder(start = dirname(fileURLToPath(import.meta.url))): string {
  let folder = start;
  for (let i = 0; i < 6; i += 1) {
    const candidate = join(folder, 'demo', 'public');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    folder = resolve(folder, '..');
  }
  throw new Error(`demo/public/index.html not found above ${start}`);
}

export async function serveStatic(publicFolder: string, pathname: string, response: ServerResponse): Promise<boolean> {
  const file = FILES[pathname];
  if (file === undefined) return false;
  const body = await readFile(join(publicFolder, file));
  response.statusCode = 200;
  response.setHeader('content-type', TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream');
  response.setHeader('cache-control', 'no-cache');
  response.end(body);
  return true;
}
