// The integrator's side of the four operations over real HTTP, with a soft authenticator in place of the
// browser: just enough to drive registrations and authentications against any instance.

import { randomBytes } from 'node:crypto';
import http from 'node:http';
import {
  SoftAuthenticator,
  type CreationOptionsJSON,
  type RequestOptionsJSON,
} from '../../support/soft-authenticator.js';
import { CLIENT_ID, DOMAIN, ORIGIN, VENDOR } from './service.js';

export interface Envelope {
  readonly status: string;
  readonly errorMessage: string | readonly string[];
  readonly sessionId: string;
  readonly [field: string]: unknown;
}

export interface Answer {
  readonly httpStatus: number;
  readonly body: Envelope;
}

/** The error name of a failed answer (first element of errorMessage), or '' for ok. */
export function errorName(answer: Answer): string {
  const message = answer.body.errorMessage;
  return Array.isArray(message) ? String(message[0] ?? '') : '';
}

/**
 * Kept-alive connections, as a relay would keep them (and cheaper for the load generator than fetch):
 * idle sockets do not hold the process open, and a socket whose instance died is dropped by the agent.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** POSTs one operation; bounded by `timeoutMs` (a hung service fails the test instead of hanging it). */
export function post(baseUrl: string, path: string, body: unknown, timeoutMs = 30_000): Promise<Answer> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise<Answer>((resolve, reject) => {
    const request = http.request(
      `${baseUrl}${path}`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': payload.length,
          'user-agent': `${VENDOR} AppID: ${CLIENT_ID}`,
          origin: ORIGIN,
        },
        signal: AbortSignal.timeout(timeoutMs),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({ httpStatus: response.statusCode ?? 0, body: JSON.parse(text) as Envelope });
          } catch {
            reject(
              new Error(`${path} answered ${response.statusCode} with a body that is not JSON: ${text.slice(0, 200)}`),
            );
          }
        });
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

function expectOk(what: string, answer: Answer): Envelope {
  if (answer.httpStatus !== 200 || answer.body.status !== 'ok') {
    throw new Error(`${what} failed: HTTP ${answer.httpStatus} ${JSON.stringify(answer.body.errorMessage)}`);
  }
  return answer.body;
}

/** One user with one soft authenticator (its passkeys are kept whatever the service answered). */
export class User {
  readonly authenticator = new SoftAuthenticator({ origin: ORIGIN });
  readonly username: string;

  constructor(name = `user-${randomBytes(6).toString('hex')}`) {
    this.username = `${name}#${DOMAIN}`;
  }

  async registrationOptions(baseUrl: string): Promise<CreationOptionsJSON> {
    const body = expectOk(
      'attestation/options',
      await post(baseUrl, '/api/attestation/options', {
        username: this.username,
        displayName: this.username,
        attestation: 'none',
        authenticatorSelection: { userVerification: 'preferred', requireResidentKey: false },
      }),
    );
    return body as unknown as CreationOptionsJSON;
  }

  /** Options from one instance, result to another; returns the answer of the result and the credential id. */
  async register(optionsFrom: string, resultTo = optionsFrom): Promise<{ answer: Answer; credentialId: string }> {
    const options = await this.registrationOptions(optionsFrom);
    const credential = this.authenticator.register(options);
    return { answer: await post(resultTo, '/api/attestation/result', credential), credentialId: credential.id };
  }

  async authenticationOptions(baseUrl: string): Promise<RequestOptionsJSON> {
    const body = expectOk(
      'assertion/options',
      await post(baseUrl, '/api/assertion/options', { username: this.username, userVerification: 'preferred' }),
    );
    return body as unknown as RequestOptionsJSON;
  }

  /** A signed assertion for fresh options from `optionsFrom` (not yet sent). */
  async signedAssertion(optionsFrom: string, credentialId?: string): Promise<unknown> {
    const options = await this.authenticationOptions(optionsFrom);
    return this.authenticator.authenticate(options, credentialId === undefined ? {} : { credentialId });
  }

  async authenticate(optionsFrom: string, resultTo = optionsFrom, credentialId?: string): Promise<Answer> {
    return post(resultTo, '/api/assertion/result', await this.signedAssertion(optionsFrom, credentialId));
  }
}
