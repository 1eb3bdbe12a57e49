// Registers a user of `app-1` (test/config/support.ts's minimalApp) on a running service over its socket,
// with the soft authenticator: the standard variant's options and result, each answered 200.
import assert from 'node:assert/strict';
import { SoftAuthenticator } from './soft-authenticator.js';

const ORIGIN = 'https://idp.example.test';

async function post(url: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'Vendor AppID: app-1', origin: ORIGIN },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const json = await res.json();
  assert.equal(res.status, 200, JSON.stringify(json));
  return json;
}

/** Registers `<name>#idp.example.test`; resolves to the new credential's id. */
export async function registerUser(url: string, name: string): Promise<string> {
  const username = `${name}#idp.example.test`;
  const options = await post(url, '/api/attestation/options', { username, displayName: name });
  const credential = new SoftAuthenticator({ origin: ORIGIN }).register(options);
  await post(url, '/api/attestation/result', credential);
  return credential.id as string;
}
