// The developer bench's "Post-quantum first" choice (docs/demo.md, "Post-quantum passkeys"): the creation
// options list the application's ML-DSA algorithms (RFC 9964) before its classical ones, so an authenticator
// that can make an ML-DSA key makes one, and any other falls back to the first classical algorithm it supports.
// The service checks the new key's algorithm against the application's list, whatever order the page asked in.

/** The post-quantum COSE algorithms and their names. */
export const ML_DSA = new Map([
  [-48, 'ML-DSA-44'],
  [-49, 'ML-DSA-65'],
  [-50, 'ML-DSA-87'],
]);

/** The service's creation options (JSON) with their ML-DSA entries first; null when the application offers none. */
export function postQuantumFirst(options) {
  const params = Array.isArray(options.pubKeyCredParams) ? options.pubKeyCredParams : [];
  const postQuantum = params.filter((param) => ML_DSA.has(param.alg));
  if (postQuantum.length === 0) return null;
  return { ...options, pubKeyCredParams: [...postQuantum, ...params.filter((param) => !ML_DSA.has(param.alg))] };
}

/** What the page says after a registration that asked for post-quantum first, given the algorithm the key has. */
export function postQuantumOutcome(name, asked, alg) {
  if (asked === null)
    return `Passkey registered for ${name}. This application offers no post-quantum (ML-DSA) algorithm, so it is a classical one (COSE algorithm ${alg}).`;
  if (ML_DSA.has(alg))
    return `Post-quantum passkey (${ML_DSA.get(alg)}) registered for ${name}. You can sign in with it now.`;
  return `Passkey registered for ${name}. Your browser or authenticator cannot make a post-quantum (ML-DSA) passkey, so it made a classical one (COSE algorithm ${alg}).`;
}
