// Finds and reads the job_stats pseudo-files of the Lustre targets on this host:
// `<root>/{mdt,obdfilter}/<target>/job_stats` under the roots of lustre-tree.ts.
import { join } from 'node:path';
import type { Paths } from '../util/paths.js';
import type { TargetReader, TargetRef } from './jobstats-accumulator.js';
import { findTargets, type FoundTargets } from '../sources/lustre-tree.js';
import { streamPseudoFile, type StreamResult } from '../util/pseudo-files.js';
import { readErrorReason, type CutReason } from './error-reasons.js';

export const JOBSTATS_KINDS = ['mdt', 'obdfilter'] as const;

export interface JobStatsFile {
  readonly ref: TargetRef;
  readonly path: string;
}

/**
 * The job_stats files present, one per target, and the directories that could not be listed. A target
 * directory in `known` (by the directory: its job_stats was read last scrape) is not listed again: the read itself tells
 * whether the file is still there (gone: the caller counts the target absent and forgets it here).
 */
export function findJobStatsFiles(paths: Paths, known: ReadonlyMap<string, JobStatsFile> = new Map()): Promise<FoundTargets<JobStatsFile>> {
  // Listing a target's directory tells us the target has job_stats at all; one listing per target
  // and scrape was a fifth of an idle scrape's cost with 1,000 targets.
  return findTargets(
    paths,
    JOBSTATS_KINDS,
    ({ kind, target, dir }, entries) => (entries.includes('job_stats') ? [{ ref: { kind, name: target }, path: join(dir, 'job_stats') }] : []),
    undefined,
    (dir) => {
      const file = known.get(dir);
      return file && [file];
    },
  );
}

/** Two chunk buffers of one length, reused from file to file: one is parsed while the other is read into. */
export interface ChunkBuffers {
  readonly buffer: Buffer;
  readonly spare: Buffer;
}

/** How one file's read ended. */
export type JobStatsReadOutcome = { readonly bytes: number; readonly cut: CutReason | undefined } | { readonly gone: true } | { readonly error: Error };

/**
 * Streams one file into `reader`, in bounded chunks, up to maxBytes or until `expired()` says the
 * read's time is up after a chunk (then the read is cut and the reader told why). seq_file gives one
 * consistent pass per open. A file gone meanwhile (target unmounted) leaves the reader unused; a FIFO,
 * device or failed read is an error for this target only.
 */
export async function readJobStatsFile(
  file: JobStatsFile,
  reader: TargetReader,
  maxBytes: number,
  signal?: AbortSignal,
  buffers?: ChunkBuffers,
  expired: () => boolean = () => false,
  whole?: WholeRead,
): Promise<JobStatsReadOutcome> {
  try {
    // Set in the callback: boxes, so the checks after the await are not narrowed to their initial values.
    const late = { value: false };
    const again = { value: false };
    // The file may hold the bytes of the last read: it goes through the probe first. Changed in its
    // first chunk (a small file, the first MiB of a big one), that chunk goes on to the parser and the
    // read goes on; changed further on, the file is read again from its start into the parser (seq_file
    // gives one consistent pass per open): at most the bytes up to the first changed chunk twice.
    let probe = reader.probe;
    const onChunk = (chunk: Buffer): boolean | undefined => {
      if (probe && !probe.push(chunk)) {
        const first = probe.chunks === 1;
        probe = undefined;
        if (!first) {
          again.value = true;
          return false;
        }
      }
      if (!probe) reader.push(chunk);
      late.value = lateAfter(chunk);
      return late.value ? false : undefined;
    };
    // A read made already (whole, on the small-files worker) is the first pass: its time was taken there.
    let lateAfter = whole ? (chunk: Buffer): boolean => whole.late && chunk === whole.chunks.at(-1) : expired;
    let result = whole ? replay(whole, onChunk, signal) : await streamPseudoFile(file.path, onChunk, { signal, maxBytes, ...buffers });
    lateAfter = expired;
    if (probe && !late.value) {
      if (!result.truncated && probe.end()) return { bytes: result.bytes, cut: undefined };
      // Every chunk was the same, yet the file was not (it ended sooner, or reached max-file-bytes).
      again.value = true;
    }
    if (again.value) {
      probe = undefined;
      result = await streamPseudoFile(file.path, onChunk, { signal, maxBytes, ...buffers });
    }
    const cut = late.value ? 'timeout' : result.truncated ? 'max_file_bytes' : undefined;
    reader.end(cut);
    return { bytes: result.bytes, cut };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { gone: true };
    reader.fail(readErrorReason(err));
    if (signal?.aborted) throw err;
    return { error: err as Error };
  }
}

/** A file read whole elsewhere: its chunks as its reads returned them, and whether its time was up after the last. */
export interface WholeRead {
  readonly chunks: readonly Buffer[];
  readonly late: boolean;
}

/** Hands a whole read's chunks to `onChunk` as streamPseudoFile would have (it may stop them early). */
function replay(whole: WholeRead, onChunk: (chunk: Buffer) => boolean | undefined, signal: AbortSignal | undefined): StreamResult {
  let bytes = 0;
  for (const chunk of whole.chunks) {
    signal?.throwIfAborted();
    bytes += chunk.length;
    if (onChunk(chunk) === false) return { bytes, truncated: true };
  }
  return { bytes, truncated: false };
}
