import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditLog } from '../../src/audit/index.js';
import { MemoryAuditStore } from '../../src/stores/memory/audit.js';
import { MemoryApplicationStore } from '../../src/stores/memory/applications.js';
import { runAdminCli } from '../../src/admin/cli.js';
import { AdminActions } from '../../src/admin/actions.js';
import { FileAdminTokenStore, TOKEN_PREFIX, hashToken } from '../../src/admin/tokens.js';
import { MemoryCredentialStore } from '../../src/stores/memory/credentials.js';
import { RelaySecretAdmin } from '../../src/admin/relay-secret-admin.js';
import { MemoryRelaySecretStore } from '../../src/stores/memory/relay-secrets.js';
import { captureLog, credential, testRuntime } from '../support/admin-fixtures.js';
import { POST_QUANTUM_ALGORITHMS } from '../../src/webauthn/cose.js';

function rig() {
  const dir = mkdtempSync(join(tmpdir(), 'ops-cli-'));
  const runtime = testRuntime();
  const tokensFile = join(dir, 'admin-tokens.json');
  const applications = new MemoryApplicationStore();
  const credentials = new MemoryCredentialStore();
  const audit = new AuditLog(new MemoryAuditStore(), runtime, captureLog());
  const actions = new AdminActions({
    applications,
    credentials,
    audit,
    runtime,
    userHandleKey: Buffer.alloc(32, 7),
    postQuantumAlgorithms: POST_QUANTUM_ALGORITHMS,
  });
  const relaySecrets = new RelaySecretAdmin({ applications, secrets: new MemoryRelaySecretStore(), audit, runtime });
  let opened = 0;
  let closed = 0;
  const configs: (string | undefined)[] = [];
  const run = async (...args: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await runAdminCli(
      args,
      {
        stdout: {
          write: (t: string) => {
            stdout += t;
          },
        },
        stderr: {
          write: (t: string) => {
            stderr += t;
          },
        },
      },
      {
        tokens: async (config) => {
          configs.push(config);
          return new FileAdminTokenStore(tokensFile, runtime);
        },
        open: async (config) => {
          configs.push(config);
          opened += 1;
          return {
            actions,
            audit,
            relaySecrets,
            close: async () => {
              closed += 1;
            },
          };
        },
        actor: 'cli:tester',
      },
    );
    return { code, stdout, stderr, json: () => JSON.parse(stdout) };
  };
  return {
    dir,
    tokensFile,
    runtime,
    applications,
    credentials,
    audit,
    run,
    counts: () => ({ opened, closed }),
    configs,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

describe('admin CLI', () => {
  it('token create prints the token once and stores only its SHA-256 (file mode 0600); list and revoke', async () => {
    const r = rig();
    try {
      const created = await r.run('token', 'create', 'ci bot', '--config', '/etc/passkey.json');
      assert.equal(created.code, 0, created.stderr);
      const { token, id, name } = created.json();
      assert.ok(token.startsWith(TOKEN_PREFIX));
      assert.ok(token.length >= TOKEN_PREFIX.length + 43);
      assert.equal(name, 'ci bot');
      assert.deepEqual(r.configs, ['/etc/passkey.json']);
      const file = readFileSync(r.tokensFile, 'utf8');
      assert.ok(!file.includes(token), 'the token itself is never stored');
      assert.ok(file.includes(hashToken(token)));
      assert.equal(statSync(r.tokensFile).mode & 0o777, 0o600);
      const store = new FileAdminTokenStore(r.tokensFile, r.runtime);
      assert.equal((await store.verify(token))?.name, 'ci bot');
      assert.equal(await store.verify(`${token}x`), undefined);
      assert.equal(await store.verify('not-a-token'), undefined);
      assert.deepEqual(
        (await r.run('token', 'list')).json().tokens.map((t: { id: string }) => t.id),
        [id],
      );
      assert.equal((await r.run('token', 'revoke', id)).code, 0);
      assert.equal(await store.verify(token), undefined, 'a revoked token stops working');
      assert.equal((await r.run('token', 'revoke', id)).code, 1);
      assert.equal((await r.run('token', 'create')).code, 2);
      assert.equal(r.counts().opened, 0, 'token commands need no database');
    } finally {
      r.cleanup();
    }
  });

  it('app create/update/approve/disable/enable/show/list/delete, audited as the CLI user', async () => {
    const r = rig();
    try {
      const created = await r.run(
        'app',
        'create',
        '--name',
        'Shop',
        '--domain',
        'shop.example.test',
        '--origin',
        'https://shop.example.test',
        '--variant',
        'standard',
        '--variant',
        'local',
      );
      assert.equal(created.code, 0, created.stderr);
      const id = created.json().clientId as string;
      assert.match(id, /^app-[a-z2-7]{24}$/);
      assert.equal(
        (await r.run('app', 'update', id, '--json', '{"userVerification":"required"}', '--name', 'Shop 2')).json().name,
        'Shop 2',
      );
      assert.equal((await r.run('app', 'approve', id)).json().approved, true);
      assert.equal((await r.run('app', 'disable', id)).json().disabled, true);
      assert.equal((await r.run('app', 'enable', id)).json().disabled, false);
      assert.equal((await r.run('app', 'show', id)).json().userVerification, 'required');
      assert.equal((await r.run('app', 'list')).json().applications.length, 1);
      const bad = await r.run('app', 'update', id, '--origin', 'https://elsewhere.example');
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /INVALID_REQUEST/);
      assert.match(bad.stderr, /origins\[0\]/);
      assert.equal((await r.run('app', 'delete', id)).json().deletedCredentials, 0);
      assert.equal((await r.run('app', 'show', id)).code, 1);
      const events = await r.audit.query({ limit: 100 });
      assert.ok(events.length >= 7);
      assert.ok(events.every((e) => e.actor === 'cli:tester'));
      assert.deepEqual(r.counts().opened, r.counts().closed);
    } finally {
      r.cleanup();
    }
  });

  it('credential list/show/rename/delete, and audit export as JSON lines', async () => {
    const r = rig();
    try {
      const app = await r.run('app', 'create', '--name', 'Dev', '--domain', 'dev.example.test');
      const id = app.json().clientId as string;
      await r.credentials.create(credential({ clientId: id, credentialId: 'c1', username: 'ann#dev.example.test' }));
      assert.equal((await r.run('credential', 'list', id)).json().credentials.length, 1);
      assert.equal((await r.run('credential', 'show', id, 'c1')).json().authenticatorName, 'Google Password Manager');
      assert.equal((await r.run('credential', 'rename', id, 'c1', 'Phone')).json().nickname, 'Phone');
      assert.equal((await r.run('credential', 'rename', id, 'c1', '--clear')).json().nickname, null);
      assert.equal((await r.run('credential', 'delete', id, 'c1')).json().deleted, true);
      assert.equal((await r.run('credential', 'show', id, 'c1')).code, 1);
      const exported = await r.run('audit', 'export', '--action', 'credential.');
      assert.equal(exported.code, 0, exported.stderr);
      const lines = exported.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.deepEqual(
        lines.map((e) => e.action),
        ['credential.rename', 'credential.rename', 'credential.delete'],
      );
      assert.equal((await r.run('audit', 'list', '--result', 'maybe')).code, 2);
      assert.equal((await r.run('credential', 'list', id, '--limit', 'x')).code, 2);
      assert.equal((await r.run('nonsense')).code, 2);
      assert.equal((await r.run('app', 'list', '--bogus')).code, 2);
    } finally {
      r.cleanup();
    }
  });
});
