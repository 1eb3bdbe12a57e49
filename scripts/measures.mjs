#!/usr/bin/env node
// Prints issue 37's measures of the repository (test/support/measures.ts; test/measures.test.ts asserts them):
//   npm run pretest && node scripts/measures.mjs
// (It reads the tests' build, .build/.)
const root = new URL('../', import.meta.url);
const { measures } = await import(new URL('.build/test/support/measures.js', root).href);
for (const m of measures(root.pathname)) {
  const status = m.value <= m.target ? 'ok' : `over (ceiling ${m.ceiling ?? m.target})`;
  console.log(`${String(m.value).padStart(5)}  target ≤ ${String(m.target).padEnd(4)} ${status.padEnd(20)} ${m.name}`);
  for (const found of m.found ?? []) console.log(`         ${found}`);
}
