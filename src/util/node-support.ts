// Which Node.js releases the service supports (README "Runtimes"), and the one warning line a runtime past
// its end of life gets at start. The dates are the Node.js release schedule's end of life.

/** End of life (UTC, inclusive) of each Node.js major the service can still start on. */
const END_OF_LIFE: Readonly<Record<number, string>> = {
  20: '2026-04-30',
  21: '2024-06-01',
  22: '2027-04-30',
  23: '2025-06-01',
  24: '2028-04-30',
  25: '2026-06-01',
  26: '2029-04-30',
};

/** The supported majors, and the one the documentation recommends. */
export const SUPPORTED_NODE_MAJORS = [22, 24, 26] as const;
export const RECOMMENDED_NODE_MAJOR = 24;

/**
 * One line naming the runtime's version and saying it is past its end of life, or null while it is
 * supported (`version` as process.version gives it, `now` in epoch milliseconds).
 */
export function endOfLifeWarning(version: string, now: number): string | null {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  const end = END_OF_LIFE[major];
  if (end === undefined || now <= Date.parse(`${end}T23:59:59Z`)) return null;
  return (
    `passkey-server: WARNING: Node.js ${version} is past its end of life (${end}) and gets no security fixes; ` +
    `run Node.js ${RECOMMENDED_NODE_MAJOR} (supported: ${SUPPORTED_NODE_MAJORS.join(', ')}).`
  );
}
