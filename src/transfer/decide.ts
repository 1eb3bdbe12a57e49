// The decision on one batch of checked records, from one read of the store (importLookup) and what the file
// said before (file-memory.ts): each record is imported, skipped (the same passkey is stored or came
// earlier), or refused (its id is another passkey's; its user has another handle, or its handle another
// user; its user has as many passkeys as the application allows). Records are decided in file order, each against those accepted before it.
import type { CredentialRecord, ImportedUserHandle, ImportLookup } from '../stores/types.js';
import { credentialIdentity, type FileMemory } from './file-memory.js';
import type { RefusalReason } from './record.js';

export type Decision =
  | { readonly kind: 'import' }
  | { readonly kind: 'skip' }
  | { readonly kind: 'refuse'; readonly reason: RefusalReason; readonly message: string };

export interface BatchPlan {
  readonly decisions: readonly Decision[];
  /** The user handles to keep (an imported user's handle that is not the one the service would derive). */
  readonly handles: readonly ImportedUserHandle[];
  /** The credentials to write, in file order. */
  readonly records: readonly CredentialRecord[];
}

/** What the store is asked about a batch: its ids, its users, their handles and the handles they would derive. */
export function lookupQuery(batch: readonly CredentialRecord[], derive: (username: string) => string) {
  const usernames = [...new Set(batch.map((r) => r.username))];
  return {
    credentialIds: [...new Set(batch.map((r) => r.credentialId))],
    usernames,
    userHandles: [...new Set([...batch.map((r) => r.userHandle), ...usernames.map(derive)])],
  };
}

export function decideBatch(
  batch: readonly CredentialRecord[],
  lookup: ImportLookup,
  memory: FileMemory,
  derive: (username: string) => string,
  maxPasskeysPerUser?: number,
): BatchPlan {
  const stored = new Map(lookup.credentials.map((c) => [c.credentialId, c]));
  const keptByUser = new Map(lookup.handles.map((h) => [h.username, h.userHandle]));
  const keptByHandle = new Map(lookup.handles.map((h) => [h.userHandle, h.username]));
  const owners = new Map<string, Set<string>>();
  const storedPasskeys = new Map<string, number>();
  for (const owner of lookup.owners) {
    const users = owners.get(owner.userHandle) ?? new Set<string>();
    users.add(owner.username);
    owners.set(owner.userHandle, users);
    storedPasskeys.set(owner.userHandle, (storedPasskeys.get(owner.userHandle) ?? 0) + owner.passkeys);
  }
  const decisions: Decision[] = [];
  const handles: ImportedUserHandle[] = [];
  const records: CredentialRecord[] = [];
  const refuse = (reason: RefusalReason, message: string) => decisions.push({ kind: 'refuse', reason, message });

  for (const record of batch) {
    const identity = credentialIdentity(record);
    const earlier = memory.credential(record.credentialId);
    const known =
      earlier ?? (stored.has(record.credentialId) ? credentialIdentity(stored.get(record.credentialId)!) : undefined);
    if (known !== undefined) {
      if (known === identity) decisions.push({ kind: 'skip' });
      else refuse('CREDENTIAL_ID_CONFLICT', conflictMessage(known, identity));
      continue;
    }
    const { username, userHandle } = record;
    const userHas = memory.handleOf(username) ?? keptByUser.get(username);
    if (userHas !== undefined && userHas !== userHandle) {
      refuse('USER_HANDLE_CONFLICT', `${username} already has another user handle`);
      continue;
    }
    const handleIs = memory.userOf(userHandle) ?? keptByHandle.get(userHandle);
    const others = [...(owners.get(userHandle) ?? [])].filter((u) => u !== username);
    if ((handleIs !== undefined && handleIs !== username) || others.length > 0) {
      refuse('USER_HANDLE_CONFLICT', `the user handle belongs to another user (${handleIs ?? others[0]})`);
      continue;
    }
    const derived = derive(username);
    if (userHas === undefined && userHandle !== derived && owners.get(derived)?.has(username)) {
      refuse('USER_HANDLE_CONFLICT', `${username} has passkeys registered here under the service's own user handle`);
      continue;
    }
    const passkeys = memory.passkeysOf(userHandle) ?? storedPasskeys.get(userHandle) ?? 0;
    if (maxPasskeysPerUser !== undefined && passkeys >= maxPasskeysPerUser) {
      refuse(
        'PASSKEY_LIMIT_REACHED',
        `${username} already has ${passkeys} passkeys (the application allows ${maxPasskeysPerUser})`,
      );
      continue;
    }
    if (userHas === undefined && userHandle !== derived) handles.push({ username, userHandle });
    memory.remember(record, identity, passkeys + 1);
    records.push(record);
    decisions.push({ kind: 'import' });
  }
  return { decisions, handles, records };
}

function conflictMessage(known: string, identity: string): string {
  const [knownHandle, knownUser] = known.split('\u0000');
  const [handle, user] = identity.split('\u0000');
  return knownHandle === handle && knownUser === user
    ? 'the credential id is already registered with another public key'
    : 'the credential id is already registered for another user';
}
