// Applications: the list, a new one, and one application's page: origins, variants and policies edited,
// approval and disabling, its passkeys imported and exported, and (where this service has them) relay
// secrets and webhooks.
import { api, applications, segment, type Application } from './api.js';
import { confirmAction, guard, h, say, table } from './dom.js';
import { showRelaySecrets, showWebhooks } from './integrations.js';
import { showTransfer } from './transfer.js';

/** The keys with form fields or sections of their own; every other key of an application is a policy, edited as JSON. */
const FORM_KEYS = new Set(['clientId', 'name', 'icon', 'domain', 'origins', 'localOrigins', 'variants', 'webhooks']);

let policyKeys: Promise<string[]> | undefined;
/**
 * The policy keys: those of the admin API's application body (the schema ApplicationInput of the listener's
 * /openapi.json, the one the API checks bodies against) less the form's, so a key added there appears here.
 */
function policyKeysOf(): Promise<string[]> {
  policyKeys ??= fetch('/openapi.json')
    .then((answer) => answer.json() as Promise<{ components: { schemas: Record<string, { properties: object }> } }>)
    .then((doc) =>
      Object.keys(doc.components.schemas.ApplicationInput?.properties ?? {}).filter((k) => !FORM_KEYS.has(k)),
    );
  return policyKeys;
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

export async function showApplications(view: HTMLElement): Promise<void> {
  const id = decodeURIComponent(location.hash.split('/')[1] ?? '');
  if (id !== '') return showApplication(view, id);
  const apps = await applications();
  const rows = apps.map((a) => [
    h('a', { href: `#applications/${encodeURIComponent(a.clientId)}` }, a.name),
    h('code', {}, a.clientId),
    a.domain,
    a.activeVariants.join(', ') || '—',
    a.approved ? 'yes' : 'no',
    a.disabled ? 'disabled' : 'enabled',
    a.source,
  ]);
  view.append(
    h('h2', {}, 'Applications'),
    table('Applications', ['Name', 'Client ID', 'Domain', 'Active variants', 'Approved', 'State', 'Source'], rows),
    createForm(),
  );
}

function createForm(): HTMLElement {
  const name = h('input', { id: 'new-name', required: true });
  const domain = h('input', { id: 'new-domain', required: true, placeholder: 'shop.example' });
  const origins = h('textarea', { id: 'new-origins', rows: 2, placeholder: 'https://shop.example' });
  const form = h(
    'form',
    { class: 'card', autocomplete: 'off' },
    h('h3', {}, 'New application'),
    h('label', { for: 'new-name' }, 'Name'),
    name,
    h('label', { for: 'new-domain' }, 'Domain'),
    domain,
    h('label', { for: 'new-origins' }, 'Origins (one per line; none: the local variant only)'),
    origins,
    h('button', { type: 'submit' }, 'Create'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    guard(async () => {
      const list = lines(origins.value);
      const body: Record<string, unknown> = { name: name.value.trim(), domain: domain.value.trim() };
      if (list.length > 0) Object.assign(body, { origins: list, variants: ['standard', 'local'] });
      const created = await api<Application>('POST', '/admin/applications', body);
      say(`Created ${created.clientId}: approve it for the standard variant on its page.`);
      location.hash = `#applications/${encodeURIComponent(created.clientId)}`;
    })();
  });
  return form;
}

async function showApplication(view: HTMLElement, clientId: string): Promise<void> {
  const path = `/admin/applications/${segment(clientId)}`;
  const [app, keys] = await Promise.all([api<Application>('GET', path), policyKeysOf()]);
  const origins = h('textarea', { id: 'edit-origins', rows: 3 });
  origins.value = (app.origins ?? []).join('\n');
  const localOrigins = h('textarea', { id: 'edit-local-origins', rows: 2 });
  localOrigins.value = (app.localOrigins ?? []).join('\n');
  const variants = ['standard', 'local'].map((variant) =>
    h('input', { type: 'checkbox', id: `variant-${variant}`, value: variant, checked: app.variants.includes(variant) }),
  );
  const policies = h('textarea', { id: 'edit-policies', rows: 10, spellcheck: 'false', class: 'code' });
  policies.value = JSON.stringify(Object.fromEntries(keys.filter((k) => k in app).map((k) => [k, app[k]])), null, 2);
  const form = h(
    'form',
    { class: 'card', autocomplete: 'off' },
    h('h3', {}, 'Origins, variants and policies'),
    h('label', { for: 'edit-origins' }, 'Origins (one per line)'),
    origins,
    h('label', { for: 'edit-local-origins' }, 'Local-variant origins (one per line)'),
    localOrigins,
    h(
      'fieldset',
      {},
      h('legend', {}, 'Variants'),
      ...variants.flatMap((box) => [box, h('label', { for: box.id }, box.value)]),
    ),
    h('label', { for: 'edit-policies' }, 'Policies (JSON: docs/configuration.md, "Application keys")'),
    policies,
    h('button', { type: 'submit' }, 'Save'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    guard(async () => {
      let policy: unknown;
      try {
        policy = JSON.parse(policies.value || '{}');
      } catch {
        throw new Error('The policies are not valid JSON.');
      }
      const body = {
        ...(policy as Record<string, unknown>),
        origins: lines(origins.value),
        localOrigins: lines(localOrigins.value),
        variants: variants.filter((box) => box.checked).map((box) => box.value),
      };
      await api('PATCH', path, body);
      say(`Saved ${clientId}.`);
      view.replaceChildren();
      await showApplication(view, clientId);
    })();
  });
  const action = (name: string, label: string, danger = false) =>
    h(
      'button',
      {
        type: 'button',
        class: danger ? 'danger' : undefined,
        onclick: guard(async () => {
          if (danger && !(await confirmAction(`${label} ${clientId}?`, label))) return;
          await api('POST', `${path}/${name}`);
          say(`${label}: done.`);
          view.replaceChildren();
          await showApplication(view, clientId);
        }),
      },
      label,
    );
  view.append(
    h('p', {}, h('a', { href: '#applications' }, '← Applications')),
    h('h2', {}, `${app.name} `, h('code', {}, app.clientId)),
    h(
      'p',
      {},
      `Domain ${app.domain}; active variants: ${app.activeVariants.join(', ') || 'none'}; `,
      app.approved ? 'approved' : 'not approved',
      app.disabled ? '; disabled' : '',
      '. ',
      app.approved ? action('unapprove', 'Withdraw approval', true) : action('approve', 'Approve standard variant'),
      ' ',
      app.disabled ? action('enable', 'Enable') : action('disable', 'Disable', true),
    ),
    form,
  );
  showTransfer(view, clientId);
  await showRelaySecrets(view, clientId);
  await showWebhooks(view, clientId);
}
