// The one table behind every bounded label (docs/architecture.md "Bounded cardinality"): which keys
// (jobs per target, clients per target, jobs per collector, mounts per job) have a series of their own.
// Everything a key without a slot does is credited to the reserved `_other` label by the caller, so sums
// over the label stay true.
//
// - At most `max` members. Membership is sticky: a member keeps its slot until it is released, either
//   idle for at least the expiry (`expire`) or gone from its source (`retainOnly`, `release`). So a
//   member's counters never jump or fall while it is exported.
// - A key that finds no free slot is folded, and then, by policy:
//   'compete': it waits, gathering activity, and `fill` gives freed slots to the most active waiting
//              keys (ties by key); waiting keys idle for the expiry are forgotten. A caller whose
//              activity counts per round keeps its own candidates and hands them to `fillFrom`;
//   'pinned':  it stays folded until it is gone, even if a slot frees (its past is already in `_other`:
//              a series of its own would count it twice);
//   'forget':  nothing is remembered (made-up values must not cost memory; slots never free by idling).
// - Optional owner caps (the profiler's fairness rules): an owner holds at most `maxPerOwner` slots, and
//   members whose owner is only claimed, not verified, hold at most `maxUnverified` in all and
//   `maxUnverifiedPerOwner` of one owner (so it takes that many colluding owners to fill them). A member is
//   charged to the owner a verified claim names as soon as one arrives. Keys routed without an owner are
//   charged to nobody.
import { mostActiveFirst, type Candidate } from './most-active.js';

export type FoldPolicy = 'compete' | 'pinned' | 'forget';

export interface SlotClaim {
  readonly owner: number;
  /** Evidence the caller trusts (the kernel's) names this owner; otherwise the key's own word. */
  readonly verified: boolean;
}

export interface OwnerCaps {
  readonly maxPerOwner: number;
  readonly maxUnverified: number;
  /** Unverified members of one owner (default: no bound beyond maxPerOwner). */
  readonly maxUnverifiedPerOwner?: number;
}

export interface SlotTableOptions {
  readonly max: number;
  readonly folded: FoldPolicy;
  readonly caps?: OwnerCaps;
}

/** The one release rule for idleness: idle for at least the expiry (exactly the expiry included). */
export function idleFor(lastActiveMs: number, nowMs: number, expiryMs: number): boolean {
  return nowMs - lastActiveMs >= expiryMs;
}

interface Member {
  owner?: number;
  verified?: boolean;
  lastActiveMs: number;
}

/** A folded key competing for a free slot. */
export interface SlotCandidate extends Candidate {
  readonly owner?: number;
  readonly verified?: boolean;
  readonly lastActiveMs?: number;
}

interface Waiting extends SlotCandidate {
  owner?: number;
  verified?: boolean;
  activity: number;
  lastActiveMs: number;
}

export class SlotTable {
  private readonly members = new Map<string, Member>();
  private readonly waiting = new Map<string, Waiting>();
  private readonly perOwner = new Map<number, number>();
  /** Unverified members by owner (only owners holding some). */
  private readonly unverifiedPerOwner = new Map<number, number>();
  private unverified = 0;

  constructor(private readonly options: SlotTableOptions) {}

  get memberCount(): number {
    return this.members.size;
  }

  /** Folded keys remembered ('compete': waiting for a slot; 'pinned': folded until gone). */
  get waitingCount(): number {
    return this.waiting.size;
  }

  has(key: string): boolean {
    return this.members.has(key);
  }

  memberKeys(): IterableIterator<string> {
    return this.members.keys();
  }

  /**
   * Activity of `key` now: true when it has (or has just been given) a slot, false when it is folded.
   * A free slot goes to the first key that fits, unless the key is pinned as folded.
   */
  route(key: string, weight: number, nowMs: number, claim?: SlotClaim): boolean {
    const member = this.members.get(key);
    if (member) {
      member.lastActiveMs = nowMs;
      if (claim?.verified && member.verified !== true) {
        this.uncharge(member);
        this.charge(member, claim);
      }
      return true;
    }
    const pinned = this.options.folded === 'pinned' && this.waiting.has(key);
    if (!pinned && this.fits(claim)) {
      this.waiting.delete(key);
      this.admit(key, nowMs, claim);
      return true;
    }
    this.wait(key, weight, nowMs, claim);
    return false;
  }

  /** Records a folded key's activity without giving it a free slot now (`fill` decides later). */
  wait(key: string, activity: number, nowMs: number, claim?: SlotClaim): void {
    if (this.options.folded === 'forget') return;
    let w = this.waiting.get(key);
    if (!w) {
      w = { key, activity: 0, lastActiveMs: nowMs };
      this.waiting.set(key, w);
    }
    w.activity += activity;
    w.lastActiveMs = nowMs;
    if (claim && (claim.verified || w.owner === undefined)) {
      w.owner = claim.owner;
      w.verified = claim.verified;
    }
  }

  /** Marks a member active now without any other change. */
  touch(key: string, nowMs: number): void {
    const member = this.members.get(key);
    if (member) member.lastActiveMs = nowMs;
  }

  /**
   * Releases the members idle for at least `expiryMs` (and that `mayRelease` lets go) and forgets the
   * waiting keys idle as long. Returns the released members: their series go.
   */
  expire(nowMs: number, expiryMs: number, mayRelease: (key: string) => boolean = () => true): string[] {
    const released: string[] = [];
    for (const [key, member] of this.members) {
      if (!idleFor(member.lastActiveMs, nowMs, expiryMs) || !mayRelease(key)) continue;
      this.uncharge(member);
      this.members.delete(key);
      released.push(key);
    }
    for (const [key, w] of this.waiting) if (idleFor(w.lastActiveMs, nowMs, expiryMs)) this.waiting.delete(key);
    return released;
  }

  /** Releases every key, member or folded, that is not in `present` (gone from its source); returns the released members. */
  retainOnly(present: ReadonlySet<string>): string[] {
    const released: string[] = [];
    for (const key of this.members.keys()) {
      if (present.has(key)) continue;
      this.release(key);
      released.push(key);
    }
    for (const key of this.waiting.keys()) if (!present.has(key)) this.waiting.delete(key);
    return released;
  }

  /** Releases one member (its series goes). */
  release(key: string): void {
    const member = this.members.get(key);
    if (!member) return;
    this.uncharge(member);
    this.members.delete(key);
  }

  /** Gives free slots to the most active waiting keys that fit the caps; returns them. */
  fill(): string[] {
    if (this.options.folded !== 'compete' || this.waiting.size === 0) return [];
    const admitted = this.admitMostActive([...this.waiting.values()]);
    for (const key of admitted) this.waiting.delete(key);
    return admitted;
  }

  /**
   * Gives free slots to the most active of one round's folded keys, which the table does not remember
   * (their activity counts for this round only); returns them.
   */
  fillFrom(candidates: readonly SlotCandidate[], nowMs: number): string[] {
    return this.admitMostActive(candidates, nowMs);
  }

  /** `nowMs` undefined: each candidate was last active at its own `lastActiveMs`. */
  private admitMostActive(candidates: readonly SlotCandidate[], nowMs?: number): string[] {
    const admitted: string[] = [];
    if (this.members.size >= this.options.max) return admitted;
    for (const c of mostActiveFirst(candidates)) {
      if (this.members.size >= this.options.max) break;
      const claim = c.owner === undefined ? undefined : { owner: c.owner, verified: c.verified === true };
      if (!this.fits(claim)) continue;
      this.admit(c.key, nowMs ?? c.lastActiveMs ?? 0, claim);
      admitted.push(c.key);
    }
    return admitted;
  }

  private fits(claim: SlotClaim | undefined): boolean {
    if (this.members.size >= this.options.max) return false;
    const caps = this.options.caps;
    if (!caps || !claim) return true;
    if ((this.perOwner.get(claim.owner) ?? 0) >= caps.maxPerOwner) return false;
    if (claim.verified) return true;
    if ((this.unverifiedPerOwner.get(claim.owner) ?? 0) >= (caps.maxUnverifiedPerOwner ?? Infinity)) return false;
    return this.unverified < caps.maxUnverified;
  }

  private admit(key: string, nowMs: number, claim: SlotClaim | undefined): void {
    const member: Member = { lastActiveMs: nowMs };
    this.charge(member, claim);
    this.members.set(key, member);
  }

  private charge(member: Member, claim: SlotClaim | undefined): void {
    if (!this.options.caps || !claim) return;
    member.owner = claim.owner;
    member.verified = claim.verified;
    this.perOwner.set(claim.owner, (this.perOwner.get(claim.owner) ?? 0) + 1);
    if (!claim.verified) {
      this.unverified += 1;
      this.unverifiedPerOwner.set(claim.owner, (this.unverifiedPerOwner.get(claim.owner) ?? 0) + 1);
    }
  }

  private uncharge(member: Member): void {
    if (member.owner === undefined) return;
    const n = (this.perOwner.get(member.owner) ?? 1) - 1;
    if (n > 0) this.perOwner.set(member.owner, n);
    else this.perOwner.delete(member.owner);
    if (member.verified !== true) {
      this.unverified -= 1;
      const u = (this.unverifiedPerOwner.get(member.owner) ?? 1) - 1;
      if (u > 0) this.unverifiedPerOwner.set(member.owner, u);
      else this.unverifiedPerOwner.delete(member.owner);
    }
    member.owner = undefined;
    member.verified = undefined;
  }
}
