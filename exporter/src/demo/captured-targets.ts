// The real server captures the demo replays (captures/*.lctl.txt, see captures/SOURCES.md), read with
// the exporter's own job_stats parser: per target, the operations its entries print (in order, with
// their unit) and the captured entries themselves with their recorded lifetime.
import { readFileSync } from 'node:fs';
import { parseJobStats, type JobStatsCounter } from '../parsers/lustre-jobstats.js';
import { findRepoFile } from '../profiler/repo-file.js';

export const CAPTURE_FILES = ['exporter/src/demo/captures/mdt.job_stats.lctl.txt', 'exporter/src/demo/captures/obdfilter.job_stats.lctl.txt'] as const;

export interface CapturedEntry {
  /** As printed, quotes included. */
  readonly rawId: string;
  readonly counters: readonly JobStatsCounter[];
  /** `elapsed_time` at capture: the counters are what the entry did in that many seconds. */
  readonly elapsedSec: number;
}

export interface CapturedTarget {
  readonly kind: 'mdt' | 'obdfilter';
  readonly name: string;
  readonly operations: ReadonlyArray<{ readonly name: string; readonly unit: string }>;
  readonly entries: readonly CapturedEntry[];
}

/** Entries without a readable elapsed_time count as this old (the captures all have one). */
const DEFAULT_ELAPSED_SEC = 600;

/** Parses one `lctl get_param *.*.job_stats` capture into its targets. */
export function capturedTargets(text: string): CapturedTarget[] {
  const { entries } = parseJobStats(text);
  // The parser skips elapsed_time (the exporter does not use it); entries appear in file order.
  const elapsed = [...text.matchAll(/^\s*elapsed_time:\s+([0-9.]+)/gm)].map((m) => Number(m[1]));
  const useElapsed = elapsed.length === entries.length;
  const byTarget = new Map<string, { kind: 'mdt' | 'obdfilter'; name: string; operations: Map<string, string>; entries: CapturedEntry[] }>();
  entries.forEach((entry, i) => {
    if (entry.target === undefined || (entry.kind !== 'mdt' && entry.kind !== 'obdfilter')) return;
    let target = byTarget.get(entry.target);
    if (!target) {
      target = { kind: entry.kind, name: entry.target, operations: new Map(), entries: [] };
      byTarget.set(entry.target, target);
    }
    for (const c of entry.counters) if (!target.operations.has(c.name)) target.operations.set(c.name, c.unit);
    const sec = useElapsed ? (elapsed[i] ?? DEFAULT_ELAPSED_SEC) : DEFAULT_ELAPSED_SEC;
    target.entries.push({ rawId: entry.rawId, counters: entry.counters, elapsedSec: sec > 0 ? sec : DEFAULT_ELAPSED_SEC });
  });
  return [...byTarget.values()].map((t) => ({ kind: t.kind, name: t.name, operations: [...t.operations].map(([name, unit]) => ({ name, unit })), entries: t.entries }));
}

/** Every target of the demo's captures, read from the jobio checkout. */
export function loadCapturedTargets(): CapturedTarget[] {
  return CAPTURE_FILES.flatMap((relative) => {
    const path = findRepoFile(relative);
    if (!path) throw new Error(`the demo's capture ${relative} is missing from this jobio checkout`);
    return capturedTargets(readFileSync(path, 'utf8'));
  });
}
