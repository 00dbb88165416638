// The growing job_stats tree of the demo: one file per target under
// <sysfs>/fs/lustre/{mdt,obdfilter}/<target>/job_stats (the /sys/fs/lustre layout the exporter reads
// below --path.sysfs), with the target's totals beside it (md_stats or stats), rewritten every second:
//   - the captured entries keep going at their recorded average pace (counters / elapsed_time);
//   - each demo job's entries appear on its targets when it starts and grow at its rates until it ends.
// Counters are a function of the time since the start (never accumulated), so they are exact and never
// go down. Each file is replaced by a rename: the exporter never reads half of one.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CapturedTarget } from './captured-targets.js';
import { jobStatsText, printedJobId, type ReplayCounter, type ReplayEntry } from './jobstats-text.js';
import { targetStatsText } from './target-stats-text.js';
import { LATENCY_US, type DemoJob } from './scenario.js';

export interface ReplayTarget {
  readonly kind: 'mdt' | 'obdfilter';
  readonly name: string;
  readonly operations: ReadonlyArray<{ readonly name: string; readonly unit: string }>;
  readonly captured: CapturedTarget['entries'];
}

/** The demo's targets: the captured ones, plus `extraOsts` in the layout of the captured OST. */
export function replayTargets(captured: readonly CapturedTarget[], extraOsts: readonly string[]): ReplayTarget[] {
  const targets: ReplayTarget[] = captured.map((t) => ({ kind: t.kind, name: t.name, operations: t.operations, captured: t.entries }));
  const ostLayout = captured.find((t) => t.kind === 'obdfilter');
  if (!ostLayout) throw new Error('the demo captures hold no OST');
  for (const name of extraOsts) if (!targets.some((t) => t.name === name)) targets.push({ kind: 'obdfilter', name, operations: ostLayout.operations, captured: [] });
  return targets.sort((a, b) => (a.kind === b.kind ? (a.name < b.name ? -1 : 1) : a.kind === 'mdt' ? -1 : 1));
}

const big = (value: number): bigint => BigInt(Math.floor(value));

/**
 * Captured entries are spread over at least this many seconds to get their pace: an entry a few µs
 * old (one request just after Lustre created it) would otherwise replay at 300,000 requests/s. 600 s
 * is Lustre's default job_cleanup_interval, the longest an idle entry stays.
 */
const MIN_PACE_SEC = 600;

/** A captured entry `elapsedSec` seconds after the demo started: its values plus its pace since. */
function capturedEntry(entry: CapturedTarget['entries'][number], startSec: number, elapsedSec: number): ReplayEntry {
  const factor = elapsedSec / Math.max(entry.elapsedSec, MIN_PACE_SEC);
  const counters: ReplayCounter[] = entry.counters.map((c) => {
    const samples = BigInt(c.samples);
    const sum = BigInt(c.sum ?? 0);
    return { name: c.name, unit: c.unit, samples: samples + big(Number(samples) * factor), sum: sum + big(Number(sum) * factor) };
  });
  return { printedId: entry.rawId, startTime: startSec - entry.elapsedSec, counters };
}

/** A demo job's entry on `target`, or undefined before the job starts there. */
function jobEntry(job: DemoJob, target: ReplayTarget, startSec: number, elapsedSec: number): ReplayEntry | undefined {
  const load = job.load.find((l) => l.target === target.name);
  if (!load || elapsedSec < job.startSec) return undefined;
  const ran = Math.min(elapsedSec, job.endSec ?? Infinity) - job.startSec;
  const counters = target.operations.map(({ name, unit }): ReplayCounter => {
    const samples = big((load.rates[name] ?? 0) * ran);
    const perRequest = unit === 'bytes' ? (load.rpcBytes ?? 0) : (load.latencyUs?.[name] ?? LATENCY_US[name] ?? 100);
    return { name, unit, samples, sum: samples * big(perRequest) };
  });
  return { printedId: printedJobId(`${job.jobid}:${job.user.uid}:${job.host}`), startTime: startSec + job.startSec, counters };
}

function replaceFile(path: string, text: string): void {
  writeFileSync(`${path}.new`, text);
  renameSync(`${path}.new`, path);
}

export class JobStatsReplay {
  private readonly files: ReadonlyArray<{ readonly target: ReplayTarget; readonly path: string; readonly statsPath: string }>;

  constructor(
    sysfs: string,
    targets: readonly ReplayTarget[],
    private readonly jobs: readonly DemoJob[],
    private readonly startMs: number,
  ) {
    this.files = targets.map((target) => {
      const dir = join(sysfs, 'fs', 'lustre', target.kind, target.name);
      mkdirSync(dir, { recursive: true });
      return { target, path: join(dir, 'job_stats'), statsPath: join(dir, target.kind === 'mdt' ? 'md_stats' : 'stats') };
    });
  }

  /** The entries of `target` at `nowMs`. */
  entries(target: ReplayTarget, nowMs: number): ReplayEntry[] {
    const startSec = this.startMs / 1000;
    const elapsedSec = Math.max(0, (nowMs - this.startMs) / 1000);
    const entries = target.captured.map((e) => capturedEntry(e, startSec, elapsedSec));
    for (const job of this.jobs) {
      const entry = jobEntry(job, target, startSec, elapsedSec);
      if (entry) entries.push(entry);
    }
    return entries;
  }

  /** Rewrites every target's file for `nowMs`. */
  write(nowMs: number): void {
    for (const { target, path, statsPath } of this.files) {
      const entries = this.entries(target, nowMs);
      replaceFile(path, jobStatsText(entries, nowMs / 1000));
      replaceFile(statsPath, targetStatsText(entries, nowMs / 1000));
    }
  }

  get targets(): readonly ReplayTarget[] {
    return this.files.map((f) => f.target);
  }
}
