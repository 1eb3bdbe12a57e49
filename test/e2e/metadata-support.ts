// Shared by the metadata reload tests: an application whose policy names a test MDS BLOB (and enforces its
// status reports at authentication), BLOBs that list one authenticator model as certified or compromised,
// and a user whose soft authenticator is of that model, driven over real HTTP.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorName, post, type Answer } from '../scale/support/client.js';
import { CLIENT_ID, DOMAIN, ORIGIN } from '../scale/support/service.js';
import { blobPayload, createTestMds, mdsEntry, type TestMds } from '../support/mds.js';
import { SoftAuthenticator, type CreationOptionsJSON, type RequestOptionsJSON } from '../support/soft-authenticator.js';

/** The authenticator model of the test user (listed in every BLOB of these tests). */
export const MODEL_AAGUID = 'a11ce000-0000-4000-8000-00000000b10b';
export const MODEL_NAME = 'Reload Test Key';

export interface MetadataFixture {
  readonly mds: TestMds;
  /** The installed BLOB (what `attestation.metadata` names). */
  readonly blobFile: string;
  readonly rootFile: string;
  /** The `applications` of the config file: one application with the BLOB and enforceStatusAtAuthentication. */
  readonly applications: readonly Record<string, unknown>[];
  /** A BLOB with serial `no` reporting the model certified (default) or compromised, written to `name` in the folder. */
  writeBlob(name: string, no: number, compromised: boolean): string;
}

export function metadataFixture(dir: string): MetadataFixture {
  const mds = createTestMds();
  const rootFile = join(dir, 'mds-root.pem');
  writeFileSync(rootFile, mds.root.pem);
  const writeBlob = (name: string, no: number, compromised: boolean) => {
    const statusReports = compromised
      ? [
          { status: 'FIDO_CERTIFIED', effectiveDate: '2020-01-01' },
          { status: 'USER_KEY_REMOTE_COMPROMISE', effectiveDate: '2021-01-01' },
        ]
      : [{ status: 'FIDO_CERTIFIED', effectiveDate: '2020-01-01' }];
    const file = join(dir, name);
    writeFileSync(
      file,
      mds.sign(blobPayload([mdsEntry({ aaguid: MODEL_AAGUID, description: MODEL_NAME, statusReports })], { no })),
    );
    return file;
  };
  const blobFile = writeBlob('mds-blob.jwt', 1, false);
  return {
    mds,
    blobFile,
    rootFile,
    writeBlob,
    applications: [
      {
        clientId: CLIENT_ID,
        name: 'Metadata reload test',
        domain: DOMAIN,
        origins: [ORIGIN],
        variants: ['standard'],
        attestation: { metadata: blobFile, metadataRoots: [rootFile], enforceStatusAtAuthentication: true },
      },
    ],
  };
}

/** One user with a soft authenticator of the test model. */
export class ModelUser {
  readonly authenticator = new SoftAuthenticator({
    origin: ORIGIN,
    aaguid: Buffer.from(MODEL_AAGUID.replace(/-/g, ''), 'hex'),
  });
  readonly username: string;

  constructor(name: string) {
    this.username = `${name}#${DOMAIN}`;
  }

  async register(url: string): Promise<Answer> {
    const options = await post(
      url,
      '/api/attestation/options',
      {
        username: this.username,
        displayName: this.username,
        attestation: 'none',
        authenticatorSelection: { userVerification: 'preferred', requireResidentKey: false },
      },
      10_000,
    );
    if (options.body.status !== 'ok') return options;
    return post(
      url,
      '/api/attestation/result',
      this.authenticator.register(options.body as unknown as CreationOptionsJSON),
      10_000,
    );
  }

  /** A sign-in: the answer of the result call (or of the options call when that failed). */
  async signIn(url: string): Promise<Answer> {
    const options = await post(
      url,
      '/api/assertion/options',
      { username: this.username, userVerification: 'preferred' },
      10_000,
    );
    if (options.body.status !== 'ok') return options;
    return post(
      url,
      '/api/assertion/result',
      this.authenticator.authenticate(options.body as unknown as RequestOptionsJSON),
      10_000,
    );
  }
}

/** `ok`, or the error name of a failed answer. */
export function outcome(answer: Answer): string {
  return answer.body.status === 'ok' ? 'ok' : errorName(answer);
}

/** Polls `probe` every `everyMs` until it returns true; false when `withinMs` passed first. */
export async function eventually(
  probe: () => Promise<boolean> | boolean,
  withinMs: number,
  everyMs = 100,
): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
