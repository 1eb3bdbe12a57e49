// Ceremonies and failures per application over the last hour (GET /admin/overview: this instance's counts).
import { api } from './api.js';
import { h, table, when } from './dom.js';

interface Counts {
  started: number;
  results: number;
  failed: number;
}
interface Overview {
  since: string;
  until: string;
  applications: {
    clientId: string;
    registrations: Counts;
    authentications: Counts;
    errors: { error: string; count: number }[];
  }[];
}

const rate = (c: Counts) => (c.results === 0 ? '—' : `${Math.round((100 * c.failed) / c.results)} %`);

export async function showOverview(view: HTMLElement): Promise<void> {
  const overview = await api<Overview>('GET', '/admin/overview');
  const refresh = h(
    'button',
    { type: 'button', onclick: () => void showOverview(view.replaceChildren() ?? view) },
    'Refresh',
  );
  const rows = overview.applications.map((a) => [
    h('code', {}, a.clientId),
    a.registrations.started,
    a.registrations.results,
    a.registrations.failed,
    rate(a.registrations),
    a.authentications.started,
    a.authentications.results,
    a.authentications.failed,
    rate(a.authentications),
    a.errors.length === 0 ? '—' : a.errors.map((e) => `${e.error} × ${e.count}`).join(', '),
  ]);
  view.append(
    h('h2', {}, 'Overview: the last hour'),
    h('p', {}, `From ${when(overview.since)} to ${when(overview.until)}, as this instance answered them. `, refresh),
    rows.length === 0
      ? h('p', { class: 'empty' }, 'No ceremony in the last hour.')
      : table(
          'Ceremonies per application',
          [
            'Application',
            'Registrations started',
            'Registration results',
            'Failed',
            'Failure rate',
            'Sign-ins started',
            'Sign-in results',
            'Failed',
            'Failure rate',
            'Failures by error',
          ],
          rows,
        ),
  );
}
