// Parser of Lustre plain stats files, the output of `lprocfs_stats_seq_show()`:
//   /proc/fs/lustre/obdfilter/<target>/stats, …/mdt/<target>/md_stats,
//   …/{obdfilter,mdt}/<target>/exports/<nid>/stats (also under /sys/kernel/debug/lustre on 2.15+),
// raw, or as `lctl get_param` output (`<param>=` header lines, several files in one dump).
//
// Shapes (Lustre 2.4 to 2.17, docs/lustre.md):
//   snapshot_time             1510782606.789671326 secs.nsecs      (old versions: secs.usecs)
//   start_time                1709305846.699318001 secs.nsecs      (2.15+)
//   elapsed_time              1234.5 secs.nsecs                     (2.15+)
//   write_bytes               4298711 samples [bytes] 4096 4194304 16552048697344 [sumsq]
//   open                      8 samples [reqs]                      ([regs] is a real 2.10 typo)
// min max sum are signed (%lld), sumsq is u64 and passes 2^63 on busy OSTs: all kept exact (U64 or
// bigint), never rounded here. Counters with zero samples are not printed by Lustre.
//
// Duplicate names (obdfilter `statfs` twice on 2.9/2.10): the FIRST line is kept and the later ones are
// counted in `duplicates`. The two lines are different counters (the OFD-level and the obd_ops-level
// statfs) that count overlapping requests, so their sum would double count; the first is the one
// every other tool (lustre_exporter, telegraf) reports.
//
// It never throws on input: a line of no known shape is skipped and counted in `badLines`.
import { u64FromDigits, type U64 } from '../util/u64.js';

export interface StatsCounter {
  readonly name: string;
  readonly samples: U64;
  /** The unit in brackets: reqs, bytes, usecs, pages, regs (sic), … */
  readonly unit: string;
  /** min, max, sum (signed in Lustre's format), when printed. */
  readonly min?: bigint;
  readonly max?: bigint;
  readonly sum?: bigint;
  /** sum of squares (u64), when printed. */
  readonly sumsq?: bigint;
}

export interface StatsSection {
  /** The `lctl get_param` parameter name (`obdfilter.fs-OST0000.stats`); undefined for a raw file. */
  readonly param: string | undefined;
  /** snapshot_time in seconds (float, for display only); NaN if absent. */
  snapshotTime: number;
  /** `secs.nsecs` or `secs.usecs`, as printed. */
  snapshotUnit: string;
  /** start_time (2.15+) as printed (`1709305846.699318001`): a change means the stats were cleared. */
  startTime: string | undefined;
  elapsedTime: number;
  readonly counters: StatsCounter[];
  /** Lines of no known shape, skipped. */
  badLines: number;
  /** Counter lines whose name was already seen in this section (kept: the first). */
  duplicates: number;
}

// `%-25s %lld samples [%s]` with optional ` %lld %lld %lld` and ` %llu`.
const COUNTER = /^(\S+)\s+(\d+)\s+samples\s+\[([^\]\s]*)\](?:\s+(-?\d+)\s+(-?\d+)\s+(-?\d+)(?:\s+(\d+))?)?\s*$/;
const TIME = /^(snapshot_time|start_time|elapsed_time)\s*:?\s+(\d+(?:\.\d+)?)(?:\s+(\S+))?\s*$/;
// An lctl header: a dotted parameter name, `=`, and possibly a one-line value. Stats lines never hold `=`.
export const LCTL_HEADER = /^([A-Za-z0-9_][A-Za-z0-9_.@:-]*)=(.*)$/;
const MAX_U64 = (1n << 64n) - 1n;
const MIN_S64 = -(1n << 63n);
const MAX_S64 = (1n << 63n) - 1n;

function newSection(param: string | undefined): StatsSection {
  return { param, snapshotTime: Number.NaN, snapshotUnit: '', startTime: undefined, elapsedTime: Number.NaN, counters: [], badLines: 0, duplicates: 0 };
}

function s64(text: string | undefined): bigint | undefined {
  if (text === undefined) return undefined;
  const v = BigInt(text);
  return v < MIN_S64 || v > MAX_S64 ? undefined : v;
}

/** One line into the section; false when the line fits no shape. */
function parseLine(line: string, section: StatsSection, seen: Set<string>): boolean {
  const c = COUNTER.exec(line);
  if (c) {
    const [, name, samplesText, unit, min, max, sum, sumsq] = c;
    if (name === undefined || samplesText === undefined || unit === undefined) return false;
    if (samplesText.length > 20 || BigInt(samplesText) > MAX_U64) return false;
    const counter: { -readonly [K in keyof StatsCounter]: StatsCounter[K] } = { name, samples: u64FromDigits(samplesText), unit };
    if (min !== undefined) {
      const [lo, hi, total] = [s64(min), s64(max), s64(sum)];
      if (lo === undefined || hi === undefined || total === undefined) return false;
      counter.min = lo;
      counter.max = hi;
      counter.sum = total;
    }
    if (sumsq !== undefined) {
      const sq = BigInt(sumsq);
      if (sq > MAX_U64) return false;
      counter.sumsq = sq;
    }
    if (seen.has(name)) {
      section.duplicates += 1;
      return true;
    }
    seen.add(name);
    section.counters.push(counter);
    return true;
  }
  const t = TIME.exec(line);
  if (t) {
    const [, key, value, unit] = t;
    if (key === 'snapshot_time') {
      section.snapshotTime = Number(value);
      section.snapshotUnit = unit ?? '';
    } else if (key === 'start_time') section.startTime = value;
    else section.elapsedTime = Number(value);
    return true;
  }
  return false;
}

/**
 * Parses a raw stats file (one section, param undefined) or an `lctl get_param` dump (one section per
 * `param=` header; lines before the first header go to a section with param undefined, only when
 * there are any). Sections of other parameters (brw_stats, uuid, …) are returned too, with their lines
 * counted as bad: the caller picks the sections it wants by name.
 */
export function parseLustreStats(input: string | Uint8Array): StatsSection[] {
  const text = typeof input === 'string' ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString('latin1');
  const sections: StatsSection[] = [];
  let current: StatsSection | undefined;
  let seen = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') continue;
    const header = LCTL_HEADER.exec(line);
    if (header) {
      current = newSection(header[1]);
      sections.push(current);
      seen = new Set();
      const inline = header[2]?.trim() ?? '';
      if (inline !== '' && !parseLine(inline, current, seen)) current.badLines += 1;
      continue;
    }
    if (!current) {
      current = newSection(undefined);
      sections.push(current);
    }
    if (!parseLine(line.trim(), current, seen)) current.badLines += 1;
  }
  return sections;
}

/** Where a stats parameter belongs: `obdfilter.fs-OST0000.exports.10.0.0.1@o2ib.stats`, `mdt.fs-MDT0000.md_stats`. */
export interface StatsParam {
  readonly kind: string;
  readonly target: string;
  /** The client NID for `exports.<nid>.stats`. */
  readonly nid?: string;
  /** `stats` or `md_stats`. */
  readonly file: string;
}

export function parseStatsParam(param: string): StatsParam | undefined {
  const m = /^([a-z_-]+)\.([^.]+)\.(?:exports\.(.+)\.(stats)|(stats|md_stats))$/.exec(param);
  if (!m?.[1] || !m[2]) return undefined;
  if (m[3] !== undefined) return { kind: m[1], target: m[2], nid: m[3], file: 'stats' };
  return { kind: m[1], target: m[2], file: m[5] ?? 'stats' };
}
