// `jobio report JOBID --prometheus URL` against a real Prometheus scraping the real exporter, whose
// profiler collector received a real program's frames; the same program profiled by `jobio run`
// gives the log report. The two reports agree on every number both have (calls per class, per
// reason and program, bytes); times are measured anew by each run and are not compared, but the
// Prometheus report's error bound of a time is checked against the documented formula applied to the
// exact call count and the exported timed calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runJobio, startExporter } from '../helpers/exporter.js';
import { freePort, startPrometheus } from '../helpers/prometheus.js';
import { requireProfilerLibrary } from '../profiler/real-library.js';
import type { ReportJson } from '../../exporter/src/report/report-schema.js';

const JOBID = '4242';

/**
 * Deterministic I/O: 30,000 small writes, two failed lookups, a read back (the sleep lets the exporter
 * verify the job). The writes are many enough to be a finding (over 1 % of the run time), so their
 * time and its error bound are in the report.
 */
const WRITES = 30_000;
const script = `sleep 0.3; dd if=/dev/zero of="$1/out" bs=512 count=${WRITES} status=none; ls "$1/missing1" "$1/missing2" 2>/dev/null; cat "$1/out" > /dev/null; exit 0`;

const reasonKey = (r: { class: string; reason: string; mount: string; program: { name: string; role: string } }): string => `${r.class} ${r.reason} ${r.mount} ${r.program.name} ${r.program.role}`;

test('jobio report JOBID from Prometheus agrees with the report of the same program from its jobio run log', async () => {
  const lib = requireProfilerLibrary();
  const dir = mkdtempSync(join(tmpdir(), 'jobio-report-prom-'));
  const socket = join(dir, 'profiler.sock');
  const exporter = await startExporter(['--collector.disable-defaults', '--collector.profiler', `--collector.profiler.socket=${socket}`]);
  const prometheus = await startPrometheus([{ job: 'jobio', address: new URL(exporter.url).host }]);
  try {
    const env = { ...process.env, SLURM_JOB_ID: JOBID };
    // 1 call in 16 timed (the default, stated: the error bound is 0 when every call is timed)
    const profiled = spawnSync('sh', ['-c', script, 'sh', dir], { env: { ...env, LD_PRELOAD: lib, JOBIO_SOCKET: socket, JOBIO_SAMPLE_EVERY: '16' }, encoding: 'utf8' });
    assert.equal(profiled.status, 0, profiled.stderr);
    const log = join(dir, 'run.jsonl');
    const run = await runJobio(['run', '-o', log, '--', 'sh', '-c', script, 'sh', dir], { env });
    assert.equal(run.code, 0, run.stderr);
    const fromLog = JSON.parse((await runJobio(['report', log, '--json'])).stdout) as ReportJson;

    // Prometheus has the job once its calls stop changing (a scrape a second)
    let previous = -1;
    await prometheus.waitFor(
      `sum(jobio_profiler_calls_total{jobid="${JOBID}"})`,
      (s) => {
        const now = s[0]?.value ?? -1;
        const stable = now > 0 && now === previous;
        previous = now;
        return stable;
      },
      30_000,
    );
    const r = await runJobio(['report', JOBID, '--json'], { env: { JOBIO_PROMETHEUS_URL: prometheus.url } });
    assert.equal(r.code, 0, r.stderr);
    const fromProm = JSON.parse(r.stdout) as ReportJson;

    assert.deepEqual(fromProm.source, { kind: 'prometheus', url: prometheus.url, jobid: JOBID, range: '30d' });
    assert.equal(fromProm.header.jobid, JOBID);
    assert.equal(fromLog.header.jobid, JOBID);
    for (const cls of ['red', 'yellow', 'green'] as const) assert.equal(fromProm.application[cls].calls, fromLog.application[cls].calls, `${cls} calls`);
    assert.equal(fromProm.application.calls, fromLog.application.calls);
    assert.equal(fromLog.application.red.calls >= WRITES + 2, true, 'dd small writes and ls failures are red');
    // every reason, with its program, calls and bytes
    const reasons = (x: ReportJson): string[] => x.application.reasons.map((a) => `${reasonKey(a)} ${a.calls} ${a.bytes}`).sort();
    assert.deepEqual(reasons(fromProm), reasons(fromLog));
    // findings both have: the same calls and bytes, what was seen said alike
    const logFindings = new Map(fromLog.findings.map((f) => [reasonKey(f), f]));
    for (const f of fromProm.findings) {
      const l = logFindings.get(reasonKey(f));
      if (l === undefined) continue;
      assert.equal(f.calls, l.calls, reasonKey(f));
      assert.equal(f.bytes, l.bytes, reasonKey(f));
      assert.equal(f.why, l.why);
      assert.equal(f.program.label, l.program.label);
    }
    const small = fromProm.application.reasons.find((a) => a.reason === 'small_write');
    assert.equal(small?.calls, WRITES);
    assert.equal(small.bytes, WRITES * 512);
    assert.equal(small.program.name, 'dd');
    assert.equal(small.program.role, 'tool');

    // The error bound of the small writes' time: ± 1.96 · t · sqrt((1 − f) / (f · n)) with n their exact
    // count and f the job's timed calls over all its calls (the sampler's fraction, whatever the call
    // type), both as exported.
    const one = async (expr: string): Promise<number> => (await prometheus.query(expr))[0]?.value ?? NaN;
    const timedWrites = await one(`sum(jobio_profiler_timed_calls_total{jobid="${JOBID}",call="write"})`);
    const allWrites = await one(`sum(jobio_profiler_calls_total{jobid="${JOBID}",call="write"})`);
    const seconds = await one(`sum(jobio_profiler_reason_seconds_total{jobid="${JOBID}",reason="small_write",program="dd"})`);
    // a thread times 1 call in 16 of all its calls (dd's uncounted reads of /dev/zero among them: each
    // stratum's timed call is a write or not, about 1,875 ± 31 here), so about 1 write in 16; 10 % is 6 σ
    assert.ok(Math.abs(timedWrites - allWrites / 16) <= 0.1 * (allWrites / 16), `${timedWrites} of ${allWrites} writes timed`);
    const f = (await one(`sum(jobio_profiler_timed_calls_total{jobid="${JOBID}"})`)) / (await one(`sum(jobio_profiler_calls_total{jobid="${JOBID}"})`));
    const boundNs = 1.96 * seconds * 1e9 * Math.sqrt((1 - f) / (f * WRITES));
    const finding = fromProm.findings.find((x) => x.reason === 'small_write' && x.program.name === 'dd');
    assert.ok(finding !== undefined, `${WRITES} small writes are a finding: ${JSON.stringify(fromProm.application.reasons)}`);
    assert.ok(finding.time_error > 0);
    assert.equal(finding.time_error, Math.round(boundNs / 1000) / 1e6);
    assert.equal(finding.time, Math.round(seconds * 1e6) / 1e6);

    // text: the Prometheus source named, 80 columns
    const text = await runJobio(['report', JOBID, '--prometheus', prometheus.url]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^jobio report: job ${JOBID}, host `, 'm'));
    assert.match(text.stdout, /^from: {9}Prometheus http:\/\/127\.0\.0\.1:\d+, the last 30d$/m);
    for (const line of text.stdout.split('\n')) assert.ok(line.length <= 80, line);

    // a job Prometheus does not know, a hostile job id (one string literal in the queries), no server
    const unknown = await runJobio(['report', '999999', '--prometheus', prometheus.url]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /has no series of job 999999 in the last 30d/);
    const hostile = await runJobio(['report', `${JOBID}"} or vector(1) #`, '--prometheus', prometheus.url]);
    assert.equal(hostile.code, 1);
    assert.match(hostile.stderr, /has no series of job 4242"\} or vector\(1\) # in the last 30d/);
    const closed = await freePort();
    const down = await runJobio(['report', JOBID, '--prometheus', `http://127.0.0.1:${closed}`]);
    assert.equal(down.code, 1);
    assert.equal(down.stderr, `jobio report: cannot reach Prometheus at http://127.0.0.1:${closed}: ECONNREFUSED\n`);
    const noServer = await runJobio(['report', JOBID], { env: { JOBIO_PROMETHEUS_URL: '' } });
    assert.equal(noServer.code, 1);
    assert.match(
      noServer.stderr,
      /4242: no such file, and no summary of job 4242 in \/var\/lib\/jobio\/reports \(to report job 4242 from Prometheus, give --prometheus URL or set JOBIO_PROMETHEUS_URL\)/,
    );
  } finally {
    await prometheus.stop();
    await exporter.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
