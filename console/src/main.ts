// The admin console: sign in with an admin token (kept in sessionStorage for this tab), then four views
// chosen by the URL's fragment: overview, applications, users and the audit log.
import './style.css';
import { api, token, whenUnauthorized, ApiError } from './api.js';
import { byId, say } from './dom.js';
import { showApplications } from './applications.js';
import { showAudit } from './audit.js';
import { showOverview } from './overview.js';
import { showUsers } from './users.js';

const VIEWS: Record<string, (view: HTMLElement) => Promise<void>> = {
  overview: showOverview,
  applications: showApplications,
  users: showUsers,
  audit: showAudit,
};

function signedOut(message?: string): void {
  token.clear();
  byId('nav').hidden = true;
  byId('view').hidden = true;
  byId('view').replaceChildren();
  byId('sign-in').hidden = false;
  const error = byId('sign-in-error');
  error.hidden = message === undefined;
  error.textContent = message ?? '';
  byId<HTMLInputElement>('admin-token').focus();
}

async function render(): Promise<void> {
  const name = location.hash.replace(/^#/, '').split('/')[0] || 'overview';
  const show = VIEWS[name] ?? showOverview;
  for (const link of document.querySelectorAll<HTMLAnchorElement>('#nav a')) {
    if (link.dataset.view === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const view = byId('view');
  view.replaceChildren();
  say('');
  try {
    await show(view);
  } catch (error) {
    say(error instanceof ApiError ? `${error.code}: ${error.message}` : String(error), 'error');
  }
}

async function signedIn(): Promise<void> {
  byId('sign-in').hidden = true;
  byId('nav').hidden = false;
  byId('view').hidden = false;
  await render();
}

byId<HTMLFormElement>('sign-in-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = byId<HTMLInputElement>('admin-token');
  const candidate = input.value.trim();
  void (async () => {
    try {
      await api('GET', '/admin/applications', undefined, candidate);
    } catch (error) {
      const refused = error instanceof ApiError && error.status === 401;
      byId('sign-in-error').hidden = false;
      byId('sign-in-error').textContent = refused
        ? 'The admin token was refused.'
        : `Could not sign in: ${error instanceof Error ? error.message : String(error)}`;
      return;
    }
    token.set(candidate);
    input.value = '';
    byId('sign-in-error').hidden = true;
    await signedIn();
  })();
});

byId('sign-out').addEventListener('click', () => signedOut());
whenUnauthorized(() => signedOut('The admin token is no longer accepted: sign in again.'));
window.addEventListener('hashchange', () => {
  if (token.get() !== null) void render();
});

if (token.get() === null) signedOut();
else void signedIn();
