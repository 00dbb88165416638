// `jobio top`: lltop's table (`JOB WR_MB RD_MB REQS OWNER …`) of the Lustre load over an interval,
// from a Prometheus server (increase() of the exporter counters over a window it can answer) or
// straight from exporters (two scrapes an interval apart). `--by job` uses lustre_jobstats; `--by
// client` uses lustre_exports and maps NID → host → job (docs/architecture.md "Per-client export
// stats"). On a terminal a full-screen view with keys, like top; plain tables when piped, with
// --batch, or once with --once.
// Exit codes: 0 done, 1 the source failed (unreachable Prometheus, …), 2 usage error.
import { Command, InvalidArgumentError, Option } from 'commander';
import { parseDuration } from '../util/duration.js';
import { ClientMapper, DEFAULT_JOB_MAP_COMMAND } from '../top/client-map.js';
import type { TopSettings } from '../top/settings.js';
import { runTop } from '../top/top-loop.js';
import { COLUMNS, parseColumns, SORT_KEYS, type SortKey } from '../top/table.js';

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** A duration flag's default written once, as text: commander gets its value and its help shows the text. */
export function durationDefault(text: string): [number, string] {
  return [duration(text), text];
}

/** A commander argument parser: a duration of at least 1 s (also used by `jobio demo`). */
export function duration(text: string): number {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
  if (ms < 1000) throw new InvalidArgumentError(`"${text}" is shorter than 1s`);
  return ms;
}

function limit(text: string): number {
  if (!/^\d+$/.test(text)) throw new InvalidArgumentError(`"${text}" is not a whole number (0 = no limit)`);
  return Number(text);
}

function sortKey(text: string): SortKey {
  if (!(SORT_KEYS as readonly string[]).includes(text)) throw new InvalidArgumentError(`"${text}" is not one of ${SORT_KEYS.join(', ')}`);
  return text as SortKey;
}

/** Unix seconds or an RFC 3339 date, as Prometheus accepts for `time`. */
export function evalTime(text: string): number {
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Date.parse(text) / 1000;
  if (!Number.isFinite(value)) throw new InvalidArgumentError(`"${text}" is neither Unix seconds nor an RFC 3339 date`);
  return value;
}

/**
 * An http(s) URL from what was typed: `oss1:9717` gets `http://` (it used to parse as a URL of
 * scheme "oss1:" and fail at the first request with "unknown scheme"); other schemes are refused.
 */
function httpUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text.includes('://') ? text : `http://${text}`);
  } catch {
    throw new InvalidArgumentError(`"${text}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError(`"${text}" is not an http:// or https:// URL`);
  return url;
}

/** A Prometheus base URL: as typed (printed back in messages), with http:// when it had no scheme. */
export function prometheusUrl(text: string): string {
  httpUrl(text);
  return text.includes('://') ? text : `http://${text}`;
}

function metricsUrl(text: string): string {
  const url = httpUrl(text);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/metrics';
  return url.toString();
}

/**
 * A flag that does nothing in this mode: refused, not ignored, since the table would then answer
 * another question than the one asked (every job instead of --jobid's, now instead of --time).
 */
function misplacedOption(o: Readonly<Record<string, unknown>>, mode: 'job' | 'client', fromPrometheus: boolean): string | undefined {
  if (mode === 'client' && o['jobid'] !== undefined) return '--jobid works with --by job only (per client, rows are hosts mapped to jobs)';
  if (mode === 'job') {
    const clientOnly = (['nidMap', 'nidCommand', 'jobMap', 'jobMapCommand'] as const).find((key) => o[key] !== undefined);
    if (clientOnly !== undefined) return `--${clientOnly.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} works with --by client only`;
  }
  if (!fromPrometheus && o['time'] !== undefined) return '--time works with --prometheus only (exporters can only be scraped now)';
  return undefined;
}

export function topCommand(run: (action: () => Promise<number>) => void): Command {
  const command = new Command('top')
    .description('lltop-style table of the Lustre load per job over an interval, from Prometheus or from exporters.')
    .addOption(new Option('--prometheus <url>', 'Query this Prometheus server (increase() over the interval); http:// is assumed without a scheme.').argParser(prometheusUrl))
    .addOption(
      new Option('--exporter <url>', 'Scrape this exporter directly (repeatable; http:// is assumed without a scheme, /metrics without a path).').argParser((v, prev: string[] | undefined) =>
        collect(metricsUrl(v), prev),
      ),
    )
    .addOption(new Option('--by <what>', 'job: from lustre_jobstats; client: from lustre_exports, NID → host → job.').choices(['job', 'client']).default('job'))
    .addOption(
      new Option('--interval <duration>', 'The refresh period, and the interval the table covers (from Prometheus at least 4 scrape intervals: widened, and said in the title).')
        .default(...durationDefault('10s'))
        .argParser(duration),
    )
    .addOption(new Option('--once', 'Print one table (with its title line) and exit.'))
    .addOption(new Option('--batch', 'Plain successive tables even on a terminal (no full screen, no keys), as top -b.'))
    .addOption(new Option('--sort <key>', `Sort by ${SORT_KEYS.join(', ')} (numbers descending; meta: requests on MDTs, then all requests, then bytes).`).default('meta').argParser(sortKey))
    .addOption(new Option('--no-fold-system', 'Show the rows of system accounts (user _system) one by one instead of summed into one row.'))
    .addOption(
      new Option(
        '--columns <list>',
        `Columns to print, comma-separated, from ${Object.keys(COLUMNS).join(', ')} (HOSTS only with --by client). ACCOUNT and WORKDIR come from jobio_job_info (Prometheus, or the --exporter scrapes).`,
      ),
    )
    .addOption(new Option('--limit <n>', 'Rows to print in the line mode (0 = all); the full screen shows as many as fit.').default(20).argParser(limit))
    .addOption(new Option('--jobid <id>', 'Only this job id (--by job).'))
    .addOption(new Option('--target <name>', 'Only this Lustre target (fs-OST0000).'))
    .addOption(new Option('--time <t>', 'With --prometheus: evaluate at this time (Unix seconds or RFC 3339) instead of now.').argParser(evalTime))
    .addOption(new Option('--timeout <duration>', 'Deadline of one query or scrape.').default(...durationDefault('10s')).argParser(duration))
    .addOption(new Option('--nid-map <file>', 'With --by client: a table of `NID HOST` lines.'))
    .addOption(new Option('--nid-command <cmd>', 'With --by client: run `CMD NID` (no shell) to get the host of a NID; cached.'))
    .addOption(new Option('--job-map <file>', 'With --by client: squeue-style lines `JOBID [USER] NODELIST` from a file.'))
    .addOption(new Option('--job-map-command <cmd>', `With --by client: a command printing those lines at each refresh (default: ${DEFAULT_JOB_MAP_COMMAND}).`));
  command.action(() =>
    run(async () => {
      const o = command.opts<Record<string, unknown>>();
      const exporters = (o['exporter'] as string[] | undefined) ?? [];
      const prometheus = o['prometheus'] as string | undefined;
      if ((prometheus === undefined) === (exporters.length === 0)) {
        process.stderr.write('jobio top: give either --prometheus URL or one or more --exporter URL\n(run `jobio top --help` for usage)\n');
        return 2;
      }
      const mode = o['by'] === 'client' ? 'client' : 'job';
      const misplaced = misplacedOption(o, mode, prometheus !== undefined);
      if (misplaced !== undefined) {
        process.stderr.write(`jobio top: ${misplaced}\n(run \`jobio top --help\` for usage)\n`);
        return 2;
      }
      let columns: string[] | undefined;
      if (o['columns'] !== undefined) {
        try {
          columns = parseColumns(o['columns'] as string, mode);
        } catch (err) {
          process.stderr.write(`jobio top: ${(err as Error).message}\n`);
          return 2;
        }
      }
      const settings: TopSettings = {
        mode,
        prometheus,
        exporters,
        intervalMs: o['interval'] as number,
        timeoutMs: o['timeout'] as number,
        once: o['once'] === true,
        batch: o['batch'] === true,
        foldSystem: o['foldSystem'] !== false,
        sort: o['sort'] as SortKey,
        limit: o['limit'] as number,
        ...(columns ? { columns } : {}),
        time: o['time'] as number | undefined,
        filters: mode === 'job' ? { jobid: o['jobid'] as string | undefined, target: o['target'] as string | undefined } : { target: o['target'] as string | undefined },
        mapper:
          mode === 'client'
            ? new ClientMapper({
                nidMapFile: o['nidMap'] as string | undefined,
                nidCommand: o['nidCommand'] as string | undefined,
                jobMapFile: o['jobMap'] as string | undefined,
                jobMapCommand: o['jobMapCommand'] as string | undefined,
              })
            : undefined,
      };
      return runTop(settings, process.stdout);
    }),
  );
  return command;
}
