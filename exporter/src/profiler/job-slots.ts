// Bounded cardinality for the job label (docs/architecture.md "Bounded cardinality"): at most `max` jobs have their own series.
// Membership is sticky: a job keeps its slot until it has been idle for the expiry, so its exported
// counters never jump or fall. Increments of jobs without a slot go to `_other` (sum over jobs stays
// true); when slots free up, the most active waiting jobs get them, starting from zero.
//
// Fairness (one local user must not take the slots from the others' real jobs):
// - a uid holds at most `maxPerUser` slots (default a quarter of them);
// - jobs known only from a claim (the sender's own environment: anyone can set SLURM_JOB_ID) hold at
//   most `maxUnverified` slots in all (default half), so jobs with kernel evidence (job cgroup or
//   step daemon) always find the other half;
// - a slot is charged to the uid kernel evidence names as the job's owner as soon as it is known, so
//   a squatter who claimed a job first does not keep it on its own account.
// Jobs routed without a uid (processes outside any job: `_none`) are charged to nobody.
import { OTHER } from '../labels/reserved.js';

export { OTHER };

export interface SlotClaim {
  readonly uid: number;
  /** Kernel evidence (job cgroup, step daemon) names this uid as the job's owner. */
  readonly verified: boolean;
}

export interface SlotRules {
  readonly maxPerUser: number;
  readonly maxUnverified: number;
}

/** A job with a slot, and whom the slot is charged to (none for jobs routed without a uid). */
interface Member {
  uid?: number;
  verified?: boolean;
  lastActiveMs: number;
}

interface Waiting {
  uid?: number;
  verified?: boolean;
  activity: number;
  lastActiveMs: number;
}

export class JobSlots {
  private readonly members = new Map<string, Member>();
  private readonly waiting = new Map<string, Waiting>();
  private readonly perUid = new Map<number, number>();
  private unverified = 0;
  private readonly rules: SlotRules;

  constructor(
    private readonly max: number,
    rules: Partial<SlotRules> = {},
  ) {
    this.rules = { maxPerUser: Math.max(1, Math.ceil(max / 4)), maxUnverified: Math.max(1, Math.ceil(max / 2)), ...rules };
  }

  /** The job label to credit `weight` of activity to now: the job itself, or `_other`. */
  route(jobid: string, weight: number, nowMs: number, claim?: SlotClaim): string {
    const member = this.members.get(jobid);
    if (member) {
      member.lastActiveMs = nowMs;
      if (claim?.verified && !member.verified) {
        this.release(member);
        this.charge(member, claim);
      }
      return jobid;
    }
    if (this.fits(claim)) {
      const fresh: Member = { lastActiveMs: nowMs };
      this.charge(fresh, claim);
      this.members.set(jobid, fresh);
      return jobid;
    }
    const w = this.waiting.get(jobid) ?? { activity: 0, lastActiveMs: nowMs };
    w.activity += weight;
    w.lastActiveMs = nowMs;
    if (claim && (claim.verified || w.uid === undefined)) {
      w.uid = claim.uid;
      w.verified = claim.verified;
    }
    this.waiting.set(jobid, w);
    return OTHER;
  }

  private fits(claim: { uid?: number; verified?: boolean } | undefined): boolean {
    if (this.members.size >= this.max) return false;
    if (!claim || claim.uid === undefined) return true;
    if ((this.perUid.get(claim.uid) ?? 0) >= this.rules.maxPerUser) return false;
    return claim.verified === true || this.unverified < this.rules.maxUnverified;
  }

  private charge(member: Member, claim: { uid?: number; verified?: boolean } | undefined): void {
    if (!claim || claim.uid === undefined) return;
    member.uid = claim.uid;
    member.verified = claim.verified === true;
    this.perUid.set(claim.uid, (this.perUid.get(claim.uid) ?? 0) + 1);
    if (!member.verified) this.unverified++;
  }

  private release(member: Member): void {
    if (member.uid === undefined) return;
    const n = (this.perUid.get(member.uid) ?? 1) - 1;
    if (n > 0) this.perUid.set(member.uid, n);
    else this.perUid.delete(member.uid);
    if (!member.verified) this.unverified--;
    member.uid = undefined;
    member.verified = undefined;
  }

  /** Expires idle members (returns them so their series can go) and gives free slots to the busiest waiting jobs that fit the rules. */
  maintain(nowMs: number, expiryMs: number): string[] {
    const expired: string[] = [];
    for (const [job, member] of this.members) {
      if (nowMs - member.lastActiveMs > expiryMs) {
        this.release(member);
        this.members.delete(job);
        expired.push(job);
      }
    }
    for (const [job, w] of this.waiting) if (nowMs - w.lastActiveMs > expiryMs) this.waiting.delete(job);
    if (this.members.size < this.max && this.waiting.size > 0) {
      const candidates = [...this.waiting.entries()].sort((a, b) => b[1].activity - a[1].activity);
      for (const [job, w] of candidates) {
        if (this.members.size >= this.max) break;
        if (!this.fits(w)) continue;
        this.waiting.delete(job);
        const member: Member = { lastActiveMs: w.lastActiveMs };
        this.charge(member, w);
        this.members.set(job, member);
      }
    }
    return expired;
  }

  get ownCount(): number {
    return this.members.size;
  }

  get waitingCount(): number {
    return this.waiting.size;
  }
}
