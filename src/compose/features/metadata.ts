// Metadata watching (docs/attestation.md "Metadata"): the metadata BLOBs reloaded on demand
// (POST /admin/metadata/reload; the periodic check of compose/service.ts calls the same): every BLOB read
// again and swapped in if it verifies (the configured applications' first, then every evaluator the
// directory built), then the passkeys of compromised models marked; and the files in use, for that check.
import { metadataFilesOf } from '../../applications/metadata-watch.js';
import { createMetadataReloader, type MetadataReloadReport } from '../../applications/trust-reload.js';
import type { OperatorFeature } from '../feature-types.js';

export const metadataFeature: OperatorFeature = {
  name: 'metadata',
  configKeys: ['applications[].attestation'],
  routes: ['/admin/metadata/reload'],
  stores: [],
  provides: ['reloadMetadata', 'metadataFiles'],
  setup(context) {
    const { input } = context;
    const directory = context.need('applications');
    const markCompromised = context.need('markCompromised');
    const reloadTrust = createMetadataReloader({
      ...(input.trust ? { trust: input.trust } : {}),
      directory,
      now: input.runtime.now,
      log: input.log,
    });
    context.provide('reloadMetadata', async (): Promise<MetadataReloadReport> => {
      const report = await reloadTrust();
      await markCompromised();
      return report;
    });
    const configured = input.config.applications.flatMap((app) => metadataFilesOf(app.attestation));
    context.provide('metadataFiles', () => [...new Set([...configured, ...directory.metadataFiles()])]);
    return {};
  },
};
