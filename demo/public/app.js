// The demo login page: register a passkey and sign in through the relay on this page's own origin.
import {
  creationOptionsFromJSON, credentialToJSON, describeFailure, describeWebAuthnError, requestOptionsFromJSON, webAuthnAvailability,
} from '@passkey-server/browser';

const $ = (id) => document.getElementById(id);
let context = null;
let pending = null; // the AbortController of a running create()/get()

/** `text` for the user; `detail` (the error name and the service's description) for developers. */
function show(kind, text, detail = '') {
  const message = $('message');
  message.className = kind;
  message.dataset.kind = kind;
  message.textContent = text;
  $('message-detail').textContent = detail;
}

class CallFailed extends Error {
  constructor(message, detail = '') {
    super(message);
    this.detail = detail;
  }
}

async function callRelay(path, body) {
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
    throw new CallFailed(failure.message, failure.name ? `${failure.name}: ${failure.detail}` : `HTTP ${response.status}`);
  }
  return envelope;
}

function username() {
  const user = $('username').value.trim();
  if (user === '' || user.includes('#')) throw new CallFailed('Enter a user name (without "#").');
  return `${user}${context.suffix}`;
}

async function withAuthenticator(ceremony, run) {
  pending = new AbortController();
  $('cancel').hidden = false;
  show('busy', 'Waiting for your authenticator…');
  try {
    return await run(pending.signal);
  } catch (error) {
    throw new CallFailed(describeWebAuthnError(error, ceremony));
  } finally {
    pending = null;
    $('cancel').hidden = true;
  }
}

async function register() {
  const name = username();
  const attachment = $('attachment').value;
  const residentKey = $('resident-key').checked;
  const options = await callRelay('attestation/options', {
    username: name,
    displayName: $('display-name').value.trim() || name.split('#')[0],
    authenticatorSelection: {
      ...(attachment ? { authenticatorAttachment: attachment } : {}),
      requireResidentKey: residentKey,
      userVerification: $('user-verification').value,
    },
    attestation: $('attestation').value,
  });
  const credential = await withAuthenticator('create', (signal) => navigator.credentials.create({ ...creationOptionsFromJSON(options), signal }));
  show('busy', 'Checking the new passkey…');
  await callRelay('attestation/result', credentialToJSON(credential));
  show('ok', `Passkey registered for ${name}. You can sign in with it now.`);
}

async function signIn() {
  const name = username();
  const options = await callRelay('assertion/options', { username: name, userVerification: $('user-verification').value });
  const credential = await withAuthenticator('get', (signal) => navigator.credentials.get({ ...requestOptionsFromJSON(options), signal }));
  show('busy', 'Checking the signature…');
  await callRelay('assertion/result', credentialToJSON(credential));
  await refreshContext();
  show('ok', `Signed in as ${name}.`);
}

function guarded(action) {
  return async () => {
    if (pending) return;
    $('register').disabled = true;
    $('sign-in').disabled = true;
    try {
      await action();
    } catch (error) {
      if (error instanceof CallFailed) show('error', error.message, error.detail);
      else show('error', `Unexpected error: ${error && error.message}`);
    } finally {
      $('register').disabled = false;
      $('sign-in').disabled = false;
    }
  };
}

async function refreshContext() {
  const response = await fetch('/demo/context', { credentials: 'same-origin' });
  context = await response.json();
  $('variant').textContent = context.variant;
  $('variant-note').textContent = context.variant === 'local' ? '(development only: the service stores no key; the relay keeps the blob)' : '';
  $('suffix').textContent = context.suffix;
  const other = context.variant === 'standard' ? context.localUrl : context.standardUrl;
  $('switch-variant').href = other;
  $('switch-variant').textContent = `Switch to the ${context.variant === 'standard' ? 'local' : 'standard'} variant`;
  $('signed-in').hidden = !context.user;
  $('signed-in-user').textContent = context.user ?? '';
}

async function signOut() {
  await fetch('/demo/sign-out', { method: 'POST', credentials: 'same-origin' });
  await refreshContext();
  show('ok', 'Signed out.');
}

async function start() {
  await refreshContext();
  const availability = webAuthnAvailability();
  if (!availability.ok) {
    show('error', availability.reason);
    $('register').disabled = true;
    $('sign-in').disabled = true;
  }
  $('register').addEventListener('click', guarded(register));
  $('sign-in').addEventListener('click', guarded(signIn));
  $('cancel').addEventListener('click', () => pending?.abort());
  $('sign-out').addEventListener('click', () => void signOut());
  $('login').addEventListener('submit', (event) => event.preventDefault());
  document.body.dataset.ready = 'true';
}

start().catch((error) => show('error', `The demo could not start: ${error.message}`));
