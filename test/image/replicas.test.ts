// compose.yaml's topology with podman: two containers of the image on one PostgreSQL and one Redis (the ones
// CI starts, on 127.0.0.1; a fresh schema and key prefix), configured as compose.yaml configures them
// (deploy/config.json mounted under /etc/passkey-server/, the database, Redis and the shared secrets by
// their variables), the schema migrated first by a one-off `podman run IMAGE migrate`; a passkey
// registered through one replica signs in through the other.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  freshPrefix,
  freshSchema,
  POSTGRES_URL,
  REDIS_URL,
  type TestPrefix,
  type TestSchema,
} from '../scale/support/backends.js';
import { sharedSecretsEnv } from '../scale/support/service.js';
import { Container } from './support/container.js';
import { imageUnderTest, podman, REPO } from './support/podman.js';
import { type Application, User } from './support/relay.js';

const CONFIG = join(REPO, 'deploy', 'config.json');
const MOUNTED = '/etc/passkey-server/config.json';
const SETUP_LIMIT_MS = 45 * 60_000;

/** deploy/config.json's application, as a relay calls it. */
function configuredApplication(): Application {
  const config = JSON.parse(readFileSync(CONFIG, 'utf8'));
  const app = config.applications[0];
  return { clientId: app.clientId, domain: app.domain, origin: app.origins[0], vendor: config.vendor };
}

/** `-e NAME=value` for each variable. */
const envOptions = (env: Record<string, string>) =>
  Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`]);

describe('two replicas on one PostgreSQL and one Redis', () => {
  const app = configuredApplication();
  let schema: TestSchema;
  let prefix: TestPrefix;
  let replicas: Container[] = [];
  let migrated = '';

  before(
    async () => {
      const image = await imageUnderTest();
      schema = await freshSchema('image', { migrate: false });
      prefix = freshPrefix('image');
      const env = {
        PASSKEY_DATABASE: `${POSTGRES_URL}?schema=${schema.schema}`,
        PASSKEY_CHALLENGES: `${REDIS_URL}?prefix=${encodeURIComponent(prefix.prefix)}`,
        PASSKEY_RATE_LIMIT_STORE: REDIS_URL,
        ...sharedSecretsEnv(),
      };
      const options = ['--volume', `${CONFIG}:${MOUNTED}:ro`, ...envOptions(env)];
      migrated = await podman(
        [
          'run',
          '--rm',
          '--network',
          'host',
          '--read-only',
          '--tmpfs',
          '/tmp',
          ...options,
          image,
          'migrate',
          '--config',
          MOUNTED,
        ],
        120_000,
      );
      replicas = await Promise.all(
        ['a', 'b'].map((name) =>
          Container.run({ image, options, command: ['serve', '--config', MOUNTED] }, `replica-${name}`),
        ),
      );
    },
    { timeout: SETUP_LIMIT_MS },
  );

  after(async () => {
    await Promise.all(replicas.map((replica) => replica.remove()));
    await schema?.drop();
    await prefix?.drop();
  });

  it('migrates the schema with a one-off container, then both replicas are ready', async () => {
    assert.match(migrated, /schema version 0 → \d+ \(applied: 1 /);
    for (const replica of replicas) {
      const ready = await fetch(`${replica.adminUrl}/ready`, { signal: AbortSignal.timeout(10_000) });
      assert.equal(ready.status, 200, `${replica.name}: ${await ready.text()}`);
    }
  });

  it('registers through one replica and signs in through the other, with and without a name', async () => {
    const [one, other] = replicas as [Container, Container];
    const user = new User(app);
    await user.register(one.serviceUrl);
    await user.signIn(other.serviceUrl);
    await user.signInWithoutName(other.serviceUrl);
  });

  it('finishes on one replica a ceremony begun on the other', async () => {
    const [one, other] = replicas as [Container, Container];
    const user = new User(app);
    await user.register(one.serviceUrl, other.serviceUrl);
    await user.signIn(other.serviceUrl, one.serviceUrl);
    await user.signInWithoutName(one.serviceUrl, other.serviceUrl);
  });
});
