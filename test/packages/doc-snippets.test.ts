// The relay's code blocks an integrator copies besides the quickstart (docs/relay.md "Integrations" and
// "A user's own passkeys", packages/relay/README.md), run exactly as written (issue 33). Each block names
// its file on its first line; it is written into a folder of the repository's build (so `express`,
// `express-session`, `fastify`, `@fastify/*` and the relay resolve to this checkout's), beside the small
// modules of the integrator's own it imports (`my-app.mjs`, `my-sessions.mjs`, given here), and runs as
// its own process on real sockets, in front of a fake service. Every server refuses a stranger's
// registration (without asking the service, or, with `allowSignUp`, once the service's options show the
// name has a passkey) and a cross-site form; the `onResult` example keeps the token through "Add a passkey".
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { startApp, type AppProcess } from '../browser/doc-apps.js';
import { REPO } from '../browser/support.js';
import { freePort } from '../support/cli-process.js';
import { ok, post, startFakeService, type FakeService } from '../../packages/relay/test/fake-service.js';

/** Fenced blocks of `markdown` (indented ones too, dedented) whose first line is `// <name>`. */
function namedBlocks(markdown: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const match of markdown.matchAll(/^( *)```\w*\n([\s\S]*?)^\1```$/gm)) {
    const indent = match[1]!.length;
    const code = match[2]!
      .split('\n')
      .map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))
      .join('\n');
    const name = /^\/\/ ([\w.-]+\.(?:mjs|js))\n/.exec(code)?.[1];
    if (name) blocks.set(`${name}#${blocks.size}`, code);
  }
  return blocks;
}

/** The integrator's own modules the blocks import: a session object per `sid` cookie, and their app. */
const MY_APP = `const sessions = new Map();
export function sessionOf(request) {
  const sid = /sid=(\\w+)/.exec(request.headers.cookie ?? '')?.[1] ?? 'anonymous';
  if (!sessions.has(sid)) sessions.set(sid, {});
  return sessions.get(sid);
}
export function myApp(request, response) {
  response.statusCode = 404;
  response.end('my app');
}
`;
const MY_SESSIONS = MY_APP;

const RELAY_DOC = readFileSync(join(REPO, 'docs', 'relay.md'), 'utf8');
const README = readFileSync(join(REPO, 'packages', 'relay', 'README.md'), 'utf8');

describe('docs: the relay code blocks an integrator copies, run as written', { timeout: 120_000 }, () => {
  const dir = join(REPO, '.build', 'doc-snippets');
  const apps: AppProcess[] = [];
  const servers: { name: string; url: string; prefix: string; signUp: boolean }[] = [];
  let service: FakeService;

  before(async () => {
    await rm(dir, { recursive: true, force: true });
    service = await startFakeService();
    // alice has a passkey.
    service.answer('/api/attestation/options', () => ({
      body: ok({ challenge: 'c', excludeCredentials: [{ id: 'k' }] }),
    }));
    const section = RELAY_DOC.slice(RELAY_DOC.indexOf('\n## Integrations'), RELAY_DOC.indexOf('\n## Options'));
    const blocks = [
      ...[...namedBlocks(section)].map(([name, code]) => [`integrations ${name}`, code] as const),
      ...[...namedBlocks(README)].map(([name, code]) => [`relay README ${name}`, code] as const),
    ].filter(([, code]) => code.startsWith('// server.mjs'));
    assert.equal(blocks.length, 4, 'node:http, Express, Fastify, and the README');
    for (const [index, [name, code]] of blocks.entries()) {
      const folder = join(dir, `server-${index}`);
      await mkdir(folder, { recursive: true });
      await writeFile(join(folder, 'server.mjs'), code);
      await writeFile(join(folder, 'my-app.mjs'), MY_APP);
      const port = await freePort();
      apps.push(
        await startApp(
          folder,
          'server.mjs',
          {
            PORT: String(port),
            SESSION_SECRET: 'doc-snippets-session-secret-0123456789abcdef',
            PASSKEY_SERVICE_URL: service.url,
          },
          '',
        ),
      );
      const prefix = /prefix: '([^']+)'/.exec(code)?.[1] ?? '/relay';
      servers.push({ name, url: `http://127.0.0.1:${port}`, prefix, signUp: /allowSignUp: true/.test(code) });
    }
  });

  after(async () => {
    for (const app of apps) app.stop();
    await service?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('each server refuses a stranger adding a passkey to an account, and a cross-site form', async () => {
    for (const { name, url, prefix, signUp } of servers) {
      const before = service.seen.length;
      const stranger = await waitForAnswer(`${url}${prefix}/attestation/options`, {
        username: 'alice#idp.example.com',
      });
      assert.equal(stranger.status, 403, name);
      assert.equal((stranger.json.errorMessage as string[])[0], 'REGISTRATION_NOT_ALLOWED', name);
      assert.equal(stranger.json.challenge, undefined, name);
      // Without allowSignUp the session alone decides; with it, the service's options say alice has a passkey.
      assert.equal(service.seen.length, before + (signUp ? 1 : 0), name);
      const form = await post(`${url}${prefix}/credentials/delete`, 'credentialId=k', {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
      });
      assert.equal(form.status, 403, name);
      assert.equal((form.json.errorMessage as string[])[0], 'CROSS_SITE_REQUEST', name);
    }
  });

  it('the credentialsSession example keeps the token through "Add a passkey"', async () => {
    const [code] = [...namedBlocks(RELAY_DOC)].filter(([name]) => name.startsWith('credentials-session.mjs'));
    assert.ok(code, 'docs/relay.md shows credentials-session.mjs');
    const folder = join(dir, 'credentials-session');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'credentials-session.mjs'), code[1]);
    await writeFile(join(folder, 'my-sessions.mjs'), MY_SESSIONS);
    service.answer('/api/assertion/result', () => ({
      body: ok({ username: 'alice#idp.example.com', credentialsToken: 't1' }),
    }));
    service.answer('/api/attestation/result', () => ({ body: ok({ username: 'alice#idp.example.com' }) }));
    service.answer('/api/attestation/options', () => ({
      body: ok({ challenge: 'c', excludeCredentials: [{ id: 'k' }] }),
    }));
    service.answer('/api/credentials/list', ({ body }) => ({ body: ok({ username: body.username, credentials: [] }) }));
    process.env.PASSKEY_SERVICE_URL = service.url;
    let server: Server | undefined;
    try {
      const { relay } = (await import(join(folder, 'credentials-session.mjs'))) as {
        relay: { handler: Parameters<typeof createServer>[1] };
      };
      server = createServer(relay.handler);
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/relay`;
      const cookie = { cookie: 'sid=alice' };
      assert.equal((await post(`${url}/assertion/result`, { id: 'k', response: {} }, cookie)).status, 200);
      assert.equal(
        (await post(`${url}/attestation/options`, { username: 'alice#idp.example.com' }, cookie)).status,
        200,
      );
      assert.equal((await post(`${url}/attestation/result`, { id: 'k2', response: {} }, cookie)).status, 200);
      const list = await post(`${url}/credentials/list`, {}, cookie);
      assert.equal(list.status, 200, 'still signed in after adding a passkey');
      assert.deepEqual(service.seen.at(-1)!.body, { username: 'alice#idp.example.com', credentialsToken: 't1' });
      assert.equal((await post(`${url}/attestation/options`, { username: 'alice#idp.example.com' })).status, 403);
    } finally {
      delete process.env.PASSKEY_SERVICE_URL;
      server?.closeAllConnections();
      server?.close();
    }
  });
});

describe("docs: the TypeScript example of the hooks' typed request compiles as written", { timeout: 120_000 }, () => {
  it('server.ts: expressRelay<express.Request>, req.session of express-session', async () => {
    const found = /^```ts\n(\/\/ server\.ts\n[\s\S]*?)^```$/m.exec(RELAY_DOC);
    assert.ok(found, 'docs/relay.md shows server.ts');
    const folder = join(REPO, '.build', 'doc-snippets-ts');
    await rm(folder, { recursive: true, force: true });
    await mkdir(folder, { recursive: true });
    try {
      await writeFile(join(folder, 'server.ts'), found[1]!);
      const tsc = join(REPO, 'node_modules', '.bin', 'tsc');
      const flags = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext'];
      await promisify(execFile)(tsc, [...flags, '--target', 'es2022', '--types', 'node', 'server.ts'], {
        cwd: folder,
        timeout: 90_000,
      }).catch((error: { stdout?: string }) => assert.fail(`server.ts does not compile:\n${error.stdout ?? error}`));
      // The check can fail: a hook that reads what the session does not declare is a compile error.
      await writeFile(join(folder, 'server.ts'), found[1]!.replace('req.session.user', 'req.session.nobody'));
      await assert.rejects(
        promisify(execFile)(tsc, [...flags, '--target', 'es2022', '--types', 'node', 'server.ts'], {
          cwd: folder,
          timeout: 90_000,
        }),
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

/** The first answer of a server that is still starting (bounded). */
async function waitForAnswer(url: string, body: unknown): Promise<Awaited<ReturnType<typeof post>>> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      return await post(url, body);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
