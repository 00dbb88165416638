import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allCollectors } from '../collectors/index.js';
import { USER_FLAGS } from '../labels/users.js';
import { defineFlags, durationFlag, positiveIntegerFlag, switchFlag, textFlag } from './flags.js';

const flags = defineFlags({
  maxJobs: positiveIntegerFlag('max-jobs', 100, 'Jobs.'),
  expiryMs: durationFlag('expiry', '30m', 'Expiry.'),
  lctl: switchFlag('lctl', false, 'Use lctl.'),
  lctlPath: textFlag('lctl-path', 'lctl', 'The program.'),
  ...USER_FLAGS,
});

test('a flag set lists its flags in declaration order, each default spelt as the command line would', () => {
  assert.deepEqual(
    flags.list.map((f) => [f.name, f.defaultText, f.default]),
    [
      ['max-jobs', '100', 100],
      ['expiry', '30m', 1_800_000],
      ['lctl', 'false', false],
      ['lctl-path', 'lctl', 'lctl'],
      ['system-uid-max', '999', 999],
      ['getent', 'true', true],
    ],
  );
});

test('read() fills in the defaults of the flags not given', () => {
  assert.deepEqual(flags.read({}), { maxJobs: 100, expiryMs: 1_800_000, lctl: false, lctlPath: 'lctl', systemUidMax: 999, getent: true });
});

test('read() takes values as the command line parsed them, and parses text', () => {
  const settings = flags.read({ 'max-jobs': 3, expiry: 600_000, lctl: true, 'lctl-path': '/usr/sbin/lctl', 'system-uid-max': -1, getent: false });
  assert.deepEqual(settings, { maxJobs: 3, expiryMs: 600_000, lctl: true, lctlPath: '/usr/sbin/lctl', systemUidMax: -1, getent: false });
  assert.deepEqual(flags.read({ expiry: '10m', 'max-jobs': '7', lctl: 'true' }), { ...flags.read({}), expiryMs: 600_000, maxJobs: 7, lctl: true });
});

test('read() refuses an option no flag declares, a value of the wrong type and text its parser rejects', () => {
  assert.throws(() => flags.read({ 'max-job': 3 }), { message: 'unknown option "max-job" (known: max-jobs, expiry, lctl, lctl-path, system-uid-max, getent)' });
  assert.throws(() => flags.read({ lctl: 1 }), { message: 'option lctl: 1 is not a boolean' });
  assert.throws(() => flags.read({ 'max-jobs': true }), { message: 'option max-jobs: true is not a number' });
  assert.throws(() => flags.read({ 'max-jobs': '0' }), { message: '"0" is not a positive integer' });
  assert.throws(() => flags.read({ expiry: 'soon' }), /invalid duration "soon"/);
  assert.throws(() => flags.read({ lctl: 'yes' }), { message: '"yes" is not true or false' });
});

test('two flags of one name in a set are refused when the set is defined', () => {
  assert.throws(() => defineFlags({ a: textFlag('same', '', 'A.'), b: textFlag('same', '', 'B.') }), { message: 'internal: flag same declared twice' });
});

test('a default its own parser rejects fails where the flag is declared', () => {
  assert.throws(() => positiveIntegerFlag('max-jobs', 0, 'Jobs.'), { message: '"0" is not a positive integer' });
  assert.throws(() => durationFlag('expiry', '0s', 'Expiry.'), { message: '"0s" must be a positive duration' });
});

test('every collector flag: its default is its default text parsed, and switches default to a boolean', () => {
  let checked = 0;
  for (const descriptor of allCollectors) {
    for (const flag of descriptor.flags) {
      if (typeof flag.default === 'boolean') assert.equal(flag.defaultText, String(flag.default), `${descriptor.name}.${flag.name}`);
      else assert.deepEqual(flag.parse(flag.defaultText), flag.default, `${descriptor.name}.${flag.name}`);
      checked += 1;
    }
  }
  // lustre_jobstats 14 + 2 user flags; 5 per stats collector (+3 for lustre_exports, +2 for lustre_client);
  // lustre_health 3 (lctl); lustre_lnet 3 (lnetctl); profiler 12 + 2; cgroup 5 + 2; gpu 6 + 2; job_info 7 + 2; process none.
  assert.equal(checked, 16 + 8 + 5 + 7 + 3 + 3 + 14 + 7 + 8 + 9);
});
