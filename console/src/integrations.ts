// An application's relay secrets and webhooks, the webhooks' dead letters and the credentials whose
// authenticator model FIDO metadata marked. Each section asks its admin path first: a service without it
// (404 NOT_FOUND, not APPLICATION_NOT_FOUND) shows that it does not offer it.
import { api, ApiError, segment } from './api.js';
import { confirmAction, guard, h, say, table, when } from './dom.js';

type Row = Record<string, unknown>;

/** The list a GET answers (`{ <key>: [...] }`), or null when this service has no such path. */
async function listOf(path: string, key: string): Promise<Row[] | null> {
  try {
    const answer = await api<Record<string, unknown>>('GET', path);
    // The named list, else the answer's one list (whatever the owning module called it).
    const list = answer[key] ?? Object.values(answer).find(Array.isArray);
    return Array.isArray(list) ? (list as Row[]) : [];
  } catch (error) {
    if (error instanceof ApiError && error.code === 'NOT_FOUND') return null;
    throw error;
  }
}

const text = (value: unknown) => (value === null || value === undefined || value === '' ? '—' : String(value));

/** The one-time secret of a create answer, shown until the page changes. */
function shownOnce(label: string, secret: string): HTMLElement {
  return h(
    'div',
    { class: 'once', role: 'alert' },
    h('strong', {}, `${label} (shown once: copy it now)`),
    h('code', { class: 'secret' }, secret),
  );
}

export async function showRelaySecrets(view: HTMLElement, clientId: string): Promise<void> {
  const path = `/admin/applications/${segment(clientId)}/relay-secrets`;
  const section = h('section', { class: 'card', id: 'relay-secrets' }, h('h3', {}, 'Relay secrets'));
  view.append(section);
  const secrets = await listOf(path, 'relaySecrets');
  if (secrets === null) {
    section.append(h('p', { class: 'empty' }, 'This service has no relay-secret admin API.'));
    return;
  }
  const reload = async () => {
    section.remove();
    await showRelaySecrets(view, clientId);
  };
  const application = await api<Row>('GET', `/admin/applications/${segment(clientId)}`);
  const required = application.requireRelaySecret === true;
  const rows = secrets.map((s) => [
    h('code', {}, text(s.id)),
    text(s.source),
    when(s.createdAt as string | null),
    when(s.lastUsedAt as string | null),
    typeof s.id === 'string' && s.source !== 'config'
      ? h(
          'button',
          {
            type: 'button',
            class: 'danger',
            onclick: guard(async () => {
              // The application keeps requiring a secret: revoking its last one refuses every relay call.
              const last = secrets.length === 1;
              const question = last
                ? `Revoke relay secret ${s.id}, the application's last one? It still requires a relay secret: every call of its relay is refused with 401 until a new one is created. To rotate, create the new secret and deploy it first.`
                : `Revoke relay secret ${s.id}? Relays that send it are refused.`;
              if (!(await confirmAction(question, last ? 'Revoke the last secret' : 'Revoke'))) return;
              const revoked = await api<Row>('DELETE', `${path}/${segment(s.id as string)}`);
              say(`Revoked relay secret ${s.id}.${typeof revoked.warning === 'string' ? ` ${revoked.warning}` : ''}`);
              await reload();
            }),
          },
          'Revoke',
        )
      : '',
  ]);
  const create = h(
    'button',
    {
      type: 'button',
      onclick: guard(async () => {
        const made = await api<Row>('POST', path, {});
        await reload();
        const section2 = document.getElementById('relay-secrets');
        section2?.append(shownOnce(`Relay secret ${text(made.id)}`, text(made.secret)));
      }),
    },
    'Create a relay secret',
  );
  section.append(
    secrets.length === 0
      ? h(
          'p',
          { class: 'empty' },
          required
            ? 'None left: the application requires a relay secret, so every call of its relay is refused until one is created.'
            : 'None: relays need no secret.',
        )
      : table('Relay secrets', ['Id', 'Source', 'Created', 'Last used', ''], rows),
    h('p', {}, create),
  );
}

export async function showWebhooks(view: HTMLElement, clientId: string): Promise<void> {
  const path = `/admin/applications/${segment(clientId)}/webhooks`;
  const section = h('section', { class: 'card', id: 'webhooks' }, h('h3', {}, 'Webhooks'));
  view.append(section);
  const hooks = await listOf(path, 'webhooks');
  if (hooks === null) {
    section.append(h('p', { class: 'empty' }, 'This service has no webhook admin API.'));
    return;
  }
  const reload = async () => {
    for (const id of ['webhooks', 'dead-letters', 'marked-credentials']) document.getElementById(id)?.remove();
    await showWebhooks(view, clientId);
  };
  // The form adds a webhook, or, after a row's Edit, changes that one (PATCH: its URL and events).
  let editing: string | null = null;
  // The URL as listed (its query redacted): sent back only when changed, so an edit of the events keeps it.
  let listedUrl = '';
  const submit = h('button', { type: 'submit' }, 'Add webhook');
  const rows = hooks.map((w) => [
    h('code', {}, text(w.url)),
    Array.isArray(w.events) ? w.events.join(', ') : 'all events',
    text(w.source),
    when(w.createdAt as string | null),
    w.source === 'config'
      ? 'in the config file'
      : h(
          'span',
          {},
          h(
            'button',
            {
              type: 'button',
              onclick: () => {
                editing = text(w.id);
                listedUrl = text(w.url);
                url.value = listedUrl;
                events.value = Array.isArray(w.events) ? w.events.join(', ') : 'all';
                submit.textContent = 'Save webhook';
                url.focus();
              },
            },
            'Edit',
          ),
          ' ',
          h(
            'button',
            {
              type: 'button',
              class: 'danger',
              onclick: guard(async () => {
                if (!(await confirmAction(`Delete the webhook to ${text(w.url)}?`, 'Delete webhook'))) return;
                await api('DELETE', `${path}/${segment(text(w.id))}`);
                say('Webhook deleted.');
                await reload();
              }),
            },
            'Delete',
          ),
        ),
  ]);
  const url = h('input', {
    id: 'webhook-url',
    type: 'url',
    required: true,
    placeholder: 'https://idp.example/hooks/passkeys',
  });
  const events = h('input', { id: 'webhook-events', placeholder: 'all, or e.g. credential.created, user.deleted' });
  const form = h(
    'form',
    { class: 'inline', autocomplete: 'off' },
    h('label', { for: 'webhook-url' }, 'URL'),
    url,
    h('label', { for: 'webhook-events' }, 'Events'),
    events,
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    guard(async () => {
      const list = events.value
        .split(',')
        .map((e) => e.trim())
        .filter((e) => e !== '' && e !== 'all');
      if (editing !== null) {
        const changed = url.value.trim();
        await api('PATCH', `${path}/${segment(editing)}`, {
          ...(changed === listedUrl ? {} : { url: changed }),
          events: list.length > 0 ? list : null,
        });
        say('Webhook saved.');
        await reload();
        return;
      }
      const made = await api<Row>('POST', path, {
        url: url.value.trim(),
        ...(list.length > 0 ? { events: list } : {}),
      });
      await reload();
      document.getElementById('webhooks')?.append(shownOnce('Signing secret', text(made.secret)));
    })();
  });
  section.append(
    hooks.length === 0
      ? h('p', { class: 'empty' }, 'No webhook.')
      : table('Webhooks', ['URL', 'Events', 'Source', 'Created', ''], rows),
    form,
  );
  await showDeadLetters(view, clientId, reload);
  await showMarked(view, clientId);
}

async function showDeadLetters(view: HTMLElement, clientId: string, reload: () => Promise<void>): Promise<void> {
  const letters = await listOf(`/admin/webhooks/dead-letters?clientId=${segment(clientId)}`, 'deadLetters');
  if (letters === null) return;
  const rows = letters.map((d) => [
    h('code', {}, text(d.type)),
    text(d.attempts),
    text(d.lastError),
    when(d.deadAt as string | null),
    h(
      'button',
      {
        type: 'button',
        onclick: guard(async () => {
          await api('POST', `/admin/webhooks/dead-letters/${segment(text(d.id))}/resend`);
          say(`Event ${text(d.id)} queued again.`);
          await reload();
        }),
      },
      'Send again',
    ),
  ]);
  view.append(
    h(
      'section',
      { class: 'card', id: 'dead-letters' },
      h('h3', {}, 'Dead letters'),
      letters.length === 0
        ? h('p', { class: 'empty' }, 'None: every event was delivered.')
        : table('Events not delivered', ['Event', 'Attempts', 'Last error', 'Given up', ''], rows),
    ),
  );
}

async function showMarked(view: HTMLElement, clientId: string): Promise<void> {
  const marked = await listOf(`/admin/applications/${segment(clientId)}/marked-credentials`, 'credentials');
  if (marked === null) return;
  const rows = marked.map((c) => [
    text(c.username),
    text(c.authenticatorName),
    h('code', {}, text(c.aaguid)),
    text(c.authenticatorStatus),
    when(c.lastUsedAt as string | null),
  ]);
  view.append(
    h(
      'section',
      { class: 'card', id: 'marked-credentials' },
      h('h3', {}, 'Passkeys of compromised authenticator models'),
      marked.length === 0
        ? h('p', { class: 'empty' }, 'None.')
        : table('Marked passkeys', ['User', 'Authenticator', 'AAGUID', 'Status', 'Last used'], rows),
    ),
  );
}
