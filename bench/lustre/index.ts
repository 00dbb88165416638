// Benchmark of the lustre_jobstats collector (issue 3): large generated job_stats files (20,000 and
// 100,000 entries, 2.14+ and 2.10 formats), the full collector update + render against the time Node
// needs just to read the same file and split it into lines, measured in the same run; each case in its
// own child process for its peak RSS. Goal: 20,000-entry 2.14 OST file in <= 4x the baseline, <= 250 MB.
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryLines, OST_OPS_210, OST_OPS_214, syntheticJobs, type GeneratedFormat } from '../../test/lustre/generate-jobstats.js';

const worker = fileURLToPath(new URL('./worker.mjs', import.meta.url));
const repo = fileURLToPath(new URL('../../', import.meta.url));

/** Writes the file in slices so the generator never holds 200 MB of text. */
function writeJobStats(path: string, entries: number, format: GeneratedFormat, scale: number): void {
  const fd = openSync(path, 'w');
  const ops = format === '2.14' ? OST_OPS_214 : OST_OPS_210;
  writeSync(fd, 'job_stats:\n');
  const jobs = syntheticJobs(entries, format, scale);
  for (let i = 0; i < jobs.length; i += 1000) {
    writeSync(fd, jobs.slice(i, i + 1000).flatMap((j) => entryLines(j, format, ops)).join('\n') + '\n');
  }
  closeSync(fd);
}

function child(args: string[]): Record<string, number> {
  const out = execFileSync(process.execPath, [worker, ...args], { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as Record<string, number>;
}

// The runner awaits every benchmark's run(); this one measures synchronously.
export function run(): Promise<string> {
  return Promise.resolve(report());
}

function report(): string {
  // The cases run the built exporter, as production does (see worker.mjs).
  if (!existsSync(join(repo, 'dist/collectors/lustre_jobstats.js'))) execFileSync('npm', ['run', 'build:ts'], { cwd: repo, stdio: 'ignore' });
  const dir = mkdtempSync(join(tmpdir(), 'jobio-bench-lustre-'));
  mkdirSync(join(dir, 'proc/fs/lustre/obdfilter/bench-OST0000'), { recursive: true });
  const rows: string[] = [];
  try {
    for (const format of ['2.14', '2.10'] as const) {
      for (const entries of [20_000, 100_000]) {
        const first = join(dir, `${format}-${entries}-a`);
        const grown = join(dir, `${format}-${entries}-b`);
        writeJobStats(first, entries, format, 1);
        writeJobStats(grown, entries, format, 2);
        const mb = statSync(first).size / 1e6;
        const base = child(['baseline', first]);
        const coll = child(['collector', dir, first, grown]);
        const worst = Math.max(coll.firstMs ?? 0, coll.grownMs ?? 0);
        const ms = (v: number | undefined): string => (v ?? NaN).toFixed(0);
        rows.push(
          `| ${format} | ${entries.toLocaleString('en')} | ${mb.toFixed(0)} | ${ms(base.ms)} | ${ms(base.maxRssMb)} | ${ms(coll.coldProcessMs)} | ${ms(coll.firstMs)} | ${ms(coll.grownMs)} | ${ms(coll.idleMs)} | ${(worst / base.ms!).toFixed(2)}× | ${ms(coll.maxRssMb)} | ${coll.series} |`,
        );
        rmSync(first);
        rmSync(grown);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return [
    '## Lustre jobstats',
    '',
    'One OST job_stats file per case (generated, real layout), default flags (max-jobs 100), built exporter (dist/). Baseline: `readFile(utf8)` + `split("\\n")`, best of 3, in its own process.',
    'Collector: the real `update()` + registry render. "cold process": the very first scrape after start (code not yet compiled by V8).',
    'Then a new collector in the running process: first scrape (every entry new), second (every entry grown), third (no change). worst/baseline uses the first two.',
    '',
    '| format | entries | MB | baseline ms | baseline RSS MB | cold process ms | 1st scrape ms | grown scrape ms | idle scrape ms | worst / baseline | collector peak RSS MB | series |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    'Goal (issue 3): the 20,000-entry 2.14 file in at most 4× the baseline with peak RSS at most 250 MB.',
    '',
  ].join('\n');
}
