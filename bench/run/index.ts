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

/** The q-quantile (0.5: the median) of xs, interpolated between the two nearest values. */
const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = s[Math.floor(at)] ?? 0;
  const hi = s[Math.ceil(at)] ?? 0;
  return lo + (hi - lo) * (at - Math.floor(at));
};
const median = (xs: number[]): number => quantile(xs, 0.5);
const spread = (xs: number[], digits = 1): string => `${quantile(xs, 0.25).toFixed(digits)}–${quantile(xs, 0.75).toFixed(digits)}`;

export function run(): Promise<string> {
  const baseline: number[] = [];
  const profiled: number[] = [];
  wallMs(['-e', '0']); // warm the page cache for both
  wallMs([jobio, 'run', '--', 'true']);
  for (let i = 0; i < N; i++) {
    baseline.push(wallMs(['-e', '0']));
    profiled.push(wallMs([jobio, 'run', '--', 'true']));
  }
  // Whether V8 took the bundle's code cache (bin/jobio.js): a refused cache costs ~25 M instructions.
  const cache = spawnSync(process.execPath, [jobio, 'run', '--', 'true'], { env: { ...process.env, JOBIO_CODE_CACHE: 'report' }, stdio: ['ignore', 'ignore', 'pipe'] });
  const cacheState = /^jobio: code cache (\w+)$/m.exec(cache.stderr.toString())?.[1] ?? 'not reported';
  const b = median(baseline);
  const p = median(profiled);
  const ratio = p / b;
  // The ratio of each alternated pair, so a burst of load on the machine hits both sides of one pair.
  const pairs = profiled.map((ms, i) => ms / (baseline[i] ?? ms));
  return Promise.resolve(
    [
      '## jobio run: start-up',
      '',
      `Medians of ${N} alternated runs each (wall clock, same run). The bundle's code cache: ${cacheState}.`,
      '',
      '| command | median wall ms | middle half (25th–75th percentile) |',
      '| --- | ---: | ---: |',
      `| \`node -e 0\` (baseline) | ${b.toFixed(1)} | ${spread(baseline)} |`,
      `| \`node bin/jobio.js run -- true\` | ${p.toFixed(1)} | ${spread(profiled)} |`,
      '',
      `Ratio of the medians ${ratio.toFixed(2)}x (goal: at most 1.5x): ${ratio <= 1.5 ? 'met' : 'missed'}. Ratio of each alternated pair: median ${median(pairs).toFixed(2)}x, middle half ${spread(pairs, 2)}.`,
      '',
    ].join('\n'),
  );
}
