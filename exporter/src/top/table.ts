// The rows of `jobio top` and their text: lltop's columns `JOB WR_MB RD_MB REQS OWNER`, plus how many
// targets (and, per client, hosts) the job touched. MB are MiB (2^20 bytes), as lltop prints them.
import type { ClientMapper } from './client-map.js';
import type { JobInfoMap } from './job-info.js';
import type { Increment, TopMode } from './increments.js';
import { NONE, OTHER } from '../labels/reserved.js';
import { withoutControlChars } from '../labels/control-chars.js';

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
const names = (values: Iterable<string>): string => [...values].sort().join(',') || '-';

interface Column {
  readonly numeric: boolean;
  readonly modes: readonly TopMode[];
  cell(row: TopRow, info: JobInfoMap): string;
}

/** Every column `--columns` may name. ACCOUNT and WORKDIR come from jobio_job_info. */
export const COLUMNS: Readonly<Partial<Record<string, Column>>> = {
  JOB: { numeric: false, modes: ['job', 'client'], cell: (r) => r.job },
  WR_MB: { numeric: true, modes: ['job', 'client'], cell: (r) => mib(r.wr) },
  RD_MB: { numeric: true, modes: ['job', 'client'], cell: (r) => mib(r.rd) },
  REQS: { numeric: true, modes: ['job', 'client'], cell: (r) => String(Math.round(r.reqs)) },
  OWNER: { numeric: false, modes: ['job', 'client'], cell: (r) => names(r.owners) },
  ACCOUNT: { numeric: false, modes: ['job', 'client'], cell: (r, info) => names(info.get(r.job)?.accounts ?? []) },
  HOSTS: { numeric: true, modes: ['client'], cell: (r) => String(r.hosts.size) },
  TARGETS: { numeric: true, modes: ['job', 'client'], cell: (r) => String(r.targets.size) },
  WORKDIR: { numeric: false, modes: ['job', 'client'], cell: (r, info) => names(info.get(r.job)?.workDirs ?? []) },
};

/** The columns printed when --columns is not given (lltop's, plus HOSTS per client). */
export const DEFAULT_COLUMNS: Record<TopMode, readonly string[]> = {
  job: ['JOB', 'WR_MB', 'RD_MB', 'REQS', 'OWNER', 'TARGETS'],
  client: ['JOB', 'WR_MB', 'RD_MB', 'REQS', 'OWNER', 'HOSTS', 'TARGETS'],
};

/** True when a column needs jobio_job_info. */
export const needsJobInfo = (columns: readonly string[]): boolean => columns.includes('ACCOUNT') || columns.includes('WORKDIR');

/** Checks a --columns list for a mode; the error names what is allowed. */
export function parseColumns(text: string, mode: TopMode): string[] {
  const list = text
    .split(',')
    .map((c) => c.trim().toUpperCase())
    .filter((c) => c !== '');
  const allowed = Object.entries(COLUMNS)
    .filter(([, c]) => c?.modes.includes(mode))
    .map(([name]) => name);
  const bad = list.filter((c) => !allowed.includes(c));
  if (list.length === 0 || bad.length > 0) throw new Error(`--columns: ${list.length === 0 ? 'no column given' : `unknown column ${bad.join(', ')}`} (with --by ${mode}: ${allowed.join(', ')})`);
  const twice = list.find((c, i) => list.indexOf(c) !== i);
  if (twice !== undefined) throw new Error(`--columns: ${twice} given twice`);
  return list;
}

/** The table text; `limit` 0 prints every row. */
export function formatTable(rows: readonly TopRow[], mode: TopMode, limit: number, columns: readonly string[] = DEFAULT_COLUMNS[mode], info: JobInfoMap = new Map()): string {
  const shown = limit > 0 ? rows.slice(0, limit) : rows;
  const cols = columns.map((name) => {
    const column = COLUMNS[name];
    if (column === undefined) throw new Error(`unknown column ${name}`); // parseColumns checked the flag
    return column;
  });
  // Label values are whatever a source served: no control character of theirs reaches the terminal.
  const cells = shown.map((r) => cols.map((c) => withoutControlChars(c.cell(r, info))));
  const widths = columns.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  // Numbers right-aligned, names left-aligned, like lltop.
  const line = (c: readonly string[]): string =>
    c
      .map((v, i) => (cols[i]?.numeric ? v.padStart(widths[i] ?? 0) : v.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(columns), ...cells.map(line)].join('\n') + '\n';
}
