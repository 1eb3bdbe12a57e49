// Local variant on a development hostname other than `localhost`: the RP ID stays `localhost`, so the
// browser asks https://localhost/.well-known/webauthn whether the page's origin may use it (WebAuthn L3
// §5.11, related origins). This builds that document's answer.

/** The JSON body to serve at `/.well-known/webauthn` on https://localhost. */
export function relatedOriginsDocument(origins: readonly string[]): string {
  for (const origin of origins) {
    const url = new URL(origin);
    if (url.origin !== origin || url.protocol !== 'https:') throw new Error(`related origin must be exactly https://host[:port]: ${origin}`);
  }
  return JSON.stringify({ origins });
}
