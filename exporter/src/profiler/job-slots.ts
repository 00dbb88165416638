// Bounded cardinality for the profiler's job label (docs/architecture.md "Bounded cardinality"): the
// slot table (labels/slot-table.ts) with folded jobs competing for freed slots, and fairness caps:
// - a uid holds at most `maxPerUser` slots (default a quarter of them);
// - jobs known only from a claim (the sender's own environment: anyone can set SLURM_JOB_ID) hold at
//   most `maxUnverified` slots in all (default half), so jobs with kernel evidence (job cgroup or
//   step daemon) always find the other half, and one uid holds at most an eighth of that half
//   (`maxUnverifiedPerUser`): colluding uids, each filling its quarter with invented ids, took the
//   whole half with two; now it takes eight;
// - a slot is charged to the uid kernel evidence names as the job's owner as soon as it is known, so
//   a squatter who claimed a job first does not keep it on its own account.
// Jobs routed without a uid (processes outside any job: `_none`) are charged to nobody.
import { OTHER } from '../labels/reserved.js';
import { SlotTable } from '../labels/slot-table.js';

export { OTHER };

export interface SlotClaim {
  readonly uid: number;
  /** Kernel evidence (job cgroup, step daemon) names this uid as the job's owner. */
  readonly verified: boolean;
}

export interface SlotRules {
  readonly maxPerUser: number;
  readonly maxUnverified: number;
  readonly maxUnverifiedPerUser: number;
}

export class JobSlots {
  private readonly table: SlotTable;

  constructor(max: number, rules: Partial<SlotRules> = {}) {
    const { maxPerUser, maxUnverified } = { maxPerUser: Math.max(1, Math.ceil(max / 4)), maxUnverified: Math.max(1, Math.ceil(max / 2)), ...rules };
    const maxUnverifiedPerUser = rules.maxUnverifiedPerUser ?? Math.max(1, Math.floor(maxUnverified / 8));
    this.table = new SlotTable({ max, folded: 'compete', caps: { maxPerOwner: maxPerUser, maxUnverified, maxUnverifiedPerOwner: maxUnverifiedPerUser } });
  }

  /** The job label to credit `weight` of activity to now: the job itself, or `_other`. */
  route(jobid: string, weight: number, nowMs: number, claim?: SlotClaim): string {
    const owner = claim && { owner: claim.uid, verified: claim.verified };
    return this.table.route(jobid, weight, nowMs, owner) ? jobid : OTHER;
  }

  /** Expires idle members (returns them so their series can go) and gives free slots to the busiest waiting jobs that fit the rules. */
  maintain(nowMs: number, expiryMs: number): string[] {
    const expired = this.table.expire(nowMs, expiryMs);
    this.table.fill();
    return expired;
  }

  get ownCount(): number {
    return this.table.memberCount;
  }

  get waitingCount(): number {
    return this.table.waitingCount;
  }
}
