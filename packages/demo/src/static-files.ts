// Serves the page files under `public/` of this package (packages/demo/public), found by climbing from this
// module: it runs from packages/demo/dist/ (or a compiled copy of its src/ under .build/).
// The browser helper is served from its installed package, as an integrator serves it without a bundler:
// its ES module files under /vendor/passkey-browser/, named in the page's import map.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** The page's own files (a fixed list, so no path from a request ever reaches the file system). */
const PAGE_FILES: Record<string, string> = {
  // The login page (built on the browser package's elements, which the relay serves).
  '/': 'index.html',
  '/index.html': 'index.html',
  '/login.js': 'login.js',
  '/site.css': 'site.css',
  // The developer bench (every authenticator option, raw answers), linked from the page's developer details.
  '/bench.html': 'bench.html',
  '/bench.css': 'bench.css',
  '/app.js': 'app.js',
  '/page.js': 'page.js',
  '/passkeys.js': 'passkeys.js',
  '/post-quantum.js': 'post-quantum.js',
};

export const BROWSER_HELPER_PATH = '/vendor/passkey-browser/';

export interface PageFiles {
  /** URL path → absolute file path. */
  readonly files: ReadonlyMap<string, string>;
  /** CSP sources ('sha256-…') of the inline scripts of the pages (the bench's import map). */
  readonly inlineScriptHashes: readonly string[];
}

export function findPublicFolder(start = dirname(fileURLToPath(import.meta.url))): string {
  let folder = start;
  for (let i = 0; i < 6; i += 1) {
    for (const candidate of [join(folder, 'public'), join(folder, 'packages', 'demo', 'public')])
      if (existsSync(join(candidate, 'index.html'))) return candidate;
    folder = resolve(folder, '..');
  }
  throw new Error(`public/index.html not found above ${start}`);
}

/** The folder of the installed browser helper's ES module build. */
export function browserHelperFolder(): string {
  return dirname(fileURLToPath(import.meta.resolve('@passkey-server/browser')));
}

/** Lists what the demo serves: the page files and every .js file of the browser helper's build. */
export function pageFiles(publicFolder = findPublicFolder(), helperFolder = browserHelperFolder()): PageFiles {
  const files = new Map(Object.entries(PAGE_FILES).map(([path, file]) => [path, join(publicFolder, file)]));
  for (const name of readdirSync(helperFolder, { recursive: true, encoding: 'utf8' })) {
    const path = name.split(sep).join('/');
    if (path.endsWith('.js')) files.set(`${BROWSER_HELPER_PATH}${path}`, join(helperFolder, name));
  }
  const html = ['index.html', 'bench.html'].map((name) => readFileSync(join(publicFolder, name), 'utf8')).join('\n');
  const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((match) => match[1]!);
  return {
    files,
    inlineScriptHashes: inline.map((text) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`),
  };
}

export async function serveStatic(page: PageFiles, pathname: string, response: ServerResponse): Promise<boolean> {
  const file = page.files.get(pathname);
  if (file === undefined) return false;
  const body = await readFile(file);
  response.statusCode = 200;
  response.setHeader('content-type', TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream');
  response.setHeader('cache-control', 'no-cache');
  response.end(body);
  return true;
}
