// What a typical team would run instead: @simplewebauthn/server on Fastify, the same four paths and
// envelope as our service, everything in memory (users, credentials, pending challenges in Maps; nothing
// durable). Written the way its documentation suggests, without our checks (Client ID, origin header,
// strict schemas, user-handle derivation). Used by the bench only, for comparison.
//
//   node comparison-server.js <port>

import Fastify from 'fastify';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
  type WebAuthnCredential,
} from '@simplewebauthn/server';

const RP_ID = process.env.BENCH_RP_ID ?? 'bench.example.test';
const ORIGIN = process.env.BENCH_ORIGIN ?? `https://${RP_ID}`;
const CHALLENGE_TTL_MS = 300_000;

interface Pending {
  readonly username: string;
  readonly userId?: string;
  readonly expiresAt: number;
}

interface User {
  readonly id: string;
  readonly credentials: WebAuthnCredential[];
}

const users = new Map<string, User>();
const credentials = new Map<string, { credential: WebAuthnCredential; username: string }>();
const pending = new Map<string, Pending>();

const ok = { status: 'ok', errorMessage: '', sessionId: '' };
const failed = (name: string, message: string) => ({ status: 'failed', errorMessage: [name, message], sessionId: '' });

function challengeOf(clientDataJSON: string): string {
  return (JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge: string }).challenge;
}

function takePending(challenge: string): Pending | undefined {
  const entry = pending.get(challenge);
  pending.delete(challenge);
  return entry && entry.expiresAt > Date.now() ? entry : undefined;
}

const app = Fastify({ logger: false });

app.post('/api/attestation/options', async (request) => {
  const body = request.body as { username: string; displayName?: string };
  const user = users.get(body.username);
  const options = await generateRegistrationOptions({
    rpName: 'Bench',
    rpID: RP_ID,
    userName: body.username,
    userDisplayName: body.displayName ?? body.username,
    attestationType: 'none',
    excludeCredentials: user?.credentials.map((c) => ({ id: c.id, transports: c.transports })) ?? [],
    authenticatorSelection: { userVerification: 'preferred', residentKey: 'preferred' },
    supportedAlgorithmIDs: [-7, -257],
  });
  pending.set(options.challenge, {
    username: body.username,
    userId: options.user.id,
    expiresAt: Date.now() + CHALLENGE_TTL_MS,
  });
  return { ...ok, ...options };
});

app.post('/api/attestation/result', async (request, reply) => {
  const response = request.body as RegistrationResponseJSON;
  const challenge = challengeOf(response.response.clientDataJSON);
  const entry = takePending(challenge);
  if (!entry?.userId) return reply.code(400).send(failed('SESSION_NOT_FOUND', 'unknown challenge'));
  try {
    const verification = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: ORIGIN,
      expectedRPID: RP_ID,
      requireUserVerification: false,
    });
    if (!verification.verified) return reply.code(400).send(failed('INVALID_SIGNATURE', 'not verified'));
    const credential = verification.registrationInfo.credential;
    let user = users.get(entry.username);
    if (!user) users.set(entry.username, (user = { id: entry.userId, credentials: [] }));
    user.credentials.push(credential);
    credentials.set(credential.id, { credential, username: entry.username });
    return ok;
  } catch (error) {
    return reply.code(400).send(failed('VERIFICATION_FAILED', (error as Error).message));
  }
});

app.post('/api/assertion/options', async (request, reply) => {
  const body = request.body as { username: string; userVerification?: 'required' | 'preferred' | 'discouraged' };
  const user = users.get(body.username);
  if (!user) return reply.code(400).send(failed('CREDENTIAL_ID_NOT_FOUND', 'unknown user'));
  const options = await generateAuthenticationOptions({
    rpID: RP_ID,
    allowCredentials: user.credentials.map((c) => ({ id: c.id, transports: c.transports })),
    userVerification: body.userVerification ?? 'preferred',
  });
  pending.set(options.challenge, { username: body.username, expiresAt: Date.now() + CHALLENGE_TTL_MS });
  return { ...ok, ...options };
});

app.post('/api/assertion/result', async (request, reply) => {
  const response = request.body as AuthenticationResponseJSON;
  const challenge = challengeOf(response.response.clientDataJSON);
  const entry = takePending(challenge);
  const stored = credentials.get(response.id);
  if (!entry || !stored || stored.username !== entry.username)
    return reply.code(400).send(failed('SESSION_NOT_FOUND', 'unknown challenge or credential'));
  try {
    const verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: ORIGIN,
      expectedRPID: RP_ID,
      credential: stored.credential,
      requireUserVerification: false,
    });
    if (!verification.verified) return reply.code(400).send(failed('INVALID_SIGNATURE', 'not verified'));
    stored.credential.counter = verification.authenticationInfo.newCounter;
    return ok;
  } catch (error) {
    return reply.code(400).send(failed('VERIFICATION_FAILED', (error as Error).message));
  }
});

// Expired challenges go, as they would in any real deployment.
setInterval(() => {
  const now = Date.now();
  for (const [challenge, entry] of pending) if (entry.expiresAt <= now) pending.delete(challenge);
}, 10_000).unref();

const address = await app.listen({ port: Number(process.argv[2] ?? 0), host: '127.0.0.1' });
process.stdout.write(`listening ${new URL(address).port}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
