// The lustre_client collector's view of the StatsAccumulator: llite stats files arrive named by their
// instance (`lustrefs-ffff88105db50000`), which changes at every mount, and are kept under the file
// system and mount point instead, so that a remount is a reset of the same counters (the new instance's
// counters started at zero: their whole value is the increment) and not a new series born at its value.
// Increments are credited per window of the exporter's clock (window-clock.ts): held until the read
// that closes the window, then given to the job seen at the window's ends (node-job.ts), so one
// scraper or several get the same series.
import type { StatsSection } from '../parsers/lustre-stats.js';
import type { LustreMount } from '../sources/lustre-client-files.js';
import type { StatsAccumulator, StatsTargetView } from './stats-accumulator.js';
import type { StatsSink } from './stats-update.js';
import { nodeJobLabel } from './node-job.js';
import type { ReadErrorReason } from './error-reasons.js';

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

/** Mount points per file system name. */
export function mountsByFs(mounts: readonly LustreMount[]): Map<string, string[]> {
  const byFs = new Map<string, string[]>();
  for (const m of mounts) byFs.set(m.fs, [...(byFs.get(m.fs) ?? []), m.mount]);
  return byFs;
}

/**
 * Where an llite instance is mounted. The instance names only the file system (its suffix is a kernel
 * address), so the mount point is known when the file system is mounted once on the node, the usual
 * case. `key` identifies the place across remounts; places that cannot be told apart by mount point
 * stay apart by instance.
 */
export function clientPlace(instance: string, byFs: ReadonlyMap<string, readonly string[]>): ClientPlace & { readonly key: string } {
  const fs = instanceFs(instance);
  const mounts = byFs.get(fs) ?? [];
  const [only] = mounts;
  const mount = mounts.length === 1 && only !== undefined ? only : mounts.length === 0 ? UNKNOWN_MOUNT : SEVERAL_MOUNTS;
  const key = mounts.length === 1 ? `${fs}\u0000${mount}` : `${fs}\u0000${mount}\u0000${instance}`;
  return { fs, mount, instance, key };
}

/** A mount's target view: the accumulator's, with where the file system is mounted. */
export interface ClientTargetView extends StatsTargetView {
  readonly place: ClientPlace;
}

export class ClientStatsBook implements StatsSink {
  private mountsByFs: ReadonlyMap<string, readonly string[]> = new Map();
  /** The node's jobs at this read, and at the read that opened the window (undefined: none yet). */
  private jobs: ReadonlySet<string> = new Set();
  private jobsAtOpen: ReadonlySet<string> | undefined;
  /** Accumulator target key → labels. */
  private readonly places = new Map<string, ClientPlace>();

  /** `acc` with the window (StatsAccumulatorOptions.windowMs) the job is credited per. */
  constructor(private readonly acc: StatsAccumulator) {}

  get targetCount(): number {
    return this.acc.targetCount;
  }

  /** Mounts are few, but a low --collector.lustre_client.max-targets drops some: exported as jobio_lustre_client_targets_dropped. */
  get droppedTargets(): number {
    return this.acc.droppedTargets;
  }

  set droppedTargets(count: number) {
    this.acc.droppedTargets = count;
  }

  get unreadableDirsTotal(): number {
    return this.acc.unreadableDirsTotal;
  }

  set unreadableDirsTotal(count: number) {
    this.acc.unreadableDirsTotal = count;
  }

  /** Whether the accumulator already holds this llite instance's place. */
  has(instance: string): boolean {
    return this.acc.has(clientPlace(instance, this.mountsByFs).key);
  }

  /** The node's state for this scrape: where each file system is mounted, which jobs run on it. */
  prepare(mounts: readonly LustreMount[], jobs: ReadonlySet<string>): void {
    this.mountsByFs = mountsByFs(mounts);
    this.jobs = jobs;
  }

  private place(instance: string): string {
    const place = clientPlace(instance, this.mountsByFs);
    this.places.set(place.key, place);
    return place.key;
  }

  begin(): void {
    this.acc.begin();
  }

  ingest(instance: string, _client: string, section: StatsSection): void {
    const key = this.place(instance);
    // A new instance under the same mount point is a remount: make the accumulator see a reset.
    this.acc.ingest(key, '', { ...section, startTime: `${instance} ${section.startTime ?? ''}` });
  }

  /** Without `client`, the instance's directory could not be listed (counted as such by the update). */
  markFailed(instance: string, client?: string, reason?: ReadErrorReason): void {
    const key = this.place(instance);
    if (client === undefined) this.acc.markFailed(key);
    else this.acc.markFailed(key, '', reason);
  }

  /**
   * Settles the read. Only the reads that close a window (and the first) credit anything: the window's
   * increments go to the jobs seen at its two ends, whatever was seen by the reads in between, so the
   * series do not depend on how many scrapers split the window. A restart starts at the file's values,
   * credited to the jobs running then.
   */
  finish(now: number, complete?: boolean): void {
    const { decide } = this.acc.turnAt(now);
    this.acc.finish(now, complete, decide ? nodeJobLabel(this.jobsAtOpen, this.jobs) : '');
    if (decide) this.jobsAtOpen = this.jobs;
    const live = new Set([...this.acc.targetViews()].map((t) => t.name));
    for (const key of this.places.keys()) if (!live.has(key)) this.places.delete(key);
  }

  /** The mounts of the settled accumulator, each series named by the job it was credited to. */
  *targetViews(): Iterable<ClientTargetView> {
    for (const view of this.acc.targetViews()) {
      const place = this.places.get(view.name);
      if (place) yield { ...view, place };
    }
  }
}
