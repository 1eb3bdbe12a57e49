// The admin listener over a real socket, on every backend of its stores (issue 23): a DELETE of a user's
// credentials whose username and userHandle name different users erases no one; a NUL character in a path
// or query value, and a `since` beyond what a date can be, answer 400 INVALID_REQUEST everywhere (PostgreSQL
// answered 500); a Host header that names another host is refused (DNS rebinding), even on /metrics.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminActions } from '../../../src/admin/actions.js';
import { startAdminServer, type AdminServer } from '../../../src/admin/server.js';
import { MemoryAdminTokenStore } from '../../../src/admin/tokens.js';
import { seedApplications } from '../../../src/applications/directory.js';
import { PostgresApplicationStore } from '../../../src/stores/postgres/applications.js';
import { SqliteApplicationStore } from '../../../src/stores/sqlite/applications.js';
import { MemoryApplicationStore } from '../../../src/stores/memory/applications.js';
import { AuditLog } from '../../../src/audit/index.js';
import { MemoryAuditStore } from '../../../src/stores/memory/audit.js';
import { PostgresAuditStore } from '../../../src/stores/postgres/audit.js';
import { SqliteAuditStore } from '../../../src/stores/sqlite/audit.js';
import type { ApplicationStore, AuditStore } from '../../../src/stores/types.js';
import { deriveUserHandle } from '../../../src/ceremonies/user-handle.js';
import { MetricsRegistry } from '../../../src/metrics/index.js';
import { Readiness } from '../../../src/runtime/readiness.js';
import { applicationConfig, CLIENT_ID } from '../../support/harness.js';
import { captureLog, credential, testRuntime } from '../../support/admin-fixtures.js';
import { freshSchema, POSTGRES_URL } from '../../scale/support/backends.js';
import { CREDENTIAL_STORES } from '../../support/credential-stores.js';
import { POST_QUANTUM_ALGORITHMS } from '../../../src/webauthn/cose.js';

const KEY = Buffer.alloc(32, 7);

interface Backend {
  readonly applications: ApplicationStore;
  readonly audit: AuditStore;
  close(): Promise<void>;
}

const BACKENDS: Record<string, () => Promise<Backend>> = {
  memory: async () => ({
    applications: new MemoryApplicationStore(),
    audit: new MemoryAuditStore(),
    close: async () => {},
  }),
  sqlite: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'passkey-admin-'));
    const applications = new SqliteApplicationStore(join(dir, 'ops.db'));
    const audit = new SqliteAuditStore(join(dir, 'ops.db'));
    return {
      applications,
      audit,
      close: async () => {
        await applications.close();
        await audit.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  postgres: async () => {
    const schema = await freshSchema('admin');
    const applications = await PostgresApplicationStore.open(POSTGRES_URL, { schema: schema.schema });
    const audit = await PostgresAuditStore.open(POSTGRES_URL, { schema: schema.schema });
    return {
      applications,
      audit,
      close: async () => {
        await applications.close();
        await audit.close();
        await schema.drop();
      },
    };
  },
};

/** One request with exactly the Host header given (fetch would set its own). */
function call(
  server: AdminServer,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, method, path, headers, timeout: 10_000, setHost: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('admin request timed out')));
    req.on('error', reject);
    req.end();
  });
}

for (const kind of CREDENTIAL_STORES) {
  describe(`admin listener refusals, ${kind.name} stores (real socket)`, () => {
    const runtime = testRuntime();
    let server: AdminServer;
    let backend: Backend;
    let close: () => Promise<void>;
    let token = '';
    let credentials: Awaited<ReturnType<typeof kind.open>>['store'];
    const alice = 'alice#idp.example.test';
    const bob = 'bob#idp.example.test';
    const bobHandle = deriveUserHandle(KEY, CLIENT_ID, bob);

    before(async () => {
      const opened = await kind.open();
      credentials = opened.store;
      backend = await BACKENDS[kind.name]!();
      close = async () => {
        await server.close();
        await opened.close();
        await backend.close();
      };
      await seedApplications(backend.applications, [applicationConfig()], runtime.now());
      for (const [user, id] of [
        [alice, 'alice-key'],
        [bob, 'bob-key'],
      ] as const) {
        await credentials.create(
          credential({
            clientId: CLIENT_ID,
            credentialId: id,
            username: user,
            userHandle: deriveUserHandle(KEY, CLIENT_ID, user),
          }),
        );
      }
      const tokens = new MemoryAdminTokenStore(runtime);
      token = (await tokens.create('review')).token;
      const audit = new AuditLog(backend.audit, runtime, captureLog());
      server = await startAdminServer({
        host: '127.0.0.1',
        port: 0,
        actions: new AdminActions({
          applications: backend.applications,
          credentials,
          audit,
          runtime,
          userHandleKey: KEY,
          postQuantumAlgorithms: POST_QUANTUM_ALGORITHMS,
        }),
        audit,
        tokens,
        readiness: new Readiness([], 500),
        registry: new MetricsRegistry(),
        runtime,
        log: captureLog(),
        allowedHosts: ['admin.internal.example'],
      });
    });
    after(() => close());

    const auth = () => ({ host: `127.0.0.1:${server.port}`, authorization: `Bearer ${token}` });

    it('DELETE …/credentials?username=alice&userHandle=<bob>: 400 USER_MISMATCH, no one erased', async () => {
      const path = `/admin/applications/${CLIENT_ID}/credentials?username=${encodeURIComponent(alice)}&userHandle=${bobHandle}`;
      const refused = await call(server, 'DELETE', path, auth());
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.error, 'USER_MISMATCH');
      assert.ok(await credentials.find(CLIENT_ID, 'alice-key'));
      assert.ok(await credentials.find(CLIENT_ID, 'bob-key'));
      const listed = await call(server, 'GET', path, auth());
      assert.equal(listed.body.error, 'USER_MISMATCH');
      // The same user named both ways is fine.
      const both = `/admin/applications/${CLIENT_ID}/credentials?username=${encodeURIComponent(bob)}&userHandle=${bobHandle}`;
      const listedBoth = await call(server, 'GET', both, auth());
      assert.equal(listedBoth.status, 200);
      assert.deepEqual(
        listedBoth.body.credentials.map((c: { credentialId: string }) => c.credentialId),
        ['bob-key'],
      );
    });

    it('GET …/post-quantum counts the users with an ML-DSA credential, and those credentials', async () => {
      const path = `/admin/applications/${CLIENT_ID}/post-quantum`;
      assert.deepEqual((await call(server, 'GET', path, auth())).body, { users: 0, credentials: 0 });
      const carol = 'carol#idp.example.test';
      for (const [user, id, algorithm, clientId] of [
        [alice, 'alice-pq', -48, CLIENT_ID],
        [carol, 'carol-pq-65', -49, CLIENT_ID],
        [carol, 'carol-pq-87', -50, CLIENT_ID],
        [carol, 'carol-es256', -7, CLIENT_ID],
        [bob, 'bob-elsewhere', -48, 'another-application'],
      ] as const) {
        const userHandle = deriveUserHandle(KEY, clientId, user);
        assert.equal(
          await credentials.create(credential({ clientId, credentialId: id, username: user, userHandle, algorithm })),
          'created',
        );
      }
      const counted = await call(server, 'GET', path, auth());
      assert.equal(counted.status, 200, JSON.stringify(counted.body));
      // bob has only ES256 here; his ML-DSA key is another application's.
      assert.deepEqual(counted.body, { users: 2, credentials: 3 });
      const unknown = await call(server, 'GET', '/admin/applications/no-such-app/post-quantum', auth());
      assert.equal(unknown.body.error, 'APPLICATION_NOT_FOUND');
      assert.equal((await call(server, 'POST', path, auth())).status, 405);
      for (const id of ['alice-pq', 'carol-pq-65', 'carol-pq-87', 'carol-es256'])
        assert.ok(await credentials.delete(CLIENT_ID, id));
      assert.ok(await credentials.delete('another-application', 'bob-elsewhere'));
    });

    it('a NUL character in a path or query value, or `since` beyond a date: 400 INVALID_REQUEST', async () => {
      for (const path of [
        `/admin/applications/${CLIENT_ID}%00`,
        `/admin/applications/${CLIENT_ID}/credentials/alice-key%00`,
        `/admin/applications/${CLIENT_ID}/credentials?userHandle=abc%00`,
        `/admin/applications/${CLIENT_ID}/credentials?after=a%00`,
        '/admin/audit?clientId=x%00',
        '/admin/audit?since=99999999999999999999',
        '/admin/audit?until=18446744073709551616',
        '/admin/audit/export?since=9223372036854775808',
      ]) {
        const answer = await call(server, 'GET', path, auth());
        assert.equal(answer.status, 400, `${path}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.error, 'INVALID_REQUEST', path);
      }
    });

    it('a Host header naming another host is refused with the envelope, even on /metrics and /health', async () => {
      for (const host of ['rebind.attacker.example', `rebind.attacker.example:${server.port}`, '127.0.0.1.nip.io']) {
        for (const path of ['/metrics', '/health', `/admin/applications/${CLIENT_ID}/credentials`]) {
          const answer = await call(server, 'GET', path, { ...auth(), host });
          assert.equal(answer.status, 403, `${host} ${path}`);
          assert.equal(answer.body.error, 'HOST_NOT_ALLOWED');
        }
      }
      for (const host of [
        `127.0.0.1:${server.port}`,
        `localhost:${server.port}`,
        `[::1]:${server.port}`,
        'admin.internal.example',
      ]) {
        assert.equal((await call(server, 'GET', '/metrics', { host })).status, 200, host);
      }
    });
  });
}
