// What a writer of an export format is (one per `--to` format, registered in formats.ts): the stored passkeys
// of one application in, page by page in credential id order, the file's text out in chunks. A writer keeps
// at most what its format must group (never the whole application).
import type { ApplicationConfig } from '../service-config.js';
import type { CredentialRecord, CredentialStore } from '../stores/types.js';

/** The application whose passkeys are written (a format may state its domain, or strip it from names). */
export type WriterApplication = Pick<ApplicationConfig, 'clientId' | 'domain'>;

/** What a writer may read besides the pages: a format that groups passkeys by user reads a user's (to-hanko.ts). */
export type WriterStore = Pick<CredentialStore, 'listByUser'>;

export type RecordWriter = (
  pages: AsyncIterable<readonly CredentialRecord[]>,
  application: WriterApplication,
  store: WriterStore,
) => AsyncIterable<string>;
