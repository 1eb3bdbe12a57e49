// Reloading metadata BLOBs in a running service: prepareTrust's evaluators (configured applications) and
// the stored directory's (admin-created ones) are swapped only for a BLOB that verifies; one that does not
// leaves the previous evaluator in use, is logged naming the application and reported as a failure, and the
// service serves on. Evaluators built on demand check their BLOB at the runtime clock's time. The periodic
// file check notices a replaced file. POST /admin/metadata/reload answers the report (and is audited).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareTrust } from '../../src/applications/config-directory.js';
import { MemoryApplicationStore } from '../../src/stores/memory/applications.js';
import { StoredApplicationDirectory } from '../../src/applications/directory.js';
import { metadataCheckIntervalMs } from '../../src/config/env.js';
import { FileAdminTokenStore } from '../../src/admin/tokens.js';
import type { AttestationPolicy, ApplicationConfig } from '../../src/service-config.js';
import { loadConfig } from '../../src/config/load.js';
import { startService } from '../../src/main.js';
import { metadataFilesOf, watchMetadataFiles, type FileStamp } from '../../src/applications/metadata-watch.js';
import { openApiDocument } from '../../src/admin/openapi.js';
import { checkResponse } from '../support/openapi-lookup.js';
import { createMetadataReloader } from '../../src/applications/trust-reload.js';
import { systemRuntime, type Runtime } from '../../src/util/runtime.js';
import type { LoadedTrustEvaluator } from '../../src/webauthn/trust.js';
import { createTestMds, createTestMdsCrls, type TestMds } from '../support/mds.js';
import { tempDir, writeFile } from '../config/support.js';
import { captureLog } from '../support/admin-fixtures.js';
import { MODEL_AAGUID, ModelUser, eventually, metadataFixture, outcome } from '../e2e/metadata-support.js';

const NOW = new Date('2030-06-01T00:00:00Z');

/** The config file of the fixture's application (SQLite in `dir`, port 0: the admin listener on a free port). */
function configWith(dir: string, applications: readonly Record<string, unknown>[]): string {
  return writeFile(dir, 'config.json', {
    listen: { host: '127.0.0.1', port: 0 },
    database: `sqlite:${join(dir, 'passkeys.db')}`,
    dataDir: join(dir, 'data'),
    local: { enabled: false },
    demo: { enabled: false },
    applications,
  });
}

function capture() {
  let text = '';
  return {
    stream: {
      write: (chunk: string) => {
        text += chunk;
        return true;
      },
    },
    text: () => text,
  };
}

/** The JSON lines of a captured service log. */
function logLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * Writes the two CRLs of the test MDS chain, current from `thisUpdate` to `nextUpdate`, renamed into place the
 * way an operator's fetch script does; returns their paths (intermediate's CRL first, then the root's).
 */
function writeCrls(dir: string, mds: TestMds, thisUpdate: string, nextUpdate: string): string[] {
  const at = { thisUpdate: new Date(thisUpdate), nextUpdate: new Date(nextUpdate) };
  const crls = createTestMdsCrls(mds, { root: at, intermediate: at });
  return [
    ['mds-ca.crl', crls.intermediate.der],
    ['mds-root.crl', crls.root.der],
  ].map(([name, der]) => {
    const file = join(dir, name as string);
    writeFileSync(`${file}.tmp`, der as Buffer);
    renameSync(`${file}.tmp`, file);
    return file;
  });
}

/** A BLOB of the right shape for the fixture's model, but signed under a root the application does not trust. */
function foreignBlob(file: string): void {
  const foreign = createTestMds();
  writeFileSync(file, foreign.sign({ legalHeader: 'x', no: 9, nextUpdate: '2049-12-31', entries: [] }));
}

describe('prepareTrust', () => {
  it("builds an evaluator of a policy it did not prepare at the runtime clock's time, not the system clock's", () => {
    const seen: (Date | undefined)[] = [];
    const load = (_policy: AttestationPolicy, options: { now?: Date }): LoadedTrustEvaluator => {
      seen.push(options.now);
      return { evaluate: () => ({ trusted: false, aaguidProven: false, authenticatorName: null }), metadataInfo: null };
    };
    const trust = prepareTrust([], NOW, 'test', { load, clock: () => NOW.getTime() + 1000 });
    trust.buildTrust({ trustAnchors: [], requireTrusted: false, metadata: null, aaguidAllow: [], aaguidDeny: [] });
    assert.deepEqual(seen, [new Date(NOW.getTime() + 1000)]);
  });

  it('reloadMetadata takes a BLOB that verifies and keeps the previous evaluator for one that does not', () => {
    const dir = tempDir('passkey-reload-');
    const fixture = metadataFixture(dir);
    const config = loadConfig({ file: configWith(dir, fixture.applications), env: {}, cwd: dir });
    const trust = prepareTrust(config.applications, NOW, 'test');
    const policy = config.applications[0]!.attestation;
    const first = trust.buildTrust(policy);

    foreignBlob(fixture.blobFile);
    const [failed] = trust.reloadMetadata(NOW);
    assert.match(String((failed?.error as Error | undefined)?.message ?? failed?.error), /METADATA_BLOB_/);
    assert.deepEqual([failed?.before?.serial, failed?.after?.serial], [1, 1]);
    assert.equal(trust.buildTrust(policy), first, 'the previous evaluator stays');

    renameSync(fixture.writeBlob('newer.jwt', 2, true), fixture.blobFile);
    const [taken] = trust.reloadMetadata(NOW);
    assert.equal(taken?.error, undefined);
    assert.deepEqual(
      [taken?.clientIds, taken?.before?.serial, taken?.after?.serial],
      [[config.applications[0]!.clientId], 1, 2],
    );
    const now = trust.buildTrust(policy);
    assert.notEqual(now, first);
    assert.throws(
      () => now.checkAuthentication?.({ aaguid: MODEL_AAGUID, now: NOW }),
      /AUTHENTICATOR_STATUS_NOT_ACCEPTED/,
    );
  });
});

describe('StoredApplicationDirectory.reloadMetadataTrust (admin-created applications)', () => {
  it('rebuilds evaluators that read a BLOB, drops cached lookups, keeps an evaluator whose new BLOB does not verify', async () => {
    const dir = tempDir('passkey-reload-');
    const fixture = metadataFixture(dir);
    const [raw] = fixture.applications;
    const config = loadConfig({ file: configWith(dir, [{ ...raw, clientId: 'admin-made' }]), env: {}, cwd: dir })
      .applications[0]!;
    const store = new MemoryApplicationStore();
    await store.create({ config, approved: true, disabled: false, source: 'admin', createdAt: 0, updatedAt: 0 });
    // Not a configured application: prepareTrust builds it on demand, at the clock's time.
    const trust = prepareTrust([], NOW, 'test', { clock: () => NOW.getTime() });
    const directory = new StoredApplicationDirectory({
      store,
      buildTrust: trust.buildTrust,
      now: () => NOW.getTime(),
      cacheMs: 60_000,
    });
    const before = (await directory.find('admin-made'))!.trust;
    assert.deepEqual(directory.metadataFiles(), [fixture.blobFile]);

    foreignBlob(fixture.blobFile);
    const [failed] = directory.reloadMetadataTrust();
    assert.ok(failed?.error, 'the new BLOB was refused');
    assert.deepEqual(failed?.clientIds, ['admin-made']);
    assert.equal((await directory.find('admin-made'))!.trust, before, 'the previous evaluator stays in use');

    renameSync(fixture.writeBlob('newer.jwt', 2, true), fixture.blobFile);
    const [taken] = directory.reloadMetadataTrust();
    assert.equal(taken?.error, undefined);
    const after = (await directory.find('admin-made'))!.trust;
    assert.notEqual(after, before, 'the cached lookup was dropped and the new evaluator is used');
    assert.throws(
      () => after.checkAuthentication?.({ aaguid: MODEL_AAGUID, now: NOW }),
      /AUTHENTICATOR_STATUS_NOT_ACCEPTED/,
    );
  });
});

describe('createMetadataReloader', () => {
  it('reports per application, logs a failure naming the application and the error, and never rejects for a BLOB', async () => {
    const dir = tempDir('passkey-reload-');
    const fixture = metadataFixture(dir);
    const configs: readonly ApplicationConfig[] = loadConfig({
      file: configWith(dir, fixture.applications),
      env: {},
      cwd: dir,
    }).applications;
    const trust = prepareTrust(configs, NOW, 'test');
    const directory = new StoredApplicationDirectory({
      store: new MemoryApplicationStore(),
      buildTrust: trust.buildTrust,
      now: () => NOW.getTime(),
    });
    const log = captureLog();
    const reload = createMetadataReloader({ trust, directory, now: () => NOW.getTime(), log });
    const clientId = configs[0]!.clientId;

    const same = await reload();
    assert.equal(same.ok, true);
    assert.equal(same.changed, false);
    assert.equal(same.at, NOW.toISOString());
    assert.deepEqual(
      same.applications.map((a) => [a.clientId, a.source, a.serialBefore, a.serial, a.entries]),
      [[clientId, 'config', 1, 1, 1]],
    );
    // No attestation.metadataCrls: the report and the log line say the chain's revocation was not checked.
    assert.equal(same.applications[0]?.revocationChecked, false);
    const reloaded = log.lines.find((line) => line.fields.event === 'metadata_reloaded');
    assert.deepEqual(
      [reloaded?.message, reloaded?.fields.serial, reloaded?.fields.revocationChecked],
      ['metadata BLOB loaded', 1, false],
    );

    rmSync(fixture.blobFile);
    const gone = await reload();
    assert.equal(gone.ok, false);
    assert.equal(gone.applications[0]?.serial, 1, 'the BLOB in use is still no 1');
    writeFileSync(fixture.blobFile, 'not a JWS');
    const broken = await reload();
    assert.equal(broken.ok, false);
    assert.match(broken.applications[0]?.error ?? '', /^METADATA_BLOB_INVALID/);
    const logged = log.lines.filter((line) => line.level === 'error');
    assert.equal(logged.length, 2);
    assert.equal(logged[1]?.fields.clientId, clientId);
    assert.match(String(logged[1]?.fields.error), /^METADATA_BLOB_INVALID/);
    assert.match(
      logged[1]?.message ?? '',
      /the previous BLOB stays in use: install a valid BLOB \(docs\/attestation\.md\)$/,
    );

    renameSync(fixture.writeBlob('newer.jwt', 5, false), fixture.blobFile);
    const newer = await reload();
    assert.deepEqual(
      [newer.ok, newer.changed, newer.applications[0]?.serialBefore, newer.applications[0]?.serial],
      [true, true, 1, 5],
    );
    assert.ok(
      log.lines.some(
        (line) =>
          line.fields.event === 'metadata_reloaded' && line.fields.serial === 5 && line.fields.previousSerial === 1,
      ),
    );
  });
});

describe('the periodic metadata check', () => {
  function fakeFiles() {
    const stamps = new Map<string, FileStamp>();
    return {
      set: (file: string, stamp: FileStamp | undefined) => (stamp ? stamps.set(file, stamp) : stamps.delete(file)),
      stat: async (file: string) => {
        const stamp = stamps.get(file);
        if (!stamp) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
        return stamp;
      },
    };
  }

  it("reloads when a file's mtime, size or inode changed, not when it vanished, and survives a failing reload", async () => {
    const files = fakeFiles();
    files.set('/m/a.jwt', { mtimeMs: 1, size: 10, ino: 1 });
    const changes: (readonly string[])[] = [];
    let fail = false;
    const log = captureLog();
    const watch = watchMetadataFiles({
      files: () => ['/m/a.jwt', '/m/a.jwt'],
      intervalMs: 0,
      log,
      stat: files.stat,
      baseline: new Map([['/m/a.jwt', { mtimeMs: 1, size: 10, ino: 1 }]]),
      onChange: async (changed) => {
        changes.push(changed);
        if (fail) throw new Error('reload broke');
      },
    });
    assert.equal(await watch.check(), false, 'unchanged');
    files.set('/m/a.jwt', { mtimeMs: 1, size: 10, ino: 2 });
    assert.equal(await watch.check(), true, 'renamed into place: new inode');
    assert.equal(await watch.check(), false);
    files.set('/m/a.jwt', { mtimeMs: 2, size: 10, ino: 2 });
    fail = true;
    assert.equal(await watch.check(), true, 'mtime');
    assert.ok(log.lines.some((line) => line.level === 'error' && /reload broke/.test(String(line.fields.error))));
    fail = false;
    files.set('/m/a.jwt', undefined);
    assert.equal(await watch.check(), false, 'a vanished file is not reloaded');
    assert.ok(log.lines.some((line) => line.level === 'warn'));
    files.set('/m/a.jwt', { mtimeMs: 3, size: 11, ino: 3 });
    assert.equal(await watch.check(), true, 'it came back');
    assert.deepEqual(changes, [['/m/a.jwt'], ['/m/a.jwt'], ['/m/a.jwt']]);
    watch.stop();
  });

  it('learns a file at first sight without reloading (an application created later)', async () => {
    const files = fakeFiles();
    files.set('/m/b.jwt', { mtimeMs: 1, size: 1, ino: 1 });
    let calls = 0;
    const watch = watchMetadataFiles({
      files: () => ['/m/b.jwt'],
      intervalMs: 0,
      log: captureLog(),
      stat: files.stat,
      onChange: async () => {
        calls += 1;
      },
    });
    assert.equal(await watch.check(), false);
    files.set('/m/b.jwt', { mtimeMs: 2, size: 1, ino: 1 });
    assert.equal(await watch.check(), true);
    assert.equal(calls, 1);
    watch.stop();
  });

  it('watches the CRL files of a BLOB too (attestation.metadataCrls): a changed CRL alone reloads', async () => {
    const policy: AttestationPolicy = {
      trustAnchors: [],
      requireTrusted: false,
      metadata: '/m/c.jwt',
      aaguidAllow: [],
      aaguidDeny: [],
      metadataCrls: ['/m/ca.crl', '/m/root.crl'],
    };
    assert.deepEqual(metadataFilesOf(policy), ['/m/c.jwt', '/m/ca.crl', '/m/root.crl']);
    assert.deepEqual(metadataFilesOf({ ...policy, metadata: null }), [], 'no BLOB, nothing to reload');
    const { metadataCrls: _none, ...withoutCrls } = policy;
    assert.deepEqual(metadataFilesOf(withoutCrls), ['/m/c.jwt']);

    // The stored directory lists the CRLs of the policies it built (admin-created applications).
    const store = new MemoryApplicationStore();
    const config = loadConfig({ env: {}, cwd: tempDir('passkey-reload-') }).applications[0]!;
    await store.create({
      config: { ...config, clientId: 'with-crls', attestation: policy },
      approved: true,
      disabled: false,
      source: 'admin',
      createdAt: 0,
      updatedAt: 0,
    });
    const directory = new StoredApplicationDirectory({
      store,
      buildTrust: () => ({ evaluate: () => ({ trusted: false, aaguidProven: false, authenticatorName: null }) }),
      now: () => NOW.getTime(),
    });
    assert.ok(await directory.find('with-crls'));
    assert.deepEqual(directory.metadataFiles(), ['/m/c.jwt', '/m/ca.crl', '/m/root.crl']);

    const files = fakeFiles();
    for (const [i, file] of directory.metadataFiles().entries()) files.set(file, { mtimeMs: 1, size: 10, ino: i + 1 });
    const changes: (readonly string[])[] = [];
    const log = captureLog();
    const watch = watchMetadataFiles({
      files: () => directory.metadataFiles(),
      intervalMs: 0,
      log,
      stat: files.stat,
      onChange: async (changed) => {
        changes.push(changed);
      },
    });
    assert.equal(await watch.check(), false, 'first sight');
    files.set('/m/ca.crl', { mtimeMs: 2, size: 11, ino: 9 });
    assert.equal(await watch.check(), true, 'a refreshed CRL');
    assert.deepEqual(changes, [['/m/ca.crl']]);
    assert.ok(
      log.lines.some((line) => line.fields.event === 'metadata_file_changed' && /BLOB or CRL/.test(line.message)),
    );
    watch.stop();
  });

  it('PASSKEY_METADATA_CHECK_INTERVAL_MS: default 60 s, 0 disables, a bad value is a problem', () => {
    const problems: string[] = [];
    assert.equal(metadataCheckIntervalMs({}, problems), 60_000);
    assert.equal(metadataCheckIntervalMs({ PASSKEY_METADATA_CHECK_INTERVAL_MS: '' }, problems), 60_000);
    assert.equal(metadataCheckIntervalMs({ PASSKEY_METADATA_CHECK_INTERVAL_MS: '0' }, problems), 0);
    assert.equal(metadataCheckIntervalMs({ PASSKEY_METADATA_CHECK_INTERVAL_MS: '1500' }, problems), 1500);
    assert.deepEqual(problems, []);
    for (const bad of ['-1', '1.5', 'soon', '86400001'])
      metadataCheckIntervalMs({ PASSKEY_METADATA_CHECK_INTERVAL_MS: bad }, problems);
    assert.equal(problems.length, 4);
    assert.match(problems[0]!, /^PASSKEY_METADATA_CHECK_INTERVAL_MS: /);
  });
});

describe('RunningService.reloadMetadata', () => {
  it('a BLOB that fails verification at reload leaves the old evaluators in place and the service running; a valid one is used at once', async () => {
    const dir = tempDir('passkey-reload-');
    const fixture = metadataFixture(dir);
    const file = configWith(dir, fixture.applications);
    const stdout = capture();
    const stderr = capture();
    const running = await startService({
      configFile: file,
      env: { PASSKEY_METADATA_CHECK_INTERVAL_MS: '0' },
      cwd: dir,
      stdout: stdout.stream,
      stderr: stderr.stream,
    });
    try {
      const user = new ModelUser('bob');
      assert.equal(outcome(await user.register(running.url)), 'ok', stderr.text());
      assert.equal(outcome(await user.signIn(running.url)), 'ok');

      // Signed under a root the application does not trust, and reporting the model compromised: taking it
      // would refuse the sign-in below.
      const foreign = createTestMds();
      writeFileSync(fixture.blobFile, foreign.sign({ legalHeader: 'x', no: 7, nextUpdate: '2049-12-31', entries: [] }));
      const failed = await running.reloadMetadata();
      assert.equal(failed.ok, false);
      assert.equal(failed.changed, false);
      assert.match(failed.applications[0]?.error ?? '', /^METADATA_BLOB_/);
      assert.equal(failed.applications[0]?.serial, 1);
      assert.match(stderr.text(), /"level":"error"[^\n]*"clientId":"scale-client"[^\n]*METADATA_BLOB_/);
      assert.equal(
        outcome(await user.signIn(running.url)),
        'ok',
        'the previous BLOB is still in use and the service serves',
      );

      renameSync(fixture.writeBlob('newer.jwt', 2, true), fixture.blobFile);
      const taken = await running.reloadMetadata();
      assert.deepEqual(
        [taken.ok, taken.changed, taken.applications[0]?.serialBefore, taken.applications[0]?.serial],
        [true, true, 1, 2],
      );
      assert.equal(outcome(await user.signIn(running.url)), 'AUTHENTICATOR_STATUS_NOT_ACCEPTED');
    } finally {
      await running.close();
    }
  });

  it('POST /admin/metadata/reload answers the report to an admin token (audited), 422 when a BLOB was refused, 401 without one, 405 to GET', async () => {
    const dir = tempDir('passkey-reload-');
    const fixture = metadataFixture(dir);
    const file = configWith(dir, fixture.applications);
    const out = capture();
    const running = await startService({
      configFile: file,
      env: { PASSKEY_METADATA_CHECK_INTERVAL_MS: '0' },
      cwd: dir,
      stdout: out.stream,
      stderr: capture().stream,
    });
    try {
      const { token } = await new FileAdminTokenStore(running.config.ops!.admin.tokensFile, systemRuntime).create(
        'ops',
      );
      const path = '/admin/metadata/reload';
      const url = `${running.adminUrl}${path}`;
      assert.equal((await fetch(url, { method: 'POST' })).status, 401);
      const get = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(get.status, 405);
      assert.equal(get.headers.get('allow'), 'POST');

      renameSync(fixture.writeBlob('newer.jwt', 3, false), fixture.blobFile);
      const answer = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      const body = await answer.text();
      assert.equal(answer.status, 200, body);
      const report = JSON.parse(body) as {
        ok: boolean;
        changed: boolean;
        applications: { clientId: string; serial: number }[];
      };
      assert.deepEqual(
        [report.ok, report.changed, report.applications.map((a) => [a.clientId, a.serial])],
        [true, true, [['scale-client', 3]]],
      );
      const headers = Object.fromEntries(answer.headers);
      assert.deepEqual(
        checkResponse(openApiDocument(), {
          path,
          method: 'POST',
          status: 200,
          contentType: headers['content-type'] ?? '',
          body,
          headers,
        }),
        [],
      );

      // A BLOB that does not verify: 422 (so `curl -f` fails), the admin error envelope around the same report.
      foreignBlob(fixture.blobFile);
      const refused = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      const refusedBody = await refused.text();
      assert.equal(refused.status, 422, refusedBody);
      const failed = JSON.parse(refusedBody) as {
        error: string;
        message: string;
        problems: string[];
        ok: boolean;
        changed: boolean;
        at: string;
        applications: { clientId: string; ok: boolean; serial: number; error: string }[];
      };
      assert.equal(failed.error, 'METADATA_RELOAD_FAILED');
      assert.match(failed.message, /previous BLOB stays in use/);
      assert.deepEqual([failed.ok, failed.changed, typeof failed.at], [false, false, 'string']);
      assert.deepEqual(
        failed.applications.map((a) => [a.clientId, a.ok, a.serial]),
        [['scale-client', false, 3]],
        'the previous BLOB is still in use',
      );
      assert.match(failed.applications[0]?.error ?? '', /^METADATA_BLOB_/);
      assert.deepEqual(failed.problems, [`scale-client: ${failed.applications[0]?.error}`]);
      const refusedHeaders = Object.fromEntries(refused.headers);
      assert.deepEqual(
        checkResponse(openApiDocument(), {
          path,
          method: 'POST',
          status: 422,
          contentType: refusedHeaders['content-type'] ?? '',
          body: refusedBody,
          headers: refusedHeaders,
        }),
        [],
      );

      const audit = await fetch(`${running.adminUrl}/admin/audit?action=metadata.reload`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const events = ((await audit.json()) as { events: { actor: string; result: string; errorName: string | null }[] })
        .events;
      assert.deepEqual(
        events.map((e) => [e.actor, e.result]),
        [
          ['admin:ops', 'ok'],
          ['admin:ops', 'failed'],
        ],
      );
      assert.match(events[1]?.errorName ?? '', /^METADATA_BLOB_/);
    } finally {
      await running.close();
    }
  });
});

describe("the periodic check and the CRLs of the BLOB's signing chain (a running service)", () => {
  it('a refreshed CRL alone triggers a reload: the BLOB refused for stale CRLs is taken once current CRLs are in place', async () => {
    const dir = tempDir('passkey-reload-crl-');
    const fixture = metadataFixture(dir);
    const crlFiles = writeCrls(dir, fixture.mds, '2030-05-01T00:00:00Z', '2030-07-01T00:00:00Z');
    const [raw] = fixture.applications;
    const file = configWith(dir, [
      { ...raw, attestation: { ...(raw!.attestation as Record<string, unknown>), metadataCrls: crlFiles } },
    ]);
    let now = Date.parse('2030-06-01T00:00:00Z');
    const runtime: Runtime = { ...systemRuntime, now: () => now };
    const stderr = capture();
    const running = await startService({
      configFile: file,
      env: { PASSKEY_METADATA_CHECK_INTERVAL_MS: '100' },
      cwd: dir,
      stdout: capture().stream,
      stderr: stderr.stream,
      runtime,
    });
    try {
      const started = logLines(stderr.text()).find((line) => line.msg === 'metadata BLOB loaded');
      assert.deepEqual(
        [started?.clientId, started?.serial, started?.revocationChecked],
        ['scale-client', 1, true],
        stderr.text(),
      );
      assert.doesNotMatch(stderr.text(), /signing chain is not checked/);
      const user = new ModelUser('carol');
      assert.equal(outcome(await user.register(running.url)), 'ok', stderr.text());

      // Two months on the CRLs are stale: the BLOB installed now (reporting the model compromised) is refused.
      now = Date.parse('2030-08-01T00:00:00Z');
      renameSync(fixture.writeBlob('newer.jwt', 2, true), fixture.blobFile);
      const failure = () => logLines(stderr.text()).find((line) => line.event === 'metadata_reload_failed');
      assert.ok(await eventually(() => failure() !== undefined, 15_000), stderr.text());
      assert.match(String(failure()?.error), /^METADATA_BLOB_CRL_INVALID: .* is stale/);
      assert.match(
        String(failure()?.msg),
        /the previous BLOB stays in use: install current CRLs of the BLOB's signing chain/,
      );
      assert.equal(outcome(await user.signIn(running.url)), 'ok', 'the previous BLOB stays in use');

      // Only the CRL files change (an operator's fetch script): the periodic check notices and the BLOB is taken.
      writeCrls(dir, fixture.mds, '2030-07-31T00:00:00Z', '2030-09-01T00:00:00Z');
      const taken = () =>
        logLines(stderr.text()).find((line) => line.event === 'metadata_reloaded' && line.serial === 2);
      assert.ok(await eventually(() => taken() !== undefined, 15_000), stderr.text());
      assert.deepEqual([taken()?.previousSerial, taken()?.changed, taken()?.revocationChecked], [1, true, true]);
      const [blobChange, ...crlChanges] = logLines(stderr.text())
        .filter((line) => line.event === 'metadata_file_changed')
        .map((line) => line.files as string[]);
      assert.deepEqual(blobChange, [fixture.blobFile]);
      assert.ok(
        crlChanges.length > 0 && crlChanges.every((files) => files.every((changed) => crlFiles.includes(changed))),
        JSON.stringify(crlChanges),
      );
      assert.equal(outcome(await user.signIn(running.url)), 'AUTHENTICATOR_STATUS_NOT_ACCEPTED');
    } finally {
      await running.close();
    }
  });
});
