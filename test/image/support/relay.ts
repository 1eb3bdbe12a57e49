// The relay's side of the four operations against a service in a container, with test/support's soft
// authenticator in place of the browser: register, sign in by name and without a name (`#<domain>`),
// each step through a real socket (test/support/socket-harness.ts's postOverSocket), options from one
// address and result to another when asked.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { PATHS } from '../../support/harness.js';
import { postOverSocket } from '../../support/socket-harness.js';
import { SoftAuthenticator } from '../../support/soft-authenticator.js';

/** The application a relay calls for: its Client ID, its domain and its page's origin. */
export interface Application {
  readonly clientId: string;
  readonly domain: string;
  readonly origin: string;
  readonly vendor: string;
}

/** The built-in default configuration's application (docs/configuration.md), standard variant. */
export const DEFAULT_APPLICATION: Application = {
  clientId: 'demo-client',
  domain: 'demo.localhost',
  origin: 'https://demo.localhost:8443',
  vendor: 'Vendor',
};

/** The headers a relay sends for `app` (the standard variant: with the page's origin). */
export function relayHeaders(app: Application): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': `${app.vendor} AppID: ${app.clientId}`,
    origin: app.origin,
  };
}

export class User {
  readonly name = `user-${randomBytes(5).toString('hex')}`;
  private readonly authenticator: SoftAuthenticator;
  private credentialId = '';

  constructor(private readonly app: Application) {
    this.authenticator = new SoftAuthenticator({ origin: app.origin });
  }

  get username(): string {
    return `${this.name}#${this.app.domain}`;
  }

  /** One operation; asserts an ok envelope and answers its body. */
  private async call(baseUrl: string, path: string, body: unknown): Promise<any> {
    const answer = await postOverSocket(`${baseUrl}${path}`, relayHeaders(this.app), body);
    const parsed = answer.json();
    assert.equal(answer.status, 200, `${path}: ${answer.body}`);
    assert.equal(parsed.status, 'ok', `${path}: ${answer.body}`);
    return parsed;
  }

  /** attestation/options from `optionsFrom`, attestation/result to `resultTo`; a discoverable passkey. */
  async register(optionsFrom: string, resultTo = optionsFrom): Promise<void> {
    const options = await this.call(optionsFrom, PATHS.attestationOptions, {
      username: this.username,
      displayName: this.name,
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      attestation: 'none',
    });
    const credential = this.authenticator.register(options);
    const result = await this.call(resultTo, PATHS.attestationResult, credential);
    assert.equal(result.credentialId, credential.id);
    this.credentialId = credential.id;
  }

  /** assertion/options by name (the passkey is offered), assertion/result; answers the result. */
  async signIn(optionsFrom: string, resultTo = optionsFrom): Promise<any> {
    const options = await this.call(optionsFrom, PATHS.assertionOptions, { username: this.username });
    assert.deepEqual(
      options.allowCredentials.map((c: { id: string }) => c.id),
      [this.credentialId],
    );
    return this.finishSignIn(options, resultTo);
  }

  /** assertion/options without a name (`#<domain>`: nothing offered), the passkey's answer names the user. */
  async signInWithoutName(optionsFrom: string, resultTo = optionsFrom): Promise<any> {
    const options = await this.call(optionsFrom, PATHS.assertionOptions, { username: `#${this.app.domain}` });
    assert.deepEqual(options.allowCredentials ?? [], []);
    return this.finishSignIn(options, resultTo);
  }

  private async finishSignIn(options: any, resultTo: string): Promise<any> {
    const assertion = this.authenticator.authenticate(options, { credentialId: this.credentialId });
    const result = await this.call(resultTo, PATHS.assertionResult, assertion);
    assert.equal(result.username, this.username);
    assert.equal(result.credentialId, this.credentialId);
    return result;
  }
}
