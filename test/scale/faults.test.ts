// Faults: a service process killed with SIGKILL in the middle of a registration load (SQLite, PostgreSQL)
// loses no credential it answered `ok` for and shows nothing half-written after a restart; PostgreSQL or
// Redis going away while the service runs gives `failed` envelopes with 503 SERVICE_UNAVAILABLE within a
// bounded time, the process stays up, and it serves again once the backend is back. The backends are
// "stopped" through a proxy this test controls, never the machine's shared servers.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  freshPrefix,
  freshSchema,
  POSTGRES_URL,
  REDIS_URL,
  sql,
  type TestPrefix,
  type TestSchema,
} from './support/backends.js';
import { errorName, post, User, type Answer } from './support/client.js';
import { startProxy, type ControlledProxy } from './support/proxy.js';
import {
  CLIENT_ID,
  sharedSecretsEnv,
  startInstance,
  workDir,
  type Instance,
  type InstanceSettings,
} from './support/service.js';

interface Attempt {
  readonly user: User;
  readonly credentialId: string;
  /** ok / failed: what the service answered; lost: no answer (the process died with the request open). */
  outcome: 'ok' | 'failed' | 'lost';
}

/**
 * Registers new users from `workers` concurrent loops until the service stops answering. Once `killAfterOk`
 * registrations were answered ok, the next worker to send a result triggers `kill` just after sending, so
 * the process dies with registrations in flight.
 */
async function registrationLoadUntilKilled(
  url: string,
  workers: number,
  killAfterOk: number,
  kill: () => void,
): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  let killed = false;
  const deadline = Date.now() + 60_000;
  const okCount = () => attempts.filter((a) => a.outcome === 'ok').length;
  const worker = async () => {
    while (Date.now() < deadline) {
      const user = new User();
      let options;
      try {
        options = await user.registrationOptions(url);
      } catch {
        return; // the process is gone
      }
      const credential = user.authenticator.register(options);
      const attempt: Attempt = { user, credentialId: credential.id, outcome: 'lost' };
      attempts.push(attempt);
      const sent = post(url, '/api/attestation/result', credential);
      if (!killed && okCount() >= killAfterOk) {
        killed = true;
        setTimeout(kill, 2);
      }
      try {
        const answer = await sent;
        attempt.outcome = answer.body.status === 'ok' ? 'ok' : 'failed';
      } catch {
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  assert.ok(killed, `the load reached ${killAfterOk} registrations before its deadline (${okCount()} ok)`);
  return attempts;
}

/** After the restart: ok'd credentials must authenticate; lost ones either authenticate or do not exist. */
async function checkAfterRestart(url: string, attempts: readonly Attempt[]): Promise<{ stored: Set<string> }> {
  const stored = new Set<string>();
  for (const attempt of attempts) {
    const options = await attempt.user.authenticationOptions(url);
    const offered = (options.allowCredentials ?? []).some((c) => c.id === attempt.credentialId);
    if (attempt.outcome === 'ok')
      assert.ok(offered, `credential ${attempt.credentialId} was answered ok, so it must be stored`);
    if (!offered) continue;
    stored.add(attempt.credentialId);
    // Offered means stored: then it must be whole, i.e. authenticate (a half-written row could not).
    const answer = await post(
      url,
      '/api/assertion/result',
      attempt.user.authenticator.authenticate(options, { credentialId: attempt.credentialId }),
    );
    assert.equal(
      answer.body.status,
      'ok',
      `${attempt.outcome} credential ${attempt.credentialId}: ${JSON.stringify(answer.body)}`,
    );
  }
  return { stored };
}

function summary(attempts: readonly Attempt[], stored: ReadonlySet<string>): string {
  const count = (outcome: Attempt['outcome']) => attempts.filter((a) => a.outcome === outcome).length;
  const lostStored = attempts.filter((a) => a.outcome === 'lost' && stored.has(a.credentialId)).length;
  return `answered ok ${count('ok')}, failed ${count('failed')}, in flight at the kill ${count('lost')} (of which stored ${lostStored})`;
}

async function killDuringRegistrations(
  settings: InstanceSettings,
): Promise<{ attempts: Attempt[]; stored: Set<string>; instance: Instance }> {
  const first = await startInstance(settings);
  const attempts = await registrationLoadUntilKilled(first.url, 6, 25, () => first.process.kill('SIGKILL'));
  await first.kill('SIGKILL');
  assert.equal(first.process.signalCode, 'SIGKILL');
  // Same data and configuration; another port, so no kept-alive socket to the dead process is reused.
  const instance = await startInstance(settings);
  const { stored } = await checkAfterRestart(instance.url, attempts);
  const failed = attempts.filter((a) => a.outcome === 'failed');
  assert.deepEqual(
    failed.map((a) => a.credentialId).filter((id) => stored.has(id)),
    [],
    'a registration answered failed stored nothing',
  );
  return { attempts, stored, instance };
}

describe('kill -9 during a registration load', () => {
  const dirs: { remove(): void }[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const cleanup of cleanups) await cleanup();
    for (const dir of dirs) dir.remove();
  });

  it('SQLite: every credential answered ok is there after the restart and authenticates; nothing half-written', async (t) => {
    const dir = workDir('kill-sqlite');
    dirs.push(dir);
    const { attempts, stored, instance } = await killDuringRegistrations({
      dir: dir.path,
      database: `sqlite:${dir.path}/data/fido2.db`,
      challenges: 'memory',
    });
    cleanups.push(() => instance.kill());
    t.diagnostic(summary(attempts, stored));
    assert.ok(attempts.filter((a) => a.outcome === 'ok').length >= 25);
    assert.ok(stored.size >= 25);
  });

  it('PostgreSQL + Redis: every credential answered ok is there after the restart and authenticates; nothing half-written', async (t) => {
    const dir = workDir('kill-pg');
    dirs.push(dir);
    const schema = await freshSchema('kill');
    const prefix = freshPrefix('kill');
    cleanups.push(
      () => schema.drop(),
      () => prefix.drop(),
    );
    const { attempts, stored, instance } = await killDuringRegistrations({
      dir: dir.path,
      database: `${POSTGRES_URL}?schema=${schema.schema}`,
      challenges: `${REDIS_URL}?prefix=${encodeURIComponent(prefix.prefix)}`,
      env: sharedSecretsEnv(),
    });
    cleanups.unshift(() => instance.kill());
    t.diagnostic(summary(attempts, stored));
    assert.ok(attempts.filter((a) => a.outcome === 'ok').length >= 25);
    // The database holds exactly the credentials found through the API, each a complete row.
    const rows = await sql<{ credential_id: string; public_key: Buffer; sign_count: string }>(
      `SELECT credential_id, public_key, sign_count FROM "${schema.schema}".credentials WHERE client_id = $1`,
      [CLIENT_ID],
    );
    assert.deepEqual(rows.map((r) => r.credential_id).sort(), [...stored].sort());
    for (const row of rows) assert.ok(row.public_key.length > 0);
  });
});

/** Posts until the answer is not a 503 (bounded); returns it. */
async function untilServing(request: () => Promise<Answer>, withinMs = 20_000): Promise<Answer> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const answer = await request();
    if (answer.httpStatus !== 503 || Date.now() > deadline) return answer;
    await new Promise((ok) => setTimeout(ok, 200));
  }
}

function assertUnavailable(answer: Answer, what: string): void {
  assert.equal(answer.httpStatus, 503, `${what}: ${JSON.stringify(answer.body)}`);
  assert.equal(answer.body.status, 'failed');
  assert.equal(errorName(answer), 'SERVICE_UNAVAILABLE');
}

describe('a backend stops while the service is serving', () => {
  const dir = workDir('outage');
  const secrets = sharedSecretsEnv();
  let schema: TestSchema;
  let prefix: TestPrefix;
  let postgres: ControlledProxy;
  let redis: ControlledProxy;
  const instances: Instance[] = [];

  before(async () => {
    schema = await freshSchema('outage');
    prefix = freshPrefix('outage');
    postgres = await startProxy('127.0.0.1', 5432);
    redis = await startProxy('127.0.0.1', 6379);
  });

  after(async () => {
    await Promise.all(instances.map((i) => i.kill('SIGKILL')));
    await postgres?.close();
    await redis?.close();
    await schema?.drop();
    await prefix?.drop();
    dir.remove();
  });

  /** PostgreSQL through its proxy, Redis direct (or the other way round). */
  async function start(via: 'postgres' | 'redis'): Promise<Instance> {
    const database = `${via === 'postgres' ? postgres.url(POSTGRES_URL) : POSTGRES_URL}?schema=${schema.schema}`;
    const redisUrl = via === 'redis' ? redis.url(REDIS_URL) : REDIS_URL;
    const instance = await startInstance({
      dir: dir.path,
      database,
      challenges: `${redisUrl}?prefix=${encodeURIComponent(prefix.prefix)}`,
      env: secrets,
      name: `via-${via}`,
    });
    instances.push(instance);
    return instance;
  }

  it('PostgreSQL stopped: 503 SERVICE_UNAVAILABLE within the bound, the process stays up, and serves again when it returns', async () => {
    const instance = await start('postgres');
    const user = new User();
    assert.equal((await user.register(instance.url)).answer.body.status, 'ok');
    const pending = await user.signedAssertion(instance.url); // ceremony in Redis, credential in PostgreSQL

    postgres.cut();
    assertUnavailable(
      await post(instance.url, '/api/assertion/options', { username: user.username }, 20_000),
      'assertion/options',
    );
    assertUnavailable(
      await post(instance.url, '/api/attestation/options', { username: new User().username }, 20_000),
      'attestation/options',
    );
    assertUnavailable(await post(instance.url, '/api/assertion/result', pending, 20_000), 'assertion/result');
    assert.ok(instance.running(), instance.output());

    postgres.restore();
    const back = await untilServing(() => post(instance.url, '/api/assertion/options', { username: user.username }));
    assert.equal(back.body.status, 'ok', JSON.stringify(back.body));
    assert.equal((await user.authenticate(instance.url)).body.status, 'ok');
    const newcomer = new User();
    assert.equal((await newcomer.register(instance.url)).answer.body.status, 'ok');
  });

  it('PostgreSQL hung (answers nothing): 503 once the query bound passes, then serves again', async () => {
    const instance = await start('postgres');
    const user = new User();
    assert.equal((await user.register(instance.url)).answer.body.status, 'ok');
    postgres.freeze();
    try {
      assertUnavailable(
        await post(instance.url, '/api/assertion/options', { username: user.username }, 30_000),
        'assertion/options',
      );
      assert.ok(instance.running(), instance.output());
    } finally {
      postgres.restore();
    }
    const back = await untilServing(() => post(instance.url, '/api/assertion/options', { username: user.username }));
    assert.equal(back.body.status, 'ok', JSON.stringify(back.body));
    assert.equal((await user.authenticate(instance.url)).body.status, 'ok');
  });

  it('Redis stopped: 503 SERVICE_UNAVAILABLE within the bound, the process stays up, and serves again when it returns', async () => {
    const instance = await start('redis');
    const user = new User();
    assert.equal((await user.register(instance.url)).answer.body.status, 'ok');
    const pending = await user.signedAssertion(instance.url);

    redis.cut();
    assertUnavailable(
      await post(instance.url, '/api/assertion/options', { username: user.username }, 20_000),
      'assertion/options',
    );
    assertUnavailable(await post(instance.url, '/api/assertion/result', pending, 20_000), 'assertion/result');
    assert.ok(instance.running(), instance.output());

    redis.restore();
    const back = await untilServing(() => post(instance.url, '/api/assertion/result', pending));
    // The ceremony was put before the outage and never taken, so it still completes.
    assert.equal(back.body.status, 'ok', JSON.stringify(back.body));
    assert.equal((await user.authenticate(instance.url)).body.status, 'ok');
  });
});
