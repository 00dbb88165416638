// The Flux job-shell plugin (provisioning/flux/jobio.lua) run without Flux: lua5.4 loads it through a
// stand-in for the shell's Lua interface (test/fixtures/flux/shell-standin.lua) with a recorded job
// (test/fixtures/flux/jobs/: shell info with the jobspec, shell options, the job's environment), runs
// its shell.init handler as the shell would before starting tasks, and prints the environment the
// tasks would start with and what the plugin logged. The decision itself is the shared settings
// reader's (provisioning/common/jobio-profile-settings.sh), found beside the shell's initrc.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/exporter.js';
import { requireProfilerLibrary } from '../profiler/real-library.js';

const fixtures = join(repoRoot, 'test/fixtures/flux');
const library = requireProfilerLibrary();
const work = mkdtempSync(join(tmpdir(), 'jobio-flux-shell-'));
after(() => rmSync(work, { recursive: true, force: true }));
const confPath = join(work, 'flux-shell.conf');

/** What the tasks of a recorded job start with under the plugin: the log lines, then `NAME=value` lines. */
function shellInit(conf: string, job: string, rcpath = join(repoRoot, 'provisioning/flux')): string {
  writeFileSync(confPath, conf);
  const jobPath = job.includes('/') ? job : join(fixtures, 'jobs', `${job}.lua`);
  return execFileSync('lua5.4', [join(fixtures, 'shell-standin.lua'), join(repoRoot, 'provisioning/flux/jobio.lua'), jobPath, rcpath], {
    cwd: work,
    env: { PATH: '/usr/bin:/bin', JOBIO_FLUX_SHELL_CONF: confPath },
    encoding: 'utf8',
    timeout: 20_000,
  });
}

const alice = 'HOME=/home/alice\n';
const tail = 'PATH=/usr/bin:/bin\nUSER=alice\n';
const profiled = (preload = library, socket = '/run/jobio/profiler.sock'): string => `JOBIO_PROFILE=1\nJOBIO_SOCKET=${socket}\nLD_PRELOAD=${preload}\n`;

test('every queue by default: a batch job gets the library, the socket and the decision; its own variables are kept', () => {
  assert.equal(shellInit(`library=${library}\n`, 'batch'), `${alice}JOBIO_PROFILE=1\nJOBIO_SOCKET=/run/jobio/profiler.sock\nLANG=C.UTF-8\nLD_PRELOAD=${library}\n${tail}`);
  assert.equal(shellInit(`library=${library}\nsocket=/srv/jobio.sock\n`, 'no-queue'), `${alice}${profiled(library, '/srv/jobio.sock')}${tail}`, 'a Flux without queues');
});

test("the job's word: -o jobio=1 in an unprofiled queue (its own preload kept after), JOBIO_PROFILE=0, the option over the variable", () => {
  const conf = `library=${library}\nqueues=batch\n`;
  assert.equal(shellInit(conf, 'debug-option'), `${alice}${profiled(`${library}:/opt/site/libfoo.so`)}${tail}`);
  assert.equal(shellInit(conf, 'no-queue'), `${alice}JOBIO_PROFILE=0\n${tail}`, 'a job of no queue is in no list but `*`');
  assert.equal(shellInit(conf, 'batch-env-optout'), `${alice}JOBIO_PROFILE=0\n${tail}`);
  assert.equal(shellInit(conf, 'option-over-env'), `${alice}JOBIO_PROFILE=0\n${tail}`);
});

test('an excluded queue is left alone whatever the job asks; its own LD_PRELOAD untouched', () => {
  assert.equal(shellInit(`library=${library}\nexclude_queues=debug\n`, 'debug-option'), `${alice}JOBIO_PROFILE=0\nLD_PRELOAD=/opt/site/libfoo.so\n${tail}`);
});

test('never fails a job: a missing library or a missing settings reader leaves it unprofiled with a line in its log', () => {
  const missing = join(work, 'missing.so');
  assert.equal(
    shellInit(`library=${missing}\n`, 'batch'),
    `log info jobio: profiler library not found (library= in ${confPath}); this job is not profiled\n${alice}JOBIO_PROFILE=0\nLANG=C.UTF-8\n${tail}`,
  );
  assert.equal(
    shellInit(`library=${library}\n`, 'batch', work),
    `log info jobio: ${work}/jobio-profile-settings.sh is missing; this job is not profiled\n${alice}JOBIO_PROFILE=0\nLANG=C.UTF-8\n${tail}`,
  );
});

test("the job's values reach the settings reader as data: quotes and $(…) in LD_PRELOAD run nothing", () => {
  const evil = `/opt/x'$(touch ${join(work, 'pwned')})'.so`;
  const job = join(work, 'evil.lua');
  writeFileSync(job, readFileSync(join(fixtures, 'jobs/debug-option.lua'), 'utf8').replace('"/opt/site/libfoo.so"', JSON.stringify(evil)));
  assert.equal(shellInit(`library=${library}\n`, job), `${alice}${profiled(`${library}:${evil}`)}${tail}`);
  assert.equal(existsSync(join(work, 'pwned')), false);
});
