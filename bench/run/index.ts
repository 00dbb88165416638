// `npm run bench -- run`: the fixed cost of `jobio run` (start, socket, drain, summary) against
// Node's own start, in the same run: `node bin/jobio.js run -- true` vs `node -e 0`, alternated so
// both see the same machine load; medians of N runs each. Goal: ratio at most 1.5.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const jobio = fileURLToPath(new URL('../../bin/jobio.js', import.meta.url));
const N = 21;

function wallMs(args: readonly string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${String(r.status)}: ${r.stderr.toString()}`);
  return ms;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return ((s[Math.floor((s.length - 1) / 2)] ?? 0) + (s[Math.ceil((s.length - 1) / 2)] ?? 0)) / 2;
};

export function run(): Promise<string> {
  const baseline: number[] = [];
  const profiled: number[] = [];
  wallMs(['-e', '0']); // warm the page cache for both
  wallMs([jobio, 'run', '--', 'true']);
  for (let i = 0; i < N; i++) {
    baseline.push(wallMs(['-e', '0']));
    profiled.push(wallMs([jobio, 'run', '--', 'true']));
  }
  const b = median(baseline);
  const p = median(profiled);
  const ratio = p / b;
  return Promise.resolve(
    [
      '## jobio run: start-up',
      '',
      `Medians of ${N} alternated runs each (wall clock, same run).`,
      '',
      '| command | median wall ms |',
      '| --- | ---: |',
      `| \`node -e 0\` (baseline) | ${b.toFixed(1)} |`,
      `| \`node bin/jobio.js run -- true\` | ${p.toFixed(1)} |`,
      '',
      `Ratio ${ratio.toFixed(2)}x (goal: at most 1.5x): ${ratio <= 1.5 ? 'met' : 'missed'}.`,
      '',
    ].join('\n'),
  );
}
