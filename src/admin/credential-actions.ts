// The admin actions on the credentials of an application: list (by user or page by page), show, rename, delete
// one, delete a user's, and how many users have a post-quantum one. AdminActions (actions.ts) holds them beside
// the application actions.
import {
  CredentialRenameSchema,
  NICKNAME_MAX,
  type CredentialPage,
  type UserCredentialsDeleted,
} from '../schemas/admin.js';
import { compile } from '../schemas/typebox.js';
import type { AlgorithmUsage } from '../stores/types.js';
import { credentialData } from '../webhooks/events.js';
import type { ActionScope } from './action-base.js';
import type { Actor } from './audited.js';
import { AdminError } from './errors.js';
import { credentialView, type CredentialView } from './views.js';

export const MAX_PAGE = 1000;

/** A rename's body (the CLI's nickname too): the admin API's schema. */
const RENAME = compile(CredentialRenameSchema);

export class CredentialActions {
  constructor(private readonly scope: ActionScope) {}

  // --- Credentials of an application ---

  /** By user (`userHandle`, or `username` when the user-handle key is known), else every credential page by page. */
  async listCredentials(
    clientId: string,
    filter: {
      readonly userHandle?: string;
      readonly username?: string;
      readonly limit?: number;
      readonly after?: string;
    },
  ): Promise<CredentialPage> {
    await this.scope.record(clientId);
    const userHandle = await this.scope.userHandleOf(clientId, filter);
    if (userHandle !== undefined) {
      const records = await this.scope.deps.credentials.listByUser(clientId, userHandle);
      return { credentials: records.map((record) => credentialView(record)), next: null };
    }
    const limit = Math.min(Math.max(1, filter.limit ?? 100), MAX_PAGE);
    // Stores cap a page at 1000 (MAX_PAGE), so no "limit + 1" probe: a full page has a next one (possibly empty).
    const page = await this.scope.deps.credentials.listByApplication(
      clientId,
      filter.after === undefined ? { limit } : { limit, after: filter.after },
    );
    return {
      credentials: page.map((record) => credentialView(record)),
      next: page.length === limit ? page[page.length - 1]!.credentialId : null,
    };
  }

  async postQuantumUsage(clientId: string): Promise<AlgorithmUsage> {
    await this.scope.record(clientId);
    return this.scope.deps.credentials.countByAlgorithms(clientId, this.scope.deps.postQuantumAlgorithms);
  }

  async getCredential(clientId: string, credentialId: string): Promise<CredentialView> {
    await this.scope.record(clientId);
    const record = await this.scope.deps.credentials.find(clientId, credentialId);
    if (!record) throw new AdminError('CREDENTIAL_NOT_FOUND');
    return credentialView(record);
  }

  /** `nickname`: 1–64 characters, or null to clear. */
  renameCredential(actor: Actor, clientId: string, credentialId: string, nickname: unknown): Promise<CredentialView> {
    return this.scope.audited(actor, 'credential.rename', { clientId, target: credentialId }, async () => {
      if (!RENAME.check({ nickname })) {
        throw new AdminError('INVALID_REQUEST', undefined, [
          `nickname: a string of 1 to ${NICKNAME_MAX} characters without control characters, or null`,
        ]);
      }
      const app = await this.scope.record(clientId);
      const value = nickname === null ? null : (nickname as string).trim();
      const was = await this.scope.deps.credentials.find(clientId, credentialId);
      const changes = { name: { from: was?.nickname ?? null, to: value } };
      const events = was
        ? (await this.scope.messages(app))('credential.updated', { ...credentialData(was), changes })
        : [];
      if (!was || !(await this.scope.deps.credentials.rename(clientId, credentialId, value, events)))
        throw new AdminError('CREDENTIAL_NOT_FOUND');
      return this.getCredential(clientId, credentialId);
    });
  }

  deleteCredential(actor: Actor, clientId: string, credentialId: string): Promise<{ readonly deleted: true }> {
    return this.scope.audited(actor, 'credential.delete', { clientId, target: credentialId }, async (note) => {
      const app = await this.scope.record(clientId);
      const record = await this.scope.deps.credentials.find(clientId, credentialId);
      if (record) note({ subject: record.username });
      const events = record
        ? (await this.scope.messages(app))('credential.deleted', { ...credentialData(record), by: 'admin' })
        : [];
      if (!record || !(await this.scope.deps.credentials.delete(clientId, credentialId, events)))
        throw new AdminError('CREDENTIAL_NOT_FOUND');
      return { deleted: true };
    });
  }

  /**
   * Deletes every credential of one user (`username`, or `userHandle`): a user's data, erased. Audited as
   * `credential.delete-user` with how many; a user without credentials deletes 0 (not an error).
   */
  deleteUserCredentials(
    actor: Actor,
    clientId: string,
    user: { readonly username?: string; readonly userHandle?: string },
  ): Promise<UserCredentialsDeleted> {
    return this.scope.audited(actor, 'credential.delete-user', { clientId }, async (note) => {
      if (user.username === undefined && user.userHandle === undefined) {
        throw new AdminError('INVALID_REQUEST', 'name the user: username or userHandle', [
          'username: required (or userHandle)',
        ]);
      }
      const app = await this.scope.record(clientId);
      if (user.username !== undefined) note({ subject: user.username });
      const userHandle = await this.scope.userHandleOf(clientId, user);
      const messages = await this.scope.messages(app);
      const removed =
        userHandle === undefined
          ? []
          : await this.scope.deps.credentials.deleteUser(clientId, userHandle, (gone) => [
              ...gone.flatMap((record) => messages('credential.deleted', { ...credentialData(record), by: 'admin' })),
              ...messages('user.deleted', {
                clientId,
                username: gone[0]!.username,
                credentialIds: gone.map((record) => record.credentialId),
              }),
            ]);
      const deleted = removed.length;
      note({ subject: user.username ?? removed[0]?.username ?? user.userHandle!, details: { deleted } });
      return { clientId, username: user.username ?? removed[0]?.username ?? null, deleted };
    });
  }
}
