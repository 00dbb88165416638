// The increments of one scrape, gathered per job identity before they are given to series.
// A job's entries (one per client host with `%j:%u:%H`) all land in the same credit.
import type { JobIdentity } from './jobid-format.js';
import { OTHER_KEY, type SeriesLabels } from './series-book.js';
import type { GroupTable } from './group-table.js';
import { DeltaRows } from './delta-rows.js';
import { hashString, mix } from './id-index.js';
import { KeyRows } from './key-rows.js';
import type { U64 } from '../util/u64.js';

/**
 * One job identity among a target's entries, shared by the entries that have it (entry-tracker.ts
 * keeps one per identity while an entry has it). Its credit of the current scrape hangs on it, so
 * crediting an entry needs no lookup by key string (20,000 entries: as many map lookups a scrape).
 */
export interface JobClass extends JobIdentity {
  /** Entries of the tracker with this identity. */
  entries: number;
  /** The number of its credit in this scrape (see CreditBook.creditOf): valid while creditRound is the book's round. */
  credit: number;
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
  return { quality, jobid, uid, process, entries: 0, credit: -1, creditRound: -1, mark: -1 };
}

/**
 * The credits of one target in one scrape, one per job class, numbered in the order of their first
 * increment. A credit is a number, not an object: its class, activity and increments are at that
 * number in arrays and rows (an object a job and scrape was ~12 MB of a changing 100,000-job scrape).
 * Once the scrape's uids are resolved, name() gives each credit its series key; the first credit of a
 * key is that series' group, the others are added into it, and the book is then the GroupTable the
 * series book settles (group-table.ts).
 */
export class CreditBook implements GroupTable {
  /** The class of each credit, by number. */
  readonly classes: JobClass[] = [];
  /** The credits' increments, a row each: the row is the credit's number (rows are taken from 0 after releaseAll(), never released one by one). */
  private rows = new DeltaRows();
  /** Requests (operation samples) by credit: how "active" the job is when slots are handed out. */
  private readonly activity: number[] = [];
  /** The groups by key once named: a key's row is its first credit. Made by the first name() of a scrape. */
  private groups: KeyRows | undefined;
  /** The labels of the groups whose key does not tell them (rare), by number. */
  private readonly labels = new Map<number, SeriesLabels>();
  private round = 0;

  /** The number of the class's credit in this scrape, made at its first increment. */
  creditFor(cls: JobClass): number {
    const current = this.creditOf(cls);
    if (current >= 0) return current;
    const credit = this.rows.take();
    cls.credit = credit;
    cls.creditRound = this.round;
    this.classes.push(cls);
    this.activity.push(0);
    return credit;
  }

  /** The number of the class's credit in this scrape, or -1 if it had no increment. */
  creditOf(cls: JobClass): number {
    return cls.creditRound === this.round ? cls.credit : -1;
  }

  clear(): void {
    this.classes.length = 0;
    this.activity.length = 0;
    this.rows.releaseAll();
    this.groups = undefined;
    this.labels.clear();
    // The classes outlive the scrape: their credit numbers are stale from now on.
    this.round += 1;
  }

  /** Adds `delta` to field `field` of the credit. */
  add(credit: number, field: number, delta: U64): void {
    this.rows.addField(credit, field, delta);
  }

  /** Adds requests to the credit's activity. */
  addActivity(credit: number, requests: number): void {
    this.activity[credit] = (this.activity[credit] as number) + requests;
  }

  /**
   * Names a credit by its series key (OTHER_KEY for malformed entries), in credit order; `labels` only
   * when the key does not tell them. A credit whose key is already named is added into that group.
   */
  name(credit: number, key: string, labels: SeriesLabels | undefined): void {
    // Made as large as every credit needs: no key hashed again as it grows.
    const groups = (this.groups ??= new KeyRows(this.classes.length));
    const group = groups.claim(key, credit);
    if (group === undefined) {
      if (labels) this.labels.set(credit, labels);
      return;
    }
    this.rows.add(group, this.rows.view(credit));
    this.activity[group] = (this.activity[group] as number) + (this.activity[credit] as number);
  }

  // GroupTable, once every credit is named: a group is its first credit.
  forEach(visit: (group: number, key: string) => void): void {
    this.groups?.forEach(visit);
  }

  has(key: string): boolean {
    return this.groups?.has(key) ?? false;
  }

  keyOf(group: number): string {
    return this.groups?.keyAt(group) ?? OTHER_KEY;
  }

  labelsOf(group: number): SeriesLabels | undefined {
    return this.labels.size > 0 ? this.labels.get(group) : undefined;
  }

  activityOf(group: number): number {
    return this.activity[group] ?? 0;
  }

  /** The credit's increments by field number (DeltaRows.view: valid until the next view or add). */
  deltasOf(credit: number): ArrayLike<U64 | undefined> {
    return this.rows.view(credit);
  }

  get width(): number {
    return this.rows.width;
  }

  /** The credits' rows, handed over (GroupTable.takeRows): the book's increments are zero until clear(). */
  takeRows(): DeltaRows {
    const rows = this.rows;
    this.rows = new DeltaRows();
    return rows;
  }
}
