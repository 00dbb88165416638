// The one update() of the Lustre collectors (job_stats, export stats, target stats, llite stats):
// begin a scrape, read the source (lctl or the pseudo-files, as the collector decides), settle what
// was read even when the read failed, then either say the source is absent or refill the metrics.
import type { UpdateOutcome } from '../scrape/collector.js';
import type { TargetDir, UnlistedDir } from '../sources/lustre-tree.js';
import type { Logger } from '../util/logger.js';
import { refill, type LustreWriter, type SampledTarget, type SettledSource } from './refill.js';

/** What one read found. */
export interface ReadOutcome {
  /** The source exists on this host (lctl printed the parameters, or files were found). */
  readonly found: boolean;
  /** False when a directory could not be listed: the targets not seen are kept, not forgotten. */
  readonly complete: boolean;
}

/** What a collector does in each step of one scrape. */
export interface UpdateSteps {
  begin(): void;
  /** Reads the source into the accumulator. */
  read(signal: AbortSignal): Promise<ReadOutcome>;
  /**
   * Settles the scrape. `complete` is false when the read stopped early (lctl timed out, a directory
   * could not be listed, the scrape was aborted): what it did not reach is kept, not forgotten.
   */
  finish(complete: boolean): Promise<void> | void;
}

/** An accumulator that can say whether it still knows any target (read now, or series until expiry). */
export interface UpdatedSource extends SettledSource<SampledTarget<unknown>> {
  readonly targetCount: number;
}

export async function updateLustre<A extends UpdatedSource>(steps: UpdateSteps, source: A, writer: LustreWriter<A>, signal: AbortSignal): Promise<UpdateOutcome> {
  steps.begin();
  let outcome: ReadOutcome = { found: false, complete: false };
  let failure: { error: unknown } | undefined; // boxed: the error thrown may itself be undefined
  try {
    outcome = await steps.read(signal);
  } catch (err) {
    failure = { error: err };
  }
  // Settle whatever was read even on failure: entries already advanced must not lose increments.
  await steps.finish(failure === undefined && outcome.complete);
  if (failure !== undefined) throw failure.error;
  if (!outcome.found && source.targetCount === 0) {
    writer.clear();
    return 'absent';
  }
  refill(source, writer);
  return 'ok';
}

/**
 * Logs the directories that could not be listed and fails the read of each target among them (its
 * series are kept). Returns whether the read is still complete: false when a directory above the
 * targets was hidden, so the targets not seen must be kept, not forgotten. The caller counts them.
 */
export function failUnlisted(unlisted: readonly UnlistedDir[], logger: Logger, failTarget: (target: TargetDir) => void): boolean {
  for (const { dir, target, error } of unlisted) {
    logger.warn({ path: dir, err: error.message }, 'cannot list Lustre directory');
    if (target) failTarget(target);
  }
  return unlisted.every((u) => u.target !== undefined);
}
