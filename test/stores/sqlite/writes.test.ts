// Group commit's spacing (src/stores/sqlite/writes.ts): a write after a quiet spell is flushed in
// its own turn; under load the next flush waits until the spacing after the previous one started, and
// every write queued meanwhile shares it; flushAll does not wait. The clock is the test's; setTimeout is
// mocked, setImmediate is real.
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import { GroupCommit, type WriteOutcome } from '../../../src/stores/sqlite/writes.js';
import { openSqliteDatabase, type Db } from '../../../src/stores/sqlite/open.js';
import { tempDir } from '../../config/support.js';

let db: Db;
let clock = 0;
let nextId = 0;

beforeEach(() => {
  db = openSqliteDatabase(join(tempDir('passkey-group-commit-'), 'fido2.db'));
  clock = 1000;
  mock.timers.enable({ apis: ['setTimeout'] });
});

afterEach(() => {
  mock.timers.reset();
  db.close();
});

const commits = (spacingMs?: number) =>
  new GroupCommit(db, { maxGroup: 512, now: () => clock, ...(spacingMs === undefined ? {} : { spacingMs }) });

/** Queues one audit row; the returned record fills in when its flush answers. */
function write(group: GroupCommit): { outcome?: WriteOutcome } {
  const answer: { outcome?: WriteOutcome } = {};
  const id = `e${String(nextId++).padStart(6, '0')}`;
  group.push(
    'audit.insert',
    { id, at: clock, client_id: 'c', action: 'a', actor: 'x', result: 'ok', event: '{}' },
    (outcome) => {
      answer.outcome = outcome;
    },
  );
  return answer;
}

const groupOf = (answer: { outcome?: WriteOutcome }) => {
  assert.ok(answer.outcome?.ok, 'the write was committed');
  return answer.outcome.group;
};
const stored = (database: Db) =>
  (database.prepare('SELECT count(*) AS n FROM ops_audit_events').get() as { n: number }).n;

describe('group commit spacing', () => {
  it('a write after a quiet spell is committed in the next turn, without waiting for a timer', async () => {
    const group = commits(2);
    const first = write(group);
    await turn();
    assert.equal(groupOf(first), 1);
    clock += 2; // the spacing has passed
    const later = write(group);
    await turn();
    assert.equal(groupOf(later), 2);
    assert.equal(stored(db), 2);
  });

  it('under load the next flush waits for the spacing, and every write queued meanwhile shares it', async () => {
    const group = commits(2);
    const first = write(group);
    await turn();
    assert.equal(groupOf(first), 1);
    clock += 0.5;
    const waiting = [write(group)];
    await turn();
    clock += 0.5;
    waiting.push(write(group), write(group));
    await turn();
    assert.ok(
      waiting.every((w) => w.outcome === undefined),
      'nothing flushed before the spacing',
    );
    assert.equal(stored(db), 1);
    mock.timers.tick(2); // the timer set for the rest of the 2 ms after the first flush
    assert.deepEqual(waiting.map(groupOf), [2, 2, 2], 'one transaction carried the three writes');
    assert.equal(stored(db), 4);
  });

  it('spacing 0 flushes every turn that queued a write', async () => {
    const group = commits(0);
    const answers = [];
    for (let i = 0; i < 3; i++) {
      answers.push(write(group));
      await turn();
    }
    assert.deepEqual(answers.map(groupOf), [1, 2, 3]);
  });

  it('flushAll commits what waits for the spacing at once, and the timer it cancelled commits nothing more', async () => {
    const group = commits(2);
    write(group);
    await turn();
    const waiting = write(group);
    group.flushAll();
    assert.equal(groupOf(waiting), 2);
    mock.timers.tick(5);
    await turn();
    assert.equal(stored(db), 2);
  });
});
