// Read and write bytes of every Lustre client mount of this node, read once from the llite stats files
// (for `jobio run`, which compares two such readings around its command). Exact: bigint.
import { readFileSync } from 'node:fs';
import { parseLustreStats } from '../parsers/lustre-stats.js';
import { findLliteStatsFilesSync, readLustreMountsSync } from '../sources/lustre-client-files.js';
import type { Paths } from '../util/paths.js';
import { clientPlace, mountsByFs, type ClientPlace } from './client-book.js';

export interface ClientBytes extends ClientPlace {
  readonly readBytes: bigint;
  readonly writeBytes: bigint;
}

/** Place key → bytes; empty on a node without a Lustre client (or whose llite files are not readable). */
export function readClientBytes(paths: Paths): Map<string, ClientBytes> {
  // Synchronous: read once before CMD starts, where an asynchronous walk only delays it.
  const files = findLliteStatsFilesSync(paths);
  const byFs = mountsByFs(files.length > 0 ? readLustreMountsSync(paths) : []);
  const out = new Map<string, ClientBytes>();
  for (const file of files) {
    let section;
    try {
      [section] = parseLustreStats(readFileSync(file.path));
    } catch {
      continue; // unmounted meanwhile, or not readable by this user
    }
    const sum = (name: string): bigint => section?.counters.find((c) => c.name === name)?.sum ?? 0n;
    const { key, ...place } = clientPlace(file.target, byFs);
    out.set(key, { ...place, readBytes: sum('read_bytes'), writeBytes: sum('write_bytes') });
  }
  return out;
}

export interface ClientDelta extends ClientPlace {
  /** undefined when the mount was remounted (or its stats cleared) between the readings. */
  readonly readBytes: bigint | undefined;
  readonly writeBytes: bigint | undefined;
}

/** What moved between two readings, per mount present in the second. */
export function clientDeltas(before: ReadonlyMap<string, ClientBytes>, after: ReadonlyMap<string, ClientBytes>): ClientDelta[] {
  const out: ClientDelta[] = [];
  for (const [key, a] of after) {
    const b = before.get(key);
    const same = b !== undefined && b.instance === a.instance && a.readBytes >= b.readBytes && a.writeBytes >= b.writeBytes;
    out.push({ fs: a.fs, mount: a.mount, instance: a.instance, readBytes: same ? a.readBytes - b.readBytes : undefined, writeBytes: same ? a.writeBytes - b.writeBytes : undefined });
  }
  return out;
}
