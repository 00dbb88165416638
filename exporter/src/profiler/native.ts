// Loads the receiver addon (native/seqpacket), built by `npm run build`. Synchronous so that a
// collector can bind its socket while it is created.
import type * as Addon from '../../../native/seqpacket/index.js';
import { requireRepoAddon } from './repo-file.js';

export type { SeqpacketEvent, SeqpacketServer, SeqpacketServerStats, ChildrenUsage } from '../../../native/seqpacket/index.js';
export type SeqpacketAddon = typeof Addon;

const ADDON = 'native/seqpacket/build/Release/jobio_seqpacket.node';

let loaded: SeqpacketAddon | undefined;

/** The addon, or an Error telling how to build it. */
export function loadSeqpacketAddon(): SeqpacketAddon {
  loaded ??= requireRepoAddon(ADDON, 'socket receiver') as SeqpacketAddon;
  return loaded;
}
