// Loads the receiver addon (native/seqpacket), built by `npm run build`. Synchronous so that a
// collector can bind its socket while it is created.
import { createRequire } from 'node:module';
import type * as Addon from '../../../native/seqpacket/index.js';
import { findRepoFile } from './repo-file.js';

export type { SeqpacketEvent, SeqpacketServer, SeqpacketServerStats, ChildrenUsage } from '../../../native/seqpacket/index.js';
export type SeqpacketAddon = typeof Addon;

const ADDON = 'native/seqpacket/build/Release/jobio_seqpacket.node';

let loaded: SeqpacketAddon | undefined;

/** The addon, or an Error telling how to build it. */
export function loadSeqpacketAddon(): SeqpacketAddon {
  if (loaded) return loaded;
  const path = findRepoFile(ADDON);
  if (!path) throw new Error(`the socket receiver addon is not built (${ADDON} not found): run \`npm run build\` in the jobio checkout`);
  loaded = createRequire(import.meta.url)(path) as SeqpacketAddon;
  return loaded;
}
