// The throwaway apps the tarball test installs the packages into, as an integrator writes them: a CommonJS
// app (npm init's default), an ES module app, and a TypeScript app under the settings of `tsc --init`.
// Each JavaScript app runs one relay call against a fake service and converts options JSON with the
// browser helper, then prints what it saw as one JSON line.

/** The app's body, shared by both module systems: `relayPackage` and `browserPackage` are loaded before it. */
const SCENARIO = `
const http = require_http();
const seen = [];
const service = http.createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => { body += chunk; });
  request.on('end', () => {
    seen.push({ path: request.url, userAgent: request.headers['user-agent'], origin: request.headers.origin, cookie: request.headers.cookie ?? null, body: JSON.parse(body) });
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ status: 'ok', errorMessage: '', sessionId: '', challenge: 'AQID', timeout: 60000, rpId: 'idp.example.com', allowCredentials: [] }));
  });
});
const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
const main = async () => {
  const servicePort = await listen(service);
  const relay = relayPackage.createRelay({ serviceUrl: 'http://127.0.0.1:' + servicePort, clientId: 'app-client', prefix: '/passkey',
    origin: 'https://idp.example.com', mayRegister: () => true });
  const site = http.createServer((request, response) => relay.handler(request, response));
  const sitePort = await listen(site);
  const answer = await fetch('http://127.0.0.1:' + sitePort + '/passkey/assertion/options', { method: 'POST',
    headers: { 'content-type': 'application/json', cookie: 'session=secret', 'user-agent': 'Mozilla/5.0' },
    body: JSON.stringify({ username: 'alice#idp.example.com' }) });
  const envelope = await answer.json();
  const { publicKey } = browserPackage.requestOptionsFromJSON(envelope);
  console.log(JSON.stringify({ httpStatus: answer.status, envelope, seen,
    challengeBytes: [...new Uint8Array(publicKey.challenge)], errors: Object.keys(relayPackage.RELAY_ERRORS).length }));
  site.close();
  service.close();
};
main().catch((error) => { console.error(error); process.exit(1); });
`;

export const COMMONJS_APP = `// CommonJS: require() picks the relay's CommonJS build; the ES-module-only browser helper comes by import().
const relayPackage = require('@passkey-server/relay');
const require_http = () => require('node:http');
let browserPackage;
import('@passkey-server/browser').then((loaded) => {
  browserPackage = loaded;
${SCENARIO}
});
`;

export const ES_MODULE_APP = `import * as relayPackage from '@passkey-server/relay';
import * as browserPackage from '@passkey-server/browser';
import * as httpModule from 'node:http';
const require_http = () => httpModule;
${SCENARIO}
`;

/** Compiled, not run: every option an integrator may pass, with values typed `string | undefined`. */
export const TYPESCRIPT_APP = `import { createServer } from 'node:http';
import { createRelay, expressRelay, fastifyRelay, FileLocalStore, type CeremonyResult, type RelayOptions } from '@passkey-server/relay';
import { creationOptionsFromJSON, credentialToJSON, describeWebAuthnError, type CredentialJSON } from '@passkey-server/browser';

const fromEnvironment: string | undefined = process.env['PASSKEY_PREFIX'];
const options: RelayOptions = {
  serviceUrl: 'https://fido.example.com',
  clientId: 'my-client-id',
  origin: 'https://idp.example.com',
  prefix: fromEnvironment,
  vendor: undefined,
  log: undefined,
  mayRegister: async ({ username, request }) => (request.headers.cookie?.includes('session=') ? true : { allowed: false, reason: username }),
  onResult: (result: CeremonyResult) => {
    if (result.ok) result.response.setHeader('set-cookie', 'session=1');
  },
};
const relay = createRelay(options);
createServer((request, response) => relay.handler(request, response, () => response.end()));
const middleware: (request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse, next: () => void) => void = expressRelay(relay);
// Fastify's hooks receive Fastify's request (request.raw is Node's).
const plugin = fastifyRelay({ serviceUrl: 'https://fido.example.com', clientId: 'c', variant: 'local', allowSignUp: true,
  localStore: new FileLocalStore('/tmp/x.json'), signedInUser: (request) => (request.raw.headers.cookie ? 'alice' : undefined) });
const publicKey: PublicKeyCredentialCreationOptions = creationOptionsFromJSON({ challenge: 'AQID', user: { id: 'AQID' } }).publicKey;
const toJSON: (credential: PublicKeyCredential) => CredentialJSON = credentialToJSON;
const sentence: string = describeWebAuthnError(new Error('x'), 'get');
export { middleware, plugin, publicKey, toJSON, sentence };
`;

/** The CommonJS view of the same types (the \`require\` branch of the relay's exports). */
export const TYPESCRIPT_COMMONJS_APP = `import relay = require('@passkey-server/relay');
const made: relay.Relay = relay.createRelay({ serviceUrl: 'https://fido.example.com', clientId: 'c', origin: 'https://idp.example.com', mayRegister: () => true });
export = made;
`;
