// The admin API's import and export of passkeys (issue 34, docs/admin.md "Import and export passkeys") over
// the real sockets of a running service on a SQLite file: a dry run then the real run, whose passkeys sign in
// by name and without a name; refused records reported with their line and reason; the body never parsed as
// JSON whatever its Content-Type; a body far above the JSON limit streamed, its first batches stored before
// its last bytes are sent; the export streamed (chunked, no Content-Length) and imported back; bad
// parameters, an unknown application, a local-only one and a declared body above the limit refused by name;
// a client gone in the middle of its upload.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startService, type RunningService } from '../../../src/main.js';
import { runCliCommand } from '../../support/cli-process.js';
import { configDir } from '../../cli/support.js';
import { minimalApp } from '../../config/support.js';
import { exportedPasskey, jsonLines, signIn } from '../../support/imported-sign-in.js';

const sink = { write: () => true };
const APPS = [
  minimalApp({ algorithms: [-7, -257, -8] }),
  minimalApp({ clientId: 'app-2', name: 'App Two' }),
  minimalApp({ clientId: 'local-only', name: 'Local', variants: ['local'], origins: [], localOrigins: [] }),
  minimalApp({ clientId: 'app-3', name: 'App Three' }),
];

describe('admin API: import and export passkeys over the socket', () => {
  let running: RunningService;
  let token: string;

  before(async () => {
    const { dir, file } = configDir({ local: { enabled: false }, admin: { port: 0 }, applications: APPS });
    const made = await runCliCommand(['admin', 'token', 'create', 'transfer-test', '--config', file], { cwd: dir });
    token = (JSON.parse(made.stdout) as { token: string }).token;
    running = await startService({ configFile: file, env: {}, cwd: dir, stdout: sink, stderr: sink });
  });
  after(async () => {
    await running?.close();
  });

  const admin = (path: string, init: RequestInit = {}) =>
    fetch(`${running.adminUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) },
      signal: AbortSignal.timeout(60_000),
    });
  const importFile = async (clientId: string, query: string, body: BodyInit, headers: Record<string, string> = {}) => {
    const res = await admin(`/admin/applications/${clientId}/credentials/import?${query}`, {
      method: 'POST',
      body,
      headers,
      ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);
    return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as any };
  };
  /** The application's passkeys, page after page (at most ten pages). */
  const count = async (clientId: string): Promise<number> => {
    let total = 0;
    let after: string | null = '';
    for (let page = 0; page < 10 && after !== null; page++) {
      const res = await admin(`/admin/applications/${clientId}/credentials?limit=1000&after=${after}`);
      const body = (await res.json()) as { credentials: unknown[]; next: string | null };
      total += body.credentials.length;
      after = body.next;
    }
    return total;
  };

  it('a dry run stores nothing; the real run imports, and each passkey signs in by name and without one', async () => {
    const passkeys = [exportedPasskey('ann', -7, 41), exportedPasskey('bob', -257), exportedPasskey('carol', -8)];
    // Sent as application/json, yet JSON Lines: the body is the file, never parsed as one JSON document.
    const file = jsonLines(passkeys.map((p) => p.line));
    const dry = await importFile('app-1', 'from=passkey-server&dryRun=true', file, {
      'content-type': 'application/json',
    });
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.match(dry.type ?? '', /^application\/json/);
    assert.deepEqual(dry.body, { imported: 3, skipped: 0, refused: [], dryRun: true });
    assert.equal(await count('app-1'), 0, 'a dry run writes nothing');

    const real = await importFile('app-1', 'from=passkey-server&dryRun=false', file);
    assert.deepEqual(real.body, { imported: 3, skipped: 0, refused: [], dryRun: false });
    for (const { held, user } of passkeys) {
      const byName = await signIn(running.url, held, `${user}#idp.example.test`);
      assert.equal(byName.status, 200, JSON.stringify(byName.body));
      const nameless = await signIn(running.url, held, null);
      assert.equal(nameless.body.username, `${user}#idp.example.test`, JSON.stringify(nameless.body));
    }
    const again = await importFile('app-1', 'from=passkey-server', file, { 'content-type': 'text/plain' });
    assert.deepEqual(again.body, { imported: 0, skipped: 3, refused: [], dryRun: false }, 'dryRun defaults to false');

    const audit = await admin('/admin/audit?action=credential.import');
    const events = ((await audit.json()) as { events: { actor: string; details: Record<string, unknown> }[] }).events;
    assert.deepEqual(
      events.map((e) => [e.actor, e.details.dryRun, e.details.imported, e.details.skipped]),
      [
        ['admin:transfer-test', true, 3, 0],
        ['admin:transfer-test', false, 3, 0],
        ['admin:transfer-test', false, 0, 3],
      ],
    );
  });

  it('reports each refused record with its line and reason, and imports the others', async () => {
    const good = exportedPasskey('dora', -7);
    const lines = [
      'not json at all',
      good.line,
      { ...exportedPasskey('eve', -7).line, username: 'eve#other.example' },
      { ...exportedPasskey('fay', -7).line, publicKey: 'AAAA' },
    ];
    const report = await importFile('app-2', 'from=passkey-server', jsonLines(lines));
    assert.equal(report.status, 200);
    assert.equal(report.body.imported, 1);
    assert.deepEqual(
      report.body.refused.map((r: { line: number; reason: string }) => [r.line, r.reason]),
      [
        [1, 'MALFORMED_RECORD'],
        [3, 'USERNAME_DOMAIN_MISMATCH'],
        [4, 'INVALID_PUBLIC_KEY'],
      ],
    );
    for (const refusal of report.body.refused) assert.equal(typeof refusal.message, 'string');
  });

  it('streams a body far above the JSON limit: its first batches are stored before its last bytes are sent', async () => {
    const passkeys = Array.from({ length: 1200 }, (_, i) => exportedPasskey(`big${i}`, -7));
    const head = Buffer.from(jsonLines(passkeys.slice(0, 1000).map((p) => p.line)));
    const tail = Buffer.from(jsonLines(passkeys.slice(1000).map((p) => p.line)));
    assert.ok(head.length + tail.length > 10 * 65_536, "ten times the admin listener's JSON body limit");
    let storedBeforeTail = 0;
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        for (let at = 0; at < head.length; at += 16_384) controller.enqueue(head.subarray(at, at + 16_384));
        // Bounded wait until the importer wrote a batch (500 records) from what has arrived so far.
        for (let attempt = 0; attempt < 200 && storedBeforeTail < 500; attempt++) {
          storedBeforeTail = await count('app-1').then((n) => n - 3);
          if (storedBeforeTail < 500) await new Promise((done) => setTimeout(done, 50));
        }
        controller.enqueue(tail);
        controller.close();
      },
    });
    const report = await importFile('app-1', 'from=passkey-server', body, { 'content-type': 'application/x-ndjson' });
    assert.equal(report.status, 200, JSON.stringify(report.body));
    assert.deepEqual(report.body, { imported: 1200, skipped: 0, refused: [], dryRun: false });
    assert.ok(storedBeforeTail >= 500, `a batch stored before the body ended (saw ${storedBeforeTail})`);
  });

  it('exports as a stream (chunked JSON Lines, a download) that imports back unchanged', async () => {
    const res = await admin('/admin/applications/app-2/credentials/export?to=passkey-server');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/x-ndjson; charset=utf-8');
    assert.equal(res.headers.get('transfer-encoding'), 'chunked');
    assert.equal(res.headers.get('content-length'), null);
    assert.equal(res.headers.get('content-disposition'), 'attachment; filename="app-2-passkeys.jsonl"');
    const text = await res.text();
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      lines.map((l) => l.username),
      ['dora#idp.example.test'],
    );
    const big = await admin('/admin/applications/app-1/credentials/export');
    const all = (await big.text()).trimEnd().split('\n');
    assert.equal(all.length, 1203, 'every passkey, page after page');
    const back = await importFile('app-1', 'from=passkey-server&dryRun=true', `${all.join('\n')}\n`);
    assert.deepEqual(back.body, { imported: 0, skipped: 1203, refused: [], dryRun: true });

    const audit = await admin('/admin/audit?action=credential.export');
    const events = ((await audit.json()) as { events: { details: Record<string, unknown> }[] }).events;
    assert.deepEqual(
      events.map((e) => [e.details.exported, e.details.complete]),
      [
        [1, true],
        [1203, true],
      ],
    );
  });

  it('refuses bad parameters, an unknown or local-only application and a missing token by name', async () => {
    const file = jsonLines([exportedPasskey('gus', -7).line]);
    const refused = async (clientId: string, query: string) => {
      const answer = await importFile(clientId, query, file);
      return [answer.status, answer.body.error, answer.body.problems];
    };
    assert.deepEqual(await refused('app-1', 'dryRun=true'), [
      400,
      'INVALID_REQUEST',
      ['from: required, one of passkey-server, simplewebauthn, keycloak, hanko, line-fido2-server'],
    ]);
    assert.deepEqual(await refused('app-1', 'from=passkey-server&dryRun=yes'), [
      400,
      'INVALID_REQUEST',
      ['dryRun: true or false'],
    ]);
    const unknown = await refused('app-1', 'from=csv');
    assert.deepEqual(unknown.slice(0, 2), [400, 'INVALID_REQUEST']);
    assert.match((unknown[2] as string[])[0]!, /^from: one of passkey-server/);
    assert.deepEqual((await refused('nope', 'from=passkey-server')).slice(0, 2), [404, 'APPLICATION_NOT_FOUND']);
    assert.deepEqual((await refused('local-only', 'from=passkey-server')).slice(0, 2), [409, 'APPLICATION_LOCAL_ONLY']);
    assert.equal(await count('app-1'), 1203, 'nothing imported by a refused call');

    const exported = async (path: string) => {
      const res = await admin(path);
      return [res.status, ((await res.json()) as { error: string }).error];
    };
    assert.deepEqual(await exported('/admin/applications/app-1/credentials/export?to=nope'), [400, 'INVALID_REQUEST']);
    assert.deepEqual(await exported('/admin/applications/nope/credentials/export'), [404, 'APPLICATION_NOT_FOUND']);
    const anonymous = await fetch(`${running.adminUrl}/admin/applications/app-1/credentials/export`);
    assert.equal(anonymous.status, 401);
    const get = await admin('/admin/applications/app-1/credentials/import');
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
  });

  it('answers PAYLOAD_TOO_LARGE to a declared body above 1 GiB before reading it, and closes', async () => {
    const url = new URL('/admin/applications/app-1/credentials/import?from=passkey-server', running.adminUrl!);
    const answer = await new Promise<{ status: number; connection: string | undefined; body: string }>(
      (resolve, reject) => {
        const req = request(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-length': String(2 * 1024 ** 3) },
          timeout: 10_000,
        });
        req.on('response', (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body }));
        });
        req.on('timeout', () => req.destroy(new Error('no answer')));
        req.on('error', reject);
        req.write('{}\n');
      },
    );
    assert.equal(answer.status, 413);
    assert.equal(answer.connection, 'close');
    assert.equal((JSON.parse(answer.body) as { error: string }).error, 'PAYLOAD_TOO_LARGE');
  });

  it('a client gone in the middle of its upload: whole batches stay, and the same file again completes', async () => {
    const passkeys = Array.from({ length: 700 }, (_, i) => exportedPasskey(`gone${i}`, -7));
    const file = Buffer.from(jsonLines(passkeys.map((p) => p.line)));
    const url = new URL('/admin/applications/app-3/credentials/import?from=passkey-server', running.adminUrl!);
    const req = request(url, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    const gone = new Promise<void>((resolve) => req.on('close', resolve));
    req.on('error', () => {});
    // The first 600 lines, then nothing until a batch (500) is stored; then the connection is cut.
    req.write(file.subarray(0, file.indexOf('\n', file.length * (600 / 700)) + 1));
    let stored = 0;
    for (let attempt = 0; attempt < 200 && stored < 500; attempt++) {
      stored = await count('app-3');
      if (stored < 500) await new Promise((done) => setTimeout(done, 50));
    }
    req.destroy();
    await gone;
    assert.equal(stored, 500, 'one whole batch before the cut');
    // The import ends with the stream: the 100 lines after the batch are never written.
    await new Promise((done) => setTimeout(done, 300));
    assert.equal(await count('app-3'), 500);
    const again = await importFile('app-3', 'from=passkey-server', file);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.deepEqual(again.body, { imported: 200, skipped: 500, refused: [], dryRun: false });
    assert.equal(await count('app-3'), 700);
  });
});
