import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseMistralConfig } from './mistral-config.js';
import { libraryEnvironment, resolveRunOptions, UsageError } from './run-options.js';

const fixture = (name: string): string => fileURLToPath(new URL(`../../../test/fixtures/mistral/${name}`, import.meta.url));
const parseFixture = (name: string): ReturnType<typeof parseMistralConfig> => parseMistralConfig(readFileSync(fixture(name), 'utf8'), name);

test("every key of the manual's configuration table is read by its Mistral name; only license and the absent plug-in are warned about", () => {
  const s = parseFixture('mistral_config.yaml');
  assert.deepEqual(s.warnings, ['mistral_config.yaml:5: license: not applicable: jobio needs no licence, ignored']);
  assert.deepEqual(s.plugin, {
    path: 'plugins/absent-output-plugin',
    intervalSec: 10,
    options: [['url', 'http://127.0.0.1:8428']],
    switches: ['--verbose'],
    fileOutput: true,
    where: 'mistral_config.yaml:35: plugin',
  });
  const o = resolveRunOptions(s.raw, {});
  assert.deepEqual(o, {
    output: '/tmp/io-%h.jsonl',
    errorLog: '/tmp/jobio-errors.log',
    timeframeSec: 30,
    totals: true,
    smallThreshold: 32 * 1024,
    largeThreshold: 128 * 1024 * 1024,
    io: {
      read: { enabled: true, duration: true, sized: 'combined' },
      write: { enabled: true, duration: false, sized: 'binary' },
      seek: false,
      metadata: 'separate',
      metadataDuration: true,
      smallThreshold: 32 * 1024,
      largeThreshold: 128 * 1024 * 1024,
      minSampled: 10,
    },
    sampleEvery: 8,
    sampleMaxPerSec: 1000,
    env: ['SLURM_JOB_NAME', 'OMP_NUM_THREADS'],
    network: true,
    minSampled: 10,
    cpuMemory: 'host',
    nvmlLibrary: 'none',
    waitPid: 'first',
    diagnosis: true,
  });
  assert.deepEqual(s.library, {});
  assert.equal(libraryEnvironment(o, '/s')['JOBIO_SAMPLE_EVERY'], '8');
});

test("a key left out means Mistral's default; special values; the prose spellings of duration sampling", () => {
  const o = resolveRunOptions(parseMistralConfig('error: syslog\ngpu:\n  enabled: yes\n  nvidia-library-path: default\n', 'f').raw, {});
  assert.equal(o.errorLog, undefined, 'syslog: the library writes no error file');
  assert.equal(o.nvmlLibrary, 'libnvidia-ml.so.1');
  assert.deepEqual(o.io.read, { enabled: true, duration: false, sized: 'small-medium-large' });
  assert.equal(o.io.metadata, 'combined');
  assert.equal(o.io.metadataDuration, false);
  assert.equal(o.sampleEvery, 0, 'chosen from the clock');
  assert.equal(o.cpuMemory, 'all');
  assert.equal(o.totals, true);
  const prose = resolveRunOptions(parseMistralConfig('duration-sampling:\n  sample-factor: 20\n  sample-limit: 0\n', 'f').raw, {});
  assert.equal(prose.sampleEvery, 20);
  assert.equal(prose.sampleMaxPerSec, 0);
  assert.equal(resolveRunOptions(parseMistralConfig('timeframe: 2m\n', 'f').raw, {}).timeframeSec, 120);
  // --config and the flags win over the file
  assert.equal(resolveRunOptions(parseMistralConfig('metadata:\n  enabled: no\n', 'f').raw, { metadata: 'both' }).io.metadata, 'both');
});

test("keys that are not Mistral's are each named with file:line in a warning; the others are still read", () => {
  const s = parseFixture('mistral_config-unsupported.yaml');
  assert.deepEqual(s.warnings, [
    'mistral_config-unsupported.yaml:3: license: not applicable: jobio needs no licence, ignored',
    'mistral_config-unsupported.yaml:4: contract: not a key of the Mistral configuration, ignored',
    "mistral_config-unsupported.yaml:7: thresholds.huge: not a key of jobio's thresholds (small, large), ignored",
    'mistral_config-unsupported.yaml:10: duration-sampling.per-file: not a key of the Mistral configuration, ignored (known: sample, sample-factor, limit, sample-limit)',
    "mistral_config-unsupported.yaml:11: sizebins: jobio's earlier name, now read.sized and write.sized (docs/jobio-run.md), ignored",
    'mistral_config-unsupported.yaml:18: plugin.vars: not a key of the Mistral configuration, ignored (known: path, interval, options, switches, file-output)',
  ]);
  assert.equal(s.plugin?.intervalSec, 60);
  const o = resolveRunOptions(s.raw, {});
  assert.equal(o.timeframeSec, 0, 'timeframe: no = one frame for the whole run');
  assert.equal(o.smallThreshold, 32768);
  assert.equal(o.sampleEvery, 4);
});

test('a value that cannot be honoured is an error naming file:line: key', () => {
  assert.throws(
    () => parseFixture('mistral_config-invalid.yaml'),
    (err: Error) => err instanceof UsageError && err.message === 'mistral_config-invalid.yaml:5: read.sized: "logarithmic" must be small-medium-large, binary, combined or both',
  );
  const cases: [string, RegExp][] = [
    ['totals: maybe\n', /^f:1: totals: "maybe" is not yes or no$/],
    ['a: 1\nnotrace: [bin/tool]\n', /^f:2: notrace: "bin\/tool": give a base name, or a full path or directory starting with \/$/],
    ['trace-scheduler: [/usr/bin/srun]\n', /^f:1: trace-scheduler: scheduler commands are given by base name$/],
    ['thresholds: 4KiB\n', /^f:1: thresholds: expected a mapping with small, large$/],
    ['network: yes\n', /^f:1: network: expected a mapping with enabled$/],
    ['metadata:\n  enabled: sometimes\n', /^f:2: metadata.enabled: "sometimes" must be combined, separate, both or no$/],
    ['cpu-memory:\n  enabled: gpu\n', /^f:2: cpu-memory.enabled: "gpu" must be all, job, host or no$/],
    ['wait_pid: last\n', /^f:1: wait_pid: "last" must be mistral, first, parent, group or parent-group$/],
    ['plugin:\n  interval: 5s\n', /^f:1: plugin: a plug-in needs its path \(plugin.path\)$/],
    ['plugin:\n  path: x\n  interval: 500ms\n', /^f:3: plugin.interval: "500ms" must be a whole number of seconds, at least 1s$/],
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
    ['duration-sampling:\n  limit: -1\n', 'f:2: duration-sampling.limit: "-1" is not an integer >= 0'],
    ['vars: [OK, not-a-name]\n', 'f:1: vars: "not-a-name" is not an environment variable name'],
    ['write:\n  sized: both\nthresholds: {small: 4KiB, large: 8KiB}\n', 'f:2: write.sized: the thresholds name a power-of-two range (small 1 B, or large twice a power-of-two small); choose others'],
  ];
  for (const [text, message] of located)
    assert.throws(
      () => parseMistralConfig(text, 'f'),
      (err: Error) => err instanceof UsageError && err.message === message,
      `${text}: ${message}`,
    );
});

test("lists may be YAML sequences or comma-separated; an empty file means Mistral's defaults", () => {
  assert.equal(parseMistralConfig('bypass: [a, /opt/b/]\n', 'f').library['JOBIO_BYPASS'], 'a,/opt/b/');
  assert.equal(parseMistralConfig('bypass: a, b\n', 'f').library['JOBIO_BYPASS'], 'a,b');
  assert.equal(parseMistralConfig('trace-scheduler: yes\n', 'f').library['JOBIO_TRACE_SCHEDULER'], '1');
  const empty = resolveRunOptions(parseMistralConfig('# nothing\n', 'f').raw, {});
  assert.equal(empty.totals, true);
  assert.equal(empty.cpuMemory, 'all');
});
