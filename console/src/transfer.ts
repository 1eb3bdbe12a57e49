// An application's "Import passkeys" and "Export passkeys" (docs/admin.md, "Import and export passkeys"):
// a file of another server and its format, a dry run first (its report shown, refused lines and all), then
// the real run of the same file, with a progress bar of the file sent (the service imports it as it
// arrives); and the application's passkeys downloaded in the service's own format or Hanko's.
import { download, segment, upload } from './api.js';
import { guard, h, say, table } from './dom.js';

/** The `from` formats, as docs/migration.md names their sources. */
const SOURCES: readonly (readonly [string, string])[] = [
  ['passkey-server', 'passkey-server (this service’s export)'],
  ['simplewebauthn', 'SimpleWebAuthn application'],
  ['keycloak', 'Keycloak realm export'],
  ['hanko', 'Hanko user export'],
  ['line-fido2-server', 'LINE fido2-server (USER_KEY rows)'],
];
const TARGETS: readonly (readonly [string, string])[] = [
  ['passkey-server', 'passkey-server (JSON Lines, lossless)'],
  ['hanko', 'Hanko user import list'],
];

interface ImportReport {
  imported: number;
  skipped: number;
  refused: { line: number | string; reason: string; message: string }[];
  dryRun: boolean;
}

const select = (id: string, options: readonly (readonly [string, string])[]) =>
  h('select', { id }, ...options.map(([value, label]) => h('option', { value }, label)));

export function showTransfer(view: HTMLElement, clientId: string): void {
  const path = `/admin/applications/${segment(clientId)}/credentials`;
  const file = h('input', { type: 'file', id: 'import-file' });
  const source = select('import-format', SOURCES);
  const dryRun = h('button', { type: 'button', id: 'import-dry-run' }, 'Dry run');
  const run = h('button', { type: 'button', id: 'import-run', disabled: true }, 'Import');
  const progress = h('progress', { id: 'import-progress', max: 1, value: 0 });
  const sending = h('p', { hidden: true }, h('label', { for: 'import-progress' }, 'File sent '), progress);
  const report = h('div', { id: 'import-report', 'aria-live': 'polite' });
  /** The file and format the last dry run read: the real run is offered for those only. */
  let tried: { file: File; format: string } | null = null;
  const reset = () => {
    tried = null;
    run.disabled = true;
    report.replaceChildren();
  };
  file.addEventListener('change', reset);
  source.addEventListener('change', reset);

  const start = async (dry: boolean): Promise<void> => {
    const chosen = file.files?.[0];
    if (chosen === undefined) throw new Error('Choose a file first.');
    const format = source.value;
    dryRun.disabled = true;
    run.disabled = true;
    sending.hidden = false;
    progress.value = 0;
    report.replaceChildren(h('p', {}, dry ? 'Dry run…' : 'Importing…'));
    try {
      const query = `from=${encodeURIComponent(format)}&dryRun=${dry}`;
      const answer = await upload<ImportReport>(`${path}/import?${query}`, chosen, (sent) => {
        progress.value = sent;
      });
      progress.value = 1;
      report.replaceChildren(...shown(answer));
      tried = dry ? { file: chosen, format } : null;
      say(dry ? 'Dry run done: nothing was written.' : `Imported ${answer.imported} passkeys.`);
    } catch (error) {
      report.replaceChildren();
      tried = null;
      throw error;
    } finally {
      dryRun.disabled = false;
      run.disabled = tried === null;
    }
  };
  dryRun.addEventListener(
    'click',
    guard(() => start(true)),
  );
  run.addEventListener(
    'click',
    guard(async () => {
      if (tried === null || tried.file !== file.files?.[0] || tried.format !== source.value)
        throw new Error('Run the dry run of this file first.');
      await start(false);
    }),
  );

  const target = select('export-format', TARGETS);
  const save = h(
    'button',
    {
      type: 'button',
      id: 'export-download',
      onclick: guard(async () => {
        const extension = target.value === 'hanko' ? 'json' : 'jsonl';
        const got = await download(`${path}/export?to=${encodeURIComponent(target.value)}`, `passkeys.${extension}`);
        const url = URL.createObjectURL(got.blob);
        const link = h('a', { href: url, download: got.name, hidden: true });
        document.body.append(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(url), 60_000);
        say(`Exported to ${got.name}.`);
      }),
    },
    'Download',
  );

  view.append(
    h(
      'section',
      { class: 'card', id: 'import-passkeys' },
      h('h3', {}, 'Import passkeys'),
      h(
        'p',
        {},
        'Passkeys of another server (docs/migration.md): a dry run reports what an import would do and writes nothing; then import the same file.',
      ),
      h('label', { for: 'import-file' }, 'File'),
      file,
      h('label', { for: 'import-format' }, 'Source format'),
      source,
      h('p', {}, dryRun, ' ', run),
      sending,
      report,
    ),
    h(
      'section',
      { class: 'card', id: 'export-passkeys' },
      h('h3', {}, 'Export passkeys'),
      h('label', { for: 'export-format' }, 'Format'),
      target,
      ' ',
      save,
    ),
  );
}

/** The report: its counts, and each refused record with its line and reason. */
function shown(report: ImportReport): HTMLElement[] {
  const verb = report.dryRun ? 'would be imported' : 'imported';
  const summary = h(
    'p',
    { class: 'report-summary' },
    `${report.dryRun ? 'Dry run: ' : ''}${report.imported} ${verb}, ${report.skipped} skipped (already stored), ${report.refused.length} refused.`,
  );
  if (report.refused.length === 0) return [summary];
  const rows = report.refused.map((r) => [String(r.line), h('code', {}, r.reason), r.message]);
  return [summary, table('Refused records', ['Line', 'Reason', 'Message'], rows)];
}
