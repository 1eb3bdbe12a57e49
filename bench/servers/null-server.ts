// The floor of one Node process for this API: node:http, the body read and JSON.parse'd like the service
// does, and a canned envelope answered per path. No validation, no crypto, no storage. Whatever the real
// service spends above this is the price of what it actually does.
//
//   node null-server.js <port>

import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';

const challenge = randomBytes(32).toString('base64url');
const userId = randomBytes(32).toString('base64url');
const ok = { status: 'ok', errorMessage: '', sessionId: '' };

const CANNED = new Map<string, string>([
  [
    '/api/attestation/options',
    JSON.stringify({
      ...ok,
      rp: { name: 'Bench', id: 'bench.example.test' },
      user: { name: 'user', id: userId, displayName: 'user' },
      challenge,
      pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
      timeout: 300000,
      excludeCredentials: [],
      authenticatorSelection: {},
      attestation: 'none',
      extensions: { credProps: true },
    }),
  ],
  ['/api/attestation/result', JSON.stringify(ok)],
  [
    '/api/assertion/options',
    JSON.stringify({
      ...ok,
      challenge,
      timeout: 300000,
      rpId: 'bench.example.test',
      allowCredentials: [],
      userVerification: 'preferred',
      extensions: {},
    }),
  ],
  ['/api/assertion/result', JSON.stringify(ok)],
]);
const NOT_FOUND = JSON.stringify({ status: 'failed', errorMessage: ['NOT_FOUND', 'no such path'], sessionId: '' });

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let body = CANNED.get(req.url ?? '') ?? NOT_FOUND;
    try {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      body = JSON.stringify({ status: 'failed', errorMessage: ['MALFORMED_JSON', 'bad JSON'], sessionId: '' });
    }
    res.writeHead(body === NOT_FOUND ? 404 : 200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
    });
    res.end(body);
  });
});
server.keepAliveTimeout = 5000;
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : ''}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
