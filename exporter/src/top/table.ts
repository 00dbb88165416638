// The rows of `jobio top` and their text: lltop's columns `JOB WR_MB RD_MB REQS OWNER`, plus how many
// targets (and, per client, hosts) the job touched. MB are MiB (2^20 bytes), as lltop prints them.
import type { ClientMapper } from './client-map.js';
import type { Increment, TopMode } from './increments.js';
import { NONE, OTHER } from '../labels/reserved.js';

export interface TopRow {
  readonly job: string;
  wr: number;
  rd: number;
  reqs: number;
  readonly owners: Set<string>;
  readonly targets: Set<string>;
  readonly hosts: Set<string>;
}

export const SORT_KEYS = ['wr', 'rd', 'reqs', 'job'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

function rowFor(rows: Map<string, TopRow>, job: string): TopRow {
  let row = rows.get(job);
  if (!row) {
    row = { job, wr: 0, rd: 0, reqs: 0, owners: new Set(), targets: new Set(), hosts: new Set() };
    rows.set(job, row);
  }
  return row;
}

function add(row: TopRow, inc: Increment): void {
  if (inc.measure === 'write') row.wr += inc.value;
  else if (inc.measure === 'read') row.rd += inc.value;
  else row.reqs += inc.value;
  if (inc.labels.target !== undefined) row.targets.add(inc.labels.target);
}

/** Per-job rows from jobstats increments (jobid, user, target labels). */
export function jobRows(increments: readonly Increment[]): TopRow[] {
  const rows = new Map<string, TopRow>();
  for (const inc of increments) {
    const row = rowFor(rows, inc.labels.jobid ?? NONE);
    add(row, inc);
    if (inc.labels.user !== undefined) row.owners.add(inc.labels.user);
  }
  return [...rows.values()];
}

/** Per-job rows from export increments: NID → host → job through the mapper. */
export async function clientRows(increments: readonly Increment[], mapper: ClientMapper): Promise<TopRow[]> {
  const rows = new Map<string, TopRow>();
  for (const inc of increments) {
    const nid = inc.labels.client ?? OTHER;
    const host = nid === OTHER ? OTHER : await mapper.host(nid);
    const { job, owner } = nid === OTHER ? { job: OTHER, owner: '-' } : mapper.job(host);
    const row = rowFor(rows, job);
    add(row, inc);
    row.owners.add(owner);
    row.hosts.add(host);
  }
  return [...rows.values()];
}

export function sortRows(rows: TopRow[], key: SortKey): TopRow[] {
  const byJob = (a: TopRow, b: TopRow): number => (a.job < b.job ? -1 : a.job > b.job ? 1 : 0);
  return rows.sort((a, b) => (key === 'job' ? byJob(a, b) : b[key] - a[key] || byJob(a, b)));
}

const mib = (bytes: number): string => (bytes / 1048576).toFixed(1);

/** The table text; `limit` 0 prints every row. */
export function formatTable(rows: readonly TopRow[], mode: TopMode, limit: number): string {
  const header = mode === 'client' ? ['JOB', 'WR_MB', 'RD_MB', 'REQS', 'OWNER', 'HOSTS', 'TARGETS'] : ['JOB', 'WR_MB', 'RD_MB', 'REQS', 'OWNER', 'TARGETS'];
  const shown = limit > 0 ? rows.slice(0, limit) : rows;
  const cells = shown.map((r) => {
    const owner = [...r.owners].sort().join(',') || '-';
    const base = [r.job, mib(r.wr), mib(r.rd), String(Math.round(r.reqs)), owner];
    return mode === 'client' ? [...base, String(r.hosts.size), String(r.targets.size)] : [...base, String(r.targets.size)];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  // Numbers right-aligned, names left-aligned, like lltop.
  const numeric = new Set([1, 2, 3, ...(mode === 'client' ? [5, 6] : [5])]);
  const line = (c: readonly string[]): string => c.map((v, i) => (numeric.has(i) ? v.padStart(widths[i] ?? 0) : v.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [line(header), ...cells.map(line)].join('\n') + '\n';
}
