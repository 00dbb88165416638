// Table tests of the LNet parsers: the 11-integer stats file, `lnetctl stats show` and
// `lnetctl net show -v 4` (shapes of the 2.10 and whamcloud captures), and malformed values counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLnetctlNets, parseLnetctlStats, parseLnetStatsFile } from './lustre-lnet.js';

test('stats file: 11 integers in lnet_counters order, anything else undefined', () => {
  const s = parseLnetStatsFile('0 28 0 101719323 101719291 0 0 21201322992 53029565353720 0 0\n');
  assert.deepEqual(s?.counters, {
    msgs_alloc: 0,
    msgs_max: 28,
    errors: 0,
    send_count: 101719323,
    recv_count: 101719291,
    route_count: 0,
    drop_count: 0,
    send_length: 21201322992,
    recv_length: 53029565353720,
    route_length: 0,
    drop_length: 0,
  });
  for (const bad of ['', '0 28 0', '0 28 0 1 1 0 0 1 1 0 x', '0 28 0 1 1 0 0 1 1 0 0 9']) assert.equal(parseLnetStatsFile(bad), undefined, JSON.stringify(bad));
});

test('lnetctl stats show: counters, health counters by origin, unknown keys ignored, bad values counted', () => {
  const s = parseLnetctlStats('statistics:\n    msgs_alloc: 0\n    rst_alloc: 15\n    errors: 2\n    resend_count: 4\n    remote_timeout_count: 7\n    drop_count: x\n    send_length: -1\n');
  assert.deepEqual(s, { counters: { msgs_alloc: 0, errors: 2 }, failures: { remote_timeout_count: 7 }, resends: 4, bad: 2 });
  assert.equal(parseLnetctlStats('net:\n  - x: 1\n'), undefined);
  assert.equal(parseLnetctlStats('statistics: [\n'), undefined, 'not YAML');
});

test('lnetctl net show -v 4: one entry per NID with its net, status, counts and health', () => {
  const text = [
    'net:',
    '    - net type: tcp',
    '      local NI(s):',
    '        - nid: 172.16.0.24@tcp',
    '          status: down',
    '          statistics:',
    '              send_count: 464970',
    '              recv_count: 464963',
    '              drop_count: 4',
    '          health stats:',
    '              fatal_error: 1',
    '              health value: 750',
    '              no route: 3',
    '    - net type: lo',
    '      local NI(s):',
    '        - nid: 0@lo',
    '          status: up',
  ].join('\n');
  assert.deepEqual(parseLnetctlNets(text), {
    nis: [
      { net: 'tcp', nid: '172.16.0.24@tcp', up: false, sent: 464970, received: 464963, dropped: 4, healthValue: 750, fatalError: 1, failures: { no_route: 3 } },
      { net: 'lo', nid: '0@lo', up: true, failures: {} },
    ],
    bad: 0,
  });
});
