import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MISTRAL_DEFAULT_NOTRACE, readMistralEnvironment } from './mistral-env.js';
import { resolveRunOptions, UsageError } from './run-options.js';

test('the options Mistral has variables for are read with their meanings; empty counts as unset', () => {
  const e = readMistralEnvironment({
    MISTRAL_LOG: '/scratch/io-%h.log',
    MISTRAL_ERR_LOG: '/scratch/err.log',
    MISTRAL_PROFILE_SMALL_IO: '4096',
    MISTRAL_MONITOR_DURATION_SAMPLE: '3',
    MISTRAL_CONFIG: '/etc/mistral_config.yaml',
    MISTRAL_OUTPUT_DIRECTORY: '/local/mistral',
    MISTRAL_BYPASS_DISABLE: '',
  });
  assert.deepEqual(e.raw, { output: '/scratch/io-%h.log', 'error-log': '/scratch/err.log', 'small-threshold': '4096', 'min-sampled': '3' });
  assert.equal(e.configFile, '/etc/mistral_config.yaml');
  assert.equal(e.workDirectory, '/local/mistral');
  assert.deepEqual(e.library, {});
  assert.deepEqual(e.warnings, []);
  const o = resolveRunOptions(e.raw, {});
  assert.equal(o.smallThreshold, 4096);
  assert.equal(o.minSampled, 3);
  // the special value of the error log: the system log, i.e. no file
  assert.deepEqual(readMistralEnvironment({ MISTRAL_ERR_LOG: 'syslog' }).raw, {});
  assert.deepEqual(readMistralEnvironment({}), { raw: {}, library: {}, warnings: [] });
  // as under Mistral, the log's name always has the host in it
  assert.equal(readMistralEnvironment({ MISTRAL_LOG: '/scratch/io.log' }).raw.output, '/scratch/io-%h.log');
});

test("MISTRAL_NOTRACE_PROGRAMS: additions, and -name taken off Mistral's default list; children left out too", () => {
  const e = readMistralEnvironment({ MISTRAL_NOTRACE_PROGRAMS: 'failing_binary, /usr/bin/ssh,-srun,-qsub,/opt/vendor/' });
  const rest = MISTRAL_DEFAULT_NOTRACE.filter((n) => n !== 'srun' && n !== 'qsub');
  assert.deepEqual(e.library, {
    JOBIO_EXCLUDE: ['failing_binary', '/usr/bin/ssh', '/opt/vendor/', ...rest].join(','),
    JOBIO_EXCLUDE_CHILDREN: '1',
    JOBIO_TRACE_SCHEDULER: '1',
  });
  assert.equal(rest.length, 8);
  // a name both added and on the default list is given once
  assert.equal(readMistralEnvironment({ MISTRAL_NOTRACE_PROGRAMS: 'srun' }).library['JOBIO_EXCLUDE'], ['srun', ...MISTRAL_DEFAULT_NOTRACE.filter((n) => n !== 'srun')].join(','));
});

test('MISTRAL_BYPASS_PROGRAMS, MISTRAL_BYPASS_DISABLE and MISTRAL_VOLUMES become the library variables', () => {
  const e = readMistralEnvironment({ MISTRAL_BYPASS_PROGRAMS: 'emacs,/usr/local/', MISTRAL_BYPASS_DISABLE: 'VOV_JOBID', MISTRAL_VOLUMES: '/etc/volumes' });
  assert.deepEqual(e.library, { JOBIO_BYPASS: 'emacs,/usr/local/', JOBIO_BYPASS_DISABLE: 'VOV_JOBID', JOBIO_VOLUMES: '/etc/volumes' });
  assert.deepEqual(e.warnings, []);
});

test('a value that cannot be honoured names the variable', () => {
  const bad = (env: NodeJS.ProcessEnv, message: RegExp): void =>
    assert.throws(
      () => readMistralEnvironment(env),
      (err: unknown) => err instanceof UsageError && message.test(err.message),
    );
  bad({ MISTRAL_PROFILE_SMALL_IO: 'small' }, /^MISTRAL_PROFILE_SMALL_IO=small: "small" is not a positive size/);
  bad({ MISTRAL_MONITOR_DURATION_SAMPLE: '-1' }, /^MISTRAL_MONITOR_DURATION_SAMPLE=-1: "-1" is not an integer >= 0/);
  bad({ MISTRAL_NOTRACE_PROGRAMS: 'bin/tool' }, /^MISTRAL_NOTRACE_PROGRAMS: "bin\/tool": give a base name, or a full path/);
  bad({ MISTRAL_BYPASS_PROGRAMS: '-emacs' }, /^MISTRAL_BYPASS_PROGRAMS: "-emacs": a program to bypass cannot start with -/);
  bad({ MISTRAL_BYPASS_DISABLE: 'NOT A NAME' }, /^MISTRAL_BYPASS_DISABLE: "NOT A NAME" is not an environment variable name/);
  bad({ MISTRAL_VOLUMES: 'volumes.txt' }, /^MISTRAL_VOLUMES=volumes.txt: give the file's absolute path/);
});
