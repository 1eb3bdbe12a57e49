// Plain user names: with `userDomain`, the relay turns a name without `#` into `<name>#<userDomain>`, so an
// end user never types the domain; and an options call without a name becomes the sign-in without a name
// (`#<domain>`), the domain being `userDomain`, else `localhost` (local variant) or the host of `origin`.
import type { ResolvedRelayOptions } from './options.js';
import type { Body } from './outcome.js';

export function withFullUsername(
  config: ResolvedRelayOptions,
  operation: 'attestation/options' | 'assertion/options',
  body: Body,
): Body {
  const username = body.username;
  if (operation === 'assertion/options' && (username === undefined || username === '')) {
    const domain = config.userDomain ?? config.defaultDomain;
    return domain === undefined ? body : { ...body, username: `#${domain}` };
  }
  if (typeof username === 'string' && username !== '') {
    const full = fullUsername(config, username);
    return full === username ? body : { ...body, username: full };
  }
  return body;
}

/** A name as the service knows it: with `userDomain`, a plain `alice` becomes `alice#<userDomain>`. */
export function fullUsername(config: ResolvedRelayOptions, name: string): string {
  return config.userDomain !== undefined && !name.includes('#') ? `${name.trim()}#${config.userDomain}` : name;
}
