// How many profiler connections the receiver holds, sized by the node rather than fixed: each one
// costs the exporter one file descriptor, so the budget is half the descriptors it may open (its
// RLIMIT_NOFILE; Node raises the soft limit to the hard one at start-up), kept between 4,096 (the former fixed total) and
// 65,536, and one uid may hold a quarter of it (four users to fill it, like the queue). A fixed 256
// per uid cut a 300-process single-node job's connections (710 of its 1,500 writes kept).
import { readFileSync } from 'node:fs';

export const MIN_CONNECTIONS = 4096;
export const MAX_CONNECTIONS = 65536;

export interface ConnectionBudget {
  /** Open connections in all. */
  readonly total: number;
  /** Open connections of one uid. */
  readonly perUser: number;
}

/** The soft "Max open files" of a /proc/<pid>/limits text; undefined when unlimited or unreadable. */
export function openFilesLimit(limitsText: string): number | undefined {
  const m = /^Max open files\s+(\d+)\s/m.exec(limitsText);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/**
 * The budget for an exporter allowed `openFiles` descriptors; `total` or `perUser` given (a flag)
 * replace the computed figure (undefined or 0: computed).
 */
export function connectionBudget(openFiles: number | undefined, given: { total?: number; perUser?: number } = {}): ConnectionBudget {
  const sized = Math.min(MAX_CONNECTIONS, Math.max(MIN_CONNECTIONS, Math.floor((openFiles ?? 0) / 2)));
  const total = given.total || sized;
  return { total, perUser: given.perUser || Math.max(1, Math.floor(total / 4)) };
}

/** The exporter's own descriptor limit (its /proc/self/limits), undefined if it cannot be read. */
export function ownOpenFilesLimit(): number | undefined {
  try {
    return openFilesLimit(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    return undefined;
  }
}

/** A flag value: `auto` (0: sized by the node) or a positive integer. */
export function autoOrPositive(text: string): number {
  if (text.trim() === 'auto') return 0;
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < 1) throw new Error(`"${text}" is neither auto nor a positive integer`);
  return value;
}
