// Several stateless instances on one PostgreSQL and one Redis, as behind a load balancer: three real
// service processes (`cli/bin.js serve`), a ceremony begun on one and finished on another, one assertion
// raced to two instances, concurrent authentications of one credential; the same with ceremonies in
// PostgreSQL instead of Redis; and the start-up refusals.

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
import { errorName, post, User } from './support/client.js';
import {
  CLIENT_ID,
  configFile,
  runCli,
  sharedSecretsEnv,
  startInstance,
  workDir,
  type Instance,
} from './support/service.js';

describe('three instances on one PostgreSQL and one Redis', () => {
  const dir = workDir('multi');
  const secrets = sharedSecretsEnv();
  let schema: TestSchema;
  let prefix: TestPrefix;
  let database: string;
  let challenges: string;
  let instances: Instance[] = [];
  const at = (i: number) => instances[i % instances.length]!.url;

  before(async () => {
    schema = await freshSchema('multi');
    prefix = freshPrefix('multi');
    database = `${POSTGRES_URL}?schema=${schema.schema}`;
    challenges = `${REDIS_URL}?prefix=${encodeURIComponent(prefix.prefix)}`;
    instances = await Promise.all(
      ['a', 'b', 'c'].map((name) => startInstance({ dir: dir.path, database, challenges, env: secrets, name })),
    );
  });

  after(async () => {
    await Promise.all(instances.map((i) => i.kill('SIGKILL')));
    await schema?.drop();
    await prefix?.drop();
    dir.remove();
  });

  it('options on one instance and result on another succeed, for registration and authentication', async () => {
    for (let i = 0; i < 6; i += 1) {
      const user = new User();
      const registration = await user.register(at(i), at(i + 1));
      assert.equal(registration.answer.body.status, 'ok', JSON.stringify(registration.answer.body));
      const authentication = await user.authenticate(at(i + 2), at(i));
      assert.equal(authentication.body.status, 'ok', JSON.stringify(authentication.body));
    }
  });

  it('a credential registered through one instance is offered and accepted by every other', async () => {
    const user = new User();
    assert.equal((await user.register(at(0), at(0))).answer.body.status, 'ok');
    for (const instance of instances) {
      const options = await user.authenticationOptions(instance.url);
      assert.equal(options.allowCredentials?.length, 1, `${instance.name} offers the credential`);
      assert.equal((await user.authenticate(instance.url)).body.status, 'ok');
    }
  });

  it('the same assertion posted to two instances at the same moment succeeds exactly once', async () => {
    const user = new User();
    assert.equal((await user.register(at(0))).answer.body.status, 'ok');
    for (let round = 0; round < 8; round += 1) {
      const assertion = await user.signedAssertion(at(round));
      const answers = await Promise.all([
        post(at(round + 1), '/api/assertion/result', assertion),
        post(at(round + 2), '/api/assertion/result', assertion),
      ]);
      const ok = answers.filter((a) => a.body.status === 'ok');
      assert.equal(ok.length, 1, `round ${round}: ${JSON.stringify(answers.map((a) => a.body))}`);
      const loser = answers.find((a) => a.body.status !== 'ok')!;
      assert.equal(loser.httpStatus, 400);
      assert.equal(errorName(loser), 'SESSION_ALREADY_REVOKED');
    }
  });

  it('the same registration posted to three instances at once stores one credential and answers ok once', async () => {
    const user = new User();
    const options = await user.registrationOptions(at(0));
    const credential = user.authenticator.register(options);
    const answers = await Promise.all(instances.map((i) => post(i.url, '/api/attestation/result', credential)));
    assert.equal(answers.filter((a) => a.body.status === 'ok').length, 1, JSON.stringify(answers.map((a) => a.body)));
    const rows = await sql(`SELECT 1 FROM "${schema.schema}".credentials WHERE client_id = $1 AND credential_id = $2`, [
      CLIENT_ID,
      credential.id,
    ]);
    assert.equal(rows.length, 1);
  });

  it('concurrent authentications of one credential never move its counter backwards', async () => {
    const user = new User();
    const { credentialId } = await user.register(at(0));
    const storedCounter = async () =>
      Number(
        (
          await sql<{ sign_count: string }>(
            `SELECT sign_count FROM "${schema.schema}".credentials WHERE client_id = $1 AND credential_id = $2`,
            [CLIENT_ID, credentialId],
          )
        )[0]!.sign_count,
      );
    let highestAccepted = 0;
    for (let round = 0; round < 4; round += 1) {
      // Sign 12 assertions in order (rising counters), then post them all at once to the three instances,
      // so that several read the same stored counter and race to write, lower counters among them.
      const assertions: { body: unknown; counter: number }[] = [];
      for (let i = 0; i < 12; i += 1) {
        const body = await user.signedAssertion(at(i));
        assertions.push({ body, counter: user.authenticator.credential(credentialId)!.signCount });
      }
      const answers = await Promise.all(assertions.map((a, i) => post(at(i), '/api/assertion/result', a.body)));
      const accepted = assertions.filter((_, i) => answers[i]!.body.status === 'ok').map((a) => a.counter);
      const refused = answers.filter((a) => a.body.status !== 'ok').map(errorName);
      assert.deepEqual(
        [...new Set(refused)].filter((name) => name !== 'SIGNATURE_COUNTER_NOT_INCREASED'),
        [],
        `refusals: ${refused}`,
      );
      highestAccepted = Math.max(highestAccepted, ...accepted);
      // Read-then-write would let a slower, lower counter overwrite a higher one that was accepted.
      assert.equal(await storedCounter(), highestAccepted, `round ${round}: accepted ${accepted}`);
    }
    assert.ok(highestAccepted > 0, 'authentications were accepted');
    // And the credential still works from the stored counter on.
    assert.equal((await user.authenticate(at(1), at(2))).body.status, 'ok');
  });

  it('every instance kept running', () => {
    for (const instance of instances)
      assert.ok(instance.running(), `${instance.name} is running:\n${instance.output()}`);
  });
});

describe('two instances with ceremonies in PostgreSQL (challenges: "database"), no Redis', () => {
  const dir = workDir('multi-db');
  const secrets = sharedSecretsEnv();
  let schema: TestSchema;
  let instances: Instance[] = [];
  const at = (i: number) => instances[i % instances.length]!.url;

  before(async () => {
    schema = await freshSchema('multidb');
    const database = `${POSTGRES_URL}?schema=${schema.schema}`;
    instances = await Promise.all(
      ['a', 'b'].map((name) => startInstance({ dir: dir.path, database, challenges: 'database', env: secrets, name })),
    );
  });

  after(async () => {
    await Promise.all(instances.map((i) => i.kill('SIGKILL')));
    await schema?.drop();
    dir.remove();
  });

  it('options on one instance and result on the other succeed', async () => {
    for (let i = 0; i < 4; i += 1) {
      const user = new User();
      assert.equal((await user.register(at(i), at(i + 1))).answer.body.status, 'ok');
      assert.equal((await user.authenticate(at(i + 1), at(i))).body.status, 'ok');
    }
  });

  it('the same assertion posted to both instances at the same moment succeeds exactly once', async () => {
    const user = new User();
    assert.equal((await user.register(at(0))).answer.body.status, 'ok');
    for (let round = 0; round < 8; round += 1) {
      const assertion = await user.signedAssertion(at(round));
      const answers = await Promise.all([
        post(at(0), '/api/assertion/result', assertion),
        post(at(1), '/api/assertion/result', assertion),
      ]);
      assert.equal(
        answers.filter((a) => a.body.status === 'ok').length,
        1,
        `round ${round}: ${JSON.stringify(answers.map((a) => a.body))}`,
      );
      assert.equal(errorName(answers.find((a) => a.body.status !== 'ok')!), 'SESSION_ALREADY_REVOKED');
    }
    // Taken ceremonies leave no pending row behind; their used-markers remain until expiry.
    const pending = await sql(`SELECT 1 FROM "${schema.schema}".challenges`);
    assert.equal(pending.length, 0);
  });
});

describe('starting an instance of a multi-instance deployment', () => {
  const dir = workDir('start');
  const schemas: TestSchema[] = [];
  after(async () => {
    await Promise.all(schemas.map((s) => s.drop()));
    dir.remove();
  });

  it('refuses to generate its own secrets on PostgreSQL (others would not share them), saying what to set', async () => {
    const schema = await freshSchema('nosecrets');
    schemas.push(schema);
    const config = configFile(
      { dir: dir.path, database: `${POSTGRES_URL}?schema=${schema.schema}`, challenges: REDIS_URL },
      'no-secrets',
    );
    const { code, output } = await runCli(['serve', '--config', config], { cwd: dir.path });
    assert.notEqual(code, 0, output);
    assert.match(output, /PASSKEY_USER_HANDLE_KEY/);
    assert.match(output, /never generated/);
  });

  it('refuses to start with secrets that differ from those the first instance recorded; starts with the same ones', async () => {
    const schema = await freshSchema('mismatch');
    schemas.push(schema);
    const shared = sharedSecretsEnv();
    const settings = {
      dir: dir.path,
      database: `${POSTGRES_URL}?schema=${schema.schema}`,
      challenges: REDIS_URL,
      env: shared,
    };
    const first = await startInstance(settings);
    try {
      const other = { ...shared, PASSKEY_USER_HANDLE_KEY: sharedSecretsEnv().PASSKEY_USER_HANDLE_KEY! };
      const config = configFile({ ...settings, env: other }, 'mismatch');
      const refused = await runCli(['serve', '--config', config, '--port', '0', '--no-demo'], {
        cwd: dir.path,
        env: other,
      });
      assert.notEqual(refused.code, 0, refused.output);
      assert.match(refused.output, /secrets differ/);
      const same = await startInstance(settings);
      await same.kill();
    } finally {
      await first.kill();
    }
  });

  it('refuses to start on an unmigrated database, naming the migrate command; starts after `migrate`', async () => {
    const schema = await freshSchema('unmigrated', { migrate: false });
    schemas.push(schema);
    const settings = {
      dir: dir.path,
      database: `${POSTGRES_URL}?schema=${schema.schema}`,
      challenges: 'database',
      env: sharedSecretsEnv(),
    };
    const config = configFile(settings, 'unmigrated');
    const refused = await runCli(['serve', '--config', config], { cwd: dir.path, env: settings.env });
    assert.notEqual(refused.code, 0, refused.output);
    assert.match(refused.output, /not migrated/);
    assert.match(refused.output, /migrate/);
    const migrated = await runCli(['migrate', '--config', config], { cwd: dir.path, env: settings.env });
    assert.equal(migrated.code, 0, migrated.output);
    const instance = await startInstance(settings);
    try {
      const user = new User();
      assert.equal((await user.register(instance.url)).answer.body.status, 'ok');
      assert.equal((await user.authenticate(instance.url)).body.status, 'ok');
    } finally {
      await instance.kill();
    }
  });
});
