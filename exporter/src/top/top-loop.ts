// The refresh loop of `jobio top`: get the interval's increments, build and print the table, wait,
// again, until SIGINT (or once). The screen is cleared only when stdout is a terminal, so piping the
// output gives plain successive tables.
import type { ClientMapper } from './client-map.js';
import { ExporterSource } from './exporter-source.js';
import { noSeriesHint, type Increment, type TopMode } from './increments.js';
import { hasSeries, queryIncrements, queryJobInfo, TopSourceError } from './prometheus-source.js';
import { clientRows, DEFAULT_COLUMNS, formatTable, jobRows, needsJobInfo, sortRows, type SortKey } from './table.js';
import type { JobInfoMap } from './job-info.js';
import { shownUrl } from './url-credentials.js';
import { withoutControlChars } from '../labels/control-chars.js';

export interface TopSettings {
  readonly mode: TopMode;
  readonly prometheus?: string;
  readonly exporters: readonly string[];
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly once: boolean;
  readonly sort: SortKey;
  readonly limit: number;
  readonly time?: number;
  readonly filters: Readonly<Record<string, string | undefined>>;
  readonly mapper?: ClientMapper;
  /** Columns to print (default: DEFAULT_COLUMNS of the mode). */
  readonly columns?: readonly string[];
  /** Stops the loop like SIGINT does (`jobio demo` ends its table this way). */
  readonly stop?: AbortSignal;
}

interface Output {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

const CLEAR = '\x1b[H\x1b[2J';

export async function runTop(settings: TopSettings, out: Output): Promise<number> {
  let stopped = false;
  // Read through a function after each await: the SIGINT handler sets it meanwhile.
  const isStopped = (): boolean => stopped;
  let wake: (() => void) | undefined;
  const onSigint = (): void => {
    stopped = true;
    wake?.();
  };
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  process.on('SIGINT', onSigint);
  settings.stop?.addEventListener('abort', onSigint);
  if (settings.stop?.aborted) stopped = true;
  try {
    const columns = settings.columns ?? DEFAULT_COLUMNS[settings.mode];
    const withInfo = needsJobInfo(columns);
    const prometheus = settings.prometheus;
    const exporters = prometheus === undefined ? new ExporterSource(settings.exporters, settings.mode, settings.filters, settings.timeoutMs, withInfo) : undefined;
    const jobInfo = async (): Promise<JobInfoMap> => {
      if (!withInfo) return new Map();
      if (exporters || prometheus === undefined) return exporters?.jobInfo ?? new Map();
      return queryJobInfo({ url: prometheus, mode: settings.mode, intervalMs: settings.intervalMs, filters: {}, time: settings.time, timeoutMs: settings.timeoutMs });
    };
    const next = async (): Promise<Increment[]> => {
      if (prometheus !== undefined)
        return queryIncrements({ url: prometheus, mode: settings.mode, intervalMs: settings.intervalMs, filters: settings.filters, time: settings.time, timeoutMs: settings.timeoutMs });
      if (!exporters) return []; // never: exporters is built whenever prometheus is not set
      let increments = await exporters.next();
      // The first scrape only gives the starting values: the table covers the next interval.
      while (increments === undefined && !stopped) {
        await sleep(settings.intervalMs);
        if (!isStopped()) increments = await exporters.next();
      }
      return increments ?? [];
    };
    // The sources as printed (passwords as ***), once: the title and the hint name them at every refresh.
    const shownExporters = settings.exporters.map(shownUrl).join(' ');
    const shownSource = settings.prometheus !== undefined ? shownUrl(settings.prometheus) : shownExporters;
    // An empty table reads as an idle file system: say so when the source has nothing to show at all.
    const emptySourceHint = async (): Promise<string | undefined> => {
      if (prometheus === undefined) return exporters?.hasSeries === false ? noSeriesHint(settings.mode, `the --exporter scrape (${shownExporters})`) : undefined;
      const options = { url: prometheus, mode: settings.mode, intervalMs: settings.intervalMs, filters: {}, time: settings.time, timeoutMs: settings.timeoutMs };
      return (await hasSeries(options)) ? undefined : noSeriesHint(settings.mode, `Prometheus at ${shownSource}`);
    };
    for (;;) {
      const increments = await next();
      if (stopped) return 0;
      if (settings.mapper) await settings.mapper.refresh();
      const rows = settings.mapper ? await clientRows(increments, settings.mapper) : jobRows(increments);
      const table = formatTable(sortRows(rows, settings.sort), settings.mode, settings.limit, columns, await jobInfo());
      const warnings = [settings.mapper?.warning, rows.length === 0 ? await emptySourceHint() : undefined].filter((w): w is string => w !== undefined);
      if (settings.once) {
        out.write(table);
        for (const w of warnings) process.stderr.write(`jobio top: ${withoutControlChars(w)}\n`);
        return 0;
      }
      const title = `jobio top — by ${settings.mode}, ${settings.intervalMs / 1000}s interval, ${withoutControlChars(shownSource)} — ${new Date().toISOString()}\n`;
      const warning = warnings.map((w) => `(${withoutControlChars(w)})\n`).join('');
      out.write(`${out.isTTY ? CLEAR : '\n'}${title}${table}${warning}`);
      await sleep(settings.intervalMs);
      if (isStopped()) return 0;
    }
  } catch (err) {
    if (err instanceof TopSourceError) {
      process.stderr.write(`jobio top: ${withoutControlChars(err.message)}\n`);
      return 1;
    }
    throw err;
  } finally {
    process.off('SIGINT', onSigint);
    settings.stop?.removeEventListener('abort', onSigint);
  }
}
