// End to end (real processes, real sockets): compromised authenticators. A user of an authenticator model
// the application's FIDO metadata lists registers and signs in; the real CLI (`metadata check --blob`)
// installs a newer BLOB that reports the model compromised; the running service reloads it (SIGHUP, or its
// periodic check) and then marks the stored passkey, sends `authenticator.status-changed` to the
// application's webhook and lists the passkey in the admin API; the next sign-in follows the application's
// `compromisedAuthenticators` policy: `flag` accepts it with `authenticatorStatus` in the result, the audit
// log and the event, `refuse` fails it with AUTHENTICATOR_STATUS_NOT_ACCEPTED. Every wait is bounded.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  CLIENT_ID,
  configFile,
  runCli,
  startInstance,
  workDir,
  type Instance,
  type InstanceSettings,
} from '../scale/support/service.js';
import { eventually, metadataFixture, MODEL_AAGUID, ModelUser, outcome } from './metadata-support.js';
import { startReceiver, type Delivery, type Receiver } from '../support/webhook-receiver.js';

const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const STATUS = 'USER_KEY_REMOTE_COMPROMISE';
const EXIT_COMPROMISED = 3;

function settings(
  dir: string,
  receiver: Receiver,
  policy: Record<string, unknown>,
  checkIntervalMs: string,
): { config: InstanceSettings; writeBlob: (name: string, no: number, compromised: boolean) => string } {
  const fixture = metadataFixture(dir);
  const [application] = fixture.applications as [Record<string, unknown> & { attestation: object }];
  // Without enforceStatusAtAuthentication: the sign-in is decided by the mark and the policy alone.
  const { enforceStatusAtAuthentication: _enforce, ...attestation } = application.attestation as Record<
    string,
    unknown
  >;
  return {
    writeBlob: fixture.writeBlob,
    config: {
      dir,
      database: `sqlite:${join(dir, 'passkeys.db')}`,
      challenges: 'memory',
      admin: true,
      env: { WEBHOOK_SECRET: SECRET, PASSKEY_METADATA_CHECK_INTERVAL_MS: checkIntervalMs },
      extraConfig: {
        webhookDelivery: { allowLoopbackHttp: true, allowPrivateAddresses: true, timeoutMs: 2000 },
        applications: [
          {
            ...application,
            attestation,
            webhooks: [{ url: receiver.url, secret: 'env:WEBHOOK_SECRET' }],
            ...policy,
          },
        ],
      },
    },
  };
}

/** An admin token made with the real CLI for the instance's config (the running service reads the file). */
async function adminToken(config: InstanceSettings): Promise<string> {
  const made = await runCli(['admin', 'token', 'create', 'e2e', '--config', configFile(config, 'cli')], {
    cwd: config.dir,
  });
  assert.equal(made.code, 0, made.output);
  return (JSON.parse(made.output.slice(made.output.indexOf('{'))) as { token: string }).token;
}

async function admin(instance: Instance, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${instance.adminUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, json: (await response.json()) as any };
}

/** Installs `blob` with the real CLI, as an operator would. */
async function install(config: InstanceSettings, blob: string): Promise<void> {
  const result = await runCli(['metadata', 'check', '--config', configFile(config, 'cli'), '--blob', blob], {
    cwd: config.dir,
    timeoutMs: 20_000,
  });
  assert.equal(result.code, EXIT_COMPROMISED, result.output);
}

const ofType = (receiver: Receiver, type: string): Delivery[] => receiver.accepted.filter((d) => d.event.type === type);

describe('a metadata refresh marks the passkeys of a compromised model', () => {
  const instances: Instance[] = [];
  const receivers: Receiver[] = [];
  const dirs: { remove(): void }[] = [];
  after(async () => {
    await Promise.all(instances.map((instance) => instance.kill('SIGKILL')));
    await Promise.all(receivers.map((receiver) => receiver.close()));
    for (const dir of dirs) dir.remove();
  });

  it('SIGHUP, policy flag: marked, event sent, listed; the sign-in is accepted and says so; refuse after a PATCH', async () => {
    const work = workDir('compromised-flag');
    dirs.push(work);
    const receiver = await startReceiver(SECRET);
    receivers.push(receiver);
    const { config, writeBlob } = settings(work.path, receiver, {}, '0');
    const token = await adminToken(config);
    const instance = await startInstance(config);
    instances.push(instance);
    const user = new ModelUser('alice');
    assert.equal(outcome(await user.register(instance.url)), 'ok', instance.output());
    const first = await user.signIn(instance.url);
    assert.equal(outcome(first), 'ok');
    assert.equal(first.body.authenticatorStatus, undefined, 'not marked yet');
    const marked = `/admin/applications/${CLIENT_ID}/marked-credentials`;
    assert.deepEqual((await admin(instance, token, 'GET', marked)).json.credentials, []);

    await install(config, writeBlob('newer.jwt', 2, true));
    instance.process.kill('SIGHUP');
    assert.ok(
      await eventually(() => ofType(receiver, 'authenticator.status-changed').length >= 1, 15_000),
      instance.output(),
    );
    const changed = ofType(receiver, 'authenticator.status-changed');
    assert.equal(changed.length, 1, 'one event for the one passkey');
    const event = changed[0]!;
    assert.ok(event.verified, 'signed with the webhook secret');
    const credentialId = ofType(receiver, 'credential.created')[0]!.event.data.credentialId;
    assert.deepEqual(event.event.data, {
      clientId: CLIENT_ID,
      username: user.username,
      credentialId,
      aaguid: MODEL_AAGUID,
      status: STATUS,
      // The name is the one recorded at registration: none here, as a `none` attestation proved no AAGUID.
      authenticatorName: null,
    });

    const listed = await admin(instance, token, 'GET', marked);
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.json.credentials.map((c: Record<string, unknown>) => [c.credentialId, c.username, c.authenticatorStatus]),
      [[credentialId, user.username, STATUS]],
    );
    assert.equal(typeof listed.json.credentials[0].authenticatorStatusAt, 'string');
    const audit = await admin(instance, token, 'GET', '/admin/audit?action=authenticator.status-change');
    assert.deepEqual(
      audit.json.events.map((e: Record<string, unknown>) => [e.actor, e.target, e.details]),
      [['system:metadata', MODEL_AAGUID, { status: STATUS, credentials: 1 }]],
    );

    // flag (the default): accepted, and the result, the audit and the event say the status.
    const flagged = await user.signIn(instance.url);
    assert.equal(outcome(flagged), 'ok');
    assert.equal(flagged.body.authenticatorStatus, STATUS);
    // The audit event is written after the answer: read until it is there (bounded).
    let signIns: Record<string, any>[] = [];
    const read = async () => {
      signIns = (await admin(instance, token, 'GET', '/admin/audit?action=ceremony.authentication')).json.events;
      return signIns.length >= 2;
    };
    assert.ok(await eventually(read, 10_000));
    assert.equal(signIns.length, 2);
    assert.equal(signIns[0]!.details?.authenticatorStatus, undefined);
    assert.equal(signIns[1]!.result, 'ok');
    assert.equal(signIns[1]!.details?.authenticatorStatus, STATUS);
    assert.ok(await eventually(() => ofType(receiver, 'authentication.succeeded').length >= 2, 15_000));
    assert.equal(ofType(receiver, 'authentication.succeeded')[1]!.event.data.authenticatorStatus, STATUS);

    // refuse, set through the admin API: the next sign-in fails, and an operator's event says why.
    const patched = await admin(instance, token, 'PATCH', `/admin/applications/${CLIENT_ID}`, {
      compromisedAuthenticators: 'refuse',
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    assert.equal(outcome(await user.signIn(instance.url)), 'AUTHENTICATOR_STATUS_NOT_ACCEPTED');
    assert.ok(await eventually(() => ofType(receiver, 'authentication.failed').length >= 1, 15_000));
    const failed = ofType(receiver, 'authentication.failed')[0]!.event.data;
    assert.deepEqual(
      [failed.error, failed.reason, failed.credentialId],
      ['AUTHENTICATOR_STATUS_NOT_ACCEPTED', 'compromised-authenticator', credentialId],
    );

    // A reload of the same BLOB marks nothing again: no second event.
    instance.process.kill('SIGHUP');
    assert.ok(
      await eventually(() => (instance.output().match(/"event":"metadata_reloaded"/g) ?? []).length >= 2, 10_000),
    );
    assert.equal(ofType(receiver, 'authenticator.status-changed').length, 1);
    assert.ok(instance.running());
  });

  it('the periodic check, policy refuse: the next sign-in fails with AUTHENTICATOR_STATUS_NOT_ACCEPTED', async () => {
    const work = workDir('compromised-refuse');
    dirs.push(work);
    const receiver = await startReceiver(SECRET);
    receivers.push(receiver);
    const { config, writeBlob } = settings(work.path, receiver, { compromisedAuthenticators: 'refuse' }, '200');
    const token = await adminToken(config);
    const instance = await startInstance(config);
    instances.push(instance);
    const user = new ModelUser('bob');
    assert.equal(outcome(await user.register(instance.url)), 'ok', instance.output());
    assert.equal(outcome(await user.signIn(instance.url)), 'ok');

    await install(config, writeBlob('newer.jwt', 2, true));
    // No signal: the periodic check (every 200 ms) finds the new file, reloads it and marks the passkey.
    assert.ok(
      await eventually(() => ofType(receiver, 'authenticator.status-changed').length >= 1, 15_000),
      instance.output(),
    );
    assert.equal(ofType(receiver, 'authenticator.status-changed')[0]!.event.data.status, STATUS);
    const listed = await admin(instance, token, 'GET', `/admin/applications/${CLIENT_ID}/marked-credentials`);
    assert.equal(listed.json.credentials.length, 1);
    assert.equal(outcome(await user.signIn(instance.url)), 'AUTHENTICATOR_STATUS_NOT_ACCEPTED');
    let events: Record<string, any>[] = [];
    const read = async () => {
      events = (await admin(instance, token, 'GET', '/admin/audit?action=ceremony.authentication')).json.events;
      return events.length >= 2;
    };
    assert.ok(await eventually(read, 10_000), 'the audit log has both sign-ins');
    assert.deepEqual([events[1]!.result, events[1]!.errorName], ['failed', 'AUTHENTICATOR_STATUS_NOT_ACCEPTED']);
  });
});
