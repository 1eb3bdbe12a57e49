import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AuditLog, createAuditHooks, createAuditIdSource, toJsonLines } from '../../src/audit/index.js';
import { MemoryAuditStore } from '../../src/stores/memory/audit.js';
import type { AuditStore } from '../../src/stores/types.js';
import { composeHooks } from '../../src/runtime/hooks.js';
import type { OperationOutcome } from '../../src/service.js';
import { captureLog, testRuntime } from '../support/admin-fixtures.js';

const outcome = (over: Partial<OperationOutcome>): OperationOutcome => ({
  operation: 'attestation/result',
  clientId: 'demo-client',
  variant: 'standard',
  httpStatus: 200,
  errorName: null,
  durationMs: 5,
  requestId: 'req-1',
  remoteAddress: '192.0.2.1',
  ...over,
});

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('audit log', () => {
  it('ids sort in the order events were recorded, also within one millisecond', () => {
    const next = createAuditIdSource(testRuntime());
    const ids = Array.from({ length: 50 }, () => next());
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, 50);
  });

  it('the memory store keeps the newest maxEvents, and filters by time, application, action prefix, actor and result', async () => {
    const runtime = testRuntime();
    const audit = new AuditLog(new MemoryAuditStore({ maxEvents: 100 }), runtime);
    for (let i = 0; i < 250; i++) {
      runtime.advance(1000);
      await audit.record({
        actor: i % 2 ? 'admin:a' : 'cli:b',
        action: i % 3 ? 'credential.delete' : 'application.create',
        result: i % 5 ? 'ok' : 'failed',
        clientId: `app-${i % 4}`,
      });
    }
    const all = await audit.query({ limit: 1000 });
    assert.ok(all.length <= 100 && all.length >= 90, String(all.length));
    assert.equal(Date.parse(all.at(-1)!.time), runtime.now());
    const since = runtime.now() - 10_000;
    assert.equal((await audit.query({ limit: 1000, since })).length, 11);
    assert.equal((await audit.query({ limit: 1000, since, until: runtime.now() })).length, 10);
    const filtered = await audit.query({
      limit: 1000,
      clientId: 'app-1',
      action: 'credential.',
      actor: 'admin:a',
      result: 'ok',
    });
    assert.ok(filtered.length > 0);
    assert.ok(
      filtered.every(
        (e) =>
          e.clientId === 'app-1' && e.action.startsWith('credential.') && e.actor === 'admin:a' && e.result === 'ok',
      ),
    );
    assert.equal(
      (await audit.query({ limit: 1000, action: 'credential' })).length,
      0,
      'an action without a final dot matches exactly',
    );
  });

  it('a failing audit store is logged, never thrown into the caller', async () => {
    const log = captureLog();
    const broken: AuditStore = {
      append: async () => {
        throw new Error('disk full');
      },
      query: async () => [],
      close: async () => {},
      ping: async () => {},
    };
    const audit = new AuditLog(broken, testRuntime(), log);
    assert.equal(await audit.record({ actor: 'system', action: 'x', result: 'ok' }), undefined);
    assert.equal(log.lines[0]?.fields.event, 'audit_append_failed');
  });

  it('JSON lines: one complete object per line', () => {
    const text = toJsonLines([
      {
        id: '1',
        time: 't',
        actor: 'a',
        action: 'x',
        clientId: null,
        subject: 'line\nbreak',
        target: null,
        result: 'ok',
        errorName: null,
        requestId: null,
        remoteAddress: null,
      },
      {
        id: '2',
        time: 't',
        actor: 'a',
        action: 'y',
        clientId: null,
        subject: null,
        target: null,
        result: 'failed',
        errorName: 'E',
        requestId: null,
        remoteAddress: null,
      },
    ]);
    const lines = text.split('\n');
    assert.equal(lines.length, 3);
    assert.equal(JSON.parse(lines[0]!).subject, 'line\nbreak');
  });
});

describe('createAuditHooks: ceremony outcomes', () => {
  it('records result calls always, options calls only when they fail, nothing for unknown applications', async () => {
    const store = new MemoryAuditStore();
    const hooks = createAuditHooks(new AuditLog(store, testRuntime()));
    hooks.onOutcome(outcome({ username: 'alice#demo.localhost', credentialId: 'cred-1' }));
    hooks.onOutcome(
      outcome({ operation: 'assertion/result', httpStatus: 400, errorName: 'SIGNATURE_COUNTER_NOT_INCREASED' }),
    );
    hooks.onOutcome(outcome({ operation: 'attestation/options' }));
    hooks.onOutcome(outcome({ operation: 'assertion/options', httpStatus: 400, errorName: 'INVALID_USERNAME' }));
    hooks.onOutcome(outcome({ clientId: 'made-up', httpStatus: 403, errorName: 'CLIENT_ID_UNKNOWN' }));
    hooks.onOutcome(outcome({ operation: 'other', httpStatus: 404, errorName: 'NOT_FOUND' }));
    await settle();
    const events = await store.query({ limit: 10 });
    assert.deepEqual(
      events.map((e) => `${e.action}:${e.result}:${e.errorName ?? ''}`),
      [
        'ceremony.registration:ok:',
        'ceremony.authentication:failed:SIGNATURE_COUNTER_NOT_INCREASED',
        'ceremony.authentication.options:failed:INVALID_USERNAME',
      ],
    );
    assert.equal(events[0]!.subject, 'alice#demo.localhost');
    assert.equal(events[0]!.target, 'cred-1');
    assert.equal(events[0]!.actor, 'client:demo-client');
    assert.equal(events[0]!.remoteAddress, '192.0.2.1');
    assert.deepEqual(events[0]!.details, { variant: 'standard', httpStatus: 200 });
  });

  it('a sign-in that changed backup eligibility (BE) adds a credential.backup-eligibility.change event', async () => {
    const store = new MemoryAuditStore();
    const hooks = createAuditHooks(new AuditLog(store, testRuntime()));
    hooks.onOutcome(
      outcome({
        operation: 'assertion/result',
        username: 'alice#demo.localhost',
        credentialId: 'cred-1',
        backupEligibilityChange: { from: false, to: true },
      }),
    );
    hooks.onOutcome(outcome({ operation: 'assertion/result', credentialId: 'cred-1', backupEligibilityChange: null }));
    await settle();
    const events = await store.query({ limit: 10 });
    assert.deepEqual(
      events.map((e) => e.action),
      ['ceremony.authentication', 'credential.backup-eligibility.change', 'ceremony.authentication'],
    );
    const change = events[1]!;
    assert.equal(change.target, 'cred-1');
    assert.equal(change.subject, 'alice#demo.localhost');
    assert.equal(change.actor, 'client:demo-client');
    assert.equal(change.result, 'ok');
    assert.deepEqual(change.details, { from: false, to: true });
  });

  it('options: "all" records successful options calls too', async () => {
    const store = new MemoryAuditStore();
    createAuditHooks(new AuditLog(store, testRuntime()), { options: 'all' }).onOutcome(
      outcome({ operation: 'attestation/options' }),
    );
    await settle();
    assert.equal((await store.query({ limit: 10 }))[0]?.action, 'ceremony.registration.options');
  });
});

describe('composeHooks', () => {
  it('runs every onOutcome even if one throws (then rethrows), and refuses at the first refusing admit', async () => {
    const seen: string[] = [];
    const hooks = composeHooks(
      {
        onOutcome: () => {
          seen.push('a');
          throw new Error('a failed');
        },
      },
      {
        onOutcome: () => {
          seen.push('b');
        },
        admit: async () => {
          seen.push('admit-1');
          return { allowed: false, retryAfterSeconds: 7 };
        },
      },
      {
        admit: async () => {
          seen.push('admit-2');
          return { allowed: true, retryAfterSeconds: 0 };
        },
      },
    );
    assert.throws(() => hooks.onOutcome!(outcome({})), /a failed/);
    assert.deepEqual(await hooks.admit!({ clientId: 'x', remoteAddress: null }), {
      allowed: false,
      retryAfterSeconds: 7,
    });
    assert.deepEqual(seen, ['a', 'b', 'admit-1']);
    assert.deepEqual(composeHooks({}), {});
  });
});
