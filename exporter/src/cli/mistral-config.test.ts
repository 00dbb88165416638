import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseMistralConfig } from './mistral-config.js';
import { libraryEnvironment, resolveRunOptions, UsageError } from './run-options.js';

const fixture = (name: string): string => fileURLToPath(new URL(`../../../test/fixtures/mistral/${name}`, import.meta.url));
const parseFixture = (name: string): ReturnType<typeof parseMistralConfig> => parseMistralConfig(readFileSync(fixture(name), 'utf8'), name);

test('every supported key of the fixture is read into options, record selection and library variables', () => {
  const s = parseFixture('mistral_config.yaml');
  assert.deepEqual(s.warnings, []);
  const o = resolveRunOptions(s.raw, {});
  assert.deepEqual(o, {
    output: '/tmp/io-%h.jsonl',
    errorLog: '/tmp/jobio-errors.log',
    timeframeSec: 30,
    smallThreshold: 64 * 1024,
    largeThreshold: 256 * 1024 * 1024,
    sizeBins: 'combined',
    sampleEvery: 8,
    sampleMaxPerSec: 1000,
    env: ['SLURM_JOB_NAME', 'OMP_NUM_THREADS'],
    network: true,
    minSampled: 5,
    nvmlLibrary: 'none',
  });
  assert.deepEqual(s.records, {
    totals: false,
    sections: { mountpoint: true, network: true, resources: false, gpu: false, mountpointsummary: true, jobsummary: true, diagnosis: false },
  });
  assert.deepEqual(s.library, {
    JOBIO_EXCLUDE: 'hostname,/usr/bin/env,/opt/site/tools/',
    JOBIO_EXCLUDE_CHILDREN: '1',
    JOBIO_BYPASS: 'rsync,/usr/lib/git-core',
    JOBIO_TRACE_CHILDREN: '0',
    JOBIO_TRACE_SCHEDULER: 'mpirun,srun',
  });
  assert.equal(libraryEnvironment(o, '/s')['JOBIO_SMALL_THRESHOLD'], '65536');
});

test('unsupported keys are each named with file:line in a warning; the supported ones are still read', () => {
  const s = parseFixture('mistral_config-unsupported.yaml');
  assert.deepEqual(s.warnings, [
    'mistral_config-unsupported.yaml:3: license: not supported by jobio, ignored',
    'mistral_config-unsupported.yaml:4: contract: not supported by jobio, ignored',
    'mistral_config-unsupported.yaml:7: thresholds.huge: not supported by jobio, ignored',
    'mistral_config-unsupported.yaml:10: sampling.per-file: not supported by jobio, ignored',
    // Mistral's output plug-in mapping: one warning for the whole mapping, none per sub-key.
    'mistral_config-unsupported.yaml:14: plugin: not supported by jobio, ignored',
  ]);
  const o = resolveRunOptions(s.raw, {});
  assert.equal(o.timeframeSec, 0, 'timeframe: no = one frame for the whole run');
  assert.equal(o.smallThreshold, 32768);
  assert.equal(o.sampleEvery, 16);
});

test('a value that cannot be honoured is an error naming file:line: key', () => {
  assert.throws(
    () => parseFixture('mistral_config-invalid.yaml'),
    (err: Error) => err instanceof UsageError && err.message === 'mistral_config-invalid.yaml:4: sizebins: "logarithmic" must be small-medium-large, pow2 or combined',
  );
  const cases: [string, RegExp][] = [
    ['totals: maybe\n', /^f:1: totals: "maybe" is not yes or no$/],
    ['a: 1\nnotrace: [bin/tool]\n', /^f:2: notrace: "bin\/tool": give a base name, or a full path or directory starting with \/$/],
    ['trace-scheduler: [/usr/bin/srun]\n', /^f:1: trace-scheduler: scheduler commands are given by base name$/],
    ['thresholds: 4KiB\n', /^f:1: thresholds: expected a mapping with small, large$/],
    ['totals: yes\ntotals: no\n', /^f:2: .*unique/],
    ['- a\n- b\n', /^f:1: expected a mapping of keys$/],
    ['timeframe: [1\n', /^f:\d+: /],
  ];
  for (const [text, re] of cases)
    assert.throws(
      () => parseMistralConfig(text, 'f'),
      (err: Error) => err instanceof UsageError && re.test(err.message),
      text,
    );
  // the shared option checks, located in the file
  const located: [string, string][] = [
    ['timeframe: 500ms\n', 'f:1: timeframe: "500ms" must be a whole number of seconds, at least 1s'],
    ['a: 1\nthresholds:\n  small: 4KiB\n  large: 1KiB\n', 'f:4: thresholds.large: must not be below --small-threshold'],
    ['sampling:\n  every: 0\n', 'f:2: sampling.every: "0" is not an integer >= 1'],
    ['environment: [OK, not-a-name]\n', 'f:1: environment: "not-a-name" is not an environment variable name'],
    ['sizebins: combined\nthresholds: {small: 4KiB, large: 8KiB}\n', 'f:1: sizebins: the thresholds name a power-of-two range (small 1 B, or large twice a power-of-two small); choose others'],
  ];
  for (const [text, message] of located)
    assert.throws(
      () => parseMistralConfig(text, 'f'),
      (err: Error) => err instanceof UsageError && err.message === message,
      `${text}: ${message}`,
    );
});

test('lists may be YAML sequences or comma-separated; an empty file selects everything', () => {
  assert.equal(parseMistralConfig('bypass: [a, /opt/b/]\n', 'f').library['JOBIO_BYPASS'], 'a,/opt/b/');
  assert.equal(parseMistralConfig('bypass: a, b\n', 'f').library['JOBIO_BYPASS'], 'a,b');
  assert.equal(parseMistralConfig('trace-scheduler: yes\n', 'f').library['JOBIO_TRACE_SCHEDULER'], '1');
  const empty = parseMistralConfig('# nothing\n', 'f');
  assert.equal(empty.records.totals, true);
  assert.ok(Object.values(empty.records.sections).every((on) => on));
});
