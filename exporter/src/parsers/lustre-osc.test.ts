import { test } from 'node:test';
import assert from 'node:assert/strict';
import { oscTarget, parseOscRpcStats, parseOscState } from './lustre-osc.js';

test('osc rpc_stats: scalars, the two tables read, other tables skipped, odd lines counted', () => {
  const text = [
    'snapshot_time:            1790277040.614799671 secs.nsecs',
    'read RPCs in flight:  3',
    'write RPCs in flight: 5',
    'DIO RPCs in flight: 1',
    'pending write pages:  120',
    'pending read pages:   8',
    '',
    '\t\t\tread\t\t\twrite',
    'pages per rpc         rpcs   % cum % |       rpcs   % cum %',
    '1:\t\t         7  70  70   |          1  50  50',
    '256:\t\t         3  30 100   |          1  50 100',
    '',
    '\t\t\tread\t\t\twrite',
    'offset                rpcs   % cum % |       rpcs   % cum %',
    '0:\t\t        10 100 100   |          2 100 100',
    '',
    'rpcs in flight        rpcs   % cum % |       rpcs   % cum %',
    '1:\t\t        10 100 100   |     oops',
    'bogus line',
  ].join('\n');
  const s = parseOscRpcStats(text);
  assert.deepEqual(s.active, { read: 3, write: 5 });
  assert.deepEqual(s.pending, { read: 8, write: 120 });
  assert.deepEqual(s.histograms.get('rpc_pages'), [
    { value: 1, read: 7, write: 1 },
    { value: 256, read: 3, write: 1 },
  ]);
  assert.deepEqual(s.histograms.get('rpcs_in_flight'), []);
  assert.equal(s.badLines, 2);
});

test('osc state and device names', () => {
  assert.equal(parseOscState('current_state: FULL\nstate_history:\n - [ 1790008166, CONNECTING ]\n'), 'FULL');
  assert.equal(parseOscState('current_state: DISCONN\n'), 'DISCONN');
  assert.equal(parseOscState('current_state: SOMETHING_NEW\n'), undefined);
  assert.equal(parseOscState('state_history:\n'), undefined);
  assert.equal(oscTarget('a361000-OST0003-osc-ffff000189257000'), 'a361000-OST0003');
  assert.equal(oscTarget('a361000-MDT0000-mdc-ffff000189257000'), undefined);
});
