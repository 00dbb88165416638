import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseProcStat } from './proc-stat.js';

test('parseProcStat: ppid, utime, stime, cutime, cstime and starttime, after a command name holding ") "', () => {
  const line = '4242 (a) b) S 1 4242 4242 0 -1 4194304 120 0 0 0 130 40 25 5 20 0 1 0 987654 10000 200 18446744073709551615\n';
  assert.deepEqual(parseProcStat(line), { ppid: 1, ticks: [130, 40, 25, 5], start: '987654' });
  assert.equal(parseProcStat('4242 (cut) S 1 2'), undefined);
  assert.equal(parseProcStat(''), undefined);
  assert.equal(parseProcStat('4242 (x) S -3 4242 4242 0 -1 0 0 0 0 0 1 1 1 1 20 0 1 0 5 0 0\n'), undefined, 'no negative ppid');
});
