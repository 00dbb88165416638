import { test } from 'node:test';
import assert from 'node:assert/strict';
import { libraryEnvironment, parseSize, resolveRunOptions, UsageError } from './run-options.js';

test('defaults follow Mistral and docs/profiler.md', () => {
  const o = resolveRunOptions({}, {});
  assert.deepEqual(o, {
    timeframeSec: 10,
    smallThreshold: 32768,
    largeThreshold: 134217728,
    sizeBins: 'small-medium-large',
    sampleEvery: 16,
    sampleMaxPerSec: 0,
    env: [],
    network: false,
    minSampled: 10,
    nvmlLibrary: 'libnvidia-ml.so.1',
  });
  assert.deepEqual(libraryEnvironment(o, '/s'), {
    JOBIO_SOCKET: '/s',
    JOBIO_TIMEFRAME: '1',
    JOBIO_FLUSH_THREAD: '1',
    JOBIO_SMALL_THRESHOLD: '32768',
    JOBIO_LARGE_THRESHOLD: '134217728',
    JOBIO_SAMPLE_EVERY: '16',
    JOBIO_SAMPLE_MAX_PER_SEC: '0',
    JOBIO_NETWORK: '0',
  });
  assert.equal(libraryEnvironment(o, '/s', 1_700_000_000_123)['JOBIO_FRAME_ORIGIN_NS'], '1700000000123000000');
});

test('flags override the file; sizes, durations and lists are parsed', () => {
  const o = resolveRunOptions({ timeframe: '1m', 'small-threshold': '4KiB', env: ['A', 'B'], network: true }, { 'small-threshold': '8k', env: ['C,D'] });
  assert.equal(o.timeframeSec, 60);
  assert.equal(o.smallThreshold, 8192);
  assert.deepEqual(o.env, ['C', 'D']);
  assert.equal(o.network, true);
  assert.equal(parseSize('128MiB', 'x'), 134217728);
  assert.equal(parseSize('100', 'x'), 100);
  assert.equal(resolveRunOptions({ timeframe: 5 }, {}).timeframeSec, 5);
  assert.equal(resolveRunOptions({}, { timeframe: 'no' }).timeframeSec, 0, 'no: one frame for the whole run');
  assert.equal(resolveRunOptions({}, { 'size-bins': 'combined' }).sizeBins, 'combined');
});

test('bad values are usage errors naming the option', () => {
  for (const [raw, message] of [
    [{ timeframe: '500ms' }, /--timeframe/],
    [{ 'small-threshold': '-1' }, /--small-threshold/],
    [{ 'small-threshold': '1GiB', 'large-threshold': '1MiB' }, /--large-threshold must not be below/],
    [{ 'size-bins': 'log10' }, /--size-bins/],
    [{ 'sample-every': '1.5' }, /--sample-every/],
    [{ env: ['BAD-NAME'] }, /--env/],
    [{ network: 'maybe' }, /--network/],
    [{ output: '' }, /--output: a file name is needed/],
    [{ 'error-log': '' }, /--error-log: a file name is needed/],
    [{ 'nvml-library': '' }, /--nvml-library: a library name or path is needed \(none: no gpu records\)/],
    [{ 'size-bins': 'combined', 'small-threshold': '1' }, /--size-bins combined: the thresholds name a power-of-two range/],
  ] as const) {
    assert.throws(
      () => resolveRunOptions({}, raw),
      (e: Error) => e instanceof UsageError && message.test(e.message),
    );
  }
});
