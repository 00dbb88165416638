// The increments of one scrape, gathered per job identity before they are given to series.
// A job's entries (one per client host with `%j:%u:%H`) all land in the same credit.
import type { JobIdentity } from './jobid-format.js';
import { OTHER_KEY, OTHER_LABELS, type SeriesGroup, type SeriesLabels } from './series-book.js';
import { DeltaRows } from './delta-rows.js';
import { hashString, mix } from './id-index.js';
import type { U64 } from '../util/u64.js';

/** The `deltas` of every credit: its increments are in its row of CreditBook.rows. */
const IN_ROW: (U64 | undefined)[] = Object.freeze([]) as unknown as (U64 | undefined)[];

/**
 * A credit is also the series group it starts (series-book.ts SeriesGroup): the accumulator names it
 * (key, labels) once the scrape's uids are resolved and merges the credits of the same series into the
 * first. One object a job and scrape, not two. Its job class is at the same index of CreditBook.classes.
 */
export interface Credit extends SeriesGroup {
  /** The series key; OTHER_KEY until named (jobstats-accumulator.ts group()). */
  key: string;
  /** Made only when the key does not tell them (SeriesGroup.labels). */
  labels: SeriesLabels | undefined;
  /**
   * Its row of CreditBook.rows: increment per field number (see export-fields.ts), zero where none.
   * A row, not an array per credit: 100,000 jobs' arrays (~200 bytes each, grown as written) were
   * alive together with their labels and keys while a scrape was handed to the series book.
   */
  readonly row: number;
  /** Requests (operation samples) in this scrape: how "active" the job is when slots are handed out. */
  activity: number;
}

/**
 * One job identity among a target's entries, shared by the entries that have it (entry-tracker.ts
 * keeps one per identity while an entry has it). Its credit of the current scrape hangs on it, so
 * crediting an entry needs no lookup by key string (20,000 entries: as many map lookups a scrape).
 */
export interface JobClass extends JobIdentity {
  /** Entries of the tracker with this identity. */
  entries: number;
  /** The credit of this scrape (see CreditBook.creditOf): valid while creditRound is the book's round. */
  credit: Credit | undefined;
  creditRound: number;
  /** Set by a walk over the entries that visits each class once (rate density). */
  mark: number;
}

/**
 * Whether two identities are the same job: the same quality, job id, uid and executable (an absent one
 * as an empty one); every malformed id is one job. A class is found by these fields, not by a key string
 * made of them: a key was ~48 bytes kept a job.
 */
export function sameIdentity(a: JobIdentity, b: JobIdentity): boolean {
  if (a.quality === 'malformed' || b.quality === 'malformed') return a.quality === b.quality;
  return a.quality === b.quality && (a.jobid ?? '') === (b.jobid ?? '') && a.uid === b.uid && (a.process ?? '') === (b.process ?? '');
}

/** A hash of the fields sameIdentity() compares (id-index.ts). */
export function identityHash(identity: JobIdentity): number {
  if (identity.quality === 'malformed') return 1;
  const h = Math.imul(hashString(identity.jobid ?? ''), 31) + (identity.uid ?? -1);
  return mix(Math.imul(h | 0, 31) + hashString(identity.process ?? '') + identity.quality.length);
}

/**
 * The class holds the identity's fields itself: one object a job, not two (an identity object was
 * ~56 bytes a job kept). Every field set, so that every class has the same shape.
 */
export function newJobClass(identity: JobIdentity): JobClass {
  const { quality, jobid, uid, process } = identity;
  return { quality, jobid, uid, process, entries: 0, credit: undefined, creditRound: -1, mark: -1 };
}

/** The credits of one target in one scrape, one per job class, in the order of their first increment. */
export class CreditBook {
  readonly credits: Credit[] = [];
  /** The credits' increments, a row each (Credit.row). */
  readonly rows = new DeltaRows();
  /** The class of each credit, at its index. */
  readonly classes: JobClass[] = [];
  private round = 0;

  creditFor(cls: JobClass): Credit {
    const current = this.creditOf(cls);
    if (current) return current;
    const credit: Credit = { key: OTHER_KEY, labels: OTHER_LABELS, deltas: IN_ROW, row: this.rows.take(), activity: 0 };
    cls.credit = credit;
    cls.creditRound = this.round;
    this.credits.push(credit);
    this.classes.push(cls);
    return credit;
  }

  /** The class's credit in this scrape, if it had an increment. */
  creditOf(cls: JobClass): Credit | undefined {
    return cls.creditRound === this.round ? cls.credit : undefined;
  }

  clear(): void {
    // The classes outlive the scrape: let go of the credits they hold. Indexed: for…of made an
    // iterator result per class here (0.8 MB of a changing 20,000-job scrape's garbage).
    const { classes } = this;
    for (let i = 0; i < classes.length; i += 1) {
      const cls = classes[i];
      if (cls) cls.credit = undefined;
    }
    this.classes.length = 0;
    this.credits.length = 0;
    this.rows.releaseAll();
    this.round += 1;
  }

  /** Adds `delta` to field `field` of the credit. */
  add(credit: Credit, field: number, delta: U64): void {
    this.rows.addField(credit.row, field, delta);
  }

  /** The credit's increments by field number (DeltaRows.view: valid until the next add). */
  deltasOf(credit: Credit): ArrayLike<U64 | undefined> {
    return this.rows.view(credit.row);
  }
}
