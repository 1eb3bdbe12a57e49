// What the tests of `serve` and the other commands share: a folder with a config file, and the first call
// of a registration against a running service.
import { minimalApp, tempDir, writeFile } from '../config/support.js';

/** A temporary folder with config.json: one application (app-1), port 0 on 127.0.0.1, plus `content`. */
export function configDir(
  content: Record<string, unknown> = {},
  prefix = 'passkey-cli-',
): { dir: string; file: string } {
  const dir = tempDir(prefix);
  const file = writeFile(dir, 'config.json', {
    listen: { host: '127.0.0.1', port: 0 },
    applications: [minimalApp()],
    ...content,
  });
  return { dir, file };
}

/** POST /api/attestation/options for `username` of the application. */
export async function registrationOptions(
  url: string,
  clientId = 'app-1',
  origin = 'https://idp.example.test',
  username = 'alice#idp.example.test',
) {
  const response = await fetch(`${url}/api/attestation/options`, {
    method: 'POST',
    headers: { 'User-agent': `Vendor AppID: ${clientId}`, origin, 'content-type': 'application/json' },
    body: JSON.stringify({ username, displayName: 'Alice' }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
