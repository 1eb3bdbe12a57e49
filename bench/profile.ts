// Summarises a V8 .cpuprofile (from `node --cpu-prof`, e.g. `run.js --cpu-prof <dir>`): the functions
// with the most self time, and the most inclusive time, with their file and line, as shares of the busy
// samples (idle excluded: a server under a bounded load is idle for much of a profile).
//
//   node .build/bench/profile.js <file.cpuprofile> [--top 25] [--match <text in url>]

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' }, match: { type: 'string' } },
});
const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as {
  nodes: Node[];
  samples: number[];
  startTime: number;
  endTime: number;
};
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const all = profile.nodes.reduce((sum, n) => sum + n.hitCount, 0);
const idle = profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').reduce((sum, n) => sum + n.hitCount, 0);
const total = all - idle;
const label = (n: Node) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(\.build[^/]*|node_modules)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;

const self = new Map<string, number>();
for (const n of profile.nodes) self.set(label(n), (self.get(label(n)) ?? 0) + n.hitCount);

// Inclusive: each node's subtree, counted once per label along a path (recursion not double counted).
const inclusive = new Map<string, number>();
function walk(n: Node, onPath: Set<string>): number {
  let sum = n.hitCount;
  for (const c of n.children ?? []) {
    const child = byId.get(c);
    if (child) sum += walk(child, onPath.has(label(n)) ? onPath : new Set([...onPath, label(n)]));
  }
  if (!onPath.has(label(n))) inclusive.set(label(n), (inclusive.get(label(n)) ?? 0) + sum);
  return sum;
}
walk(profile.nodes[0]!, new Set());

const top = Number(values.top);
const show = (title: string, map: Map<string, number>) => {
  const seconds = ((profile.endTime - profile.startTime) / 1e6).toFixed(1);
  console.log(
    `\n${title} (of ${total} busy samples; ${all} in ${seconds} s, ${((100 * idle) / all).toFixed(1)} % idle)`,
  );
  [...map]
    .filter(([k]) => k !== '(idle) :0' && k !== '(root) :0' && (!values.match || k.includes(values.match)))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([k, v]) => console.log(`${((100 * v) / total).toFixed(1).padStart(5)} %  ${k}`));
};
show('Self time', self);
show('Inclusive time', inclusive);
