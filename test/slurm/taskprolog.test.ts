// The Slurm TaskProlog's decision (provisioning/slurm/jobio-taskprolog.sh) run without Slurm: the
// environment slurmstepd gives it is set by the test, and a stand-in `squeue` answers the job's
// comment. What it prints is what Slurm puts into the task's environment (`export NAME=value`) or the
// task's output (`print …`). The real-Slurm test (slurm.test.ts, "the TaskProlog") runs it in jobs.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/exporter.js';
import { requireProfilerLibrary } from '../profiler/real-library.js';

const dir = mkdtempSync(join(tmpdir(), 'jobio-taskprolog-'));
after(() => rmSync(dir, { recursive: true, force: true }));
// The real library: in the LD_PRELOAD cases the script's own shell loads it (its frames go nowhere).
const library = requireProfilerLibrary();
const nowhere = join(dir, 'no-exporter.sock');
// Files in the working directory: a `*` in a partition list must not be expanded by the shell.
writeFileSync(join(dir, 'compute'), '');
// The stand-in squeue: the comment of job 7 only; it logs its calls, so the test sees when it is asked.
const calls = join(dir, 'squeue-calls');
writeFileSync(join(dir, 'squeue'), `#!/bin/sh\necho "$*" >> ${calls}\n[ "$*" = "-h -j 7 -o %k" ] && printf '%s\\n' "$COMMENT" && exit 0\nexit 1\n`, { mode: 0o755 });

function taskprolog(conf: string | undefined, env: Record<string, string>): { out: string; squeue: number } {
  const confPath = join(dir, 'taskprolog.conf');
  rmSync(confPath, { force: true });
  if (conf !== undefined) writeFileSync(confPath, conf);
  rmSync(calls, { force: true });
  const out = execFileSync(join(repoRoot, 'provisioning/slurm/jobio-taskprolog.sh'), [], {
    cwd: dir,
    env: { PATH: `${dir}:/usr/bin:/bin`, JOBIO_TASKPROLOG_CONF: confPath, SLURM_JOB_ID: '7', ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'], // the loader's complaint about a made-up LD_PRELOAD entry
  });
  const squeue = existsSync(calls) ? readFileSync(calls, 'utf8').split('\n').filter(Boolean).length : 0;
  return { out, squeue };
}

const on = (socket = '/run/jobio/profiler.sock', preload = library): string => `export JOBIO_PROFILE=1\nexport LD_PRELOAD=${preload}\nexport JOBIO_SOCKET=${socket}\n`;
const off = 'export JOBIO_PROFILE=0\n';

test('every partition by default: the library, the default socket and the decision are exported', () => {
  assert.deepEqual(taskprolog(`library=${library}\n`, { SLURM_JOB_PARTITION: 'compute' }), { out: on(), squeue: 1 });
  assert.deepEqual(taskprolog(`library = ${library}\nsocket=/srv/jobio.sock\npartitions=*\n`, { SLURM_JOB_PARTITION: 'io' }), { out: on('/srv/jobio.sock'), squeue: 1 });
});

test('a partition list: its jobs profiled, the others only on their opt-in (environment or comment)', () => {
  const conf = `library=${library}\npartitions=compute, io\n`;
  assert.deepEqual(taskprolog(conf, { SLURM_JOB_PARTITION: 'io' }), { out: on(), squeue: 1 });
  assert.deepEqual(taskprolog(conf, { SLURM_JOB_PARTITION: 'debug' }), { out: off, squeue: 1 });
  assert.deepEqual(taskprolog(conf, { SLURM_JOB_PARTITION: 'debug', COMMENT: 'run 7,jobio=on' }), { out: on(), squeue: 1 });
  assert.deepEqual(taskprolog(conf, { SLURM_JOB_PARTITION: 'debug', COMMENT: 'jobio=onward' }), { out: off, squeue: 1 }, 'only the whole word counts');
  assert.deepEqual(taskprolog(conf, { SLURM_JOB_PARTITION: 'debug', JOBIO_PROFILE: '1' }), { out: on(), squeue: 0 }, 'the variable decides: squeue is not asked');
  assert.deepEqual(taskprolog(conf, { SLURM_JOB_PARTITION: 'compute', JOBIO_PROFILE: '0' }), { out: off, squeue: 0 });
  assert.deepEqual(taskprolog(conf, { SLURM_JOB_PARTITION: 'compute', COMMENT: 'jobio=off' }), { out: off, squeue: 1 });
  assert.deepEqual(taskprolog(`${conf}comment=no\n`, { SLURM_JOB_PARTITION: 'debug', COMMENT: 'jobio=on' }), { out: off, squeue: 0 }, 'comment=no: squeue is never asked');
});

test('an excluded partition is left alone, whatever its job asks, without asking squeue', () => {
  const conf = `library=${library}\nexclude_partitions=quiet\n`;
  assert.deepEqual(taskprolog(conf, { SLURM_JOB_PARTITION: 'quiet', JOBIO_PROFILE: '1', COMMENT: 'jobio=on' }), { out: off, squeue: 0 });
  assert.deepEqual(taskprolog(`${conf}partitions=*\n`, { SLURM_JOB_PARTITION: 'quiet' }), { out: off, squeue: 0 });
  assert.deepEqual(taskprolog(conf, { SLURM_JOB_PARTITION: 'compute' }), { out: on(), squeue: 1 });
});

test("LD_PRELOAD: the job's own libraries kept after the profiler, the profiler never twice", () => {
  const conf = `library=${library}\n`;
  assert.deepEqual(taskprolog(conf, { JOBIO_PROFILE: '1', LD_PRELOAD: library, JOBIO_SOCKET: nowhere }), { out: 'export JOBIO_PROFILE=1\nexport JOBIO_SOCKET=/run/jobio/profiler.sock\n', squeue: 0 });
  assert.deepEqual(taskprolog(conf, { JOBIO_PROFILE: '1', LD_PRELOAD: '/opt/site/libfoo.so' }), { out: on(undefined, `${library}:/opt/site/libfoo.so`), squeue: 0 });
  assert.deepEqual(taskprolog(conf, { JOBIO_PROFILE: '1', LD_PRELOAD: `${library}:${library}`, JOBIO_SOCKET: nowhere }), {
    out: 'export JOBIO_PROFILE=1\nexport JOBIO_SOCKET=/run/jobio/profiler.sock\n',
    squeue: 0,
  });
});

test('no usable library: the task runs unprofiled and its output says why', () => {
  const why = (conf: string): string => `print jobio: profiler library not found (library= in ${conf}); this task is not profiled\n${off}`;
  const confPath = join(dir, 'taskprolog.conf');
  assert.deepEqual(taskprolog(`library=${join(dir, 'missing.so')}\n`, { JOBIO_PROFILE: '1' }), { out: why(confPath), squeue: 0 });
  assert.deepEqual(taskprolog('library=relative/libjobio.so\n', { JOBIO_PROFILE: '1' }), { out: why(confPath), squeue: 0 });
  // No conf file and no jobio in PATH.
  assert.deepEqual(taskprolog(undefined, { JOBIO_PROFILE: '1' }), { out: why(confPath), squeue: 0 });
});
