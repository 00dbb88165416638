// The scenario both scheduler tests of the stored report summary share (test/slurm and
// test/gridengine report-summary.test.ts): an exporter and a Prometheus, the summary settings the
// shipped epilogs read, a profiled job that does 3,000 writes of 512 B (small: red, by dd) and two
// failed lookups (by ls), and the checks of what the epilog stored. Each scheduler test adds only how
// its scheduler runs the job and the epilog.
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobioBin, runJobio, scrape, startExporter, type RunningExporter } from '../helpers/exporter.js';
import { startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';
import { parseExposition } from '../profiler/exposition.js';
import { requireProfilerLibrary } from '../profiler/real-library.js';
import type { ReportJson } from '../../exporter/src/report/report-schema.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function until<T>(what: string, f: () => Promise<T | undefined> | T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

export interface SummaryScenario {
  readonly hooks: string;
  readonly reports: string;
  /** The report-summary.conf the epilogs read (JOBIO_REPORT_SUMMARY_CONF). */
  readonly conf: string;
  readonly exporter: RunningExporter;
  readonly prometheus: RunningPrometheus;
  /** A Prometheus that never had the job's series. */
  readonly fresh: RunningPrometheus;
  /** The job script: `jobIdVariable` is the scheduler's job id variable (SLURM_JOB_ID, JOB_ID). */
  jobScript(gate: string, jobIdVariable: string): string;
  /** Waits until the job's dd connected and its job_info (if `jobInfo`) is in Prometheus, then lets dd run. */
  release(gate: string, job: string, jobInfo: boolean): Promise<void>;
  stop(): Promise<void>;
}

/** Hooks directory, exporter (with `exporterArgs(hooks)` on top of the profiler), Prometheus and summary settings. */
export async function startSummaryScenario(prefix: string, exporterArgs: (hooks: string) => readonly string[] = () => []): Promise<SummaryScenario> {
  const lib = requireProfilerLibrary();
  const hooks = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(hooks, 0o755);
  const socketDir = join(hooks, 'sock');
  mkdirSync(socketDir, { mode: 0o755 });
  chmodSync(socketDir, 0o755);
  const socket = join(socketDir, 'profiler.sock');
  const reports = join(hooks, 'reports');
  const exporter = await startExporter(['--collector.disable-defaults', '--collector.profiler', `--collector.profiler.socket=${socket}`, ...exporterArgs(hooks)]);
  const prometheus = await startPrometheus([{ job: 'jobio', address: new URL(exporter.url).host }]);
  const fresh = await startPrometheus([]);
  // delay: the 1 s scrape interval + the summary's 10 s settling + a margin.
  const conf = join(hooks, 'report-summary.conf');
  writeFileSync(conf, [`prometheus=${prometheus.url}`, `dir=${reports}`, 'delay=13', `jobio=${jobioBin}`, ''].join('\n'), { mode: 0o644 });
  return {
    hooks,
    reports,
    conf,
    exporter,
    prometheus,
    fresh,
    jobScript: (gate, jobIdVariable) =>
      [
        '#!/bin/sh',
        `export LD_PRELOAD=${lib} JOBIO_SOCKET=${socket}`,
        `dd if=${gate} of="$PWD/summary-$${jobIdVariable}.bin" bs=512 count=3000 iflag=fullblock status=none`,
        'ls "$PWD/missing1" "$PWD/missing2" 2>/dev/null',
        'exit 0',
        '',
      ].join('\n'),
    release: async (gate, job, jobInfo) => {
      await until(
        "the job's dd connected",
        async () => (parseExposition(await scrape(`${exporter.url}/metrics`)).some((x) => x.name === 'jobio_profiler_processes' && x.value >= 1) ? true : undefined),
        30_000,
      );
      // The prolog's job_info is in Prometheus before dd runs: an idle machine runs the whole job within
      // one scrape interval, and the header would have no scheduler fields (a fresh-clone run did so).
      if (jobInfo) await until("the job's job_info in Prometheus", async () => ((await prometheus.query(`jobio_job_info{jobid="${job}"}`)).length > 0 ? true : undefined), 30_000);
      const feed = spawnSync('sh', ['-c', `head -c ${3000 * 512} /dev/zero > "$1"`, 'sh', gate], { timeout: 20_000 });
      assert.equal(feed.status, 0);
    },
    stop: async () => {
      await fresh.stop();
      await prometheus.stop();
      await exporter.stop();
      rmSync(hooks, { recursive: true, force: true });
    },
  };
}

/** A FIFO dd reads from, so it waits in open() until the exporter has seen its start-up frame and verified its job claim. */
export function makeGate(dir: string): string {
  const gate = join(dir, 'gate');
  assert.equal(spawnSync('mkfifo', ['-m', '0666', gate]).status, 0);
  chmodSync(gate, 0o666);
  return gate;
}

/** The epilog's summary of `job`: root's, in root's directory, one line of JSON, with all of dd's writes. */
export async function storedSummary(t: TestContext, s: SummaryScenario, job: string): Promise<{ file: string; stored: ReportJson }> {
  const file = join(s.reports, `${job}.json`);
  await until('the stored summary', () => (existsSync(file) ? true : undefined), 120_000);
  const dirStat = statSync(s.reports);
  assert.deepEqual([dirStat.uid, dirStat.mode & 0o777], [0, 0o755]);
  const fileStat = statSync(file);
  assert.deepEqual([fileStat.uid, fileStat.mode & 0o777], [0, 0o644]);
  const text = readFileSync(file, 'utf8');
  assert.equal(text.split('\n').length, 2, 'one line and its newline');
  const stored = JSON.parse(text) as ReportJson;
  t.diagnostic(`summary of job ${job}: ${text.length} bytes, verdict "${stored.verdict.text}", made for ${stored.source.kind === 'prometheus' ? stored.source.time : ''}`);
  assert.equal(stored.source.kind, 'prometheus');
  assert.equal(stored.header.jobid, job);
  // the job's last frames are in it: all of dd's writes, by dd, as the exporter counted them
  const small = stored.application.reasons.find((r) => r.reason === 'small_write');
  assert.deepEqual([small?.calls, small?.bytes, small?.program.name], [3000, 3000 * 512, 'dd']);
  assert.equal(stored.application.red.calls >= 3002, true, "dd's small writes and ls's two failed lookups are red");
  return { file, stored };
}

/**
 * Prometheus, asked at the summary's time, gives the same report; with the series gone (the fresh
 * Prometheus) the stored summary answers with it, found through `summaryDir` (flags or environment).
 */
export async function assertSameReport(s: SummaryScenario, job: string, file: string, stored: ReportJson, summaryDir: { args?: string[]; env?: Record<string, string> }): Promise<ReportJson> {
  assert.ok(stored.source.kind === 'prometheus' && stored.source.time !== undefined);
  const before = await runJobio(['report', job, '--prometheus', s.prometheus.url, '--time', stored.source.time, '--json']);
  assert.equal(before.code, 0, before.stderr);
  const fromPrometheus = JSON.parse(before.stdout) as ReportJson;
  assert.deepEqual(stored, fromPrometheus);
  const after = await runJobio(['report', job, '--prometheus', s.fresh.url, '--json', ...(summaryDir.args ?? [])], { env: summaryDir.env });
  assert.equal(after.code, 0, after.stderr);
  assert.deepEqual(JSON.parse(after.stdout), { ...fromPrometheus, source: { kind: 'stored', file, stored: fromPrometheus.source } });
  return fromPrometheus;
}
