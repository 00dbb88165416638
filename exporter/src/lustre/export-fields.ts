// What the exporter keeps of a job_stats entry, as a short list of numbered fields.
//
// docs/metrics.md: `samples` of every operation (operations_total), `sum` of read_bytes/write_bytes
// (read/write_bytes_total) and the latency `sum` of `unit: usecs` lines (operation_seconds_total).
// From 2.14 the `read`/`write` lines count the requests and the `*_bytes` samples are not repeated;
// before 2.14 the `*_bytes` samples are the `read`/`write` operations. min/max/sumsq/hist are dropped.
import type { JobStatsEntryView } from '../parsers/lustre-jobstats.js';
import type { U64 } from './u64.js';

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
}

function push(out: FieldValues, id: number, value: U64): void {
  if (id < 0) {
    out.dropped += 1;
    return;
  }
  out.ids[out.count] = id;
  out.values[out.count] = value;
  out.count += 1;
}

/** Maps one parsed entry to the fields the exporter keeps. */
export function entryFields(entry: JobStatsEntryView, table: FieldTable, out: FieldValues): void {
  out.count = 0;
  out.dropped = 0;
  let hasRead = false;
  let hasWrite = false;
  for (let i = 0; i < entry.count; i += 1) {
    const name = entry.names[i];
    if (name === 'read') hasRead = true;
    else if (name === 'write') hasWrite = true;
  }
  for (let i = 0; i < entry.count; i += 1) {
    const name = entry.names[i]!;
    const samples = entry.samples[i]!;
    const sum = entry.sums[i]!;
    if (name === 'read_bytes' || name === 'write_bytes') {
      const read = name === 'read_bytes';
      if (sum !== -1) push(out, table.id(read ? 'read_bytes' : 'write_bytes', read ? 'read' : 'write'), sum);
      if (!(read ? hasRead : hasWrite)) push(out, table.id('operations', read ? 'read' : 'write'), samples);
      continue;
    }
    push(out, table.id('operations', name), samples);
    if (entry.units[i] === 'usecs' && sum !== -1) push(out, table.id('operation_seconds', name), sum);
  }
}
