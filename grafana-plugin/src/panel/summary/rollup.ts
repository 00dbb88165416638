// Red/yellow/green roll-up of one group (a job, user or mount). The rules are explicit options:
//
// - threshold (default): red if share(red) ≥ redAt; else yellow if share(red) + share(yellow) ≥ yellowAt;
//   else green. Edges are inclusive (a share exactly at the threshold takes the worse colour).
// - worst: the worst class whose share is > ignoreBelow (polystat-style composite; ignoreBelow 0 means
//   one red call makes the group red).
// - majority: the class with the largest share; ties go to the worse class.
//
// Shares are of I/O time or of calls (`rollupBasis`). A group whose basis total is 0 is `none`.
import type { RollupBasis, RollupRule } from '../types';

export type RygClass = 'red' | 'yellow' | 'green';
export type Status = RygClass | 'none';
export const CLASSES: readonly RygClass[] = ['red', 'yellow', 'green'];

export type ClassTotals = Record<RygClass, number>;

/** Calls and seconds of one red or yellow reason (e.g. small_write) in a group. */
export interface ReasonTotals {
  cls: RygClass;
  reason: string;
  calls: number;
  seconds: number;
}

export interface GroupTotals {
  group: string;
  seconds: ClassTotals;
  calls: ClassTotals;
  /** Users seen on the group's series (a job has one). */
  users: string[];
  /** Bytes read + written; undefined when no volume series came. */
  bytes?: number;
  /** Reason breakdown when the exporter provides it; empty otherwise. */
  reasons: ReasonTotals[];
}

export function emptyGroup(group: string): GroupTotals {
  return { group, seconds: emptyTotals(), calls: emptyTotals(), users: [], reasons: [] };
}

export interface RollupRules {
  rule: RollupRule;
  basis: RollupBasis;
  redAt: number;
  yellowAt: number;
  ignoreBelow: number;
}

export function emptyTotals(): ClassTotals {
  return { red: 0, yellow: 0, green: 0 };
}

export function total(t: ClassTotals): number {
  return t.red + t.yellow + t.green;
}

/** Shares in percent (0–100); all 0 when the total is 0. */
export function shares(t: ClassTotals): ClassTotals {
  const sum = total(t);
  if (!(sum > 0)) {
    return emptyTotals();
  }
  return { red: (100 * t.red) / sum, yellow: (100 * t.yellow) / sum, green: (100 * t.green) / sum };
}

export function rollup(group: GroupTotals, rules: RollupRules): Status {
  const basis = rules.basis === 'calls' ? group.calls : group.seconds;
  if (!(total(basis) > 0)) {
    return 'none';
  }
  const s = shares(basis);
  switch (rules.rule) {
    case 'threshold':
      if (s.red >= rules.redAt) {
        return 'red';
      }
      return s.red + s.yellow >= rules.yellowAt ? 'yellow' : 'green';
    case 'worst':
      return CLASSES.find((c) => s[c] > rules.ignoreBelow) ?? 'green';
    case 'majority': {
      const best = Math.max(s.red, s.yellow, s.green);
      return CLASSES.find((c) => s[c] === best) ?? 'green';
    }
    default:
      throw new Error(`unknown roll-up rule ${JSON.stringify(rules.rule)}`);
  }
}
