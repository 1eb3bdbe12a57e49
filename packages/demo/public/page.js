// What every part of the demo page shares: its message line, the status lines of background requests, and
// calls to the relay whose failures become sentences for the user.
import { describeFailure, sendSignals } from '@passkey-server/browser';

export const $ = (id) => document.getElementById(id);

/** `text` for the user; `detail` (the error name and the service's description) for developers. */
export function show(kind, text, detail = '') {
  const message = $('message');
  message.className = kind;
  message.dataset.kind = kind;
  message.textContent = text;
  $('message-detail').textContent = detail;
}

/** A line about a background request: `state` for scripts and tests, `text` for the user. */
export function status(id, state, text) {
  const line = $(id);
  line.dataset.state = state;
  line.textContent = text;
  line.hidden = text === '';
}

export class CallFailed extends Error {
  constructor(message, detail = '', envelope = undefined) {
    super(message);
    this.detail = detail;
    this.envelope = envelope;
  }
}

export async function callRelay(path, body) {
  let response;
  try {
    response = await fetch(`/relay/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      credentials: 'same-origin',
    });
  } catch {
    throw new CallFailed('The relay could not be reached: is the demo server still running?');
  }
  let envelope;
  try {
    envelope = await response.json();
  } catch {
    throw new CallFailed(`The relay answered HTTP ${response.status} without JSON.`);
  }
  if (envelope.status !== 'ok') {
    const failure = describeFailure(envelope);
    console.warn('passkey call failed', path, response.status, failure.name, failure.detail);
    throw new CallFailed(
      failure.message,
      failure.name ? `${failure.name}: ${failure.detail}` : `HTTP ${response.status}`,
      envelope,
    );
  }
  return envelope;
}

/** Passes the answer's `signals` to the browser (where it has the functions) and notes what became of them. */
export async function tellBrowser(answer) {
  const outcomes = await sendSignals(answer);
  if (outcomes.length === 0) return;
  $('signals').dataset.outcomes = JSON.stringify(outcomes);
  $('signals').textContent =
    `Told the browser's passkey manager: ${outcomes.map((o) => `${o.signal} ${o.status}${o.error ? ` (${o.error})` : ''}`).join(', ')}.`;
}
