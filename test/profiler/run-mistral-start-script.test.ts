// A Mistral site's start script, unchanged: it sets only MISTRAL_* variables and LD_PRELOAD of
// jobio's library and runs the job, with no `jobio run` around it. The job's first process starts the
// session itself (native/profiler/src/process/session.c, `jobio run --attach`), its children join
// it, and the log is the one `jobio run` writes with the equivalent flags: the same records in the
// same order with the same figures, once the fields that differ between any two runs are set aside:
//   timestamp, hostname, jobstarttime, jobendtime, jobrealtime: the clock and the host;
//   measured time: accumulatedruntime, accumulatediotime, iotimepercentage and each class's time in
//     the summaries, the diagnosis's runtime and each reason's time, time_error and share;
//   resources: the keys are compared, not the CPU and memory figures (the host's load, sampled);
//   a diagnosis reason's program.path: /proc/PID/exe as the session read it with the process's first
//     frame; a process that ended before the attached session was up (dd here) has none.
// Oracles: the size of the file dd writes (10 blocks of 4 KiB) and of the file cat reads.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runJobio } from '../helpers/exporter.js';
import { readValidLog, type LogRecord } from './mistral-schema.js';
import { mountOf, requireProfilerLibrary } from './real-library.js';

const library = requireProfilerLibrary();
const work = mkdtempSync(join(tmpdir(), 'jobio-start-script-'));
after(() => (process.env['KEEP'] ? undefined : rmSync(work, { recursive: true, force: true })));

const input = join(work, 'input.bin');
writeFileSync(input, Buffer.alloc(10000, 7));
const output = join(work, 'output.bin');
// The job: dd writes 10 blocks of 4 KiB, cat reads 10000 bytes; the sleep
// keeps the job past the attached session's start and first CPU/memory sample, and ends it well
// inside its fourth second (both runs round the job to 3 whole seconds).
const job = join(work, 'job.sh');
writeFileSync(job, `dd if=/dev/zero of=${output} bs=4096 count=10 2>/dev/null\ncat ${input} > /dev/null\nsleep 3.2\n`);

/** Both runs start from the same files: dd creates its output. */
const fresh = (): void => rmSync(output, { force: true });

// A site's configuration file: keys the session applies (per-call metadata keys, one aggregate for
// reads), and duration-sampling left at Mistral's default (0: chosen from the clock's cost, by the
// library in the start script's case and taken over by the session).
const config = join(work, 'mistral_config.yaml');
writeFileSync(config, 'metadata:\n  enabled: separate\nread:\n  sized: combined\n');

const shortHost = hostname().split('.')[0] ?? '';

/** No MISTRAL_* or JOBIO_* variable of the machine running the tests. */
const clean: NodeJS.ProcessEnv = Object.fromEntries(
  Object.keys(process.env)
    .filter((k) => k.startsWith('MISTRAL_') || k.startsWith('JOBIO_') || k === 'LD_PRELOAD')
    .map((k) => [k, undefined]),
);
const baseEnv = (): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(process.env).filter(([k]) => !(k in clean)));

/** A log with the run-to-run fields set aside (the header says which and why). */
function normalised(path: string): LogRecord[] {
  return readValidLog(readFileSync(path, 'utf8')).map((record) => {
    const r = structuredClone(record) as Record<string, unknown>;
    for (const k of ['timestamp', 'hostname', 'jobstarttime', 'jobendtime', 'jobrealtime']) if (k in r) r[k] = '*';
    if (r['type'] === 'resources') r['resources'] = shape(r['resources']);
    const summary = r['iosummary'] as Record<string, Record<string, unknown>> | undefined;
    for (const [name, part] of Object.entries(summary ?? {})) {
      if (name === 'total') for (const k of ['accumulatedruntime', 'accumulatediotime', 'iotimepercentage']) if (k in part) part[k] = '*';
      if ('time' in part) part['time'] = '*';
    }
    if (r['type'] === 'diagnosis') {
      r['runtime'] = '*';
      for (const reason of r['reasons'] as Record<string, unknown>[]) {
        reason['time'] = reason['time_error'] = reason['share'] = '*';
        (reason['program'] as Record<string, unknown>)['path'] = '*';
      }
    }
    return r;
  });
}

/** The keys of an object tree, its numbers replaced by 0. */
function shape(v: unknown): unknown {
  if (typeof v === 'number') return 0;
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)]));
}

/** Waits (bounded) until nothing is left in `dir`: the attached session removes its directory last. */
async function sessionEnded(dir: string): Promise<void> {
  const until = Date.now() + 60_000;
  while (readdirSync(dir).length > 0) {
    if (Date.now() > until) throw new Error(`the session never ended: ${readdirSync(dir).join(' ')} still in ${dir}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a start script with only MISTRAL_* variables and LD_PRELOAD writes the log jobio run writes with the equivalent flags', async () => {
  // jobio run: -o, --error-log, --small-threshold and --mistral-config for MISTRAL_LOG, MISTRAL_ERR_LOG,
  // MISTRAL_PROFILE_SMALL_IO and MISTRAL_CONFIG
  const runLog = join(work, `run-${shortHost}.log`);
  fresh();
  const r = await runJobio(['run', '-o', join(work, 'run-%h.log'), '--error-log', join(work, 'run-errors.log'), '--small-threshold', '4096', '--mistral-config', config, '--', 'sh', job], {
    env: clean,
    timeoutMs: 60_000,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(statSync(output).size, 40960);

  // the start script: the variables, LD_PRELOAD, and the job
  const sessions = join(work, 'sessions');
  mkdirSync(sessions);
  const script = join(work, 'start.sh');
  writeFileSync(
    script,
    [
      '#!/bin/sh',
      `export MISTRAL_LOG=${join(work, 'script-%h.log')}`,
      `export MISTRAL_ERR_LOG=${join(work, 'script-errors.log')}`,
      'export MISTRAL_PROFILE_SMALL_IO=4096',
      `export MISTRAL_CONFIG=${config}`,
      `export MISTRAL_OUTPUT_DIRECTORY=${sessions}`,
      `export LD_PRELOAD=${library}`,
      `sh ${job}`,
      '',
    ].join('\n'),
  );
  fresh();
  const s = spawnSync('sh', [script], { env: baseEnv(), encoding: 'utf8', timeout: 60_000 });
  assert.equal(s.status, 0, s.stderr);
  assert.equal(statSync(output).size, 40960);
  await sessionEnded(sessions);
  const scriptLog = join(work, `script-${shortHost}.log`);
  assert.ok(existsSync(scriptLog), `the session wrote MISTRAL_LOG: ${readdirSync(work).join(' ')}`);
  // nothing to say: the session started, and the library runs with what the options ask
  assert.equal(existsSync(join(work, 'script-errors.log')) ? readFileSync(join(work, 'script-errors.log'), 'utf8') : '', '');

  const fromRun = normalised(runLog);
  const fromScript = normalised(scriptLog);
  assert.deepEqual(
    fromScript.map((x) => x.type),
    fromRun.map((x) => x.type),
  );
  for (let i = 0; i < fromRun.length; i++) assert.deepEqual(fromScript[i], fromRun[i], `record ${i} (${fromRun[i]?.type})`);

  // one session for the job: dd and cat (children of the first process) are in its one set of totals
  const totals = fromScript.filter((x) => x.type === 'jobsummary');
  assert.equal(totals.length, 1);
  const mount = fromScript.find((x) => x.type === 'mountpoint' && x.jobtotal === true && x.mountpoint.path === mountOf(output));
  assert.ok(mount, 'a job-total record of the work directory');
  // MISTRAL_PROFILE_SMALL_IO reached the library: dd's 4 KiB blocks are not small; cat's file and the
  // script sh reads are the bytes read there
  assert.deepEqual(mount.io['write_4KiB-128MiB']?.calls.total, 10);
  assert.deepEqual(mount.io['write_4KiB-128MiB']?.bytes.total, 40960);
  assert.equal(mount.io['read_all']?.bytes.total, 10000 + readFileSync(job).length);
  // the configuration file applied: reads in one aggregate, metadata per call
  assert.deepEqual(
    Object.keys(mount.io).filter((k) => k.startsWith('read_')),
    ['read_all'],
  );
  assert.ok(mount.io['create'] && !mount.io['metadata'], Object.keys(mount.io).join(' '));
});

test('a session that cannot start leaves the job running unprofiled, with one line in MISTRAL_ERR_LOG for the whole job', () => {
  const errors = join(work, 'no-session-errors.log');
  fresh();
  // three preloaded processes (sh, dd, cat): the first says it once, its children inherit JOBIO_DISABLE
  const s = spawnSync('sh', ['-c', `dd if=/dev/zero of=${output} bs=4096 count=10 2>/dev/null; cat ${input} > /dev/null; exit 3`], {
    env: { ...baseEnv(), MISTRAL_LOG: join(work, 'never.log'), MISTRAL_ERR_LOG: errors, JOBIO_COMMAND: join(work, 'no-such-jobio'), LD_PRELOAD: library },
    encoding: 'utf8',
  });
  assert.equal(s.status, 3, s.stderr);
  assert.equal(statSync(output).size, 40960);
  const lines = readFileSync(errors, 'utf8').trim().split('\n');
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0] ?? '', /cannot start a jobio session: no jobio command \(set JOBIO_COMMAND\); the job is not profiled: .*no-such-jobio$/);
  assert.ok(!existsSync(join(work, 'never.log')));
});

test("a session of another node in the environment (srun carries it along) is not joined: this node's first process starts its own", async () => {
  const sessions = join(work, 'sessions-node');
  mkdirSync(sessions);
  const log = join(work, `node-${shortHost}.log`);
  const s = spawnSync('cat', [input], {
    env: {
      ...baseEnv(),
      JOBIO_SOCKET: join(work, 'other-node.sock'),
      JOBIO_SESSION_HOST: `not-${hostname()}`,
      MISTRAL_LOG: join(work, 'node-%h.log'),
      MISTRAL_OUTPUT_DIRECTORY: sessions,
      LD_PRELOAD: library,
    },
    encoding: 'utf8',
  });
  assert.equal(s.status, 0, s.stderr);
  assert.equal(s.stdout.length, 10000);
  await sessionEnded(sessions);
  const total = readValidLog(readFileSync(log, 'utf8')).find((x) => x.type === 'mountpoint' && x.jobtotal === true && x.mountpoint.path === mountOf(input));
  assert.equal(total?.io['read_all']?.bytes.total, 10000);
});
