// What the exporter keeps of a job_stats entry, as a short list of numbered fields.
//
// docs/metrics.md: `samples` of every operation (operations_total), `sum` of read_bytes/write_bytes
// (read/write_bytes_total) and the latency `sum` of `unit: usecs` lines (operation_seconds_total).
// From 2.14 the `read`/`write` lines count the requests and the `*_bytes` samples are not repeated;
// before 2.14 the `*_bytes` samples are the `read`/`write` operations. min/max/sumsq/hist are dropped.
import type { JobStatsEntryView } from '../parsers/lustre-jobstats.js';
import type { U64 } from '../util/u64.js';

export type FieldKind = 'operations' | 'operation_seconds' | 'read_bytes' | 'write_bytes';

export interface ExportField {
  /** The field's number in its table (the index of its value in every series). */
  readonly id: number;
  readonly kind: FieldKind;
  /** Lustre's operation name (`open`, `read`, `punch`, ...); `read`/`write` for the byte fields. */
  readonly operation: string;
}

/**
 * Numbers the fields in order of first appearance, shared by every target of a collector. Bounded:
 * operation names become label values, and garbage input must not create unlimited series.
 */
export class FieldTable {
  readonly fields: ExportField[] = [];
  // One map per kind, keyed by the (interned) operation name: called for every counter line.
  private readonly index: Record<FieldKind, Map<string, number>> = { operations: new Map(), operation_seconds: new Map(), read_bytes: new Map(), write_bytes: new Map() };

  constructor(private readonly limit = 256) {}

  /** The field's number, or -1 when the table is full. */
  id(kind: FieldKind, operation: string): number {
    const byOperation = this.index[kind];
    const known = byOperation.get(operation);
    if (known !== undefined) return known;
    if (this.fields.length >= this.limit) return -1;
    const id = this.fields.length;
    this.fields.push({ id, kind, operation });
    byOperation.set(operation, id);
    return id;
  }
}

/** Scratch output of entryFields(): parallel arrays, reused for every entry. */
export interface FieldValues {
  count: number;
  readonly ids: number[];
  readonly values: U64[];
  /** Counters whose field could not be numbered (table full). */
  dropped: number;
  /** The plan of the last entry mapped: the next entry nearly always has the same lines. */
  plan?: FieldPlan;
}

/**
 * How the entries of one line layout map to fields: output k is field ids[k], taken from the sum
 * (fromSum[k]) or the samples of line lines[k]. What an entry maps to depends only on its lines'
 * names, units and whether each has a sum, and the table only grows (a number, or -1 once full, never
 * changes), so one plan serves every entry with the same lines without looking up the table again.
 */
interface FieldPlan {
  readonly names: readonly string[];
  readonly units: readonly string[];
  readonly noSum: readonly boolean[];
  readonly ids: number[];
  readonly lines: number[];
  readonly fromSum: boolean[];
  dropped: number;
}

function fits(plan: FieldPlan, entry: JobStatsEntryView): boolean {
  if (plan.names.length !== entry.count) return false;
  for (let i = 0; i < entry.count; i += 1) {
    if (plan.names[i] !== entry.names[i] || plan.units[i] !== entry.units[i] || plan.noSum[i] !== (entry.sums[i] === -1)) return false;
  }
  return true;
}

function add(plan: FieldPlan, id: number, line: number, fromSum: boolean): void {
  if (id < 0) {
    plan.dropped += 1;
    return;
  }
  plan.ids.push(id);
  plan.lines.push(line);
  plan.fromSum.push(fromSum);
}

/** Which fields an entry with these lines keeps (numbering new ones in the table). */
function planFields(entry: JobStatsEntryView, table: FieldTable): FieldPlan {
  const { count } = entry;
  const plan: FieldPlan = {
    names: entry.names.slice(0, count),
    units: entry.units.slice(0, count),
    noSum: entry.sums.slice(0, count).map((sum) => sum === -1),
    ids: [],
    lines: [],
    fromSum: [],
    dropped: 0,
  };
  let hasRead = false;
  let hasWrite = false;
  for (let i = 0; i < count; i += 1) {
    const name = entry.names[i];
    if (name === 'read') hasRead = true;
    else if (name === 'write') hasWrite = true;
  }
  for (let i = 0; i < count; i += 1) {
    const name = entry.names[i]!;
    const hasSum = entry.sums[i] !== -1;
    if (name === 'read_bytes' || name === 'write_bytes') {
      const read = name === 'read_bytes';
      if (hasSum) add(plan, table.id(read ? 'read_bytes' : 'write_bytes', read ? 'read' : 'write'), i, true);
      if (!(read ? hasRead : hasWrite)) add(plan, table.id('operations', read ? 'read' : 'write'), i, false);
      continue;
    }
    add(plan, table.id('operations', name), i, false);
    if (entry.units[i] === 'usecs' && hasSum) add(plan, table.id('operation_seconds', name), i, true);
  }
  return plan;
}

/** Maps one parsed entry to the fields the exporter keeps. */
export function entryFields(entry: JobStatsEntryView, table: FieldTable, out: FieldValues): void {
  let plan = out.plan;
  if (plan === undefined || !fits(plan, entry)) plan = out.plan = planFields(entry, table);
  const { ids, lines, fromSum } = plan;
  for (let k = 0; k < ids.length; k += 1) {
    out.ids[k] = ids[k]!;
    out.values[k] = fromSum[k] ? entry.sums[lines[k]!]! : entry.samples[lines[k]!]!;
  }
  out.count = ids.length;
  out.dropped = plan.dropped;
}
