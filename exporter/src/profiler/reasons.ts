// Why calls were red or yellow: the fixed, documented set of reasons (docs/profiler.md "Reasons"),
// each with calls, bytes and estimated time (hints.ts words them for the program that made the
// calls). Most reasons follow from the counts (a successful small transfer is in the small size bin,
// but for the reads there that met the end of a file, which are green; a yellow seek is forward ...);
// the library counts the others (WIRE_REASONS). Per class, the reasons' calls add up to the class's
// calls exactly: what a library older than the reasons could not explain is `unclassified`.
import { CALL_TYPES, CLASSES, SIZE_BINS, WIRE_REASONS, type WireReason } from '../parsers/profiler-wire.js';
import { slot, type Counters } from './counters.js';

export const REASONS = [
  // red
  'small_read',
  'small_write',
  'failed_not_found',
  'failed_permission',
  'failed_call',
  'open_nothing_transferred',
  'stat_unused',
  'backward_seek',
  'zero_seek',
  // yellow
  'open_few_bytes',
  'open_bytes_unseen',
  'stat_used',
  'forward_seek',
  'sync',
  'metadata_change',
  // either class: frames of a library without reasons (wire version 1)
  'unclassified',
] as const;
export type Reason = (typeof REASONS)[number];
export type ReasonClass = 'red' | 'yellow';

export interface ReasonFigure {
  readonly cls: ReasonClass;
  readonly reason: Reason;
  readonly calls: number;
  /** bytes moved by those calls (transfers only; 0 otherwise) */
  readonly bytes: number;
  /** estimated from sampled calls */
  readonly timeNs: number;
}

const RED = CLASSES.indexOf('red');
const YELLOW = CLASSES.indexOf('yellow');
const SMALL = SIZE_BINS.indexOf('small');
const call = (name: (typeof CALL_TYPES)[number]): number => CALL_TYPES.indexOf(name);
const wire = (name: WireReason): number => WIRE_REASONS.indexOf(name);

/**
 * The reasons of one mount's counts (zero ones left out). `network`: the `[network]` pseudo mount,
 * where small transfers are green (so they are no reason).
 */
export function reasonsOf(v: Counters, network = false): ReasonFigure[] {
  const at = (i: number): number => v[i] ?? 0;
  const out: ReasonFigure[] = [];
  const add = (cls: ReasonClass, reason: Reason, calls: number, bytes: number, timeNs: number): void => {
    if (calls > 0) out.push({ cls, reason, calls, bytes, timeNs: Math.max(0, timeNs) });
  };
  const fromWire = (cls: ReasonClass, reason: WireReason): void => add(cls, reason, at(slot.reasonCalls(wire(reason))), 0, at(slot.reasonTimeNs(wire(reason))));
  const classOf = (names: (typeof CALL_TYPES)[number][], k: number): [number, number] =>
    names.reduce<[number, number]>((s, n) => [s[0] + at(slot.calls(call(n), k)), s[1] + at(slot.timeNs(call(n), k))], [0, 0]);

  if (!network) {
    // the small bin's reads but those that met the end of a file (green: counted apart since wire
    // version 7, 0 before, when they were red); never more than the bin holds (a sender's figures)
    const rest = (whole: number, short: number): number => Math.max(0, whole - short);
    add(
      'red',
      'small_read',
      rest(at(slot.sizedCalls(0, SMALL)), at(slot.shortReadCalls)),
      rest(at(slot.sizedBytes(0, SMALL)), at(slot.shortReadBytes)),
      rest(at(slot.sizedTimeNs(0, SMALL)), at(slot.shortReadTimeNs)),
    );
    add('red', 'small_write', at(slot.sizedCalls(1, SMALL)), at(slot.sizedBytes(1, SMALL)), at(slot.sizedTimeNs(1, SMALL)));
  }
  for (const r of ['failed_not_found', 'failed_permission', 'failed_call', 'open_nothing_transferred', 'stat_unused', 'backward_seek', 'zero_seek'] as const) fromWire('red', r);

  const unseen = at(slot.reasonCalls(wire('open_bytes_unseen')));
  const unseenTime = at(slot.reasonTimeNs(wire('open_bytes_unseen')));
  const [opens, openTime] = classOf(['open', 'create'], YELLOW);
  add('yellow', 'open_few_bytes', opens - unseen, 0, openTime - unseenTime);
  fromWire('yellow', 'open_bytes_unseen');
  const yellow = (reason: Reason, names: (typeof CALL_TYPES)[number][]): void => {
    const [n, t] = classOf(names, YELLOW);
    add('yellow', reason, n, 0, t);
  };
  yellow('stat_used', ['access']);
  yellow('forward_seek', ['seek']);
  yellow('sync', ['sync']);
  yellow('metadata_change', ['delete', 'fschange']);

  // whatever the counts hold beyond the reasons (frames of a library without reasons)
  for (const [cls, k] of [
    ['red', RED],
    ['yellow', YELLOW],
  ] as const) {
    const [n, t] = classOf([...CALL_TYPES], k);
    const explained = out.filter((f) => f.cls === cls).reduce((s, f) => s + f.calls, 0);
    const explainedTime = out.filter((f) => f.cls === cls).reduce((s, f) => s + f.timeNs, 0);
    add(cls, 'unclassified', n - explained, 0, t - explainedTime);
  }
  return out;
}
