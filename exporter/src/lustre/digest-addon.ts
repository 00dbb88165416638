// Loads the digest addon (native/digest), built by `npm run build`, with this process's seed.
import { randomBytes } from 'node:crypto';
import type * as Addon from '../../../native/digest/index.js';
import { requireRepoAddon } from '../profiler/repo-file.js';

const ADDON = 'native/digest/build/Release/jobio_digest.node';

let loaded: typeof Addon | undefined;
/**
 * Chosen at random when the process starts: the digests are only compared with this process's own, and a
 * local user who puts bytes into a job_stats file (job names) cannot aim at a seed they do not know.
 */
const SEED = randomBytes(8).readBigUInt64LE();

/** XXH64 of the bytes under this process's seed; an Error telling how to build the addon if it is missing. */
export function digestOf(bytes: Uint8Array): bigint {
  loaded ??= requireRepoAddon(ADDON, 'digest') as typeof Addon;
  return loaded.xxh64(bytes, SEED);
}
