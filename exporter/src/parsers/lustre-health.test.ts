// Table tests of the capacity, health_check and recovery_status parsers: every shape Lustre prints
// and the malformed ones, with exact values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCapacityValue, parseHealthCheck, parseRecoveryStatus, splitLctlDump, targetFs } from './lustre-health.js';

test('capacity values: one u64, nothing else', () => {
  assert.equal(parseCapacityValue('35016088872\n'), 35016088872n);
  assert.equal(parseCapacityValue('18446744073709551615'), (1n << 64n) - 1n);
  for (const bad of ['', '\n', '12x', '-1', '1 2', '18446744073709551616', '1.5']) assert.equal(parseCapacityValue(bad), undefined, JSON.stringify(bad));
});

test('health_check: healthy, the unhealthy forms, and anything else undefined', () => {
  assert.deepEqual(parseHealthCheck('healthy\n'), { healthy: true });
  assert.deepEqual(parseHealthCheck('NOT HEALTHY\n'), { healthy: false });
  assert.deepEqual(parseHealthCheck('device fs-OST0001 reported unhealthy\nNOT HEALTHY\n'), { healthy: false });
  assert.deepEqual(parseHealthCheck('LBUG\n'), { healthy: false });
  for (const bad of ['', 'maybe', 'healthy\nhealthy', 'Healthy']) assert.equal(parseHealthCheck(bad), undefined, JSON.stringify(bad));
});

test('recovery_status: each state, the two completed_clients shapes, unknown states and lines', () => {
  assert.deepEqual(parseRecoveryStatus('status: INACTIVE\n'), { status: 'INACTIVE', badLines: 0 });
  assert.deepEqual(parseRecoveryStatus('status: COMPLETE\nrecovery_start: 1702058400\nrecovery_duration: 31\ncompleted_clients: 7/8\nVBR: DISABLED\nIR: ENABLED\n'), {
    status: 'COMPLETE',
    completedClients: 7,
    recoverableClients: 8,
    badLines: 0,
  });
  assert.deepEqual(parseRecoveryStatus('status: RECOVERING\ntime_remaining: 214\nconnected_clients: 6/8\ncompleted_clients: 4\nevicted_clients: 1\n'), {
    status: 'RECOVERING',
    timeRemainingSeconds: 214,
    recoverableClients: 8,
    completedClients: 4,
    evictedClients: 1,
    badLines: 0,
  });
  assert.deepEqual(parseRecoveryStatus('status: WAITING\nnon-ready MDTs: 0001\nrecovery_start: 5\ntime_waited: 9\n'), { status: 'WAITING', badLines: 0 });
  assert.equal(parseRecoveryStatus('status: SLEEPING\n'), undefined);
  assert.equal(parseRecoveryStatus('completed_clients: 1/2\n'), undefined, 'no status line');
  assert.equal(parseRecoveryStatus('status: COMPLETE\n???\n')?.badLines, 1);
});

test('lctl dump: one-line values on the header line, multi-line values, lines before any header counted', () => {
  const { params, orphanLines } = splitLctlDump('stray\nhealth_check=healthy\nobdfilter.fs-OST0000.recovery_status=\nstatus: COMPLETE\ncompleted_clients: 2/2\nosd-zfs.fs-OST0000.kbytestotal=42\n');
  assert.equal(orphanLines, 1);
  assert.deepEqual(params, [
    { name: 'health_check', text: 'healthy' },
    { name: 'obdfilter.fs-OST0000.recovery_status', text: 'status: COMPLETE\ncompleted_clients: 2/2' },
    { name: 'osd-zfs.fs-OST0000.kbytestotal', text: '42\n' },
  ]);
});

test('target names: the file system before -OSTxxxx / -MDTxxxx', () => {
  assert.equal(targetFs('ai400x2-OST0001'), 'ai400x2');
  assert.equal(targetFs('my-fs-MDT000a'), 'my-fs');
  assert.equal(targetFs('MGS'), '');
  assert.equal(targetFs('fs-OST1'), '');
});
