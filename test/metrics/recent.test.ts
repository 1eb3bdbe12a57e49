// The overview's window (GET /admin/overview, the console's first page): ceremonies and failures per
// registered application, counted per minute, for the last hour only, by an injected clock.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RecentCeremonies } from '../../src/metrics/recent.js';
import type { OperationOutcome } from '../../src/service.js';

function outcome(operation: OperationOutcome['operation'], clientId: string | null, errorName: string | null = null) {
  return {
    operation,
    clientId,
    variant: 'standard',
    httpStatus: errorName === null ? 200 : 400,
    errorName,
    durationMs: 1,
    requestId: 'r',
    remoteAddress: null,
  } satisfies OperationOutcome;
}

describe('RecentCeremonies', () => {
  it('counts started, results and failures per application and error, busiest first', () => {
    let now = Date.UTC(2026, 10, 25, 12, 0, 0);
    const recent = new RecentCeremonies({ now: () => now, isKnownClient: (id) => id.startsWith('app-') });
    recent.record(outcome('attestation/options', 'app-1'));
    recent.record(outcome('attestation/result', 'app-1'));
    recent.record(outcome('assertion/options', 'app-1'));
    recent.record(outcome('assertion/options', 'app-1', 'RATE_LIMITED'));
    recent.record(outcome('assertion/result', 'app-1', 'SIGNATURE_INVALID'));
    recent.record(outcome('assertion/result', 'app-1', 'SIGNATURE_INVALID'));
    recent.record(outcome('assertion/result', 'app-1', 'ORIGIN_MISMATCH'));
    recent.record(outcome('assertion/result', 'app-2'));
    recent.record(outcome('assertion/result', 'stranger'));
    recent.record(outcome('assertion/result', null, 'CLIENT_ID_MISSING'));
    recent.record(outcome('credentials/list', 'app-2'));
    now += 30_000;
    const report = recent.report();
    assert.equal(report.windowSeconds, 3600);
    assert.equal(report.until, new Date(now).toISOString());
    assert.deepEqual(report.applications, [
      {
        clientId: 'app-1',
        registrations: { started: 1, results: 1, failed: 0 },
        authentications: { started: 1, results: 3, failed: 3 },
        errors: [
          { error: 'SIGNATURE_INVALID', count: 2 },
          { error: 'ORIGIN_MISMATCH', count: 1 },
        ],
      },
      {
        clientId: 'app-2',
        registrations: { started: 0, results: 0, failed: 0 },
        authentications: { started: 0, results: 1, failed: 0 },
        errors: [],
      },
    ]);
  });

  it('forgets what is older than an hour, minute by minute', () => {
    let now = Date.UTC(2026, 10, 25, 12, 0, 10);
    const recent = new RecentCeremonies({ now: () => now, isKnownClient: () => true });
    recent.record(outcome('attestation/result', 'app-1'));
    now += 30 * 60_000;
    recent.record(outcome('attestation/result', 'app-1', 'TIMEOUT'));
    now += 29 * 60_000 + 40_000; // 12:59:50: both still inside the hour
    assert.equal(recent.report().applications[0]!.registrations.results, 2);
    now += 20_000; // 13:00:10: the first minute (12:00) left the window
    assert.deepEqual(recent.report().applications[0]!.registrations, { started: 0, results: 1, failed: 1 });
    now += 31 * 60_000; // 13:31:10: both gone, even though their slots were never reused
    assert.deepEqual(recent.report().applications, []);
    recent.record(outcome('attestation/result', 'app-1')); // reuses the 12:31 slot's place: counted afresh
    assert.deepEqual(recent.report().applications[0]!.registrations, { started: 0, results: 1, failed: 0 });
  });
});
