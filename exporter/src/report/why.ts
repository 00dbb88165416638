// Why a reason matters on a parallel file system (Lustre): one sentence per reason of
// profiler/reasons.ts, for the "why" of a `jobio report` finding. The hint (profiler/hints.ts) says
// what to change; this says what the calls cost the servers that every job shares.
import type { Reason } from '../profiler/reasons.js';

const WHY: Readonly<Record<Reason, string>> = {
  small_read: 'each small read that misses the client cache is a round trip to an OST; many small ones leave the bandwidth unused and queue behind other jobs',
  small_write: 'small writes become small RPCs to the OSTs (or lock traffic when several clients share a file); the servers do the same work per RPC for a few bytes as for a megabyte',
  failed_not_found: 'a failed lookup still costs the metadata server (MDS) a round trip, and every job on the file system waits behind those requests',
  failed_permission: 'a refused call still costs the metadata server a round trip, and the job did not do what it meant to',
  failed_call: 'a failing call still costs a round trip to the servers, and the job did not do what it meant to',
  open_nothing_transferred: 'every open and close is a metadata server (MDS) operation, shared by every job on the file system; an open that moves no byte is all cost',
  stat_unused: 'every stat is a metadata server round trip (and, for the size, one to each OST of the file); stats of files never used are all cost',
  backward_seek: 'reading backwards defeats the client read-ahead: each piece becomes its own small request to the OSTs',
  zero_seek: 'each is a system call for nothing; on Lustre a position query on a shared file can also need a lock',
  open_few_bytes:
    'many small files load the metadata server (an open, close and often a create per file) and each file occupies an inode and OST objects; the servers serve small files far slower than the same bytes in one file',
  open_bytes_unseen:
    'the bytes moved out of sight of the profiler (mmap, asynchronous I/O, another program given the descriptor, an MPI-IO aggregator rank, a directory listing): the volume is unknown, not necessarily bad',
  stat_used: 'each stat of a file is a metadata server round trip (and the size an OST glimpse); usually fine, costly in a loop',
  forward_seek: 'skipping data in a file makes the client fetch ranges it does not need or issue many small requests',
  sync: 'a sync waits until the OSTs have the data on disk, and each one flushes the client cache early: writes become small and the job waits',
  metadata_change: 'deletes, renames, mkdirs, chmods and truncates each change the namespace on the metadata server, which every job shares',
  unclassified: 'reported by a profiler library older than this jobio: the reason is unknown',
};

export function whyFor(reason: string): string {
  return Object.hasOwn(WHY, reason) ? WHY[reason as Reason] : 'a reason this jobio does not know';
}

/** Reasons whose calls are metadata operations on the file system (the servers' load in operations per second). */
const METADATA_REASONS: ReadonlySet<string> = new Set<Reason>([
  'failed_not_found',
  'failed_permission',
  'failed_call',
  'open_nothing_transferred',
  'stat_unused',
  'open_few_bytes',
  'open_bytes_unseen',
  'stat_used',
  'sync',
  'metadata_change',
]);

export const isMetadataReason = (reason: string): boolean => METADATA_REASONS.has(reason);
