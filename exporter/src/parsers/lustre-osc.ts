// Parsers of a Lustre client's view of each OST (its OSC device, `osc.<fs>-OST<idx>-osc-<instance>`):
//
// `rpc_stats`: the RPCs in flight and pages waiting now, then read/write tables in brw_stats' layout
//   read RPCs in flight:  0
//   pending write pages:  0
//   			read			write
//   pages per rpc         rpcs   % cum % |       rpcs   % cum %
//   1:		    100395  88  88   |     320551  84  84
// "pages per rpc" is log2 (a row holds the RPCs of up to that many pages), "rpcs in flight" linear
// (the RPCs in flight, this one included, when one was sent; Lustre's last bucket holds every larger
// value). Other tables ("offset", "RPC latency (us)" of newer versions) are skipped.
// `state`: the import's state, `current_state: FULL`, then its recent history (not read).
// Never throws: a line of no known shape is counted in `badLines`.
import { parseRwHistograms, type RwHistograms } from './lustre-brw-stats.js';

export const OSC_HISTOGRAM_TITLES = {
  'pages per rpc': 'rpc_pages',
  'rpcs in flight': 'rpcs_in_flight',
} as const;

export type OscHistogramKind = (typeof OSC_HISTOGRAM_TITLES)[keyof typeof OSC_HISTOGRAM_TITLES];

export type Direction = 'read' | 'write';

export interface OscRpcStats extends RwHistograms<OscHistogramKind> {
  /** RPCs in flight now, by direction (`read RPCs in flight:`), when printed. */
  readonly active: Partial<Record<Direction, number>>;
  /** Pages waiting to be sent, by direction (`pending read pages:`), when printed. */
  readonly pending: Partial<Record<Direction, number>>;
}

const ACTIVE = /^(read|write) RPCs in flight:\s+(\d{1,20})$/;
const PENDING = /^pending (read|write) pages:\s+(\d{1,20})$/;
// Printed by newer versions, not exported: direct I/O RPCs in flight (2.15+).
const OTHER_SCALAR = /^DIO RPCs in flight:\s+\d{1,20}$/;

export function parseOscRpcStats(text: string): OscRpcStats {
  const active: Partial<Record<Direction, number>> = {};
  const pending: Partial<Record<Direction, number>> = {};
  const scalar = (line: string): boolean => {
    const a = ACTIVE.exec(line);
    if (a?.[1] && a[2]) active[a[1] as Direction] = Number(a[2]);
    const p = PENDING.exec(line);
    if (p?.[1] && p[2]) pending[p[1] as Direction] = Number(p[2]);
    return a !== null || p !== null || OTHER_SCALAR.test(line);
  };
  const tables = parseRwHistograms(text, OSC_HISTOGRAM_TITLES, scalar);
  return { ...tables, active, pending };
}

/** Import states (`LUSTRE_IMP_*` of lustre_import.h, as `ptlrpc_import_state_name()` prints them). */
export const IMPORT_STATES = ['CLOSED', 'NEW', 'DISCONN', 'CONNECTING', 'REPLAY', 'REPLAY_LOCKS', 'REPLAY_WAIT', 'RECOVER', 'FULL', 'EVICTED', 'IDLE'] as const;

export type ImportState = (typeof IMPORT_STATES)[number];

const CURRENT_STATE = /^current_state:\s+([A-Z_]+)\s*$/m;

/** The current state of an OSC's `state` file; undefined when there is none of a known name. */
export function parseOscState(text: string): ImportState | undefined {
  const state = CURRENT_STATE.exec(text)?.[1];
  return (IMPORT_STATES as readonly string[]).includes(state ?? '') ? (state as ImportState) : undefined;
}

/** `a361000-OST0003-osc-ffff000189257000` → `a361000-OST0003` (the OST the OSC talks to); undefined for another name. */
export function oscTarget(device: string): string | undefined {
  return /^(.+-OST[0-9a-fA-F]{4})-osc-[^.]+$/.exec(device)?.[1];
}
