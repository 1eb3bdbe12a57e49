// What a browser exception from create()/get() means for the user, and whether this page can use passkeys.

export type Ceremony = 'create' | 'get';

/** A browser exception from create()/get() → a sentence a user can act on. */
export function describeWebAuthnError(error: unknown, ceremony: Ceremony): string {
  const name = (error as { name?: unknown } | null)?.name;
  const message = (error as { message?: unknown } | null)?.message;
  switch (name) {
    case 'AbortError':
      return 'Cancelled.';
    case 'NotAllowedError':
      return ceremony === 'create'
        ? 'No passkey was created: the request was cancelled, timed out, or no authenticator answered.'
        : 'Not signed in: the request was cancelled, timed out, or this device holds no passkey for this account.';
    case 'InvalidStateError':
      return ceremony === 'create'
        ? 'This authenticator already holds a passkey for this account.'
        : 'The authenticator is in a state that cannot answer now.';
    case 'SecurityError':
      return "This page's address may not use the site's passkey domain (RP ID). Check the hostname and that the page is served over HTTPS.";
    case 'NotSupportedError':
      return 'No available authenticator supports what this site asked for (algorithm or options).';
    case 'ConstraintError':
      return 'The authenticator cannot meet the requested user verification or discoverable-credential setting.';
    case 'TypeError':
      return `The options from the server were not usable: ${String(message)}`;
    default:
      return `The browser refused: ${typeof name === 'string' ? name : 'Error'}${typeof message === 'string' && message !== '' ? ` (${message})` : ''}`;
  }
}

/** Whether this page can use passkeys at all, with the reason when not. */
export function webAuthnAvailability(): { readonly ok: true } | { readonly ok: false; readonly reason: string } {
  const scope = globalThis as {
    isSecureContext?: boolean;
    PublicKeyCredential?: unknown;
    navigator?: { credentials?: unknown };
  };
  if (scope.isSecureContext !== true)
    return { ok: false, reason: 'Passkeys need a secure page: open it over HTTPS (not from a file or plain HTTP).' };
  if (typeof scope.PublicKeyCredential === 'undefined' || !scope.navigator?.credentials)
    return { ok: false, reason: 'This browser does not support passkeys (WebAuthn).' };
  return { ok: true };
}
