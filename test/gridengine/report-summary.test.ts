// The summary stored at a job's end, on a real Grid Engine with a real Prometheus: the shipped epilog
// (provisioning/gridengine/jobio-epilog.sh, with jobio-report-summary.sh beside it) stores `jobio
// report JOBID --summary` for a profiled job, in the background after the epilog has let the job go;
// after the job's series are gone (a fresh Prometheus that never had them) `jobio report JOBID`
// answers from the summary with the very report Prometheus gave at the summary's time. Run under
// `flock /tmp/jobio-scheduler.lock` beside the other scheduler tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobioBin, repoRoot, runJobio, scrape, startExporter } from '../helpers/exporter.js';
import { startGridEngine } from '../helpers/gridengine.js';
import { startPrometheus } from '../helpers/prometheus.js';
import { ensureUser } from '../helpers/slurm.js';
import { parseExposition } from '../profiler/exposition.js';
import { requireProfilerLibrary } from '../profiler/real-library.js';
import type { ReportJson } from '../../exporter/src/report/report-schema.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, f: () => Promise<T | undefined> | T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

test("a finished Grid Engine job's report still works after its series are gone from Prometheus, from the summary the epilog stored", async (t) => {
  const lib = requireProfilerLibrary();
  const hooks = mkdtempSync(join(tmpdir(), 'jobio-ge-report-summary-'));
  chmodSync(hooks, 0o755);
  const socketDir = join(hooks, 'sock');
  mkdirSync(socketDir, { mode: 0o755 });
  chmodSync(socketDir, 0o755);
  const socket = join(socketDir, 'profiler.sock');
  const spool = join(hooks, 'jobs');
  const reports = join(hooks, 'reports');
  const exporter = await startExporter([
    '--collector.disable-defaults',
    '--collector.profiler',
    `--collector.profiler.socket=${socket}`,
    '--collector.job_info',
    `--collector.job_info.spool-dir=${spool}`,
    '--collector.job_info.squeue=',
  ]);
  const prometheus = await startPrometheus([{ job: 'jobio', address: new URL(exporter.url).host }]);
  // The prolog and epilog as a site installs them; execd gives hooks a fixed environment, so wrappers name the settings.
  // delay: the 1 s scrape interval + the summary's 10 s settling + a margin.
  writeFileSync(join(hooks, 'report-summary.conf'), [`prometheus=${prometheus.url}`, `dir=${reports}`, 'delay=13', `jobio=${jobioBin}`, ''].join('\n'), { mode: 0o644 });
  const wrapper = (name: string, env: string): string => {
    const path = join(hooks, `${name}.sh`);
    writeFileSync(path, `#!/bin/sh\n${env} exec ${join(repoRoot, `provisioning/gridengine/jobio-${name}.sh`)} "$@"\n`, { mode: 0o755 });
    return path;
  };
  const started = await startGridEngine({
    queue: {
      prolog: `root@${wrapper('prolog', `JOBIO_SPOOL=${spool}`)}`,
      epilog: `root@${wrapper('epilog', `JOBIO_SPOOL=${spool} JOBIO_REPORT_SUMMARY_CONF=${join(hooks, 'report-summary.conf')}`)}`,
    },
  });
  const fresh = await startPrometheus([]);
  try {
    if (started.skip !== undefined) {
      t.skip(started.skip);
      return;
    }
    const ge = started.cluster;
    const alice = ensureUser('jobiotest');
    // 3,000 writes of 512 B (small: red, by dd) and two failed lookups (by ls). dd reads from a FIFO, so it
    // waits in open() until the exporter has seen its start-up frame and verified its job claim.
    const gate = join(ge.work, 'gate');
    assert.equal(spawnSync('mkfifo', ['-m', '0666', gate]).status, 0);
    chmodSync(gate, 0o666);
    const job = ge.submit({
      user: alice,
      script: [
        '#!/bin/sh',
        `export LD_PRELOAD=${lib} JOBIO_SOCKET=${socket}`,
        `dd if=${gate} of="$PWD/summary-$JOB_ID.bin" bs=512 count=3000 iflag=fullblock status=none`,
        'ls "$PWD/missing1" "$PWD/missing2" 2>/dev/null',
        'exit 0',
        '',
      ].join('\n'),
    });
    await ge.waitRunning(job);
    await until(
      "the job's dd connected",
      async () => (parseExposition(await scrape(`${exporter.url}/metrics`)).some((x) => x.name === 'jobio_profiler_processes' && x.value >= 1) ? true : undefined),
      30_000,
    );
    // The prolog's job_info is in Prometheus before dd runs: an idle machine runs the whole job within
    // one scrape interval, and the header would have no scheduler fields (a fresh-clone run did so).
    await until("the job's job_info in Prometheus", async () => ((await prometheus.query(`jobio_job_info{jobid="${job}"}`)).length > 0 ? true : undefined), 30_000);
    const feed = spawnSync('sh', ['-c', `head -c ${3000 * 512} /dev/zero > "$1"`, 'sh', gate], { timeout: 20_000 });
    assert.equal(feed.status, 0);
    const ended = await ge.waitEnded(job);
    assert.deepEqual([ended.exitStatus, ended.failed], [0, '0'], readFileSync(ge.output(job), 'utf8'));
    // qacct has the job only after the epilog exited: the summary, 13 s later, is the background's
    assert.equal(existsSync(join(reports, `${job}.json`)), false, 'the epilog did not wait for the summary');

    // The epilog's summary: root's, in root's directory, one line of JSON.
    const file = join(reports, `${job}.json`);
    await until('the stored summary', () => (existsSync(file) ? true : undefined), 120_000);
    const dirStat = statSync(reports);
    assert.deepEqual([dirStat.uid, dirStat.mode & 0o777], [0, 0o755]);
    const fileStat = statSync(file);
    assert.deepEqual([fileStat.uid, fileStat.mode & 0o777], [0, 0o644]);
    const text = readFileSync(file, 'utf8');
    assert.equal(text.split('\n').length, 2, 'one line and its newline');
    const stored = JSON.parse(text) as ReportJson;
    t.diagnostic(`summary of job ${job}: ${text.length} bytes, verdict "${stored.verdict.text}", made for ${stored.source.kind === 'prometheus' ? stored.source.time : ''}`);
    assert.equal(stored.source.kind, 'prometheus');
    assert.equal(stored.header.jobid, job);
    // the prolog's job_info: the owner and the queue
    assert.deepEqual([stored.header.user, stored.header.partition], [alice.name, 'all.q']);
    // the job's last frames are in it: all of dd's writes, by dd, as the exporter counted them
    const small = stored.application.reasons.find((r) => r.reason === 'small_write');
    assert.deepEqual([small?.calls, small?.bytes, small?.program.name], [3000, 3000 * 512, 'dd']);
    assert.equal(stored.application.red.calls >= 3002, true, "dd's small writes and ls's two failed lookups are red");

    // Prometheus, asked at the summary's time, gives the same report.
    assert.ok(stored.source.time !== undefined);
    const before = await runJobio(['report', job, '--prometheus', prometheus.url, '--time', stored.source.time, '--json']);
    assert.equal(before.code, 0, before.stderr);
    const fromPrometheus = JSON.parse(before.stdout) as ReportJson;
    assert.deepEqual(stored, fromPrometheus);

    // The series gone (a Prometheus that never had them): the stored summary answers, the same report.
    const after = await runJobio(['report', job, '--prometheus', fresh.url, '--json', '--summary-dir', reports]);
    assert.equal(after.code, 0, after.stderr);
    assert.deepEqual(JSON.parse(after.stdout), { ...fromPrometheus, source: { kind: 'stored', file, stored: fromPrometheus.source } });
  } finally {
    await started.cluster?.stop();
    await fresh.stop();
    await prometheus.stop();
    await exporter.stop();
    rmSync(hooks, { recursive: true, force: true });
  }
});
