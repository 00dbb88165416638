// `jobio demo` end to end, unattended, as the README tells a new user to run it: the built CLI with
// --duration 60s --no-top. While it runs, the exporter it started serves the replayed jobstats and the
// profiled programs' records (none rejected: the profiler's process checks still read the real /proc),
// the private Prometheus evaluates jobio's rules and the metadata-storm alert becomes pending or
// firing. Afterwards nothing it started is left: no process refers to its directory, which is gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { jobioBin, runJobio, scrape } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';
import { parseExposition, sample, type Sample } from '../profiler/exposition.js';

interface Demo {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The banner's addresses, once printed. */
  readonly ready: Promise<{ exporter: string; prometheus?: string; dir: string }>;
  readonly exited: Promise<number | null>;
}

function startDemo(args: readonly string[]): Demo {
  const child = spawn(process.execPath, [jobioBin, 'demo', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const ready = new Promise<{ exporter: string; prometheus?: string; dir: string }>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
      const exporter = /^ {2}exporter +(http:\/\/127\.0\.0\.1:\d+)\/metrics/m.exec(stdout)?.[1];
      const prometheusLine = /^ {2}prometheus +(.*)$/m.exec(stdout)?.[1];
      const dir = /^jobio demo: running .*, in (\S+) \(removed on exit\)$/m.exec(stdout)?.[1];
      if (exporter && prometheusLine !== undefined && dir) resolve({ exporter, prometheus: /^(http:\/\/127\.0\.0\.1:\d+)/.exec(prometheusLine)?.[1], dir });
    });
    child.once('exit', (code) => reject(new Error(`jobio demo exited (${code}) before printing its addresses:\n${stdout}\n${stderr}`)));
  });
  ready.catch(() => undefined);
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, stdout: () => stdout, stderr: () => stderr, ready, exited };
}

/** Processes (other than exited ones) whose command line or environment names `dir`. */
function processesUsing(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    for (const file of ['cmdline', 'environ']) {
      try {
        if (readFileSync(`/proc/${pid}/${file}`).includes(dir)) found.push(`${pid}: ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')}`);
      } catch {
        // gone, or not ours to read
      }
    }
  }
  return found;
}

async function pollUntil<T>(what: string, fn: () => Promise<T | undefined>, demo: Demo): Promise<T> {
  let last: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (demo.child.exitCode !== null) throw new Error(`the demo ended before ${what} (last error: ${String(last)}):\n${demo.stdout()}\n${demo.stderr()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const total = (samples: readonly Sample[], name: string, labels: Record<string, string>): number =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);

async function promQuery(url: string, expr: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
  const body = (await (await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: expr }).toString()}`)).json()) as {
    data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
  };
  return body.data.result;
}

test('jobio demo --duration 60s --no-top: jobstats, profiler, rules and the metadata-storm alert, then nothing left', { timeout: 180_000 }, async () => {
  requireBinary('prometheus');
  const demo = startDemo(['--duration', '60s', '--no-top']);
  try {
    const { exporter, prometheus, dir } = await demo.ready;
    assert.ok(prometheus, `prometheus is installed, so the demo starts one:\n${demo.stdout()}`);
    assert.ok(existsSync(dir));

    // The exporter serves the replay (jobstats) and the profiled programs (profiler), all accepted.
    const metrics = await pollUntil(
      'jobstats and profiler series',
      async () => {
        const s = parseExposition(await scrape(`${exporter}/metrics`));
        const storm = total(s, 'jobio_lustre_jobstats_operations_total', { jobid: '4203', user: 'carol', target: 'es01a-MDT0000' });
        const tinyWrites = total(s, 'jobio_profiler_calls_total', { jobid: '5102', call: 'write', class: 'red' });
        const stats = total(s, 'jobio_profiler_calls_total', { jobid: '5103', call: 'access', class: 'red' });
        const largeWrites = total(s, 'jobio_profiler_calls_total', { jobid: '5101', call: 'write', class: 'green' });
        return storm > 0 && tinyWrites > 0 && stats > 0 && largeWrites > 0 ? s : undefined;
      },
      demo,
    );
    assert.equal(sample(metrics, 'jobio_scrape_collector_success', { collector: 'lustre_jobstats' }), 1);
    assert.equal(sample(metrics, 'jobio_scrape_collector_success', { collector: 'lustre_stats' }), 1);
    assert.equal(sample(metrics, 'jobio_scrape_collector_success', { collector: 'profiler' }), 1);
    assert.equal(total(metrics, 'jobio_profiler_records_rejected_total', {}), 0, 'every profiler frame is accepted (process checks read the real /proc)');
    // Exact relations of the replay: the storm's opens and closes have one rate; bob's writes are 4 KiB RPCs.
    const op = (jobid: string, target: string, operation: string): number | undefined =>
      metrics.find((m) => m.name === 'jobio_lustre_jobstats_operations_total' && m.labels.jobid === jobid && m.labels.target === target && m.labels.operation === operation)?.value;
    assert.equal(op('4203', 'es01a-MDT0000', 'open'), op('4203', 'es01a-MDT0000', 'close'));
    const bobWrites = op('4202', 'es01a-OST0001', 'write');
    assert.ok(bobWrites !== undefined);
    assert.equal(total(metrics, 'jobio_lustre_jobstats_write_bytes_total', { jobid: '4202', target: 'es01a-OST0001' }), 4096 * bobWrites);
    // Exact relations of the profiler: dd's writes are all bs bytes.
    assert.equal(total(metrics, 'jobio_profiler_write_bytes_total', { jobid: '5102' }), 512 * total(metrics, 'jobio_profiler_calls_total', { jobid: '5102', call: 'write' }));
    assert.equal(total(metrics, 'jobio_profiler_write_bytes_total', { jobid: '5101' }), 4 * 1048576 * total(metrics, 'jobio_profiler_calls_total', { jobid: '5101', call: 'write' }));

    // Prometheus evaluates jobio's recording rules on both sources ...
    await pollUntil(
      'recording rule series',
      async () => ((await promQuery(prometheus, 'jobid_target_operation:jobio_lustre_jobstats_operations:rate5m{jobid="4203"} > 0')).length > 0 ? true : undefined),
      demo,
    );
    await pollUntil('profiler rule series', async () => ((await promQuery(prometheus, 'jobid_class:jobio_profiler_calls:rate5m{jobid="5102",class="red"} > 0')).length > 0 ? true : undefined), demo);
    // ... and the metadata storm raises its alert (pending: `for: 5m` is longer than the demo).
    const storm = await pollUntil(
      'JobioMetadataStorm pending or firing',
      async () => {
        const body = (await (await fetch(`${prometheus}/api/v1/alerts`)).json()) as { data: { alerts: Array<{ labels: Record<string, string>; state: string }> } };
        return body.data.alerts.find((a) => a.labels.alertname === 'JobioMetadataStorm' && (a.state === 'pending' || a.state === 'firing'));
      },
      demo,
    );
    assert.deepEqual([storm.labels.jobid, storm.labels.user, storm.labels.target], ['4203', 'carol', 'es01a-MDT0000']);

    assert.equal(await demo.exited, 0, `the demo stops by itself after 60 s:\n${demo.stderr()}`);
    assert.match(demo.stdout(), /jobio demo: stopped \d+ processes and removed /);
    assert.equal(existsSync(dir), false, 'its directory is removed');
    assert.deepEqual(processesUsing(dir), [], 'no process it started is left');
  } finally {
    if (demo.child.exitCode === null) demo.child.kill('SIGTERM');
  }
});

test('jobio demo without Prometheus says how to install it and goes on; SIGINT (Ctrl-C) removes everything', { timeout: 120_000 }, async () => {
  const demo = startDemo(['--no-top', '--prometheus', 'jobio-no-such-prometheus']);
  try {
    const { exporter, prometheus, dir } = await demo.ready;
    assert.equal(prometheus, undefined);
    assert.match(demo.stdout(), /prometheus +not started: jobio-no-such-prometheus is not installed\. .*apt-get install prometheus/);
    await pollUntil(
      'jobstats series',
      async () => (total(parseExposition(await scrape(`${exporter}/metrics`)), 'jobio_lustre_jobstats_operations_total', { jobid: '4201' }) > 0 ? true : undefined),
      demo,
    );
    demo.child.kill('SIGINT');
    assert.equal(await demo.exited, 0);
    assert.equal(existsSync(dir), false);
    assert.deepEqual(processesUsing(dir), []);
  } finally {
    if (demo.child.exitCode === null) demo.child.kill('SIGTERM');
  }
});

test('jobio demo: --help, and bad flags exit 2 with a message', async () => {
  const help = await runJobio(['demo', '--help']);
  assert.equal(help.code, 0);
  for (const flag of ['--duration', '--no-top', '--interval', '--prometheus', '--no-prometheus']) assert.ok(help.stdout.includes(flag), flag);
  for (const [args, message] of [
    [['--bogus'], /unknown option '--bogus'/],
    [['--duration', 'soon'], /invalid duration "soon"/],
    [['--duration', '0s'], /"0s" is shorter than 1s/],
    [['--interval', '10ms'], /"10ms" is shorter than 1s/],
    [['extra'], /too many arguments/],
    [['--no-top', '--interval', '5s'], /--interval works without --no-top only/],
  ] as const) {
    const r = await runJobio(['demo', ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
});
