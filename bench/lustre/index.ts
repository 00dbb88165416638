// Benchmark of the lustre_jobstats collector: large generated job_stats files (20,000 and
// 100,000 entries, 2.14+ and 2.10 formats), the full collector update + render against the time Node
// needs just to read the same file and split it into lines, measured in the same run; each case in its
// own child process for its peak RSS. Goal: 20,000-entry 2.14 OST file in <= 4x the baseline, <= 250 MB.
//
// JOBIO_BENCH_LUSTRE_CASES=2.14:20000 (comma-separated format:entries) runs only those cases of the
// first table, without the many-target and every-job tables: `JOBIO_BENCH_LUSTRE_CASES=2.14:20000
// npm run bench -- lustre` is the goal's case alone, quick enough to repeat on a shared machine.
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryLines, OST_OPS_210, OST_OPS_214, syntheticJobs, type GeneratedFormat, type GeneratedJob } from '../../test/lustre/generate-jobstats.js';

const worker = fileURLToPath(new URL('./worker.mjs', import.meta.url));
const repo = fileURLToPath(new URL('../../', import.meta.url));

/** Writes the file in slices so the generator never holds 200 MB of text. */
export function writeJobStats(path: string, entries: number, format: GeneratedFormat, scale: number, busy = false): void {
  const fd = openSync(path, 'w');
  const ops = format === '2.14' ? OST_OPS_214 : OST_OPS_210;
  writeSync(fd, 'job_stats:\n');
  const jobs = busy ? everyOperationBusy(syntheticJobs(entries, format, scale), ops, scale) : syntheticJobs(entries, format, scale);
  for (let i = 0; i < jobs.length; i += 1000) {
    writeSync(
      fd,
      jobs
        .slice(i, i + 1000)
        .flatMap((j) => entryLines(j, format, ops))
        .join('\n') + '\n',
    );
  }
  closeSync(fd);
}

/** Every operation of every job non-zero: each entry then gives one series per operation and per byte sum. */
function everyOperationBusy(jobs: GeneratedJob[], ops: readonly string[], scale: number): GeneratedJob[] {
  return jobs.map((job, i) => {
    const samples: Record<string, number | bigint> = {};
    const sums: Record<string, number | bigint> = { ...job.sums };
    for (const op of ops) {
      const n = job.samples[op] || ((i + op.length) % 13) * scale + scale;
      samples[op] = n;
      if (op.endsWith('_bytes')) sums[op] = BigInt(n) * 65536n;
    }
    return { ...job, samples, sums };
  });
}

function child(args: string[], nodeFlags: string[] = []): Record<string, number> {
  const out = execFileSync(process.execPath, [...nodeFlags, worker, ...args], { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as Record<string, number>;
}

/** A tree of `count` OSTs, each job_stats holding 2 entries of the 2.14 layout (~28 series a target). */
export function writeTargets(dir: string, count: number): void {
  const jobs = syntheticJobs(2, '2.14', 1);
  for (let t = 0; t < count; t += 1) {
    const target = join(dir, 'proc/fs/lustre/obdfilter', `many-OST${t.toString(16).padStart(4, '0')}`);
    mkdirSync(target, { recursive: true });
    const fd = openSync(join(target, 'job_stats'), 'w');
    writeSync(fd, `job_stats:\n${jobs.flatMap((j) => entryLines(j, '2.14', OST_OPS_214)).join('\n')}\n`);
    closeSync(fd);
  }
}

/**
 * 10,000 targets once took 12–13.5 s a scrape. The same tree with the default max-targets and unbounded;
 * and 1,000 targets all read: the CPU of an idle scrape (nothing changed) per target.
 */
export function manyTargets(): string {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-bench-targets-'));
  const thousand = mkdtempSync(join(tmpdir(), 'jobio-bench-targets-'));
  try {
    writeTargets(dir, 10_000);
    writeTargets(thousand, 1_000);
    const cases = [
      { tree: dir, present: 10_000, max: 10_000 },
      { tree: dir, present: 10_000, max: 256 },
      { tree: thousand, present: 1_000, max: 1_000 },
      // A running exporter's steady state: a density window closed every scrape (426 more series a target).
      { tree: thousand, present: 1_000, max: 1_000, density: true },
    ];
    const bases = new Map([dir, thousand].map((tree) => [tree, child(['readall', tree])]));
    const rows = cases.map(({ tree, present, max, density }) => {
      const base = bases.get(tree)!;
      const c = child(['targets', tree, String(max), ...(density ? ['density'] : [])]);
      const ms = (v: number | undefined): string => (v ?? NaN).toFixed(0);
      // Per target only where every target present is read: otherwise listing the others weighs in.
      const perTarget = (cpuMs: number | undefined): string => (present <= max ? ((cpuMs ?? NaN) / present).toFixed(3) : '—');
      return `| ${present.toLocaleString('en')}${density ? ', rate density' : ''} | ${max.toLocaleString('en')} | ${ms(base.ms)} | ${ms(c.firstMs)} | ${ms(c.idleMs)} | ${((c.firstMs ?? NaN) / base.ms!).toFixed(2)}× / ${((c.idleMs ?? NaN) / base.ms!).toFixed(2)}× | ${ms(c.idleCpuMs)} | ${perTarget(c.idleCpuMs)} | ${perTarget(c.steadyIdleCpuMs)} | ${ms(c.maxRssMb)} | ${c.series} |`;
    });
    return [
      '### Many targets',
      '',
      'OST directories, each job_stats with 2 entries (2.14 layout). Baseline: every file read whole with `readFile`, one after another, best of 3, in its own process. Idle CPU: CPU time of the whole process (all threads) for one scrape of unchanged files, median of 3 right after the first scrape; per target where every target is read; later: median of 5 idle scrapes after 3 more. Rate density: the clock of the exporter moved one density window a scrape, so every idle scrape also renders the density (a running exporter).',
      '',
      '| targets present | max-targets | baseline ms | 1st scrape ms | idle scrape ms | 1st / idle vs baseline | idle CPU ms | idle CPU ms per target | later idle CPU ms per target | peak RSS MB | series |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...rows,
      '',
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(thousand, { recursive: true, force: true });
  }
}

// The runner awaits every benchmark's run(); this one measures synchronously.
export function run(): Promise<string> {
  return Promise.resolve(report());
}

/** The cases of the first table: all, or those JOBIO_BENCH_LUSTRE_CASES names (a bad name is an error, not an empty run). */
function selectedCases(): { format: GeneratedFormat; entries: number }[] {
  const all = (['2.14', '2.10'] as const).flatMap((format) => [20_000, 100_000].map((entries) => ({ format, entries })));
  const wanted = process.env.JOBIO_BENCH_LUSTRE_CASES;
  if (wanted === undefined || wanted === '') return all;
  return wanted.split(',').map((name) => {
    const found = all.find((c) => `${c.format}:${c.entries}` === name.trim());
    if (!found) throw new Error(`JOBIO_BENCH_LUSTRE_CASES: no case "${name}" (known: ${all.map((c) => `${c.format}:${c.entries}`).join(', ')})`);
    return found;
  });
}

function report(): string {
  // The cases run the built exporter, as production does (see worker.mjs).
  if (!existsSync(join(repo, 'dist/collectors/lustre_jobstats.js'))) execFileSync('npm', ['run', 'build:ts'], { cwd: repo, stdio: 'ignore' });
  const dir = mkdtempSync(join(tmpdir(), 'jobio-bench-lustre-'));
  mkdirSync(join(dir, 'proc/fs/lustre/obdfilter/bench-OST0000'), { recursive: true });
  const rows: string[] = [];
  const allJobs: string[] = [];
  const cases = selectedCases();
  const onlySome = cases.length < 4;
  try {
    for (const { format, entries } of cases) {
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
    if (!onlySome) allJobs.push(...everyJobCase(dir));
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
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    'Goal: the 20,000-entry 2.14 file in at most 4× the baseline with peak RSS at most 250 MB.',
    '',
    onlySome ? '' : manyTargets(),
    ...allJobs,
  ].join('\n');
}

/**
 * Every job exported: the 20,000-entry 2.10 OST file with max-jobs above the entry count,
 * the case where the HP lustre_exporter (Go), which always exports every job, was measured on the same
 * file kind and machine kind: 360,000 series, 31 s per scrape, 692 MB peak RSS.
 */
const HP = { scrapeMs: 31_000, peakMb: 692 };

export function everyJobCase(dir: string): string[] {
  const entries = 20_000;
  const first = join(dir, 'all-a');
  const grown = join(dir, 'all-b');
  writeJobStats(first, entries, '2.10', 1, true);
  writeJobStats(grown, entries, '2.10', 2, true);
  const base = child(['baseline', first]);
  const ms = (v: number | undefined): string => (v ?? NaN).toFixed(0);
  const rows: string[] = [];
  // Node's defaults, then with the V8 heap capped: the live data is small, the default peak is mostly
  // garbage V8 has not collected yet (it grows the heap rather than collect while memory is plentiful).
  for (const flags of [[], ['--max-old-space-size=192']]) {
    const coll = child(['collector', dir, first, grown, String(entries * 5)], flags);
    const worst = Math.max(coll.coldProcessMs ?? 0, coll.firstMs ?? 0, coll.grownMs ?? 0);
    rows.push(
      `| ${flags.join(' ') || '(defaults)'} | ${ms(base.ms)} | ${ms(coll.coldProcessMs)} | ${ms(coll.firstMs)} | ${ms(coll.grownMs)} | ${ms(coll.idleMs)} | ${(worst / base.ms!).toFixed(1)}× | ${(worst / HP.scrapeMs).toFixed(3)}× | ${ms(coll.worstCpuMs)} | ${(coll.worstCpuMs! / HP.scrapeMs).toFixed(3)}× | ${ms(coll.maxRssMb)} | ${(coll.maxRssMb! / HP.peakMb).toFixed(2)}× | ${coll.series} | ${(coll.bodyMb ?? NaN).toFixed(1)} |`,
    );
  }
  rmSync(first);
  rmSync(grown);
  return [
    ...costPerJob(dir),
    '### Every job exported (max-jobs 100,000 on the 20,000-entry 2.10 OST file)',
    '',
    'Every operation of every entry non-zero (14 series per job, as in the file of the HP comparison: 280,006 series). Wall times count the other processes of a shared machine too; "worst CPU ms" is the scrape\'s own CPU time.',
    `Same generated file kind, same flags as the HP lustre_exporter run measured earlier (${HP.scrapeMs / 1000} s per scrape, ${HP.peakMb} MB peak RSS, same machine kind). Goal: scrape ≤ 0.1× and peak RSS ≤ 0.5× HP's.`,
    '',
    '| node flags | baseline (read+split) ms | cold process ms | 1st scrape ms | grown scrape ms | idle scrape ms | worst / baseline | worst / HP | worst CPU ms | CPU / HP | peak RSS MB | RSS / HP | series | body MB |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
  ];
}

/** Series, body and memory per 1,000 exported jobs (every job its own series), for choosing max-jobs. */
function costPerJob(dir: string): string[] {
  const rows: string[] = [];
  const figures: { jobs: number; rss: number }[] = [];
  for (const jobs of [1_000, 5_000, 20_000]) {
    const first = join(dir, `cost-${jobs}-a`);
    const grown = join(dir, `cost-${jobs}-b`);
    writeJobStats(first, jobs, '2.10', 1, true);
    writeJobStats(grown, jobs, '2.10', 2, true);
    const coll = child(['collector', dir, first, grown, String(jobs * 5)]);
    rmSync(first);
    rmSync(grown);
    figures.push({ jobs, rss: coll.maxRssMb! });
    rows.push(
      `| ${jobs.toLocaleString('en')} | ${coll.series} | ${((coll.series! / jobs) * 1000).toFixed(0)} | ${coll.bodyMb!.toFixed(1)} | ${((coll.bodyMb! / jobs) * 1000).toFixed(2)} | ${coll.maxRssMb!.toFixed(0)} |`,
    );
  }
  const [small, , large] = figures;
  const perThousand = ((large!.rss - small!.rss) / (large!.jobs - small!.jobs)) * 1000;
  return [
    '### Cost per 1,000 exported jobs (2.10 OST, every operation non-zero, max-jobs above the job count)',
    '',
    '| jobs | series | series per 1,000 jobs | body MB | body MB per 1,000 jobs | peak RSS MB |',
    '| ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    `Peak RSS grows by ${perThousand.toFixed(1)} MB per 1,000 more exported jobs (1,000 → 20,000 jobs, Node defaults).`,
    '',
  ];
}
