// Issue 35 item 5, the local variant (a real service on SQLite, over its socket): the application's
// `compromisedAuthenticators` policy applies to the AAGUID in the local blob as it applies to a stored
// passkey's mark. The blob cannot carry a mark, so the status the loaded metadata reports now for its AAGUID
// decides: `flag` accepts the sign-in with `authenticatorStatus` in the result and the audit, `refuse` fails
// it with AUTHENTICATOR_STATUS_NOT_ACCEPTED. A registration of a model the metadata reports compromised is
// refused under either policy, as in the standard variant, and nothing is remembered. The local variant
// stores no credential in any case (the admin API lists none).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningService } from '../../../src/main.js';
import { errorName, post, type Answer } from '../../scale/support/client.js';
import { CLIENT_ID } from '../../scale/support/service.js';
import { tempDir, writeFile } from '../../config/support.js';
import type { AdminCall } from '../../support/admin-call.js';
import { startReloadingService } from '../../support/reloading-service.js';
import { eventually, metadataFixture, MODEL_AAGUID } from '../../e2e/metadata-support.js';
import {
  SoftAuthenticator,
  type CreationOptionsJSON,
  type RequestOptionsJSON,
} from '../../support/soft-authenticator.js';
import { LOCAL_PAGE } from './support.js';

const STATUS = 'USER_KEY_REMOTE_COMPROMISE';

/** A developer's page on localhost with an authenticator of the fixture's model, behind a relay doing the three steps. */
class LocalModelUser {
  readonly authenticator = new SoftAuthenticator({
    origin: LOCAL_PAGE,
    aaguid: Buffer.from(MODEL_AAGUID.replace(/-/g, ''), 'hex'),
  });
  readonly username: string;
  /** What the relay keeps (step 2). */
  blob: string | undefined;

  constructor(name: string) {
    this.username = `${name}#localhost`;
  }

  attestationOptions(url: string): Promise<Answer> {
    return post(url, '/api/attestation/options', { username: this.username, attestation: 'none' }, 10_000);
  }

  assertionOptions(url: string): Promise<Answer> {
    return post(url, '/api/assertion/options', { username: this.username }, 10_000);
  }

  async register(url: string): Promise<Answer> {
    const options = await this.attestationOptions(url);
    assert.equal(options.body.status, 'ok', JSON.stringify(options.body));
    const made = this.authenticator.register(options.body as unknown as CreationOptionsJSON);
    const answer = await post(url, '/api/attestation/result', { ...made, extensions: { localhost: true } }, 10_000);
    if (answer.body.status === 'ok') this.blob = answer.body.localhost as string;
    return answer;
  }

  async signIn(url: string): Promise<Answer> {
    const options = await this.assertionOptions(url);
    assert.equal(options.body.status, 'ok', JSON.stringify(options.body));
    const made = this.authenticator.authenticate(options.body as unknown as RequestOptionsJSON);
    return post(url, '/api/assertion/result', { ...made, extensions: { localhost: this.blob } }, 10_000);
  }
}

interface Started {
  readonly running: RunningService;
  readonly admin: AdminCall;
  /** Installs a BLOB reporting the model compromised and reloads it, as SIGHUP would. */
  compromise(): Promise<void>;
}

/** The service on SQLite with one local-only application of the fixture's metadata, under `policy`. */
async function start(policy: 'flag' | 'refuse', compromisedAtStart = false): Promise<Started> {
  const dir = tempDir('passkey-local-compromised-');
  const fixture = metadataFixture(dir);
  const compromise = () => renameSync(fixture.writeBlob('newer.jwt', 2, true), fixture.blobFile);
  if (compromisedAtStart) compromise();
  const [application] = fixture.applications as [Record<string, unknown> & { attestation: object }];
  // Without enforceStatusAtAuthentication: the sign-in is decided by the policy alone.
  const { enforceStatusAtAuthentication: _enforce, ...attestation } = application.attestation as Record<
    string,
    unknown
  >;
  const file = writeFile(dir, 'config.json', {
    listen: { host: '127.0.0.1', port: 0 },
    database: `sqlite:${join(dir, 'passkeys.db')}`,
    dataDir: join(dir, 'data'),
    local: { enabled: true },
    demo: { enabled: false },
    applications: [
      {
        ...application,
        attestation,
        variants: ['local'],
        localOrigins: ['https://localhost'],
        compromisedAuthenticators: policy,
      },
    ],
  });
  const { running, admin } = await startReloadingService(file, dir);
  return {
    running,
    admin,
    compromise: async () => {
      compromise();
      const report = await running.reloadMetadata();
      assert.deepEqual([report.ok, report.applications[0]?.serial], [true, 2]);
    },
  };
}

async function storedCredentials(admin: AdminCall): Promise<unknown[]> {
  const listed = await admin('GET', `/admin/applications/${CLIENT_ID}/credentials`);
  assert.equal(listed.status, 200, JSON.stringify(listed.json));
  return listed.json.credentials;
}

describe('local variant: compromisedAuthenticators applies to the AAGUID in the blob (SQLite, over the socket)', () => {
  it('flag: once the metadata reports the model compromised, the sign-in is accepted and says so', async () => {
    const { running, admin, compromise } = await start('flag');
    try {
      const alice = new LocalModelUser('alice');
      assert.equal((await alice.register(running.url)).body.status, 'ok');
      const before = await alice.signIn(running.url);
      assert.equal(before.body.status, 'ok', JSON.stringify(before.body));
      assert.equal(before.body.authenticatorStatus, undefined, 'the model is certified');

      await compromise();
      const flagged = await alice.signIn(running.url);
      assert.equal(flagged.httpStatus, 200, JSON.stringify(flagged.body));
      assert.equal(flagged.body.status, 'ok');
      assert.equal(flagged.body.authenticatorStatus, STATUS);
      // The audit event of the sign-in says it too (written after the answer: read until it is there).
      let events: Record<string, any>[] = [];
      const read = async () => {
        events = (await admin('GET', '/admin/audit?action=ceremony.authentication')).json.events;
        return events.length >= 2;
      };
      assert.ok(await eventually(read, 10_000), JSON.stringify(events));
      assert.deepEqual(
        events.map((e) => [e.result, e.details?.authenticatorStatus]),
        [
          ['ok', undefined],
          ['ok', STATUS],
        ],
      );
      assert.deepEqual(await storedCredentials(admin), [], 'the local variant stores no credential');
    } finally {
      await running.close();
    }
  });

  it('refuse: the sign-in fails with AUTHENTICATOR_STATUS_NOT_ACCEPTED in the envelope', async () => {
    const { running, admin, compromise } = await start('refuse');
    try {
      const alice = new LocalModelUser('alice');
      assert.equal((await alice.register(running.url)).body.status, 'ok');
      assert.equal((await alice.signIn(running.url)).body.status, 'ok');

      await compromise();
      const refused = await alice.signIn(running.url);
      assert.equal(refused.httpStatus, 400);
      assert.equal(refused.body.status, 'failed');
      assert.equal(errorName(refused), 'AUTHENTICATOR_STATUS_NOT_ACCEPTED');
      assert.match(String(refused.body.errorMessage[1]), new RegExp(STATUS));
      assert.deepEqual(await storedCredentials(admin), []);
    } finally {
      await running.close();
    }
  });

  for (const policy of ['flag', 'refuse'] as const) {
    it(`${policy}: a registration of a model the metadata reports compromised is refused, nothing remembered`, async () => {
      const { running, admin } = await start(policy, true);
      try {
        const bob = new LocalModelUser('bob');
        const refused = await bob.register(running.url);
        assert.equal(refused.httpStatus, 400);
        assert.equal(errorName(refused), 'AUTHENTICATOR_STATUS_NOT_ACCEPTED');
        assert.equal(refused.body.localhost, undefined, 'no blob');
        // Nothing remembered: nothing to exclude, and assertion options offer a stand-in, not the refused id.
        assert.deepEqual((await bob.attestationOptions(running.url)).body.excludeCredentials, []);
        const offered = (await bob.assertionOptions(running.url)).body.allowCredentials as { id: string }[];
        assert.equal(offered.length, 1);
        const made = bob.authenticator.credentials.map((c) => c.id.toString('base64url'));
        assert.equal(made.length, 1, 'the authenticator made one credential');
        assert.ok(!made.includes(offered[0]!.id));
        assert.deepEqual(await storedCredentials(admin), []);
      } finally {
        await running.close();
      }
    });
  }
});
