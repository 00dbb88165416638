// Table-driven tests of the cgroup file parsers: kernel formats, and malformed text (error, never a throw).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseCpuStatV2, parseCpuacctStat, parseFlatKeyed, parseSingleValue } from './cgroup-stat.js';

const CPU_STAT = 'usage_usec 5234567\nuser_usec 4000000\nsystem_usec 1234567\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\n';

test('cpu.stat (v2): user_usec/system_usec in seconds', () => {
  assert.deepEqual(parseCpuStatV2(CPU_STAT), { ok: true, value: { user: 4, system: 1.234567 } });
});

test('cpuacct.stat (v1): ticks / USER_HZ', () => {
  assert.deepEqual(parseCpuacctStat('user 12345\nsystem 678\n', 100), { ok: true, value: { user: 123.45, system: 6.78 } });
  assert.deepEqual(parseCpuacctStat('user 250\nsystem 0\n', 250), { ok: true, value: { user: 1, system: 0 } });
});

test('single-value files', () => {
  assert.deepEqual(parseSingleValue('2147483648\n'), { ok: true, value: 2147483648 });
  assert.deepEqual(parseSingleValue('0'), { ok: true, value: 0 });
  assert.deepEqual(parseSingleValue('18446744073709551615\n'), { ok: true, value: 2 ** 64 }); // 2^64 - 1 rounds to 2^64 as a double
});

const malformed: ReadonlyArray<[string, () => { ok: boolean }]> = [
  ['empty single value', () => parseSingleValue('')],
  ['blank line', () => parseSingleValue('\n')],
  ['"max"', () => parseSingleValue('max\n')],
  ['negative', () => parseSingleValue('-1')],
  ['two values', () => parseSingleValue('1 2')],
  ['above u64', () => parseSingleValue('18446744073709551616')],
  ['empty cpu.stat', () => parseCpuStatV2('')],
  ['cpu.stat without system_usec', () => parseCpuStatV2('usage_usec 5\nuser_usec 5\n')],
  ['cpu.stat with a non-number', () => parseCpuStatV2('user_usec 5\nsystem_usec five\n')],
  ['truncated cpu.stat line', () => parseCpuStatV2('user_usec 5\nsystem_usec\n')],
  ['cpuacct.stat garbage', () => parseCpuacctStat('user 12x\nsystem 3\n', 100)],
  ['cpuacct.stat with unknown field only', () => parseCpuacctStat('nice 3\n', 100)],
];
for (const [name, run] of malformed) test(`malformed: ${name} is an error, not a throw`, () => assert.equal(run().ok, false));

test('flat keyed: unknown keys are kept, extra spaces tolerated', () => {
  const parsed = parseFlatKeyed('user_usec  7\nfuture_key 9\n');
  assert.ok(parsed.ok);
  assert.equal(parsed.value.get('future_key'), 9);
});

test('property: any text parses without throwing', () => {
  fc.assert(
    fc.property(fc.string(), (text) => {
      parseSingleValue(text);
      parseCpuStatV2(text);
      parseCpuacctStat(text, 100);
    }),
  );
});
