// The density of job rates on one target over one collection interval: how many jobs (and users)
// have a rate r with 10^y ≤ r < 10^(y+1) for each decade y, per operation class; a job present in
// the file without any increment is counted apart as zero (docs/architecture.md "Formulas").
//
// Every job read counts, whether it has its own series or was folded into jobid="_other": the
// counts are computed from the increments of every entry, before series are handed out. The output
// is bounded whatever the number of jobs: classes × (decades + zero) numbers per target.
import { IdIndex } from './id-index.js';
import { identityHash, sameIdentity } from './credits.js';
import type { JobIdentity } from './jobid-format.js';
import type { ExportField } from './export-fields.js';
import type { U64 } from '../util/u64.js';
import type { SlotTurn } from './series-book.js';
import { DEFAULT_WINDOW_MS, WindowClock } from './window-clock.js';

/** What a rate is of: every request, requests other than read/write, bytes read, bytes written. */
export const RATE_CLASSES = ['operations', 'metadata', 'read_bytes', 'write_bytes'] as const;
export type RateClass = (typeof RATE_CLASSES)[number];

/**
 * Operations with a density of their own, alongside the classes: a fixed set (the series stay bounded whatever
 * operation names a server prints), the requests that load MDTs and OSTs most, as the Puhti study plots them
 * one by one (setattr on an MDT, read on an OST). Their counts follow the classes': index RATE_CLASSES.length + k.
 */
export const DENSITY_OPERATIONS = [
  'open',
  'close',
  'mknod',
  'unlink',
  'getattr',
  'setattr',
  'getxattr',
  'setxattr',
  'mkdir',
  'rmdir',
  'rename',
  'link',
  'statfs',
  'sync',
  'read',
  'write',
  'punch',
] as const;
/** Classes, then operations: the rows of a RateDensity. */
export const DENSITY_ROWS = RATE_CLASSES.length + DENSITY_OPERATIONS.length;
const OPERATION_ROW = new Map<string, number>(DENSITY_OPERATIONS.map((op, k) => [op, RATE_CLASSES.length + k]));

/** The density window when none is configured: the shipped scrape interval. */
export const DEFAULT_DENSITY_WINDOW_MS = DEFAULT_WINDOW_MS;

/** Decades exported; a rate outside is counted in the edge decade (1/1000 per second up to 1 TB/s). */
export const MIN_DECADE = -3;
export const MAX_DECADE = 12;
/** Index of the zero bucket; bucket 1 + (y − MIN_DECADE) is decade y. */
export const ZERO_BUCKET = 0;
export const BUCKETS = 2 + MAX_DECADE - MIN_DECADE;

/** The label value of a bucket: `zero`, or the decade y as an integer. */
export function bucketLabel(bucket: number): string {
  return bucket === ZERO_BUCKET ? 'zero' : String(bucket - 1 + MIN_DECADE);
}

/** Correctly rounded powers of ten from their decimal literals (`10 ** e` can be off by an ulp). */
const POW10 = Array.from({ length: MAX_DECADE - MIN_DECADE + 2 }, (_, i) => Number(`1e${i + MIN_DECADE}`));

/** The bucket of a rate r ≥ 0: ⌊log10 r⌋ settled against exact powers, clamped to the decades. */
export function bucketOf(rate: number): number {
  if (!(rate > 0)) return ZERO_BUCKET;
  let y = Math.floor(Math.log10(rate));
  if (y < MIN_DECADE) return 1;
  if (y > MAX_DECADE) return BUCKETS - 1;
  // log10 can land one off next to a power of ten: compare with the exact powers.
  if (y > MIN_DECADE && rate < POW10[y - MIN_DECADE]!) y -= 1;
  else if (y < MAX_DECADE && rate >= POW10[y + 1 - MIN_DECADE]!) y += 1;
  return 1 + y - MIN_DECADE;
}

/** Counts per row (class, then operation; DENSITY_ROWS), bucket-major: counts[row * BUCKETS + bucket]. */
export interface RateDensity {
  readonly intervalSeconds: number;
  /** The window end on the exporter's clock (ms since the epoch) the density is of: its samples' timestamp. */
  readonly endMs: number;
  readonly jobs: Uint32Array;
  readonly users: Uint32Array;
}

/** A job's increments of one read: per field number; undefined when the job had none. */
export type JobDeltas = ArrayLike<U64 | undefined> | undefined;

/** Which classes a field adds to (an index list per field number). */
function classesOf(field: ExportField): number[] {
  switch (field.kind) {
    case 'read_bytes':
      return [RATE_CLASSES.indexOf('read_bytes')];
    case 'write_bytes':
      return [RATE_CLASSES.indexOf('write_bytes')];
    case 'operations': {
      const rows = field.operation === 'read' || field.operation === 'write' ? [0] : [0, RATE_CLASSES.indexOf('metadata')];
      const own = OPERATION_ROW.get(field.operation);
      return own === undefined ? rows : [...rows, own];
    }
    case 'operation_seconds':
      return [];
  }
}

/** Adds a job's increments per class into `into` from `at` on (as float: rates are for display, not counters). */
function addClassTotals(deltas: JobDeltas, fieldClasses: readonly number[][], into: Float64Array, at: number): void {
  if (!deltas) return;
  for (let f = 0; f < deltas.length; f += 1) {
    const d = deltas[f];
    if (d === undefined || d === 0) continue;
    const classes = fieldClasses[f];
    if (classes === undefined) continue;
    // Indexed: an iterator per field and job was most of this function's garbage.
    for (let k = 0; k < classes.length; k += 1) {
      const c = at + classes[k]!;
      into[c] = into[c]! + Number(d);
    }
  }
}

/** Jobs a page of totals. */
const PAGE_JOBS = 1024;
const PAGE_SHIFT = 10;
const IN_PAGE = PAGE_JOBS - 1;

/**
 * The jobs of a window: each job's owner and its increments per class, summed over the window, in
 * pages of one slab (DENSITY_ROWS numbers a job, by the job's place) rather than an array object per
 * job: 20,000 jobs of their own Float64Array cost ~460 bytes each. Pages, not one slab grown by
 * doubling: that left a third of it empty on average and its smaller copies as garbage. The sums are
 * 32-bit (84 bytes a job, not 168): they are sums of whole numbers, so a 32-bit sum is the float one
 * exactly; a job whose sum would pass 2^32 − 1 has its sums in 64-bit floats aside from then on,
 * added in the same order, so the densities are those of float sums throughout.
 */
interface WindowJobs {
  readonly count: number;
  readonly uids: readonly (number | undefined)[];
  readonly totals: readonly Uint32Array[];
  /** The sums of the jobs past 32 bits, by place (their row in `totals` is zero). */
  readonly wide: ReadonlyMap<number, Float64Array>;
}

/** Largest sum kept in a 32-bit row. */
const MAX_NARROW = 0xffffffff;

/** The density of jobs whose increments per class over `intervalSeconds` are known. */
function densityOfTotals(jobs: WindowJobs, intervalSeconds: number, endMs: number): RateDensity {
  const classes = DENSITY_ROWS;
  const jobCounts = new Uint32Array(classes * BUCKETS);
  const perUser = new Map<number | undefined, Float64Array>();
  for (let j = 0; j < jobs.count; j += 1) {
    const wide = jobs.wide.size > 0 ? jobs.wide.get(j) : undefined;
    const totals = wide ?? jobs.totals[j >> PAGE_SHIFT]!;
    const at = wide ? 0 : (j & IN_PAGE) * classes;
    for (let c = 0; c < classes; c += 1) {
      const b = c * BUCKETS + bucketOf(totals[at + c]! / intervalSeconds);
      jobCounts[b] = jobCounts[b]! + 1;
    }
    const uid = jobs.uids[j];
    let user = perUser.get(uid);
    if (!user) {
      user = new Float64Array(classes);
      perUser.set(uid, user);
    }
    for (let c = 0; c < classes; c += 1) user[c] = user[c]! + totals[at + c]!;
  }
  const userCounts = new Uint32Array(classes * BUCKETS);
  for (const user of perUser.values()) {
    for (let c = 0; c < classes; c += 1) {
      const b = c * BUCKETS + bucketOf(user[c]! / intervalSeconds);
      userCounts[b] = userCounts[b]! + 1;
    }
  }
  return { intervalSeconds, endMs, jobs: jobCounts, users: userCounts };
}

/**
 * The density over a window of the exporter's own clock (window-clock.ts), so that every scraper reads
 * the same value: the read that closes a window computes its density, which is then served until the
 * next window closes, stamped with the window's end (so every store holds it at the same time). A job counts once per window with the sum of its increments over every read of
 * the window.
 */
export class DensityWindow {
  /** Jobs read in the open window: their identity and uid by place (their place in totals). */
  private readonly jobs: JobIdentity[] = [];
  private readonly uids: (number | undefined)[] = [];
  /** The place of each job by its key (id-index.ts: a Map was ~37 bytes a job). */
  private readonly places = new IdIndex<JobIdentity>({
    hashOf: (place) => identityHash(this.jobs[place] as JobIdentity),
    matches: (place, job) => sameIdentity(this.jobs[place] as JobIdentity, job),
  });
  /** DENSITY_ROWS totals per job, by place, PAGE_JOBS jobs a page; kept from window to window (zeroed). */
  private readonly totals: Uint32Array[] = [];
  /** The totals of the jobs with a sum past 32 bits, by place (see WindowJobs). */
  private readonly wide = new Map<number, Float64Array>();
  /** One job's totals while a read's increments are added (WindowJobs: 32 bits, or aside). */
  private readonly scratch = new Float64Array(DENSITY_ROWS);
  private readonly clock: WindowClock;
  /** The density of the last window closed. */
  density: RateDensity | undefined;

  constructor(windowMs: number) {
    this.clock = new WindowClock(windowMs);
  }

  /** Opens a window at `now` without counting this read (its values are no increments: a first read). */
  open(now: number): void {
    // Only the rows of the jobs the window had: a page is 86 KB, an idle target has a few jobs in it,
    // and every target's window is opened again each time one closes.
    const rows = this.uids.length * DENSITY_ROWS;
    const pageRows = PAGE_JOBS * DENSITY_ROWS;
    for (let p = 0; p * pageRows < rows; p += 1) this.totals[p]!.fill(0, 0, Math.min(pageRows, rows - p * pageRows));
    this.wide.clear();
    this.places.clear();
    this.jobs.length = 0;
    this.uids.length = 0;
    this.clock.open(now);
  }

  /** Whether a window is open (the increments of a read can be added). */
  get isOpen(): boolean {
    return this.clock.isOpen;
  }

  /** Where a read at `now` (before its settle()) falls on the exporter's clock (WindowClock.turnAt). */
  turnAt(now: number): SlotTurn {
    return this.clock.turnAt(now);
  }

  /** Adds one job's increments of this read (undefined: read without any increment). */
  add(job: JobIdentity, deltas: JobDeltas, fieldClasses: readonly number[][]): void {
    const hash = identityHash(job);
    let place = this.places.find(job, hash);
    if (place < 0) {
      place = this.uids.length;
      this.jobs.push(job);
      this.uids.push(job.uid);
      this.places.add(place, hash);
      if (place >> PAGE_SHIFT >= this.totals.length) this.totals.push(new Uint32Array(PAGE_JOBS * DENSITY_ROWS));
    }
    if (!deltas) return;
    const wide = this.wide.size > 0 ? this.wide.get(place) : undefined;
    if (wide) return addClassTotals(deltas, fieldClasses, wide, 0);
    // Summed as floats from the 32-bit sums (exact), then kept in 32 bits if every sum still fits.
    const page = this.totals[place >> PAGE_SHIFT]!;
    const at = (place & IN_PAGE) * DENSITY_ROWS;
    const sums = this.scratch;
    for (let c = 0; c < DENSITY_ROWS; c += 1) sums[c] = page[at + c]!;
    addClassTotals(deltas, fieldClasses, sums, 0);
    for (let c = 0; c < DENSITY_ROWS; c += 1) {
      if (sums[c]! > MAX_NARROW) {
        page.fill(0, at, at + DENSITY_ROWS);
        this.wide.set(place, Float64Array.from(sums));
        return;
      }
    }
    page.set(sums, at);
  }

  /** After a read's add() calls: closes the window if `now` is past its end, and opens the next. */
  settle(now: number): void {
    if (!this.clock.isOpen) return this.open(now);
    if (!this.clock.closes(now)) return;
    this.density = densityOfTotals({ count: this.uids.length, uids: this.uids, totals: this.totals, wide: this.wide }, (now - this.clock.openedAt) / 1000, this.clock.endBefore(now));
    this.open(now);
  }
}

/** Which classes each field adds to, for DensityWindow.add(). */
export function fieldClassesOf(fields: readonly ExportField[]): number[][] {
  return fields.map(classesOf);
}
