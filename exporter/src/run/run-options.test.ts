import { test } from 'node:test';
import assert from 'node:assert/strict';
import { libraryEnvironment, parseSize, resolveRunOptions, UsageError } from './run-options.js';

test('defaults follow Mistral and docs/profiler.md', () => {
  const o = resolveRunOptions({}, {});
  assert.deepEqual(o, {
    timeframeSec: 10,
    totals: true,
    smallThreshold: 32768,
    largeThreshold: 134217728,
    io: {
      read: { enabled: true, duration: true, sized: 'small-medium-large' },
      write: { enabled: true, duration: true, sized: 'small-medium-large' },
      seek: true,
      metadata: 'both',
      metadataDuration: true,
      smallThreshold: 32768,
      largeThreshold: 134217728,
      minSampled: 10,
    },
    sampleEvery: 16,
    sampleMaxPerSec: 0,
    env: [],
    network: false,
    minSampled: 10,
    cpuMemory: 'all',
    nvmlLibrary: 'libnvidia-ml.so.1',
    waitPid: 'mistral',
    diagnosis: true,
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
  assert.equal(resolveRunOptions({}, { 'size-bins': 'pow2' }).io.read.sized, 'binary', 'pow2: the earlier name of binary');
  const sized = resolveRunOptions({ 'size-bins': 'combined' }, { 'write-sized': 'both' }).io;
  assert.deepEqual([sized.read.sized, sized.write.sized], ['combined', 'both'], 'read-sized/write-sized over size-bins');
  assert.equal(resolveRunOptions({}, { gpu: false }).nvmlLibrary, 'none', 'gpu no: no gpu records');
  assert.equal(resolveRunOptions({ read: 'no' }, {}).io.read.enabled, false);
});

test('bad values are usage errors naming the option', () => {
  for (const [raw, message] of [
    [{ timeframe: '500ms' }, /--timeframe/],
    [{ 'small-threshold': '-1' }, /--small-threshold/],
    [{ 'small-threshold': '1GiB', 'large-threshold': '1MiB' }, /--large-threshold must not be below/],
    [{ 'size-bins': 'log10' }, /--size-bins/],
    [{ 'sample-every': '1.5' }, /--sample-every/],
    [{ env: ['BAD-NAME'] }, /--env/],
    [{ network: 'maybe' }, /--network: "maybe" is not yes or no/],
    [{ metadata: 'some' }, /--metadata: "some" must be combined, separate, both or no/],
    [{ 'cpu-memory': 'gpu' }, /--cpu-memory: "gpu" must be all, job, host or no/],
    [{ output: '' }, /--output: a file name is needed/],
    [{ 'error-log': '' }, /--error-log: a file name is needed/],
    [{ 'nvml-library': '' }, /--nvml-library: a library name or path is needed \(none: no gpu records\)/],
    [{ 'size-bins': 'both', 'small-threshold': '1' }, /--size-bins both: the thresholds name a power-of-two range/],
    [{ 'sample-every': '-1' }, /--sample-every: "-1" is not an integer >= 0/],
  ] as const) {
    assert.throws(
      () => resolveRunOptions({}, raw),
      (e: Error) => e instanceof UsageError && message.test(e.message),
    );
  }
});
