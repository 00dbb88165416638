// `jobio run` and `jobio preload-path` with a stand-in library (programs/fake-preload.c) that sends
// one known snapshot per process at exit: exact record values, schema validity, exit statuses and
// usage errors, independent of the real profiler's interception.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { runJobio } from '../helpers/exporter.js';
import { buildProgram, expected } from './frame-tool.js';
import { readValidLog } from './mistral-schema.js';
import { CALL_TYPES, CLASSES } from '../../exporter/src/parsers/profiler-wire.js';

const fake = buildProgram('fake-preload', ['-shared', '-fPIC']);
const env = { JOBIO_PRELOAD_LIBRARY: fake };
const dir = mkdtempSync(join(tmpdir(), 'jobio-run-cli-'));
type Obj = Record<string, any>;

const sumCalls = (pick: (c: number, k: number) => boolean): number => {
  let n = 0;
  CALL_TYPES.forEach((_, c) => CLASSES.forEach((_k, k) => (pick(c, k) ? (n += expected.calls(1, c, k)) : 0)));
  return n;
};

test('records of two processes add up exactly, and every record is valid Mistral', async () => {
  const out = join(dir, 'two.jsonl');
  // Two /bin/true processes, each sending one scale-1 snapshot (bash does not _exit, so it sends a third).
  const r = await runJobio(['run', '--output', out, '--env', 'HOME,JOBIO_NOT_SET', '--', '/bin/sh', '-c', '/bin/true; /bin/true'], { env });
  assert.equal(r.code, 0, r.stderr);
  const records = readValidLog(readFileSync(out, 'utf8'));
  const total = records.filter((x) => x.type === 'mountpoint' && x.jobtotal === true);
  const data = total.find((x) => (x.mountpoint as Obj).path === '/data');
  const star = total.find((x) => (x.mountpoint as Obj).path === '*');
  assert.ok(data && star, 'job-total records for /data and *');
  assert.equal(star.cumulative, true);
  assert.deepEqual(data.mountpoint, { path: '/data', fstype: 'lustre', fsname: '10.0.0.1@tcp:/scratch', fshost: '10.0.0.1@tcp' });
  const n = (records.find((x) => x.type === 'jobsummary')?.iosummary.total.accumulatedruntime / expected.runtimeNs(1)) * 1000;
  assert.ok(n === 2 || n === 3, `2 or 3 processes sent (${n})`);
  const io = data.io as Obj;
  assert.equal(io['write_all'].calls.total, n * (expected.calls(1, 1, 0) + expected.calls(1, 1, 1) + expected.calls(1, 1, 2)));
  assert.equal(io['write_0-32KiB'].calls.total, n * expected.sizedCalls(1, 1, 0));
  assert.equal(io['write_0-32KiB'].bytes.total, n * expected.sizedBytes(1, 1, 0));
  assert.equal(io['read_128MiB+'].bytes.total, n * expected.sizedBytes(1, 0, 2));
  assert.equal(io['seek'].calls.total, n * (expected.calls(1, 9, 0) + expected.calls(1, 9, 1) + expected.calls(1, 9, 2)));
  // the calls made: opens, creates and stats with those whose class is not decided yet (5 each)
  assert.equal(io['metadata'].calls.total, n * (sumCalls((c) => ![0, 1, 9].includes(c)) + 3 * 5));
  assert.equal(io['open'].calls.total, n * expected.madeCalls(1, 2));
  // sampled(read) = 3 per process < 10: no duration; sampled(write) = 4 → also none; metadata ≥ 10 → duration.
  assert.equal(io['read_all'].duration, undefined);
  assert.equal(
    io['metadata'].duration.total,
    // whole microseconds, as Mistral writes them
    Math.round((n * CALL_TYPES.reduce((a, _, c) => ([0, 1, 9].includes(c) ? a : a + CLASSES.reduce((b, _k, k) => b + expected.timeNs(1, c, k), 0)), 0)) / 1000),
  );
  assert.deepEqual(data.environment, { HOME: process.env['HOME'] ?? '', JOBIO_NOT_SET: '' });
  const summary = records.find((x) => x.type === 'jobsummary') as Obj;
  assert.equal(summary.iosummary.total.calls, n * sumCalls(() => true));
  assert.equal(summary.iosummary.red.calls.iocount, n * sumCalls((_c, k) => k === 0));
  assert.equal(summary.iosummary.green.calls.iocount, n * sumCalls((_c, k) => k === 2));
  assert.equal(summary.iosummary.total.accumulatedruntime, (n * expected.runtimeNs(1)) / 1000);
  assert.ok(summary.jobrealtime > 0 && summary.jobendtime >= summary.jobstarttime);
  assert.equal(records.filter((x) => x.type === 'mountpointsummary').length, 1);
  const resources = records.filter((x) => x.type === 'resources' && x.jobtotal === true);
  assert.equal(resources.length, 1);
  assert.ok(resources[0]?.resources.job.rssmem.max > 0, 'max RSS from getrusage');
  assert.match(r.stderr, /^jobio run: \/bin\/sh -c .* \(exit status 0\)$/m);
  assert.match(r.stderr, /^class\s+calls\s+calls %\s+time\s+time %$/m);
  assert.match(r.stderr, /^\/data\s+lustre\s/m);
});

test('pow2 size bins and a YAML config', async () => {
  const out = join(dir, 'pow2.jsonl');
  const config = join(dir, 'run.yaml');
  writeFileSync(config, `size-bins: pow2\ntimeframe: 5s\noutput: ${out}\nenv: [HOME]\n`);
  const r = await runJobio(['run', '--config', config, '--', '/bin/true'], { env });
  assert.equal(r.code, 0, r.stderr);
  const records = readValidLog(readFileSync(out, 'utf8'));
  const data = records.find((x) => x.type === 'mountpoint' && x.jobtotal === true && (x.mountpoint as Obj).path === '/data') as Obj;
  // bin 0 of writes holds 64*1+0 = 64 calls of exactly 0 bytes; bin 13 = [4KiB, 8KiB): 64+13 = 77 calls.
  assert.equal(data.io['write_0-1B'].calls.total, expected.pow2Calls(1, 1, 0));
  assert.equal(data.io['write_4KiB-8KiB'].calls.total, expected.pow2Calls(1, 1, 13));
  assert.equal(data.io['write_4KiB-8KiB'].bytes.total, expected.pow2Bytes(1, 1, 13));
  assert.equal(data.io['read_0-1B'], undefined, 'empty bins are omitted');
  // A run shorter than one 5 s frame: its only frame, and the job totals, say the run's real length.
  const real = `${Math.max(1, Math.round(Number(records.find((x) => x.jobtotal === true)?.jobrealtime) / 1e6))}s`;
  for (const x of records.filter((x) => x.timeframe !== undefined)) assert.equal(x.timeframe, real, `${String(x.type)} jobtotal=${String(x.jobtotal)}`);
  assert.ok(records.some((x) => x.type === 'mountpoint' && x.jobtotal === false));
});

test("timeframe is each frame's real length: a 25 s run with 10 s frames gives 10, 10, the rest, and the run's length in total", async () => {
  const out = join(dir, 'frames.jsonl');
  const r = await runJobio(['run', '--timeframe', '10s', '--output', out, '--', '/bin/sleep', '25'], { env, timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const records = readValidLog(readFileSync(out, 'utf8'));
  const realS = Math.round(Number(records.find((x) => x.jobtotal === true)?.jobrealtime) / 1e6);
  // sleep 25 takes 25 s, and a loaded machine may add up to a few seconds of start and exit (the run
  // is timed from jobio's start): still three frames, the last one the rest of the run's real length.
  assert.ok(realS >= 25 && realS < 30, `sleep 25 took ${realS} s`);
  const periodic = records.filter((x) => x.type === 'resources' && x.jobtotal === false).map((x) => x.timeframe);
  // Each frame's length is rounded on its own, so the rest may round one second below the total's.
  assert.deepEqual(periodic.slice(0, 2), ['10s', '10s']);
  assert.equal(periodic.length, 3);
  assert.ok([`${realS - 20}s`, `${realS - 21}s`].includes(String(periodic[2])), `last frame ${String(periodic[2])} of a ${realS} s run`);
  for (const x of records.filter((x) => x.jobtotal === true && x.timeframe !== undefined)) assert.equal(x.timeframe, `${realS}s`, String(x.type));
  // the cpus object: the CPUs kept busy, over the frame and per second (sleep keeps none busy)
  const job = records.find((x) => x.type === 'resources' && x.jobtotal === true)?.resources.job as Obj;
  assert.deepEqual(job.cpus, { total: 0, 'mean/s': 0, 'median/s': 0, 'max/s': 0 });
});

test('CPU time up to the end of the run is in the frames: frames add up to the job total, per-second figures to their total', async () => {
  const out = join(dir, 'cpu-tail.jsonl');
  // A shell loop that burns CPU until it exits: its last part (all of it when shorter than a second)
  // lies after the last once-a-second sample.
  const r = await runJobio(['run', '--output', out, '--', '/bin/sh', '-c', 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'], { env, timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const records = readValidLog(readFileSync(out, 'utf8'));
  const frames = records.filter((x) => x.type === 'resources' && x.jobtotal === false).map((x) => x.resources as Obj);
  const total = records.find((x) => x.type === 'resources' && x.jobtotal === true) as Obj;
  const seconds = Number(String(total.timeframe).replace('s', ''));
  const job = total.resources.job as Obj;
  const cpuUs = job.cputotaltime.total as number;
  assert.ok(cpuUs >= 50_000, `the loop burned CPU: ${cpuUs} µs`);
  assert.equal((job.cpuusertime.total as number) + (job.cpusystemtime.total as number), cpuUs);
  const framed = frames.reduce((a, f) => a + (f.job.cputotaltime.total as number), 0);
  assert.ok(Math.abs(framed - cpuUs) <= 1, `frames ${framed} µs vs job total ${cpuUs} µs`);
  assert.ok(Math.abs(job.cputotaltime['mean/s'] * seconds - cpuUs) <= seconds, `mean/s ${job.cputotaltime['mean/s']} over ${seconds} s vs total ${cpuUs}`);
  assert.ok(job.cputotaltime['max/s'] >= job.cputotaltime['mean/s'], JSON.stringify(job));
  // cpus: CPU-seconds over the frame, and the busiest second's CPUs, as whole numbers (Mistral's)
  assert.equal(job.cpus.total, Math.round(cpuUs / 1e6));
  assert.equal(job.cpus['max/s'], Math.round(job.cputotaltime['max/s'] / 1e6));
  // the host's CPU over the same frames includes the job's (to the 10 ms tick)
  const host = frames.reduce((a, f) => a + (f.host.cputotaltime.total as number), 0);
  assert.ok(host >= cpuUs * 0.8, `host ${host} µs covers the job's ${cpuUs} µs`);
});

test('a run that ends just after a frame was written gets a last frame: the frames add up to the job total', async () => {
  const out = join(dir, 'late-end.jsonl');
  // Frame [0, 1) is written 0.25 s after its end; sleep ends about 0.1 s later and sends its only
  // snapshot at exit, before the run's rounded length (1 s) reaches another second.
  const r = await runJobio(['run', '--timeframe', '1s', '--output', out, '--', '/bin/sleep', '1.35'], { env });
  assert.equal(r.code, 0, r.stderr);
  const records = readValidLog(readFileSync(out, 'utf8'));
  const all = records.filter((x) => x.type === 'mountpoint' && (x.mountpoint as Obj).path === '*');
  const total = all.find((x) => x.jobtotal === true) as Obj;
  const frames = all.filter((x) => x.jobtotal === false);
  const writes = (x: Obj): number => (x.io['write_all']?.calls.total as number | undefined) ?? 0;
  assert.ok(writes(total) > 0);
  assert.equal(
    frames.reduce((a, f) => a + writes(f), 0),
    writes(total),
    `frames ${frames.map((f) => `${String(f.timeframe)}: ${writes(f)}`).join(', ')}`,
  );
  const seconds = (x: Obj): number => Number(String(x.timeframe).replace('s', ''));
  const periodic = records.filter((x) => x.type === 'resources' && x.jobtotal === false);
  assert.equal(
    periodic.reduce((a, f) => a + seconds(f), 0),
    seconds(total),
    'the frames cover the job total',
  );
});

test('--min-sampled 0 still needs one timed call for a time, and the summary says so', async () => {
  // the real library, one call in a million timed: sh's few calls are not timed
  const r = await runJobio(['run', '--min-sampled', '0', '--sample-every', '1000000', '--', '/bin/sh', '-c', 'exit 0']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /I\/O time not reported \(0 call\(s\) timed, fewer than 1\)/);
});

test('exit status passes through, signals give 128+n', async () => {
  assert.equal((await runJobio(['run', '--', '/bin/sh', '-c', 'exit 7'], { env })).code, 7);
  assert.equal((await runJobio(['run', '--', '/bin/sh', '-c', 'kill -TERM $$'], { env })).code, 143);
  assert.equal((await runJobio(['run', '--', '/bin/sh', '-c', 'kill -KILL $$'], { env })).code, 137);
  const missing = await runJobio(['run', '--', '/nonexistent/program'], { env });
  assert.equal(missing.code, 127);
  assert.match(missing.stderr, /command not found/);
});

test('usage errors exit 2 with a clear message; a missing library says how to build it', async () => {
  for (const [args, message] of [
    [['run', '--size-bins', 'cubes', '--', '/bin/true'], /--size-bins: "cubes" must be small-medium-large, binary, combined or both/],
    [['run', '--small-threshold', 'lots', '--', '/bin/true'], /--small-threshold: "lots" is not a positive size/],
    [['run', '--timeframe', '1.5s', '--', '/bin/true'], /--timeframe: "1.5s" must be a whole number of seconds/],
    [['run', '--sample-every', '1.5', '--', '/bin/true'], /--sample-every: "1.5" is not an integer >= 0/],
    [['run', '--bogus', '--', '/bin/true'], /unknown option '--bogus'/],
    [['run'], /missing required argument 'command'/],
    [['run', '--output', join(dir, 'x-%q.jsonl'), '--', '/bin/true'], /--output: ".*x-%q.jsonl" has "%q" \(known: %h short host name/],
  ] as const) {
    const r = await runJobio(args, { env });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  const config = join(dir, 'bad.yaml');
  writeFileSync(config, 'timeframe: 10s\nsmal-threshold: 4KiB\n');
  const bad = await runJobio(['run', '--config', config, '--', '/bin/true'], { env });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown option "smal-threshold"/);
  const nolib = await runJobio(['run', '--', '/bin/true'], { env: { JOBIO_PRELOAD_LIBRARY: '/nonexistent/libjobio.so' } });
  assert.equal(nolib.code, 1);
  assert.match(nolib.stderr, /profiler library is not built .* run `npm run build`/);
});

test('--output %h %j %p: one file per host, job and launcher', async () => {
  const logs = join(dir, 'per-node');
  mkdirSync(logs);
  const template = join(logs, 'io-%j-%h-%p.jsonl');
  const [a, b] = await Promise.all([0, 1].map(() => runJobio(['run', '--output', template, '--', '/bin/true'], { env: { ...env, SLURM_JOB_ID: '4711' } })));
  assert.equal(a?.code, 0, a?.stderr);
  assert.equal(b?.code, 0, b?.stderr);
  const files = readdirSync(logs).sort();
  const short = hostname().split('.')[0] ?? '';
  assert.equal(files.length, 2, files.join(' '));
  for (const f of files) {
    assert.match(f, new RegExp(`^io-4711-${short.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-\\d+\\.jsonl$`));
    const records = readValidLog(readFileSync(join(logs, f), 'utf8'));
    // the records' host name has the domain (the system's canonical name), the file name the short one
    const full = hostname().includes('.') ? hostname() : execFileSync('hostname', ['--fqdn'], { encoding: 'utf8' }).trim();
    assert.ok(records.every((r) => r.jobid === '4711' && r.hostname === full));
  }
});

test('preload-path prints the library path, or fails with how to build it', async () => {
  const ok = await runJobio(['preload-path'], { env });
  assert.equal(ok.code, 0);
  assert.equal(ok.stdout, `${fake}\n`);
  const missing = await runJobio(['preload-path'], { env: { JOBIO_PRELOAD_LIBRARY: '/nonexistent/libjobio.so' } });
  assert.equal(missing.code, 1);
  assert.equal(missing.stdout, '');
  assert.match(missing.stderr, /npm run build/);
});
