// The audit log: filtered by application, action and time, page by page (the API's `next` cursor).
import { api, applications, withQuery, type AuditEvent } from './api.js';
import { h, table, when } from './dom.js';

const ACTIONS = [
  'application.create',
  'application.update',
  'application.approve',
  'application.unapprove',
  'application.disable',
  'application.enable',
  'application.delete',
  'credential.rename',
  'credential.delete',
  'credential.delete-user',
  'credential.delete-own',
  'credential.list-own',
  'credential.backup-eligibility.change',
  'ceremony.registration.options',
  'ceremony.registration',
  'ceremony.authentication.options',
  'ceremony.authentication',
  'metadata.reload',
];

/** A datetime-local value (the browser's time zone) as ISO 8601, or undefined. */
const iso = (value: string) => (value === '' ? undefined : new Date(value).toISOString());

export async function showAudit(view: HTMLElement): Promise<void> {
  const apps = await applications();
  const app = h('select', { id: 'audit-app' }, h('option', { value: '' }, 'All applications'));
  for (const a of apps) app.append(h('option', { value: a.clientId }, `${a.name} (${a.clientId})`));
  const action = h('input', { id: 'audit-action', list: 'audit-actions', spellcheck: 'false' });
  const list = h('datalist', { id: 'audit-actions' }, ...ACTIONS.map((name) => h('option', { value: name })));
  const since = h('input', { id: 'audit-since', type: 'datetime-local' });
  const until = h('input', { id: 'audit-until', type: 'datetime-local' });
  const size = h('input', { id: 'audit-limit', type: 'number', min: 1, max: 1000, value: 50, class: 'short' });
  const results = h('div', { id: 'audit-results' });
  const form = h(
    'form',
    { class: 'inline', autocomplete: 'off' },
    h('label', { for: 'audit-app' }, 'Application'),
    app,
    h('label', { for: 'audit-action' }, 'Action'),
    action,
    list,
    h('label', { for: 'audit-since' }, 'Since'),
    since,
    h('label', { for: 'audit-until' }, 'Until'),
    until,
    h('label', { for: 'audit-limit' }, 'Per page'),
    size,
    h('button', { type: 'submit' }, 'Show'),
  );
  /** The cursors of the pages shown so far: the first page has none. */
  let cursors: (string | undefined)[] = [undefined];
  const load = async () => {
    const after = cursors[cursors.length - 1];
    const path = withQuery('/admin/audit', {
      clientId: app.value,
      action: action.value.trim(),
      since: iso(since.value),
      until: iso(until.value),
      limit: String(Math.min(1000, Math.max(1, Math.trunc(Number(size.value)) || 50))),
      after,
    });
    const page = await api<{ events: AuditEvent[]; next: string | null }>('GET', path);
    const rows = page.events.map((e) => [
      h('time', { datetime: e.time }, when(e.time)),
      e.actor,
      h('code', {}, e.action),
      e.clientId ?? '—',
      e.subject ?? '—',
      e.result === 'ok' ? 'ok' : `failed: ${e.errorName ?? ''}`,
      e.details ? h('code', { class: 'details' }, JSON.stringify(e.details)) : '—',
    ]);
    const previous = h('button', { type: 'button', disabled: cursors.length === 1 }, 'Previous page');
    const next = h('button', { type: 'button', disabled: page.next === null }, 'Next page');
    previous.addEventListener('click', () => {
      cursors = cursors.slice(0, -1);
      void load();
    });
    next.addEventListener('click', () => {
      cursors = [...cursors, page.next ?? undefined];
      void load();
    });
    results.replaceChildren(
      rows.length === 0
        ? h('p', { class: 'empty' }, 'No event matches.')
        : table(
            `Audit events, page ${cursors.length}`,
            ['Time', 'Actor', 'Action', 'Application', 'User', 'Result', 'Details'],
            rows,
          ),
      h('p', { class: 'pager' }, previous, ' ', next),
    );
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    cursors = [undefined];
    void load();
  });
  view.append(h('h2', {}, 'Audit log'), form, results);
  await load();
}
