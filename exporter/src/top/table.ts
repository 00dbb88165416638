// The rows of `jobio top` and their text: lltop's columns `JOB WR_MB RD_MB REQS OWNER`, plus the
// requests on metadata targets (MDT_REQS) and how many targets (and, per client, hosts) the job
// touched. In the line mode MB are MiB (2^20 bytes) over the window, as lltop prints them; the
// full-screen mode shows the same columns as rates with scaled units (units.ts).
import type { ClientMapper } from './client-map.js';
import type { JobInfoMap } from './job-info.js';
import type { Increment, TopMode } from './increments.js';
import { NONE, OTHER } from '../labels/reserved.js';
import { byteRate, countRate } from './units.js';
import { withoutControlChars } from '../labels/control-chars.js';

export interface TopRow {
  readonly job: string;
  wr: number;
  rd: number;
  reqs: number;
  /** Requests on metadata targets (MDTs): the load that slows every job's opens and stats. */
  meta: number;
  readonly owners: Set<string>;
  readonly targets: Set<string>;
  readonly hosts: Set<string>;
  /** Rows folded into this one (fold.ts), 1 for a row of its own. */
  entries: number;
}

/** `--sort` keys, each the column it sorts. `meta` first: the default, the load that hurts most. */
export const SORT_COLUMN = { meta: 'MDT_REQS', reqs: 'REQS', wr: 'WR_MB', rd: 'RD_MB', job: 'JOB' } as const;
export type SortKey = keyof typeof SORT_COLUMN;
export const SORT_KEYS = Object.keys(SORT_COLUMN) as SortKey[];

const isMdt = (target: string): boolean => /-MDT[0-9a-f]{4}/i.test(target);

export function emptyRow(job: string): TopRow {
  return { job, wr: 0, rd: 0, reqs: 0, meta: 0, owners: new Set(), targets: new Set(), hosts: new Set(), entries: 1 };
}

function rowFor(rows: Map<string, TopRow>, job: string): TopRow {
  let row = rows.get(job);
  if (!row) {
    row = emptyRow(job);
    rows.set(job, row);
  }
  return row;
}

function add(row: TopRow, inc: Increment): void {
  const target = inc.labels.target;
  if (inc.measure === 'write') row.wr += inc.value;
  else if (inc.measure === 'read') row.rd += inc.value;
  else {
    row.reqs += inc.value;
    if (target !== undefined && isMdt(target)) row.meta += inc.value;
  }
  if (target !== undefined) row.targets.add(target);
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

/** Job ids in numeric order where they are numbers (9 before 10), then as text. */
export const compareJobs = (a: TopRow, b: TopRow): number => a.job.localeCompare(b.job, 'en', { numeric: true });

/** The order of "hurts most": metadata requests, then all requests, then bytes moved. */
export const byHurt = (a: TopRow, b: TopRow): number => b.meta - a.meta || b.reqs - a.reqs || b.wr + b.rd - (a.wr + a.rd);

const mib = (bytes: number): string => (bytes / 1048576).toFixed(1);
const names = (values: Iterable<string>): string => [...values].sort().join(',') || '-';

interface Column {
  readonly numeric: boolean;
  readonly modes: readonly TopMode[];
  /** The line mode's cell (lltop's units over the window). */
  cell(row: TopRow, info: JobInfoMap): string;
  /** The full-screen header and cell (rates over `seconds`), when they differ from the line mode's. */
  readonly screen?: { readonly header: string; cell(row: TopRow, seconds: number): string };
  /** What the column sorts by (numbers descending, text ascending). */
  sortValue(row: TopRow, info: JobInfoMap): number | string;
}

const rate = (value: number, seconds: number): number => (seconds > 0 ? value / seconds : 0);

/** Every column `--columns` may name. ACCOUNT and WORKDIR come from jobio_job_info. */
export const COLUMNS: Readonly<Partial<Record<string, Column>>> = {
  JOB: { numeric: false, modes: ['job', 'client'], cell: (r) => r.job, sortValue: (r) => r.job },
  WR_MB: { numeric: true, modes: ['job', 'client'], cell: (r) => mib(r.wr), screen: { header: 'WRITE/s', cell: (r, s) => byteRate(rate(r.wr, s)) }, sortValue: (r) => r.wr },
  RD_MB: { numeric: true, modes: ['job', 'client'], cell: (r) => mib(r.rd), screen: { header: 'READ/s', cell: (r, s) => byteRate(rate(r.rd, s)) }, sortValue: (r) => r.rd },
  REQS: { numeric: true, modes: ['job', 'client'], cell: (r) => String(Math.round(r.reqs)), screen: { header: 'REQS/s', cell: (r, s) => countRate(rate(r.reqs, s)) }, sortValue: (r) => r.reqs },
  MDT_REQS: {
    numeric: true,
    modes: ['job', 'client'],
    cell: (r) => String(Math.round(r.meta)),
    screen: { header: 'MDT_REQS/s', cell: (r, s) => countRate(rate(r.meta, s)) },
    sortValue: (r) => r.meta,
  },
  OWNER: { numeric: false, modes: ['job', 'client'], cell: (r) => names(r.owners), sortValue: (r) => names(r.owners) },
  ACCOUNT: { numeric: false, modes: ['job', 'client'], cell: (r, info) => names(info.get(r.job)?.accounts ?? []), sortValue: (r, info) => names(info.get(r.job)?.accounts ?? []) },
  HOSTS: { numeric: true, modes: ['client'], cell: (r) => String(r.hosts.size), sortValue: (r) => r.hosts.size },
  TARGETS: { numeric: true, modes: ['job', 'client'], cell: (r) => String(r.targets.size), sortValue: (r) => r.targets.size },
  WORKDIR: { numeric: false, modes: ['job', 'client'], cell: (r, info) => names(info.get(r.job)?.workDirs ?? []), sortValue: (r, info) => names(info.get(r.job)?.workDirs ?? []) },
};

function column(name: string): Column {
  const c = COLUMNS[name];
  if (c === undefined) throw new Error(`unknown column ${name}`); // parseColumns checked the flag
  return c;
}

/**
 * Rows sorted by a column (a --sort key or a column name): numbers largest first, text in order;
 * ties by what hurts most, then by job. `reversed` turns the whole order around.
 */
export function sortRows(rows: TopRow[], key: string, info: JobInfoMap = new Map(), reversed = false): TopRow[] {
  const c = column((SORT_COLUMN as Record<string, string>)[key] ?? key);
  const order = (a: TopRow, b: TopRow): number => {
    const va = c.sortValue(a, info);
    const vb = c.sortValue(b, info);
    const primary = typeof va === 'number' && typeof vb === 'number' ? vb - va : String(va).localeCompare(String(vb), 'en', { numeric: true });
    return primary || byHurt(a, b) || compareJobs(a, b);
  };
  return rows.sort(reversed ? (a, b) => order(b, a) : order);
}

/** The columns printed when --columns is not given (lltop's, plus MDT_REQS and HOSTS per client). */
export const DEFAULT_COLUMNS: Record<TopMode, readonly string[]> = {
  job: ['JOB', 'WR_MB', 'RD_MB', 'REQS', 'MDT_REQS', 'OWNER', 'TARGETS'],
  client: ['JOB', 'WR_MB', 'RD_MB', 'REQS', 'MDT_REQS', 'OWNER', 'HOSTS', 'TARGETS'],
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

/** Header and cells of the rows, per column, in the line mode's units or as the screen's rates. */
export function tableCells(rows: readonly TopRow[], columns: readonly string[], info: JobInfoMap, screenSeconds?: number): { header: string[]; cells: string[][]; numeric: boolean[] } {
  const cols = columns.map(column);
  const header = columns.map((name, i) => (screenSeconds !== undefined ? (cols[i]?.screen?.header ?? name) : name));
  // Label values are whatever a source served: no control character of theirs reaches the terminal.
  const cells = rows.map((r) => cols.map((c) => withoutControlChars(screenSeconds !== undefined && c.screen ? c.screen.cell(r, screenSeconds) : c.cell(r, info))));
  return { header, cells, numeric: cols.map((c) => c.numeric) };
}

/** Aligned lines: numbers right-aligned, names left-aligned, like lltop. */
export function alignedLines(header: readonly string[], cells: readonly (readonly string[])[], numeric: readonly boolean[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: readonly string[]): string =>
    c
      .map((v, i) => (numeric[i] ? v.padStart(widths[i] ?? 0) : v.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...cells.map(line)];
}

/** The table text; `limit` 0 prints every row. */
export function formatTable(rows: readonly TopRow[], mode: TopMode, limit: number, columns: readonly string[] = DEFAULT_COLUMNS[mode], info: JobInfoMap = new Map()): string {
  const shown = limit > 0 ? rows.slice(0, limit) : rows;
  const { header, cells, numeric } = tableCells(shown, columns, info);
  return alignedLines(header, cells, numeric).join('\n') + '\n';
}
