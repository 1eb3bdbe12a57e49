// Shared builders for the ops tests: a fixed runtime, credential records, an admin stack on memory stores.
import { randomBytes } from 'node:crypto';
import type { CredentialRecord } from '../../src/stores/types.js';
import { systemRuntime, type Runtime } from '../../src/util/runtime.js';
import type { Logger } from '../../src/util/log.js';

export const T0 = Date.UTC(2026, 10, 22, 4, 0, 0);

/** A clock the test moves by hand; real randomness (ids must differ). */
export function testRuntime(start = T0): Runtime & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    randomBytes: (n) => randomBytes(n),
    startTimer: systemRuntime.startTimer,
    advance: (ms) => {
      now += ms;
    },
  };
}

export interface CapturedLog extends Logger {
  readonly lines: { level: string; fields: Record<string, unknown>; message: string }[];
}

export function captureLog(): CapturedLog {
  const lines: CapturedLog['lines'] = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => {
    lines.push({ level, fields, message });
  };
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

export function credential(over: Partial<CredentialRecord> = {}): CredentialRecord {
  return {
    clientId: 'demo-client',
    credentialId: randomBytes(16).toString('base64url'),
    userHandle: 'dXNlci1oYW5kbGU',
    username: 'alice#demo.localhost',
    publicKey: new Uint8Array([0xa5, 0x01, 0x02]),
    algorithm: -7,
    signCount: 0,
    transports: ['internal', 'hybrid'],
    aaguid: 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4',
    attestationFormat: 'none',
    attestationType: 'none',
    attestationTrusted: false,
    backupEligible: true,
    backupState: true,
    userVerified: true,
    residentKey: true,
    cloneWarning: false,
    createdAt: T0 - 86_400_000,
    lastUsedAt: null,
    ...over,
  };
}
