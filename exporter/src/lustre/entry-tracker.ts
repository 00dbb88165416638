// Per-entry memory of one target: the last values Lustre printed for each job_stats entry, so each
// scrape yields exact increments (docs/architecture.md "Lustre: counters the exporter owns").
//
// - A value below the previous one, or a new `start_time` (2.15+), means Lustre dropped the entry
//   (job_cleanup_interval) or it was cleared, and started again from zero: the increment is the whole
//   new value, for every field of the entry.
// - An entry seen for the first time after the exporter's previous collection has its whole value
//   credited; at the exporter's first collection its value is the starting point.
// - An entry that left the file is forgotten: if it comes back, Lustre restarted it from zero.
// Memory is one slot per entry present in the file (needed to compute exact increments for the jobs
// folded into `_other` too), in slabs by slot number (entry-slots.ts); no series are kept here.
import type { JobStatsEntryView } from '../parsers/lustre-jobstats.js';
import { decodeJobId } from '../parsers/lustre-jobid.js';
import { identityHash, newJobClass, sameIdentity, type CreditBook, type JobClass } from './credits.js';
import { entryFields, type FieldTable, type FieldValues } from './export-fields.js';
import { classifyJobId, classifyJobIdBytes, type JobIdentity, type JobIdFormats, type JobIdQuality } from './jobid-format.js';
import { u64Less, u64Sub, type U64 } from '../util/u64.js';
import { UNLIMITED_BUDGET, type EntryBudget } from './entry-budget.js';
import { DEFAULT_SYSTEM_UID_MAX } from '../labels/users.js';
import { EntrySlots, READ_NEXT, TAKEN_NEXT } from './entry-slots.js';
import { hashBytes, IdIndex } from './id-index.js';
import { IdBytes } from './id-bytes.js';
import { LayoutTable } from './layout-table.js';

export type QualityCounts = Record<JobIdQuality, number>;

/**
 * Whose entry it is, by the uid in its id: `system` up to --collector.lustre_jobstats.system-uid-max (the rule of
 * the `user="_system"` label; default 999, as RHEL reserves 0–999 for root, daemons and job control), `non_system`
 * above it, `none` when the id carries no uid (a malformed id, or a format without %u). System users make many entries with little in them (a single statfs);
 * the quality of the other users' ids is what decides whether their load can be blamed on their jobs.
 */
export type UidClass = 'system' | 'non_system' | 'none';
export const UID_CLASSES: readonly UidClass[] = ['system', 'non_system', 'none'];

/**
 * What one read did besides the entries' values: repeated, with no increment, when the next read finds
 * the same bytes (file-digests.ts), since parsing them again would count the same and credit nothing.
 */
export interface ReadTally {
  readonly quality: QualityCounts;
  readonly byUid: Record<UidClass, QualityCounts>;
  readonly droppedCounters: number;
  readonly outOfRangeEntries: number;
}

const noCounts = (): QualityCounts => ({ correct: 0, missing_jobid: 0, malformed: 0 });
const noUidCounts = (): Record<UidClass, QualityCounts> => ({ system: noCounts(), non_system: noCounts(), none: noCounts() });

export class EntryTracker {
  private readonly slots = new EntrySlots();
  /**
   * By slot: its entry's id, as bytes (id-bytes.ts; none: a free slot). Each slot also links to the
   * slot of the entry read right after it the last time (READ_NEXT): files list their entries in the
   * same order read after read, so the next entry's id is compared in place with the one expected
   * there, without a lookup.
   */
  private readonly idBytes = new IdBytes();
  /** The slot of each entry kept, by its id (id-index.ts: a Map was ~37 bytes an entry). */
  private readonly ids = new IdIndex<JobStatsEntryView>({
    hashOf: (slot) => this.idBytes.hashOf(slot),
    matches: (slot, view) => this.idBytes.matches(slot, view.idBytes, view.idStart, view.idEnd),
  });
  /**
   * The slots in the order their entries were first seen (the walks' order, as a Map's would be): the
   * first and last, each linking to the next by TAKEN_NEXT (-1: none).
   */
  private oldestSlot = -1;
  private newestSlot = -1;
  /** The slot of the first entry of the last read, and of the entry ingested last in this one (-1: none yet). */
  private firstSlot = -1;
  private previousSlot = -1;
  /** The classes of the entries kept, by number (undefined: a free number); a class goes with its last entry. */
  private readonly classList: (JobClass | undefined)[] = [];
  private readonly freeClasses: number[] = [];
  /** The number of each class, by its identity. */
  private readonly classes = new IdIndex<JobIdentity>({
    hashOf: (n) => identityHash(this.classList[n] as JobClass),
    matches: (n, identity) => sameIdentity(this.classList[n] as JobClass, identity),
  });
  /** The entries' field layouts, by the number their slots keep. */
  private readonly layouts = new LayoutTable();
  private readonly scratch: FieldValues = { count: 0, ids: [], values: [], dropped: 0 };
  quality: QualityCounts = noCounts();
  /** The same counts split by uid class (the sum over the classes is `quality`). */
  byUid: Record<UidClass, QualityCounts> = noUidCounts();
  /** Counters dropped because the field table was full (garbage operation names). */
  droppedCounters = 0;
  /** New entries not remembered because maxEntries were, or the budget of all targets was full (counted, no increments). */
  droppedEntries = 0;
  /** Of droppedEntries, those refused by the budget of all targets (for the log). */
  budgetDroppedEntries = 0;
  /** Entries rejected for a samples or sum beyond u64, since start (no increments). */
  outOfRangeEntries = 0;

  constructor(
    private readonly fields: FieldTable,
    private readonly formats: JobIdFormats,
    private readonly maxEntries = Number.POSITIVE_INFINITY,
    private readonly budget: EntryBudget = UNLIMITED_BUDGET,
    private readonly systemUidMax = DEFAULT_SYSTEM_UID_MAX,
  ) {}

  get size(): number {
    return this.ids.size;
  }

  /** The running totals as the read began, for tally(). */
  private atBegin = { droppedCounters: 0, droppedEntries: 0, outOfRangeEntries: 0 };

  beginRead(): void {
    this.previousSlot = -1;
    this.quality = noCounts();
    this.byUid = noUidCounts();
    this.atBegin = { droppedCounters: this.droppedCounters, droppedEntries: this.droppedEntries, outOfRangeEntries: this.outOfRangeEntries };
  }

  /**
   * After endRead() of a complete read: what to repeat if the next read has the same bytes. Undefined
   * when the read dropped new entries: room may free up (other targets' entries leave), so the same
   * bytes could be remembered next time.
   */
  tally(): ReadTally | undefined {
    if (this.droppedEntries !== this.atBegin.droppedEntries) return undefined;
    return {
      quality: { ...this.quality },
      byUid: { system: { ...this.byUid.system }, non_system: { ...this.byUid.non_system }, none: { ...this.byUid.none } },
      droppedCounters: this.droppedCounters - this.atBegin.droppedCounters,
      outOfRangeEntries: this.outOfRangeEntries - this.atBegin.outOfRangeEntries,
    };
  }

  /**
   * This read has the bytes of the one `tally` was taken after, and nothing changed the entries since:
   * the same counts, every entry seen, no increment (values and start times are the same).
   */
  repeat(tally: ReadTally, epoch: number): void {
    this.beginRead();
    this.quality = { ...tally.quality };
    this.byUid = { system: { ...tally.byUid.system }, non_system: { ...tally.byUid.non_system }, none: { ...tally.byUid.none } };
    this.droppedCounters += tally.droppedCounters;
    this.outOfRangeEntries += tally.outOfRangeEntries;
    this.slots.markAllSeen(epoch);
  }

  /** Counts one entry of the read by quality and uid class (no identity: malformed, no uid). */
  private count(identity: JobIdentity | undefined): void {
    const quality = identity?.quality ?? 'malformed';
    const uid = identity?.uid;
    this.quality[quality] += 1;
    this.byUid[uid === undefined ? 'none' : uid <= this.systemUidMax ? 'system' : 'non_system'][quality] += 1;
  }

  /** Takes one parsed entry; adds its increments to `credits`. */
  ingest(view: JobStatsEntryView, epoch: number, credits: CreditBook): void {
    if (view.invalid) return this.reject(view, epoch);
    const cur = this.scratch;
    entryFields(view, this.fields, cur);
    this.droppedCounters += cur.dropped;
    const slots = this.slots;
    const slot = this.slotOf(view);
    if (slot !== undefined && slots.seenAt(slot) === epoch) {
      // The same id twice in one read (not seen in real files): keep the first, count the second as malformed.
      this.count(undefined);
      return;
    }
    if (slot === undefined) {
      if (this.ids.size >= this.maxEntries) {
        this.droppedEntries += 1;
        return;
      }
      if (!this.budget.take(this.ids.size)) {
        this.droppedEntries += 1;
        this.budgetDroppedEntries += 1;
        return;
      }
      // On the id's bytes when they tell it (most ids): no decoded string nor match made for it.
      const identity = classifyJobIdBytes(view.idBytes, view.idStart, view.idEnd, this.formats) ?? classifyJobId(decodeJobId(view.rawId), this.formats);
      const n = this.classOf(identity);
      const cls = this.classList[n] as JobClass;
      const taken = slots.take(n);
      slots.store(taken, this.layoutOf(cur), cur.values, cur.count, view.startTime);
      slots.markSeen(taken, epoch);
      this.idBytes.set(taken, view.idBytes, view.idStart, view.idEnd);
      this.ids.add(taken, this.idBytes.hashOf(taken));
      slots.setLink(taken, TAKEN_NEXT, -1);
      if (this.newestSlot < 0) this.oldestSlot = taken;
      else slots.setLink(this.newestSlot, TAKEN_NEXT, taken);
      this.newestSlot = taken;
      this.followedBy(taken);
      this.count(cls);
      // At the exporter's first collection this is the starting value; the accumulator decides.
      let credit = -1;
      for (let j = 0; j < cur.count; j += 1) {
        const value = cur.values[j]!;
        if (value === 0) continue;
        if (credit < 0) credit = credits.creditFor(cls);
        credits.add(credit, cur.ids[j]!, value);
        if (this.fields.fields[cur.ids[j]!]!.kind === 'operations') credits.addActivity(credit, Number(value));
      }
      return;
    }
    const cls = this.classList[slots.classOf(slot)] as JobClass;
    this.count(cls);
    slots.markSeen(slot, epoch);
    this.followedBy(slot);
    const layout = slots.layoutOf(slot);
    if (!this.sameLayout(this.layouts.get(layout), cur)) return this.ingestRelayout(slot, view, credits);
    const startTime = slots.startTimeOf(slot);
    let reset = !Number.isNaN(view.startTime) && !Number.isNaN(startTime) && view.startTime !== startTime;
    for (let j = 0; j < cur.count && !reset; j += 1) if (u64Less(cur.values[j]!, slots.valueAt(slot, j))) reset = true;
    let credit = -1;
    for (let j = 0; j < cur.count; j += 1) {
      const value = cur.values[j]!;
      const delta = reset ? value : u64Sub(value, slots.valueAt(slot, j));
      if (delta === 0) continue;
      if (credit < 0) credit = credits.creditFor(cls);
      credits.add(credit, cur.ids[j]!, delta);
      if (this.fields.fields[cur.ids[j]!]!.kind === 'operations') credits.addActivity(credit, Number(delta));
    }
    // Written back only when something moved (no delta and no reset: the same values).
    if (credit >= 0 || reset || !Object.is(startTime, view.startTime)) slots.store(slot, layout, cur.values, cur.count, view.startTime);
  }

  /** The slot of the entry with the view's id: the one read after the previous entry last time, when its id is that, else by the map. */
  private slotOf(view: JobStatsEntryView): number | undefined {
    const expected = this.previousSlot < 0 ? this.firstSlot : this.slots.linkOf(this.previousSlot, READ_NEXT);
    if (expected >= 0 && this.idBytes.matches(expected, view.idBytes, view.idStart, view.idEnd)) return expected;
    return this.slotById(view);
  }

  private slotById(view: JobStatsEntryView): number | undefined {
    const slot = this.ids.find(view, hashBytes(view.idBytes, view.idStart, view.idEnd));
    return slot < 0 ? undefined : slot;
  }

  /** `slot` was read right after the previous entry of this read (the order slotOf() expects next time). */
  private followedBy(slot: number): void {
    if (this.previousSlot < 0) this.firstSlot = slot;
    else this.slots.setLink(this.previousSlot, READ_NEXT, slot);
    this.previousSlot = slot;
  }

  /**
   * An entry with a value beyond u64 is malformed: no increment, and a known entry keeps its last good
   * values (marked seen, so it is not forgotten and credited whole when it is readable again).
   */
  private reject(view: JobStatsEntryView, epoch: number): void {
    this.count(undefined);
    this.outOfRangeEntries += 1;
    const slot = this.slotById(view);
    if (slot !== undefined) this.slots.markSeen(slot, epoch);
  }

  /** Forgets the entries that were not in this read (Lustre dropped them), unless the read was cut short. */
  endRead(epoch: number, complete = true): void {
    if (!complete) return;
    const slots = this.slots;
    let kept = -1;
    for (let slot = this.oldestSlot; slot >= 0;) {
      const next = slots.linkOf(slot, TAKEN_NEXT);
      if (slots.seenAt(slot) === epoch) {
        kept = slot;
        slot = next;
        continue;
      }
      if (kept < 0) this.oldestSlot = next;
      else slots.setLink(kept, TAKEN_NEXT, next);
      if (next < 0) this.newestSlot = kept;
      this.budget.release(this.ids.size);
      this.ids.remove(slot, this.idBytes.hashOf(slot));
      this.idBytes.release(slot);
      this.layouts.release(slots.layoutOf(slot));
      const n = slots.classOf(slot);
      slots.release(slot);
      const cls = this.classList[n] as JobClass;
      cls.entries -= 1;
      if (cls.entries === 0) this.dropClass(n);
      slot = next;
    }
  }

  clear(): void {
    this.budget.release(this.ids.size, this.ids.size);
    this.ids.clear();
    this.idBytes.clear();
    this.oldestSlot = -1;
    this.newestSlot = -1;
    this.firstSlot = -1;
    this.previousSlot = -1;
    this.slots.clear();
    this.classes.clear();
    this.classList.length = 0;
    this.freeClasses.length = 0;
    this.layouts.clear();
  }

  /** Calls `visit` with the class of every entry kept, in entry order: after endRead(), every entry of the last read (rate-density.ts). */
  forEachClass(visit: (cls: JobClass) => void): void {
    const slots = this.slots;
    for (let slot = this.oldestSlot; slot >= 0; slot = slots.linkOf(slot, TAKEN_NEXT)) visit(this.classList[slots.classOf(slot)] as JobClass);
  }

  /** The number of the class of `identity` (made when new), with one more entry. */
  private classOf(identity: JobIdentity): number {
    const hash = identityHash(identity);
    let n = this.classes.find(identity, hash);
    if (n < 0) {
      n = this.freeClasses.pop() ?? this.classList.length;
      this.classList[n] = newJobClass(identity);
      this.classes.add(n, hash);
    }
    (this.classList[n] as JobClass).entries += 1;
    return n;
  }

  private dropClass(n: number): void {
    this.classes.remove(n, identityHash(this.classList[n] as JobClass));
    this.classList[n] = undefined;
    this.freeClasses.push(n);
  }

  /** The layout number of the last new entry, and its layout. */
  private lastLayout = -1;
  private lastLayoutIds: readonly number[] = [];

  /** The number of `cur`'s layout, with one more use (a new entry's). */
  private layoutOf(cur: FieldValues): number {
    // Nearly every entry of a target has the layout of the one before: skip building a key for it.
    if (this.lastLayout >= 0 && this.layouts.holds(this.lastLayout, this.lastLayoutIds) && this.sameLayout(this.lastLayoutIds, cur)) {
      this.layouts.use(this.lastLayout);
      return this.lastLayout;
    }
    this.lastLayout = this.layouts.acquire(cur.ids.slice(0, cur.count));
    this.lastLayoutIds = this.layouts.get(this.lastLayout);
    return this.lastLayout;
  }

  private sameLayout(layout: readonly number[], cur: FieldValues): boolean {
    if (layout.length !== cur.count) return false;
    for (let j = 0; j < cur.count; j += 1) if (layout[j] !== cur.ids[j]) return false;
    return true;
  }

  /**
   * The entry's fields differ from the last read (a read cut short, a Lustre upgrade): match values by
   * field number. A field missing now keeps its last value, so a cut-short read costs nothing later;
   * after a reset it is zeroed, since Lustre restarted it too.
   */
  private ingestRelayout(slot: number, view: JobStatsEntryView, credits: CreditBook): void {
    const cur = this.scratch;
    const slots = this.slots;
    const cls = this.classList[slots.classOf(slot)] as JobClass;
    const layout = slots.layoutOf(slot);
    const previous = new Map<number, U64>();
    for (const [j, id] of this.layouts.get(layout).entries()) previous.set(id, slots.valueAt(slot, j));
    const startTime = slots.startTimeOf(slot);
    let reset = !Number.isNaN(view.startTime) && !Number.isNaN(startTime) && view.startTime !== startTime;
    for (let j = 0; j < cur.count && !reset; j += 1) {
      const before = previous.get(cur.ids[j]!);
      if (before !== undefined && u64Less(cur.values[j]!, before)) reset = true;
    }
    if (reset) for (const id of previous.keys()) previous.set(id, 0);
    let credit = -1;
    for (let j = 0; j < cur.count; j += 1) {
      const id = cur.ids[j]!;
      const value = cur.values[j]!;
      const before = previous.get(id) ?? 0;
      const delta = u64Less(value, before) ? value : u64Sub(value, before);
      previous.set(id, value);
      if (delta === 0) continue;
      if (credit < 0) credit = credits.creditFor(cls);
      credits.add(credit, id, delta);
      if (this.fields.fields[id]!.kind === 'operations') credits.addActivity(credit, Number(delta));
    }
    const ids = [...previous.keys()];
    const values = ids.map((id) => previous.get(id)!);
    // The new layout taken before the old one is let go: the same layout keeps its number.
    const relaid = this.layouts.acquire(ids);
    this.layouts.release(layout);
    slots.store(slot, relaid, values, values.length, view.startTime);
  }
}
