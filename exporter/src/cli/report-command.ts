// `jobio report`: one answer per job, "nothing to change" or the findings by severity, most costly
// first, each addressed to the program that made the calls (docs/report.md). From a `jobio run` log
// (FILE.jsonl) or, for a job id, from Prometheus (--prometheus URL or JOBIO_PROMETHEUS_URL, the
// variable the Grafana provisioning reads too). Text for people (colour on a terminal), --json for
// scripts (report-schema.ts).
// Exit codes: 0 reported, 1 the source could not be read or has nothing on the job, 2 usage error.
import { existsSync } from 'node:fs';
import { Command, Option } from 'commander';
import { NoSeriesError, reportFromLog, ReportError } from '../report/log-source.js';
import { reportFromPrometheus } from '../report/prometheus-source.js';
import type { ReportJson } from '../report/report-schema.js';
import { reportText } from '../report/text.js';
import { reportHtml } from '../report/html.js';
import { grafanaLink } from '../report/grafana-link.js';
import { briefText } from '../report/brief.js';
import { waitForScrapeAfter } from '../report/scrape-wait.js';
import { DEFAULT_SUMMARY_DIR, MAX_SUMMARY_BYTES, readSummary, summaryOf } from '../report/summary.js';
import { writeFile } from 'node:fs/promises';
import { duration, durationDefault, evalTime, prometheusUrl } from './top-command.js';

/** The environment variable of the default Prometheus server. */
export const PROMETHEUS_ENV = 'JOBIO_PROMETHEUS_URL';
/** The environment variable of the Grafana the job dashboard link points to. */
export const GRAFANA_ENV = 'JOBIO_GRAFANA_URL';
/** The environment variable of the directory of summaries stored at the jobs' ends. */
export const SUMMARY_DIR_ENV = 'JOBIO_SUMMARY_DIR';
/** How far before now a summary is evaluated, s (see its use). */
const SUMMARY_SETTLE_S = 10;
/** --wait: a scrape counts from this long after the command started, ms (the exporter takes in the last frames). */
const WAIT_MARGIN_MS = 1000;

export function reportCommand(run: (action: () => Promise<number>) => void): Command {
  const command = new Command('report')
    .description(
      'One answer per job: "nothing to change", or what to change, most costly first (by share of the run time or metadata load on the file system), each addressed to the program that made the calls. From a `jobio run --output` log, or a job id from Prometheus.',
    )
    .argument('<file|jobid>', `a log written by \`jobio run --output FILE\`, or a job id (with --prometheus or ${PROMETHEUS_ENV})`)
    .addOption(new Option('--json', 'Print the report as JSON (schema in docs/report.md) instead of text.'))
    .addOption(new Option('--html <file>', 'Also write the report as one self-contained HTML page (inline SVG plots, nothing fetched) to FILE.'))
    .addOption(
      new Option('--prometheus <url>', `Report the job id from this Prometheus (or VictoriaMetrics) server; default: $${PROMETHEUS_ENV} when the argument is not a file.`).argParser(prometheusUrl),
    )
    .addOption(new Option('--grafana-url <url>', `Print the link to the job's dashboard in this Grafana (over the job's time range); default: $${GRAFANA_ENV}.`).argParser(prometheusUrl))
    .addOption(new Option('--range <duration>', "With a job id: how far back its series are looked for (within the server's retention).").default(...durationDefault('30d')).argParser(duration))
    .addOption(new Option('--time <t>', 'With a job id: evaluate at this time (Unix seconds or RFC 3339) instead of now.').argParser(evalTime))
    .addOption(new Option('--timeout <duration>', 'Deadline of each query.').default(...durationDefault('10s')).argParser(duration))
    .addOption(
      new Option('--summary', "With a job id: print the job's report as one line of JSON, its lists bounded, for storing at the job's end (the Slurm EpilogSlurmctld does).").conflicts([
        'json',
        'html',
      ]),
    )
    .addOption(
      new Option(
        '--brief',
        'Print only the verdict and the first lines of the most costly findings, each line starting with "jobio:" (the Slurm TaskEpilog prints it into the job\'s output).',
      ).conflicts(['json', 'html', 'summary']),
    )
    .addOption(
      new Option(
        '--wait <duration>',
        "With a job id: first wait, at most this long, until Prometheus has scraped the job's series after the command started, so a job that has just ended is reported with its last counts.",
      )
        .argParser(duration)
        .conflicts(['time']),
    )
    .addOption(
      new Option(
        '--summary-dir <dir>',
        `With a job id: where summaries stored at the jobs' ends are looked for when Prometheus has no series of the job (past its retention); default: $${SUMMARY_DIR_ENV}, else ${DEFAULT_SUMMARY_DIR}.`,
      ),
    );
  command.action((source: string) =>
    run(async () => {
      const o = command.opts<{
        json?: boolean;
        html?: string;
        prometheus?: string;
        grafanaUrl?: string;
        range: number;
        time?: number;
        timeout: number;
        summary?: boolean;
        brief?: boolean;
        wait?: number;
        summaryDir?: string;
      }>();
      const startedMs = Date.now();
      const envUrl = process.env[PROMETHEUS_ENV];
      const fromLog = o.prometheus === undefined && (existsSync(source) || envUrl === undefined || envUrl === '');
      if (fromLog && (command.getOptionValueSource('range') === 'cli' || o.time !== undefined || o.summary === true || o.wait !== undefined)) {
        process.stderr.write('jobio report: --range, --time, --wait and --summary work with a job id from Prometheus only\n(run `jobio report --help` for usage)\n');
        return 2;
      }
      const summaryEnv = process.env[SUMMARY_DIR_ENV];
      const summaryDir = o.summaryDir ?? (summaryEnv !== undefined && summaryEnv !== '' ? summaryEnv : DEFAULT_SUMMARY_DIR);
      let report: ReportJson;
      try {
        if (fromLog) {
          const jobLike = !existsSync(source) && /^[\w.[\]-]+$/.test(source) && !source.includes('.json');
          const stored = jobLike ? await readSummary(summaryDir, source) : undefined;
          if (jobLike && stored === undefined)
            throw new ReportError(
              `${source}: no such file, and no summary of job ${source} in ${summaryDir} (to report job ${source} from Prometheus, give --prometheus URL or set ${PROMETHEUS_ENV})`,
            );
          report = stored ?? (await reportFromLog(source));
        } else {
          let url = o.prometheus;
          if (url === undefined) {
            try {
              url = prometheusUrl(envUrl ?? '');
            } catch (err) {
              throw new ReportError(`${PROMETHEUS_ENV}: ${(err as Error).message}`);
            }
          }
          // A summary pins its evaluation time, so the same summary is made again from the same series,
          // SUMMARY_SETTLE_S back: a scrape's samples carry its start time and are queryable only once
          // it is written (within the scrape timeout, 10 s by default).
          if (o.wait !== undefined) {
            const afterS = (startedMs + WAIT_MARGIN_MS) / 1000;
            if (!(await waitForScrapeAfter({ url, jobid: source, afterS, maxMs: o.wait, timeoutMs: o.timeout })))
              process.stderr.write(`jobio report: no scrape of job ${source}'s series after ${new Date(afterS * 1000).toISOString()} within --wait: its last counts may be missing\n`);
          }
          const time = o.time ?? (o.summary === true ? Math.floor(Date.now() / 1000) - SUMMARY_SETTLE_S : undefined);
          try {
            report = await reportFromPrometheus({ url, jobid: source, rangeMs: o.range, timeoutMs: o.timeout, ...(time !== undefined ? { time } : {}) });
          } catch (err) {
            // past the server's retention: the summary stored at the job's end, if any
            const stored = err instanceof NoSeriesError && o.summary !== true ? await readSummary(summaryDir, source) : undefined;
            if (stored === undefined) throw err;
            report = stored;
          }
          if (o.summary === true) {
            const line = JSON.stringify(summaryOf(report));
            if (Buffer.byteLength(line) > MAX_SUMMARY_BYTES) throw new ReportError(`the summary of job ${source} is bigger than ${MAX_SUMMARY_BYTES} bytes: not stored`);
            process.stdout.write(`${line}\n`);
            return 0;
          }
        }
      } catch (err) {
        if (!(err instanceof ReportError)) throw err;
        process.stderr.write(`jobio report: ${err.message}\n`);
        return 1;
      }
      let grafana = o.grafanaUrl;
      const grafanaEnv = process.env[GRAFANA_ENV];
      if (grafana === undefined && grafanaEnv !== undefined && grafanaEnv !== '') {
        try {
          grafana = prometheusUrl(grafanaEnv);
        } catch (err) {
          process.stderr.write(`jobio report: ${GRAFANA_ENV}: ${(err as Error).message}\n`);
          return 1;
        }
      }
      if (grafana !== undefined) {
        const h = report.header;
        // one user only: a job seen under several names leaves the dashboard's choice
        const dashboard = grafanaLink({ base: grafana, jobid: h.jobid, user: h.user.includes(',') ? '' : h.user, start: h.start, end: h.end });
        if (dashboard !== undefined) report = { ...report, dashboard };
      }
      if (report.source.kind === 'log' && report.source.malformed_lines > 0)
        process.stderr.write(`jobio report: ${source}: ${report.source.malformed_lines} of ${report.source.lines} line(s) are not JSON records and were skipped\n`);
      if (o.html !== undefined) {
        try {
          await writeFile(o.html, reportHtml(report));
        } catch (err) {
          process.stderr.write(`jobio report: --html ${o.html}: ${(err as Error).message}\n`);
          return 1;
        }
      }
      if (o.brief === true) {
        process.stdout.write(briefText(report, source));
        return 0;
      }
      const colour = process.stdout.isTTY && process.env['NO_COLOR'] === undefined;
      process.stdout.write(o.json === true ? `${JSON.stringify(report, null, 2)}\n` : reportText(report, colour));
      return 0;
    }),
  );
  return command;
}
