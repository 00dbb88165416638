// The part of `jobio run`'s summary that compares the profiler with the node's Lustre client: per
// Lustre mount, the bytes the client moved while the command ran (llite stats read before and after)
// and the share of them the profiler saw. The client counts every process of the node, so other work on
// a shared node lowers the share; on a node of its own, a low share means I/O the profiler cannot see
// (static or setuid programs, io_uring, mmap).
import type { ClientDelta } from '../lustre/client-bytes.js';
import { humanBytes, table } from './run-summary.js';

/** `profilerBytes`: read + write bytes the profiler counted per mount point. */
export function formatCoverage(deltas: readonly ClientDelta[], profilerBytes: ReadonlyMap<string, number>): string {
  if (deltas.length === 0) return '';
  const rows = [['lustre mount', 'fs', 'client read', 'client write', 'profiler read+write', 'coverage']];
  for (const d of deltas) {
    const seen = profilerBytes.get(d.mount) ?? 0;
    if (d.readBytes === undefined || d.writeBytes === undefined) {
      rows.push([d.mount, d.fs, '-', '-', humanBytes(seen), 'remounted during the run']);
      continue;
    }
    const client = d.readBytes + d.writeBytes;
    const coverage = client > 0n ? `${((seen / Number(client)) * 100).toFixed(1)} %` : '- (no client I/O)';
    rows.push([d.mount, d.fs, humanBytes(Number(d.readBytes)), humanBytes(Number(d.writeBytes)), humanBytes(seen), coverage]);
  }
  return `\nprofiler coverage against this node's Lustre client (llite stats of all the node's processes):\n${table(rows)}\n`;
}
