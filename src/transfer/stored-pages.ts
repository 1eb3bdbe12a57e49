// The stored passkeys of one application, page by page in credential id order (CredentialStore
// listByApplication): what an export writes, holding one page at a time.
import type { CredentialRecord, CredentialStore } from '../stores/types.js';

/** Records per page read (the stores' largest page). */
export const EXPORT_PAGE_SIZE = 1000;

export async function* storedPages(
  credentials: Pick<CredentialStore, 'listByApplication'>,
  clientId: string,
  pageSize = EXPORT_PAGE_SIZE,
): AsyncIterable<readonly CredentialRecord[]> {
  let after: string | undefined;
  for (;;) {
    const page = await credentials.listByApplication(
      clientId,
      after === undefined ? { limit: pageSize } : { limit: pageSize, after },
    );
    if (page.length > 0) yield page;
    if (page.length < pageSize) return;
    after = page[page.length - 1]!.credentialId;
  }
}
