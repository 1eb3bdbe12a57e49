// Sections 1-2 alone, as plain lines: node .build/bench/verify.js [--seconds 2]
import { parseArgs } from 'node:util';
import { cpuMicrosPerOp, opsPerSecond, runInProcess } from './lib/inprocess.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '2' } } });
const results = await runInProcess(Number(values.seconds));
const line = (m: { name: string; ops: number; seconds: number; cpuSeconds: number }) =>
  console.log(`${m.name}: ${opsPerSecond(m).toFixed(0)} ops/s, ${cpuMicrosPerOp(m).toFixed(1)} µs CPU/op`);
line(results.rawVerify);
line(results.keyImport);
line(results.onCurve);
for (const row of results.rows) {
  line(row.ours);
  if (row.oursNoCache) line(row.oursNoCache);
  line(row.theirs);
}
