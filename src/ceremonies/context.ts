// What each operation receives from the HTTP layer: the dependencies, the caller's application (already
// found from the Client ID), the origin header, and the per-app caches. Built per request.

import type { Variant } from '../service-config.js';
import type { Application, ServiceDeps } from './deps.js';
import type { CredentialSnapshots } from './credential-snapshots.js';
import type { KeyCache } from './key-cache.js';

export interface CeremonyContext {
  readonly deps: ServiceDeps;
  readonly application: Application;
  readonly clientId: string;
  /** The single origin header, or undefined when absent. */
  readonly originHeader: string | undefined;
  readonly keys: KeyCache;
  /** What sign-in options read of a user's credentials, kept for their result (credential-snapshots.ts). */
  readonly snapshots: CredentialSnapshots;
  /** Reports the variant as soon as it is known (for the outcome hook and the logs). */
  noteVariant(variant: Variant): void;
  /** Reports whom the call concerns as soon as it is known, and what it changed (OperationOutcome, the audit log). */
  noteSubject(subject: CallSubject): void;
  /**
   * This call's answer is the same whoever is registered (a sign-in without a user name): it need not wait
   * for the answer floor (src/http/answer-floor.ts).
   */
  exemptFromAnswerFloor(): void;
}

export interface CallSubject {
  /** The request's `username` (options) or the username of the ceremony a result call took. */
  readonly username?: string;
  /** The credential id (base64url) a result call registers or signs with. */
  readonly credentialId?: string;
  /** A successful authentication whose BE flag differs from the stored one: the stored value before and after. */
  readonly backupEligibilityChange?: BackupEligibilityChange;
  /** A sign-in accepted with a passkey whose authenticator model metadata marked (the status). */
  readonly authenticatorStatus?: string;
}

export interface BackupEligibilityChange {
  readonly from: boolean;
  readonly to: boolean;
}

/** `fn` inside a child span of the request's (WebAuthn verification) when traces are on; else just `fn()`. */
export function traced<T>(ctx: CeremonyContext, name: string, fn: () => T): T {
  const tracer = ctx.deps.tracer;
  return tracer === undefined ? fn() : tracer.child(name, {}, fn);
}
