// The local variant driven through `inject`, the way a relay following the specification drives it:
// usernames end in `#localhost`, no origin header is sent, and the relay's three steps are applied
// (extensions.localhost = true on attestation result, keep the `localhost` string, send it back on
// assertion result). A spying credential store proves the local variant never touches storage.

import { buildApp, type App, type InjectResponse } from '../../../src/http/app.js';
import type { Secrets } from '../../../src/secrets/load.js';
import { MemoryCredentialStore } from '../../../src/stores/memory/credentials.js';
import type { CredentialRecord, CredentialStore, CredentialUse } from '../../../src/stores/types.js';
import { Harness, PATHS, type HarnessOptions, type RequestOptions } from '../../support/harness.js';
import {
  SoftAuthenticator,
  type AuthenticateOptions,
  type RegisterOptions,
  type SoftAuthenticatorOptions,
} from '../../support/soft-authenticator.js';

export const LOCAL_PAGE = 'https://localhost:8443';
export const local = (user: string): string => `${user}#localhost`;

/** A credential store that records every call, so a test can prove the local variant made none. */
export class SpyCredentialStore implements CredentialStore {
  readonly calls: string[] = [];
  readonly inner = new MemoryCredentialStore();
  readonly outbox = this.inner.outbox;
  readonly webhooks = this.inner.webhooks;

  markAuthenticatorStatus(
    ...args: Parameters<CredentialStore['markAuthenticatorStatus']>
  ): Promise<CredentialRecord[]> {
    this.calls.push('markAuthenticatorStatus');
    return this.inner.markAuthenticatorStatus(...args);
  }

  listMarked(...args: Parameters<CredentialStore['listMarked']>): Promise<CredentialRecord[]> {
    this.calls.push('listMarked');
    return this.inner.listMarked(...args);
  }

  deleteUser(...args: Parameters<CredentialStore['deleteUser']>): Promise<CredentialRecord[]> {
    this.calls.push('deleteUser');
    return this.inner.deleteUser(...args);
  }

  create(record: CredentialRecord): Promise<'created' | 'duplicate'> {
    this.calls.push('create');
    return this.inner.create(record);
  }

  createCounted(record: CredentialRecord, limit: number): Promise<number | 'duplicate' | 'limit'> {
    this.calls.push('createCounted');
    return this.inner.createCounted(record, limit);
  }

  find(clientId: string, credentialId: string): Promise<CredentialRecord | undefined> {
    this.calls.push('find');
    return this.inner.find(clientId, credentialId);
  }

  listByUser(clientId: string, userHandle: string): Promise<CredentialRecord[]> {
    this.calls.push('listByUser');
    return this.inner.listByUser(clientId, userHandle);
  }

  recordUse(clientId: string, credentialId: string, use: CredentialUse): Promise<boolean> {
    this.calls.push('recordUse');
    return this.inner.recordUse(clientId, credentialId, use);
  }

  listByApplication(
    clientId: string,
    page: { readonly limit: number; readonly after?: string },
  ): Promise<CredentialRecord[]> {
    this.calls.push('listByApplication');
    return this.inner.listByApplication(clientId, page);
  }

  delete(clientId: string, credentialId: string): Promise<boolean> {
    this.calls.push('delete');
    return this.inner.delete(clientId, credentialId);
  }

  rename(clientId: string, credentialId: string, nickname: string | null): Promise<boolean> {
    this.calls.push('rename');
    return this.inner.rename(clientId, credentialId, nickname);
  }

  countByAlgorithms(clientId: string, algorithms: readonly number[]) {
    return this.inner.countByAlgorithms(clientId, algorithms);
  }

  importedUserHandle(...args: Parameters<CredentialStore['importedUserHandle']>): Promise<string | undefined> {
    this.calls.push('importedUserHandle');
    return this.inner.importedUserHandle(...args);
  }

  importLookup(...args: Parameters<CredentialStore['importLookup']>) {
    this.calls.push('importLookup');
    return this.inner.importLookup(...args);
  }

  importBatch(...args: Parameters<CredentialStore['importBatch']>): ReturnType<CredentialStore['importBatch']> {
    this.calls.push('importBatch');
    return this.inner.importBatch(...args);
  }

  deleteByApplication(clientId: string): Promise<number> {
    this.calls.push('deleteByApplication');
    return this.inner.deleteByApplication(clientId);
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

export interface LocalRigOptions extends HarnessOptions {
  readonly secrets?: Secrets;
}

/** A test service (memory stores, fake clock) whose secrets can be swapped, as a restart after rotation would. */
export class LocalRig {
  readonly store = new SpyCredentialStore();
  readonly h: Harness;
  app: App;

  constructor(options: LocalRigOptions = {}) {
    this.h = new Harness({ credentials: this.store, ...options });
    this.app = options.secrets ? this.rebuilt(options.secrets) : this.h.app;
  }

  get secrets(): Secrets {
    return this.currentSecrets ?? this.h.deps.secrets;
  }

  private currentSecrets: Secrets | undefined;

  /** A new app over the same stores and clock with other secrets (a restart after key rotation). */
  useSecrets(secrets: Secrets): void {
    this.app = this.rebuilt(secrets);
  }

  private rebuilt(secrets: Secrets): App {
    this.currentSecrets = secrets;
    return buildApp({ ...this.h.deps, secrets });
  }

  /** POSTs as a local relay does: no origin header unless the test asks for one. */
  post(path: string, body: unknown, options: RequestOptions = {}): Promise<InjectResponse> {
    return this.app.inject({
      method: 'POST',
      url: path,
      headers: this.h.headers({ origin: null, ...options }),
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  }
}

/** What a relay keeps after a local registration (step 2 of the specification). */
export interface Kept {
  readonly credentialId: string;
  readonly localhost: string;
}

/** One user with one soft authenticator, signing up and in through a relay that does the three steps. */
export class LocalFlow {
  readonly authenticator: SoftAuthenticator;

  constructor(
    readonly rig: LocalRig,
    readonly user: string,
    options: SoftAuthenticatorOptions = {},
    readonly request: RequestOptions = {},
  ) {
    this.authenticator = new SoftAuthenticator({ origin: LOCAL_PAGE, ...options });
  }

  get username(): string {
    return local(this.user);
  }

  async attestationOptions(body: Record<string, unknown> = {}): Promise<any> {
    const res = await this.rig.post(PATHS.attestationOptions, { username: this.username, ...body }, this.request);
    if (res.status !== 200) throw new Error(`attestation options failed: ${res.body}`);
    return res.json();
  }

  async assertionOptions(body: Record<string, unknown> = {}): Promise<any> {
    const res = await this.rig.post(PATHS.assertionOptions, { username: this.username, ...body }, this.request);
    if (res.status !== 200) throw new Error(`assertion options failed: ${res.body}`);
    return res.json();
  }

  /**
   * Options → authenticator → result with step 1 applied (`extensions.localhost = true`); `mutate` sees the
   * request after step 1. Returns the response, what was sent, and what the relay keeps (step 2) on success.
   */
  async register(
    registerOptions: RegisterOptions = {},
    optionsBody: Record<string, unknown> = {},
    mutate: (credential: any) => any = (c) => c,
  ): Promise<{ res: InjectResponse; credential: any; options: any; kept: Kept | undefined }> {
    const options = await this.attestationOptions(optionsBody);
    // The authenticator stamps the ceremony clock (the rig's fake clock) into timestamped statements (SafetyNet).
    const made = JSON.parse(
      JSON.stringify(
        this.authenticator.register(options, { now: new Date(this.rig.h.clock.now()), ...registerOptions }),
      ),
    );
    const credential = mutate({ ...made, extensions: { ...made.extensions, localhost: true } });
    const res = await this.rig.post(PATHS.attestationResult, credential, this.request);
    const body = res.json();
    const kept =
      body.status === 'ok' && typeof body.localhost === 'string'
        ? { credentialId: credential.id as string, localhost: body.localhost as string }
        : undefined;
    return { res, credential, options, kept };
  }

  /** Registers and insists it worked; returns what the relay keeps. */
  async registered(registerOptions: RegisterOptions = {}, optionsBody: Record<string, unknown> = {}): Promise<Kept> {
    const { res, kept } = await this.register(registerOptions, optionsBody);
    if (!kept) throw new Error(`local registration failed: ${res.status} ${res.body}`);
    return kept;
  }

  /**
   * Options → authenticator → result with step 3 applied (`extensions.localhost = kept.localhost`);
   * `mutate` sees the request after step 3.
   */
  async authenticate(
    kept: Kept,
    authenticateOptions: AuthenticateOptions = {},
    optionsBody: Record<string, unknown> = {},
    mutate: (credential: any) => any = (c) => c,
  ): Promise<{ res: InjectResponse; credential: any; options: any }> {
    const options = await this.assertionOptions(optionsBody);
    const made = JSON.parse(
      JSON.stringify(
        this.authenticator.authenticate(options, { credentialId: kept.credentialId, ...authenticateOptions }),
      ),
    );
    const credential = mutate({ ...made, extensions: { ...made.extensions, localhost: kept.localhost } });
    const res = await this.rig.post(PATHS.assertionResult, credential, this.request);
    return { res, credential, options };
  }
}

/** The key id in clear in a blob's header (docs/local-variant.md). */
export function blobKeyId(blob: string): string {
  const bytes = Buffer.from(blob, 'base64url');
  return bytes.subarray(2, 2 + bytes[1]!).toString('utf8');
}
