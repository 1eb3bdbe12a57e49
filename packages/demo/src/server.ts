// The demo login page over HTTPS, talking to the service only through the relay package, imported by its
// name as an integrator imports it.
// One listener serves both variants, chosen by the page's hostname: the application's domain → standard,
// any other name (localhost, a development hostname) → local.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import {
  createRelay,
  FileLocalStore,
  relatedOriginsDocument,
  type CeremonyResult,
  type RelayLogger,
  type Relay,
} from '@passkey-server/relay';
import { DemoAccounts, type DemoVariant, type PasskeyFacts } from './accounts.js';
import { pageFiles, serveStatic } from './static-files.js';
import { ensureDevCertificate } from './tls.js';

export interface DemoOptions {
  /** Base address of the passkey service. */
  readonly serviceUrl: string;
  readonly clientId: string;
  readonly vendor: string;
  /** Listen address, e.g. 127.0.0.1. */
  readonly host: string;
  /** Listen port (0: any free port; the URLs then carry the real one). */
  readonly port: number;
  /** Where the development certificate (demo-tls/) and the demo's relay data (demo-relay/) live. */
  readonly dataDir: string;
  /** The application's domain: the standard page is served at https://<standardDomain>:<port>/. */
  readonly standardDomain: string;
  /**
   * Development hostnames other than localhost that serve the local page (e.g. `dev.example.test`). The demo
   * answers /.well-known/webauthn listing their origins, which browsers fetch from https://localhost (port
   * 443) before such a page may use RP ID `localhost`; see docs/demo.md.
   */
  readonly devHostnames?: readonly string[];
  /** The application's relay secret, which the demo's relays send (the service made it: docs/demo.md). */
  readonly relaySecret?: string;
  /** Where the demo and its relays log (the service passes its own logger). */
  readonly log?: RelayLogger;
}

export interface RunningDemo {
  readonly urls: string[];
  /** The CA certificate to trust once (PEM file path). */
  readonly caPath: string;
  close(): Promise<void>;
}

const PREFIX = '/relay';

export async function startDemo(options: DemoOptions): Promise<RunningDemo> {
  const devHostnames = [...(options.devHostnames ?? [])].map((name) => name.toLowerCase());
  const tls = await ensureDevCertificate(join(options.dataDir, 'demo-tls'), [
    'localhost',
    options.standardDomain,
    ...devHostnames,
  ]);
  if (tls.created)
    options.log?.warn(
      { caPath: tls.caPath },
      'demo: created a development CA; trust it once to open the demo without warnings (docs/demo.md)',
    );
  const page = pageFiles();
  const csp = contentSecurityPolicy(page.inlineScriptHashes);
  const accounts = new DemoAccounts();

  let relays: Record<DemoVariant, Relay> | undefined;
  let related: string | undefined;
  const context = { standardUrl: '', localUrl: '' };

  const server: Server = createServer({ cert: tls.certChain, key: tls.key }, (request, response) => {
    securityHeaders(response, csp);
    if (!relays) return void respond(response, 503, 'text/plain; charset=utf-8', 'starting');
    handle(request, response).catch((error: unknown) => {
      options.log?.error({ error: String(error) }, 'demo request failed');
      if (!response.headersSent)
        respond(response, 500, 'text/plain; charset=utf-8', 'The demo failed; see the server log.');
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'https://demo.invalid');
    const variant = variantOf(request);
    if (url.pathname.startsWith(`${PREFIX}/`)) return relays![variant].handler(request, response);
    if (url.pathname === '/.well-known/webauthn' && request.method === 'GET' && related) {
      return respond(response, 200, 'application/json', related);
    }
    if (url.pathname === '/demo/context' && request.method === 'GET') {
      const session = accounts.sessionOf(request, variant);
      const suffix = variant === 'standard' ? `#${options.standardDomain}` : '#localhost';
      return respond(
        response,
        200,
        'application/json',
        JSON.stringify({
          variant,
          suffix,
          user: session?.username ?? null,
          passkey: session?.passkey ?? null,
          ...context,
        }),
      );
    }
    if (url.pathname === '/demo/sign-out' && request.method === 'POST') {
      response.setHeader('set-cookie', accounts.signOut(request));
      return respond(response, 200, 'application/json', '{"status":"ok"}');
    }
    if (request.method === 'GET' && (await serveStatic(page, url.pathname, response))) return;
    respond(response, 404, 'text/plain; charset=utf-8', 'Not found. The demo page is at /.');
  }

  function variantOf(request: IncomingMessage): DemoVariant {
    const host = (request.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    return host === options.standardDomain.toLowerCase() ? 'standard' : 'local';
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const originOf = (hostname: string) => `https://${hostname}${port === 443 ? '' : `:${port}`}`;
  context.standardUrl = `${originOf(options.standardDomain)}/`;
  context.localUrl = `${originOf('localhost')}/`;
  const devOrigins = devHostnames.map(originOf);
  related = devOrigins.length > 0 ? relatedOriginsDocument(devOrigins) : undefined;

  // Spec point 6, the relay's own rule: a new account may register its first passkey (sign-up); an account
  // that already has one may add another only while signed in as itself (the demo's session says who).
  const relayFor = (variant: DemoVariant): Relay =>
    createRelay({
      serviceUrl: options.serviceUrl,
      clientId: options.clientId,
      vendor: options.vendor,
      ...(options.relaySecret === undefined ? {} : { relaySecret: options.relaySecret }),
      variant,
      prefix: PREFIX,
      // Users type a plain name; the relay adds the domain (the bench still sends full names).
      userDomain: variant === 'standard' ? options.standardDomain : 'localhost',
      ...(variant === 'standard'
        ? { origin: originOf(options.standardDomain) }
        : { localStore: new FileLocalStore(join(options.dataDir, 'demo-relay', 'local-credentials.json')) }),
      allowSignUp: true,
      signedInUser: (request) => accounts.sessionOf(request, variant)?.username,
      onResult: async (result: CeremonyResult) => {
        if (!result.ok || result.username === undefined) return;
        // A sign-in starts a session; so does a new account's first passkey (sign-up), whose answer carries a
        // credentialsToken. Adding a passkey while signed in keeps the session as it is.
        const signedUp =
          result.operation === 'attestation' && accounts.sessionOf(result.request, variant) === undefined;
        if (result.operation === 'assertion' || signedUp)
          result.response.setHeader(
            'set-cookie',
            accounts.signIn({
              username: result.username,
              variant,
              ...passkeyFacts(result.body),
              ...tokenOf(result.body),
            }),
          );
      },
      // The demo's sessions are its own (a cookie it sets in onResult), so it hands the relay who and the token.
      credentialsSession: (request) => {
        const session = accounts.sessionOf(request, variant);
        return session?.credentialsToken === undefined
          ? undefined
          : { username: session.username, credentialsToken: session.credentialsToken };
      },
      ...(options.log ? { log: options.log } : {}),
    });
  relays = { standard: relayFor('standard'), local: relayFor('local') };

  const urls = [context.standardUrl, context.localUrl, ...devOrigins.map((origin) => `${origin}/`)];
  return {
    urls,
    caPath: tls.caPath,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The passkey facts of an ok assertion answer (the service's identity fields), when it has them. */
function passkeyFacts(body: Record<string, unknown>): { passkey?: PasskeyFacts } {
  const { credentialId, authenticatorName, backupEligible, backupState } = body;
  if (typeof credentialId !== 'string' || typeof backupEligible !== 'boolean' || typeof backupState !== 'boolean')
    return {};
  return {
    passkey: {
      credentialId,
      authenticatorName: typeof authenticatorName === 'string' ? authenticatorName : null,
      backupEligible,
      backupState,
    },
  };
}

function tokenOf(body: Record<string, unknown>): { credentialsToken?: string } {
  return typeof body.credentialsToken === 'string' ? { credentialsToken: body.credentialsToken } : {};
}

/** Only the demo's own files run, plus the page's import map (allowed by its hash, not by 'unsafe-inline'). */
function contentSecurityPolicy(inlineScriptHashes: readonly string[]): string {
  // img-src data: for the passkey providers' icons, which the service answers as SVG data URIs.
  return `default-src 'self'; script-src 'self' ${inlineScriptHashes.join(' ')}; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`;
}

function securityHeaders(response: ServerResponse, csp: string): void {
  response.setHeader('content-security-policy', csp);
  response.setHeader('x-content-type-options', 'nosniff');
  response.setHeader('referrer-policy', 'no-referrer');
}

function respond(response: ServerResponse, status: number, type: string, body: string): void {
  response.statusCode = status;
  response.setHeader('content-type', type);
  response.setHeader('cache-control', 'no-store');
  response.end(body);
}
