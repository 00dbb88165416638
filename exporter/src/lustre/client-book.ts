// The lustre_client collector's view of the StatsAccumulator: llite stats files arrive named by their
// instance (`lustrefs-ffff88105db50000`), which changes at every mount, and are kept under the file
// system and mount point instead, so that a remount is a reset of the same counters (the new instance's
// counters started at zero: their whole value is the increment) and not a new series born at its value.
// Increments go to the series of the node's current job (node-job.ts).
import type { StatsSection } from '../parsers/lustre-stats.js';
import type { LustreMount } from '../sources/lustre-client-files.js';
import type { StatsAccumulator } from './stats-accumulator.js';
import type { StatsSink } from './stats-update.js';
import { NO_JOB } from './node-job.js';

/** Mount label of an instance whose file system is not in the mount table (being unmounted, or no table). */
export const UNKNOWN_MOUNT = '_unknown';
/** Mount label when the file system is mounted more than once: the instance cannot be told apart by name. */
export const SEVERAL_MOUNTS = '_several';

export interface ClientPlace {
  readonly fs: string;
  readonly mount: string;
  /** The llite instance last read for this place. */
  readonly instance: string;
}

/** `lustrefs-ffff88105db50000` → `lustrefs` (file system names may hold `-`; the suffix is hex). */
export function instanceFs(instance: string): string {
  const m = /^(.+)-[0-9a-fA-F]+$/.exec(instance);
  return m?.[1] ?? instance;
}

export class ClientStatsBook implements StatsSink {
  private mountsByFs = new Map<string, string[]>();
  private jobLabel = NO_JOB;
  /** Accumulator target key → labels. */
  readonly places = new Map<string, ClientPlace>();

  constructor(readonly acc: StatsAccumulator) {}

  get targetCount(): number {
    return this.acc.targetCount;
  }

  /** The node's state for this scrape: where each file system is mounted, whose job the I/O is. */
  prepare(mounts: readonly LustreMount[], jobLabel: string): void {
    this.mountsByFs = new Map();
    for (const m of mounts) this.mountsByFs.set(m.fs, [...(this.mountsByFs.get(m.fs) ?? []), m.mount]);
    this.jobLabel = jobLabel;
  }

  private place(instance: string): string {
    const fs = instanceFs(instance);
    const mounts = this.mountsByFs.get(fs) ?? [];
    const mount = mounts.length === 1 ? mounts[0]! : mounts.length === 0 ? UNKNOWN_MOUNT : SEVERAL_MOUNTS;
    // Places that cannot be told apart by mount point stay apart by instance (their own reset tracking).
    const key = mounts.length === 1 ? `${fs}\u0000${mount}` : `${fs}\u0000${mount}\u0000${instance}`;
    this.places.set(key, { fs, mount, instance });
    return key;
  }

  begin(): void {
    this.acc.begin();
  }

  ingest(instance: string, _client: string, section: StatsSection): void {
    const key = this.place(instance);
    // A new instance under the same mount point is a remount: make the accumulator see a reset.
    this.acc.ingest(key, '', { ...section, startTime: `${instance} ${section.startTime ?? ''}` }, this.jobLabel);
  }

  markFailed(instance: string): void {
    this.acc.markFailed(this.place(instance), '');
  }

  finish(now: number, complete?: boolean): void {
    this.acc.finish(now, complete);
    const live = new Set([...this.acc.targetViews()].map((t) => t.name));
    for (const key of this.places.keys()) if (!live.has(key)) this.places.delete(key);
  }
}
