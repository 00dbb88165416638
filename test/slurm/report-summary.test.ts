// The summary stored at a job's end, on a real Slurm with a real Prometheus: the shipped
// EpilogSlurmctld (provisioning/slurm/jobio-epilog-slurmctld.sh) stores `jobio report JOBID
// --summary` for a profiled job, and after the job's series are gone (a fresh Prometheus that never
// had them) `jobio report JOBID` answers from the summary with the very report Prometheus gave at
// the summary's time. Run under `flock /tmp/jobio-scheduler.lock` beside the other scheduler tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobioBin, repoRoot, runJobio, scrape, startExporter } from '../helpers/exporter.js';
import { startPrometheus } from '../helpers/prometheus.js';
import { ensureUser, startSlurm } from '../helpers/slurm.js';
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

test("a finished job's report still works after its series are gone from Prometheus, from the summary the EpilogSlurmctld stored", async (t) => {
  const lib = requireProfilerLibrary();
  const hooks = mkdtempSync(join(tmpdir(), 'jobio-report-summary-'));
  chmodSync(hooks, 0o755);
  const socketDir = join(hooks, 'sock');
  mkdirSync(socketDir, { mode: 0o755 });
  chmodSync(socketDir, 0o755);
  const socket = join(socketDir, 'profiler.sock');
  const reports = join(hooks, 'reports');
  const exporter = await startExporter(['--collector.disable-defaults', '--collector.profiler', `--collector.profiler.socket=${socket}`]);
  const prometheus = await startPrometheus([{ job: 'jobio', address: new URL(exporter.url).host }]);
  // The epilog as a site installs it; slurmctld gives its scripts a fixed environment, so a wrapper names the settings.
  // delay: the 1 s scrape interval + the summary's 10 s settling + a margin.
  writeFileSync(join(hooks, 'report-summary.conf'), [`prometheus=${prometheus.url}`, `dir=${reports}`, 'delay=13', `jobio=${jobioBin}`, ''].join('\n'), { mode: 0o644 });
  writeFileSync(
    join(hooks, 'epilog-slurmctld.sh'),
    `#!/bin/sh\nJOBIO_REPORT_SUMMARY_CONF=${join(hooks, 'report-summary.conf')} exec ${join(repoRoot, 'provisioning/slurm/jobio-epilog-slurmctld.sh')}\n`,
    { mode: 0o755 },
  );
  const started = await startSlurm({ extraConf: [`EpilogSlurmctld=${join(hooks, 'epilog-slurmctld.sh')}`] });
  const fresh = await startPrometheus([]);
  try {
    if (started.skip !== undefined) {
      t.skip(started.skip);
      return;
    }
    const s = started.cluster;
    t.diagnostic(s.describe());
    const alice = ensureUser('jobiotest');
    // 3,000 writes of 512 B (small: red, by dd) and two failed lookups (by ls). dd reads from a FIFO, so it
    // waits in open() until the exporter has seen its start-up frame and verified its job claim.
    const gate = join(s.work, 'gate');
    assert.equal(spawnSync('mkfifo', ['-m', '0666', gate]).status, 0);
    chmodSync(gate, 0o666);
    const job = s.submit({
      user: alice,
      script: [
        '#!/bin/sh',
        `export LD_PRELOAD=${lib} JOBIO_SOCKET=${socket}`,
        `dd if=${gate} of="$PWD/summary-$SLURM_JOB_ID.bin" bs=512 count=3000 iflag=fullblock status=none`,
        'ls "$PWD/missing1" "$PWD/missing2" 2>/dev/null',
        'exit 0',
        '',
      ].join('\n'),
    });
    await s.waitState(job, ['RUNNING']);
    await until(
      "the job's dd connected",
      async () => (parseExposition(await scrape(`${exporter.url}/metrics`)).some((x) => x.name === 'jobio_profiler_processes' && x.value >= 1) ? true : undefined),
      30_000,
    );
    const feed = spawnSync('sh', ['-c', `head -c ${3000 * 512} /dev/zero > "$1"`, 'sh', gate], { timeout: 20_000 });
    assert.equal(feed.status, 0);
    assert.equal(await s.waitEnded(job, 60_000), 'COMPLETED', readFileSync(s.output(job), 'utf8'));

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
    const after = await runJobio(['report', job, '--prometheus', fresh.url, '--json'], { env: { JOBIO_SUMMARY_DIR: reports } });
    assert.equal(after.code, 0, after.stderr);
    assert.deepEqual(JSON.parse(after.stdout), { ...fromPrometheus, source: { kind: 'stored', file, stored: fromPrometheus.source } });
    const shown = await runJobio(['report', job, '--prometheus', fresh.url, '--summary-dir', reports]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(shown.stdout.split('\n')[0], `jobio report: job ${job}, host ${stored.header.hostname}, ${stored.header.start.slice(0, 19).replace('T', ' ')} UTC`);
    assert.match(shown.stdout.replace(/\n {14}/g, ' '), new RegExp(`^from: {9}the summary stored at the job's end, ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(from Prometheus `, 'm'));
    for (const line of shown.stdout.split('\n')) assert.ok(line.length <= 80, line);
    t.diagnostic(
      shown.stdout
        .split('\n')
        .filter((l) => /^(from:| {14}\S)/.test(l))
        .join('\n'),
    );
    // without a summary the answer is Prometheus' own
    const none = await runJobio(['report', job, '--prometheus', fresh.url], { env: { JOBIO_SUMMARY_DIR: join(hooks, 'none') } });
    assert.equal(none.code, 1);
    assert.match(none.stderr, new RegExp(`has no series of job ${job} in the last 30d`));
  } finally {
    await started.cluster?.stop();
    await fresh.stop();
    await prometheus.stop();
    await exporter.stop();
    rmSync(hooks, { recursive: true, force: true });
  }
});
