// Users: the "User name" field finds a user of an application; their passkeys with the provider's name and
// icon, synced or device-bound, algorithm, created, last used, attestation trust and status; one deleted
// after a confirmation, or every one (the user erased).
import { api, applications, segment, withQuery, type Credential } from './api.js';
import { confirmAction, h, say, table, when } from './dom.js';

/** COSE algorithm identifiers (IANA "COSE Algorithms") the service accepts. */
const ALGORITHMS: Record<number, string> = {
  [-7]: 'ES256',
  [-35]: 'ES384',
  [-36]: 'ES512',
  [-9]: 'ESP256',
  [-51]: 'ESP384',
  [-52]: 'ESP512',
  [-8]: 'EdDSA',
  [-19]: 'Ed25519',
  [-257]: 'RS256',
  [-258]: 'RS384',
  [-259]: 'RS512',
  [-37]: 'PS256',
  [-38]: 'PS384',
  [-39]: 'PS512',
  [-48]: 'ML-DSA-44',
  [-49]: 'ML-DSA-65',
  [-50]: 'ML-DSA-87',
};

export function algorithmName(alg: number): string {
  return ALGORITHMS[alg] ? `${ALGORITHMS[alg]} (${alg})` : String(alg);
}

function trust(c: Credential): string {
  if (c.attestationTrusted) return `trusted (${c.attestationFormat})`;
  return c.attestationFormat === 'none' ? 'none (self-declared)' : `not trusted (${c.attestationFormat})`;
}

function status(c: Credential): string {
  const marked = typeof c.authenticatorStatus === 'string' ? c.authenticatorStatus : null;
  if (marked) return `marked: ${marked}`;
  return c.cloneWarning ? 'clone warning' : 'active';
}

function provider(c: Credential): HTMLElement {
  const name = c.authenticatorName ?? 'Unknown authenticator';
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  const icon = dark
    ? (c.authenticatorIconDark ?? c.authenticatorIconLight)
    : (c.authenticatorIconLight ?? c.authenticatorIconDark);
  return h(
    'span',
    { class: 'provider' },
    icon ? h('img', { src: icon, alt: '', width: 20, height: 20 }) : h('span', { class: 'no-icon' }),
    name,
    c.authenticatorVerified
      ? h('span', { class: 'badge', title: 'Proven by a trusted attestation' }, 'verified')
      : null,
  );
}

export async function showUsers(view: HTMLElement): Promise<void> {
  const apps = await applications();
  const select = h('select', { id: 'user-app', name: 'application', required: true });
  for (const app of apps) select.append(h('option', { value: app.clientId }, `${app.name} (${app.clientId})`));
  const remembered = sessionStorage.getItem('passkey-server.console.user-app');
  if (remembered && apps.some((a) => a.clientId === remembered)) select.value = remembered;
  const input = h('input', {
    id: 'user-name',
    name: 'username',
    required: true,
    spellcheck: 'false',
    placeholder: 'alice#idp.example',
  });
  const results = h('div', { id: 'user-results' });
  const form = h(
    'form',
    { class: 'inline', autocomplete: 'off' },
    h('label', { for: 'user-app' }, 'Application'),
    select,
    h('label', { for: 'user-name' }, 'User name'),
    input,
    h('button', { type: 'submit' }, 'Find'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    sessionStorage.setItem('passkey-server.console.user-app', select.value);
    void find(select.value, input.value.trim(), results);
  });
  view.append(h('h2', {}, 'Users'), form, results);
}

async function find(clientId: string, username: string, results: HTMLElement): Promise<void> {
  results.replaceChildren();
  if (username === '') return;
  const base = `/admin/applications/${segment(clientId)}/credentials`;
  const page = await api<{ credentials: Credential[] }>('GET', withQuery(base, { username }));
  const credentials = page.credentials;
  if (credentials.length === 0) {
    results.append(h('p', { class: 'empty' }, `No passkey for ${username} in ${clientId}.`));
    return;
  }
  const rows = credentials.map((c) => [
    provider(c),
    c.nickname ?? '—',
    c.backupEligible ? (c.backupState ? 'synced' : 'synced (not backed up yet)') : 'device-bound',
    algorithmName(c.algorithm),
    when(c.createdAt),
    when(c.lastUsedAt),
    trust(c),
    status(c),
    h(
      'button',
      {
        type: 'button',
        class: 'danger',
        'data-credential': c.credentialId,
        onclick: () => void remove(clientId, username, c, results),
      },
      'Delete',
    ),
  ]);
  const erase = h(
    'button',
    { type: 'button', class: 'danger', onclick: () => void erase_(clientId, username, credentials.length, results) },
    'Erase this user',
  );
  results.append(
    table(
      `Passkeys of ${username}`,
      ['Provider', 'Name', 'Kind', 'Algorithm', 'Created', 'Last used', 'Attestation', 'Status', ''],
      rows,
    ),
    h('p', {}, erase),
  );
}

async function remove(clientId: string, username: string, c: Credential, results: HTMLElement): Promise<void> {
  const label = c.authenticatorName ?? 'this passkey';
  if (
    !(await confirmAction(`Delete the passkey "${label}" of ${username}? It can no longer sign in.`, 'Delete passkey'))
  )
    return;
  await api('DELETE', `/admin/applications/${segment(clientId)}/credentials/${segment(c.credentialId)}`);
  say(`Deleted the passkey "${label}" of ${username}.`);
  await find(clientId, username, results);
}

async function erase_(clientId: string, username: string, count: number, results: HTMLElement): Promise<void> {
  const question = `Erase ${username}: delete all ${count} passkey(s) of this user in ${clientId}? This cannot be undone.`;
  if (!(await confirmAction(question, 'Erase user'))) return;
  const answer = await api<{ deleted: number }>(
    'DELETE',
    withQuery(`/admin/applications/${segment(clientId)}/credentials`, { username }),
  );
  say(`Erased ${username}: ${answer.deleted} passkey(s) deleted.`);
  await find(clientId, username, results);
}
