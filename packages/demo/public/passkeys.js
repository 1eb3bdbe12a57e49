// The signed-in user's passkeys (standard variant): listed through the relay's `credentials/list`, each
// deletable through `credentials/delete`. The relay takes the user and the token of their recent sign-in
// from the demo's session, never from this page. After a deletion the answer's signals go to the browser,
// so its passkey manager drops the passkey too.
import { $, callRelay, show, status, tellBrowser } from './page.js';

export function clearPasskeys() {
  $('passkeys').hidden = true;
  $('passkey-list').replaceChildren();
  status('passkeys-note', 'off', '');
}

/**
 * Lists the passkeys; `current` is the credential of this sign-in (marked in the list), `guarded` wraps the
 * delete buttons' actions as the page's other buttons are wrapped. A failure (the sign-in is older than the
 * service's 10 minutes, say) is shown beside the list, not as the page's message.
 */
export async function listPasskeys({ current, guarded }) {
  $('passkeys').hidden = false;
  let answer;
  try {
    answer = await callRelay('credentials/list', {});
  } catch (error) {
    $('passkey-list').replaceChildren();
    $('passkeys').dataset.count = '';
    return status('passkeys-note', 'failed', `Your passkeys cannot be shown: ${error.message}`);
  }
  const credentials = Array.isArray(answer.credentials) ? answer.credentials : [];
  $('passkey-list').replaceChildren(...credentials.map((credential) => item(credential, current, guarded)));
  $('passkeys').dataset.count = String(credentials.length);
  status('passkeys-note', 'listed', credentials.length === 0 ? 'You have no passkeys left here.' : '');
  return answer;
}

const day = (iso) => (typeof iso === 'string' ? iso.slice(0, 10) : 'unknown');

function item(credential, current, guarded) {
  const entry = document.createElement('li');
  entry.dataset.credentialId = credential.credentialId;
  if (
    typeof credential.authenticatorIconLight === 'string' &&
    credential.authenticatorIconLight.startsWith('data:image/')
  ) {
    const icon = document.createElement('img');
    icon.src = credential.authenticatorIconLight;
    icon.alt = '';
    icon.className = 'icon';
    entry.append(icon);
  }
  const name = document.createElement('strong');
  name.className = 'name';
  name.textContent = credential.nickname ?? credential.authenticatorName ?? 'A passkey of an unnamed make';
  const facts = document.createElement('span');
  facts.className = 'small';
  const backup =
    credential.backupEligible && credential.backupState
      ? 'synced'
      : credential.backupEligible
        ? 'may sync'
        : 'bound to one device';
  facts.textContent = ` ${credential.credentialId === current ? '(used for this sign-in) ' : ''}· ${backup} · added ${day(credential.createdAt)} · ${
    credential.lastUsedAt ? `last used ${day(credential.lastUsedAt)}` : 'never used to sign in'
  }`;
  const remove = document.createElement('button');
  remove.type = 'button';
  remove.className = 'delete';
  remove.textContent = 'Delete';
  remove.addEventListener(
    'click',
    guarded(() => deletePasskey(credential, current, guarded)),
  );
  entry.append(name, facts, remove);
  return entry;
}

async function deletePasskey(credential, current, guarded) {
  show('busy', 'Deleting the passkey…');
  const answer = await callRelay('credentials/delete', { credentialId: credential.credentialId });
  // The answer's signals list the passkeys left: the browser's passkey manager drops the deleted one.
  await tellBrowser(answer);
  await listPasskeys({ current, guarded });
  show(
    'ok',
    `Passkey deleted${credential.credentialId === current ? ' (the one you signed in with; you stay signed in)' : ''}.`,
  );
}
