// The caller-identity headers of the specification ("Authentication"): the Client ID inside User-agent,
// and (standard variant) the origin header. Values arrive as the list of every occurrence of the header,
// so that a doubled header (which the specification warns about) is seen and refused, not merged.

import { FidoError } from '../errors/catalogue.js';

/**
 * What a Client ID may be: visible ASCII without spaces, 1-128 characters (the same rule as the
 * configuration's CLIENT_ID_PATTERN, src/config/application.ts). No space means a second value or any
 * text after the id makes the header malformed rather than naming another client.
 */
const CLIENT_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * Reads the Client ID from `User-agent`, which must be exactly `<vendor> AppID: <client id>`.
 * Anything else (extra text around it, two headers, two values joined by a proxy) is malformed.
 */
export function parseClientId(values: readonly string[] | undefined, vendor: string): string {
  if (values === undefined || values.length === 0 || values.every((v) => v.trim() === '')) {
    throw new FidoError('CLIENT_ID_MISSING');
  }
  if (values.length > 1) {
    throw new FidoError(
      'CLIENT_ID_MALFORMED',
      "User-agent was sent more than once; a relay must overwrite the browser's value, not add to it.",
    );
  }
  const value = values[0]!;
  const prefix = `${vendor} AppID: `;
  if (!value.startsWith(prefix)) {
    throw new FidoError('CLIENT_ID_MALFORMED', `User-agent must be exactly "${vendor} AppID: <client id>".`);
  }
  const clientId = value.slice(prefix.length);
  if (!CLIENT_ID.test(clientId)) {
    throw new FidoError(
      'CLIENT_ID_MALFORMED',
      'The Client ID after "AppID: " must be 1-128 visible ASCII characters, with nothing after it.',
    );
  }
  return clientId;
}

/**
 * The origin header, or undefined when absent. Two origin headers are joined (as a proxy would), which no
 * registered origin equals, so the standard variant refuses them; the local variant ignores the header.
 */
export function singleOrigin(values: readonly string[] | undefined): string | undefined {
  if (values === undefined || values.length === 0) return undefined;
  const value = values.join(', ');
  return value === '' ? undefined : value;
}
