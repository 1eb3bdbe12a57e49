// attestation.metadataCrls: CRL files (PEM or DER) covering the metadata BLOB's signing chain, resolved
// like the other attestation paths and checked at load, every problem reported at once.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import { createTestMds, createTestMdsCrls } from '../support/mds.js';
import { assertProblem, minimalApp, problemsOf, tempDir, writeFile } from './support.js';

describe('attestation.metadataCrls', () => {
  const mds = createTestMds();
  const crls = createTestMdsCrls(mds);

  it('resolves relative paths like metadata; absent = not set (revocation not checked)', () => {
    const dir = tempDir();
    writeFile(dir, 'mds/blob.jwt', 'x');
    writeFileSync(join(dir, 'mds', 'root.crl'), crls.root.der);
    writeFile(dir, 'mds/ca.pem', crls.intermediate.pem);
    const file = writeFile(dir, 'etc/config.json', {
      applications: [
        minimalApp({
          attestation: { metadata: '../mds/blob.jwt', metadataCrls: ['../mds/root.crl', '../mds/ca.pem'] },
        }),
        minimalApp({ clientId: 'app-2', attestation: { metadata: '../mds/blob.jwt' } }),
      ],
    });
    const [withCrls, without] = loadConfig({ file, env: {}, cwd: dir }).applications;
    assert.deepEqual(withCrls?.attestation.metadataCrls, [join(dir, 'mds', 'root.crl'), join(dir, 'mds', 'ca.pem')]);
    assert.equal(without?.attestation.metadataCrls, undefined);
    assert.ok(!('metadataCrls' in (without?.attestation ?? {})), 'a policy without the key stays as before');
  });

  it('reports every problem at once: missing file, not a CRL, not a list, a duplicate, CRLs without a BLOB', () => {
    const dir = tempDir();
    writeFile(dir, 'blob.jwt', 'x');
    writeFile(dir, 'ca.pem', crls.intermediate.pem);
    writeFile(dir, 'root-cert.pem', mds.root.pem);
    writeFile(dir, 'garbage.crl', 'garbage');
    const file = writeFile(dir, 'config.json', {
      applications: [
        minimalApp({
          attestation: {
            metadata: './blob.jwt',
            metadataCrls: ['./missing.crl', './root-cert.pem', './garbage.crl', './ca.pem', './ca.pem'],
          },
        }),
        minimalApp({ clientId: 'app-2', attestation: { metadata: './blob.jwt', metadataCrls: './ca.pem' } }),
        minimalApp({ clientId: 'app-3', attestation: { metadataCrls: ['./ca.pem'] } }),
      ],
    });
    const problems = problemsOf(() => loadConfig({ file, env: {}, cwd: dir }));
    assertProblem(problems, 'applications[0].attestation.metadataCrls[0]', 'ENOENT');
    assertProblem(
      problems,
      'applications[0].attestation.metadataCrls[1]',
      'holds no PEM CRL (-----BEGIN X509 CRL-----)',
    );
    assertProblem(problems, 'applications[0].attestation.metadataCrls[2]', 'neither a DER CRL nor PEM');
    assertProblem(problems, 'applications[0].attestation.metadataCrls[4]', 'duplicate');
    assertProblem(problems, 'applications[1].attestation.metadataCrls', 'must be an array');
    assertProblem(problems, 'applications[2].attestation.metadataCrls', 'give the BLOB too');
  });
});
