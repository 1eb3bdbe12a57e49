// The demo login page: register a passkey and sign in through the relay on this page's own origin, by name,
// without a name (modal), or from the user name field's autofill list; offer the automatic upgrade after a
// sign-in by name; show who signed in from the result answer; tell the browser's passkey manager the news.
import {
  creationOptionsFromJSON,
  credentialToJSON,
  describeWebAuthnError,
  getClientCapabilities,
  isConditionalMediationAvailable,
  requestOptionsFromJSON,
  startConditionalCreate,
  startConditionalGet,
  webAuthnAvailability,
} from '@passkey-server/browser';
import { $, CallFailed, callRelay, show, status, tellBrowser } from './page.js';
import { clearPasskeys, listPasskeys } from './passkeys.js';
import { postQuantumFirst, postQuantumOutcome } from './post-quantum.js';

let context = null;
let pending = null; // the AbortController of a running modal create()/get()
let busy = false; // a button's action is running
// Requests that wait in the background: the autofill sign-in and the automatic upgrade. A browser runs one
// WebAuthn request at a time, so every action stops them (and waits until the browser let them go) first.
const background = { autofill: null, upgrade: null, renew: undefined };

function username() {
  const user = $('username').value.trim();
  if (user === '' || user.includes('#'))
    throw new CallFailed('Enter a user name (without "#"), or use "Sign in with a passkey".');
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
  // "Post-quantum first": ML-DSA ahead of the classical algorithms, when the application offers it (post-quantum.js).
  const postQuantum = $('post-quantum').checked;
  const asked = postQuantum ? postQuantumFirst(options) : options;
  const params = (asked ?? options).pubKeyCredParams.map((param) => param.alg);
  const credential = await withAuthenticator('create', (signal) =>
    navigator.credentials.create({ ...creationOptionsFromJSON(asked ?? options), signal }),
  );
  show('busy', 'Checking the new passkey…');
  const answer = await callRelay('attestation/result', credentialToJSON(credential));
  await tellBrowser(answer);
  const alg = credential.response.getPublicKeyAlgorithm?.();
  const detail = `pubKeyCredParams asked: ${params.join(', ')}; the new key's algorithm: ${alg ?? 'unknown'}`;
  if (postQuantum) show('ok', postQuantumOutcome(name, asked, alg), detail);
  else show('ok', `Passkey registered for ${name}. You can sign in with it now.`, detail);
  if (context.user === name) await showPasskeys($('signed-in').dataset.credentialId);
}

/** Synced or bound to one device, from the BE and BS flags of the result. */
function backupOf(answer) {
  if (answer.backupEligible && answer.backupState) return ['synced', 'synced across your devices'];
  if (answer.backupEligible) return ['eligible', 'may sync, not backed up yet'];
  return ['device-bound', 'bound to this device'];
}

/** Who signed in and with what, from an ok result answer (or the session the demo built from one). */
function showIdentity(answer, how) {
  $('signed-in').hidden = false;
  $('signed-in').dataset.how = how;
  $('signed-in').dataset.credentialId = answer.credentialId ?? '';
  $('signed-in-user').textContent = answer.username;
  if (typeof answer.credentialId !== 'string') {
    $('signed-in-passkey').hidden = true;
    return;
  }
  const [backup, text] = backupOf(answer);
  $('signed-in-passkey').hidden = false;
  $('passkey-name').textContent = answer.authenticatorName ?? 'an authenticator the site cannot name';
  $('passkey-backup').dataset.backup = backup;
  $('passkey-backup').textContent = text;
}

/** The result of a sign-in (modal or autofill): the answer says who, never the input field. */
async function finishSignIn(credential, how) {
  show('busy', 'Checking the signature…');
  const answer = await callRelay('assertion/result', credentialToJSON(credential));
  await tellBrowser(answer);
  await refreshContext();
  showIdentity(answer, how);
  show('ok', `Signed in as ${answer.username}.`);
  await showPasskeys(answer.credentialId);
  return answer;
}

/** The signed-in user's passkeys, with the one of this sign-in marked (standard variant only). */
async function showPasskeys(current) {
  if (context.variant !== 'standard') {
    $('passkeys').hidden = false;
    return status(
      'passkeys-note',
      'local',
      'The local variant keeps no passkeys at the service: there is no list to manage here.',
    );
  }
  await listPasskeys({ current, guarded });
}

async function signInByName() {
  const name = username();
  const options = await callRelay('assertion/options', {
    username: name,
    userVerification: $('user-verification').value,
  });
  const credential = await withAuthenticator('get', (signal) =>
    navigator.credentials.get({ ...requestOptionsFromJSON(options), signal }),
  );
  const answer = await finishSignIn(credential, 'name');
  void offerUpgrade(answer.username);
}

/** Modal sign-in without a name: the browser lists the passkeys it holds for this site. */
async function signInWithPasskey() {
  const options = await callRelay('assertion/options', {
    username: context.suffix,
    userVerification: $('user-verification').value,
  });
  const credential = await withAuthenticator('get', (signal) =>
    navigator.credentials.get({ ...requestOptionsFromJSON(options), signal }),
  );
  await finishSignIn(credential, 'passkey');
}

/** Sign-in from the autofill list: a conditional get that waits for the user to pick a passkey in the field. */
async function startAutofill() {
  if (context.user) return;
  if (!(await isConditionalMediationAvailable())) return status('autofill', 'unavailable', '');
  let options;
  try {
    options = await callRelay('assertion/options', { username: context.suffix, userVerification: 'preferred' });
  } catch (error) {
    return status('autofill', 'failed', `Passkey suggestions are off: ${error.message}`);
  }
  const request = startConditionalGet(options);
  background.autofill = request;
  status('autofill', 'waiting', 'Your passkeys for this site are offered in the suggestions of the user name field.');
  // The ceremony expires at the service after `timeout`: start a fresh one then.
  if (typeof options.timeout === 'number')
    background.renew = setTimeout(() => void renewAutofill(request), options.timeout);
  let credential;
  try {
    credential = await request.result;
  } catch (error) {
    return status('autofill', 'failed', `Passkey suggestions stopped: ${describeWebAuthnError(error, 'get')}`);
  } finally {
    if (background.autofill === request) background.autofill = null;
  }
  if (credential === null || request.aborted || busy) return status('autofill', 'stopped', '');
  status('autofill', 'chosen', '');
  await guarded(() => finishSignIn(credential, 'autofill'), { stop: false })();
}

async function renewAutofill(request) {
  if (background.autofill !== request || busy) return;
  await request.abort();
  await startAutofill();
}

/** After a sign-in by name: let the browser save a passkey for this account by itself (conditional create). */
async function offerUpgrade(name) {
  const capabilities = await getClientCapabilities();
  if (!capabilities?.conditionalCreate) return status('upgrade', 'unavailable', '');
  let request;
  try {
    const options = await callRelay('attestation/options', {
      username: name,
      displayName: name.split('#')[0],
      mediation: 'conditional',
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
      attestation: 'none',
    });
    if (busy) return status('upgrade', 'stopped', ''); // the user moved on while the options came
    request = startConditionalCreate(options);
    background.upgrade = request;
    status(
      'upgrade',
      'offered',
      'Your browser may now save a passkey for this account by itself, so that next time no name is needed.',
    );
    const credential = await request.result;
    if (credential === null) return status('upgrade', 'stopped', '');
    const answer = await callRelay('attestation/result', credentialToJSON(credential));
    status(
      'upgrade',
      'created',
      `Your browser saved a new passkey${answer.authenticatorName ? ` in ${answer.authenticatorName}` : ''}: next time, sign in without your name.`,
    );
  } catch (error) {
    const reason = error instanceof CallFailed ? error.message : describeWebAuthnError(error, 'create');
    console.info('automatic passkey upgrade not done', error);
    status('upgrade', 'declined', `No passkey was saved automatically (${reason})`);
  } finally {
    if (background.upgrade === request) background.upgrade = null;
  }
}

async function stopBackground() {
  clearTimeout(background.renew);
  await Promise.all([background.autofill?.abort(), background.upgrade?.abort()]);
}

const BUTTONS = ['register', 'sign-in', 'passkey-sign-in'];

/** Runs one action at a time, background requests stopped first; failures become the page's message. */
function guarded(action, { stop = true } = {}) {
  return async () => {
    if (pending || busy) return;
    busy = true;
    for (const id of BUTTONS) $(id).disabled = true;
    try {
      if (stop) await stopBackground();
      await action();
    } catch (error) {
      if (error instanceof CallFailed) {
        show('error', error.message, error.detail);
        if (error.envelope) await tellBrowser(error.envelope);
      } else show('error', `Unexpected error: ${error?.message}`);
    } finally {
      busy = false;
      for (const id of BUTTONS) $(id).disabled = false;
    }
  };
}

async function refreshContext() {
  const response = await fetch('/demo/context', { credentials: 'same-origin' });
  context = await response.json();
  $('variant').textContent = context.variant;
  $('variant-note').textContent =
    context.variant === 'local' ? '(development only: the service stores no key; the relay keeps the blob)' : '';
  $('suffix').textContent = context.suffix;
  const other = context.variant === 'standard' ? context.localUrl : context.standardUrl;
  $('switch-variant').href = other;
  $('switch-variant').textContent = `Switch to the ${context.variant === 'standard' ? 'local' : 'standard'} variant`;
  $('signed-in').hidden = !context.user;
  if (!context.user) clearPasskeys();
  if (context.user) showIdentity({ username: context.user, ...context.passkey }, context.how ?? 'session');
}

async function signOut() {
  await fetch('/demo/sign-out', { method: 'POST', credentials: 'same-origin' });
  await refreshContext();
  status('upgrade', 'off', '');
  show('ok', 'Signed out.');
}

async function start() {
  await refreshContext();
  const availability = webAuthnAvailability();
  if (!availability.ok) {
    show('error', availability.reason);
    for (const id of BUTTONS) $(id).disabled = true;
  }
  $('register').addEventListener('click', guarded(register));
  $('sign-in').addEventListener('click', guarded(signInByName));
  $('passkey-sign-in').addEventListener('click', guarded(signInWithPasskey));
  $('cancel').addEventListener('click', () => pending?.abort());
  $('sign-out').addEventListener('click', guarded(signOut));
  $('login').addEventListener('submit', (event) => event.preventDefault());
  if (context.user && availability.ok) await showPasskeys(context.passkey?.credentialId);
  document.body.dataset.ready = 'true';
  // Started once the page is ready, while nobody is signed in; any button stops it (docs/demo.md).
  if (availability.ok) await startAutofill();
}

start().catch((error) => show('error', `The demo could not start: ${error.message}`));
