// The increments of one scrape, gathered per job identity before they are given to series.
// A job's entries (one per client host with `%j:%u:%H`) all land in the same credit.
import type { JobIdentity } from './jobid-format.js';
import { u64Add, type U64 } from './u64.js';

export interface Credit {
  readonly identity: JobIdentity;
  /** Increment per field number (see export-fields.ts); holes are zero. */
  readonly deltas: (U64 | undefined)[];
  /** Requests (operation samples) in this scrape: how "active" the job is when slots are handed out. */
  activity: number;
  /** Entries that contributed. */
  entries: number;
}

/** Identity key of a classification: the same job id, uid and executable give the same key. */
export function classKey(identity: JobIdentity): string {
  if (identity.quality === 'malformed') return '\u0001malformed';
  return `${identity.quality}\u0000${identity.jobid ?? ''}\u0000${identity.uid ?? ''}\u0000${identity.process ?? ''}`;
}

export class CreditBook {
  readonly byClass = new Map<string, Credit>();

  creditFor(key: string, identity: JobIdentity): Credit {
    let credit = this.byClass.get(key);
    if (!credit) {
      credit = { identity, deltas: [], activity: 0, entries: 0 };
      this.byClass.set(key, credit);
    }
    return credit;
  }

  clear(): void {
    this.byClass.clear();
  }
}

export function addDelta(credit: Credit, field: number, delta: U64): void {
  const before = credit.deltas[field];
  credit.deltas[field] = before === undefined ? delta : u64Add(before, delta);
}
