// WebAuthn L3 §5.11, related origins: a browser on an origin outside the RP ID's domain asks
// https://<rpId>/.well-known/webauthn whether that origin may use the RP ID. Served by the relay from its
// `relatedOrigins` option (standard variant), and used by the demo for the local variant on a development
// hostname other than `localhost` (whose RP ID stays `localhost`). This builds that document's answer.

/** The JSON body to serve at `/.well-known/webauthn` on the RP ID's origin. */
export function relatedOriginsDocument(origins: readonly string[]): string {
  for (const origin of origins) {
    const url = new URL(origin);
    if (url.origin !== origin || url.protocol !== 'https:')
      throw new Error(`related origin must be exactly https://host[:port]: ${origin}`);
  }
  return JSON.stringify({ origins });
}
