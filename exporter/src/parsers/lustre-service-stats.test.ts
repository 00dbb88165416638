// Table tests of the service stats reader: the figures of the ddn133 ost_io capture, the pre-2.12 unit
// spelling, a service with no requests, and malformed lines counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseServiceStats } from './lustre-service-stats.js';

test('service stats: requests, wait in seconds, queue depth and active sums', () => {
  const text = [
    'snapshot_time             1709305846.702033580 secs.nsecs',
    'req_waittime              276900681 samples [usecs] 3 256381 679087701802 17033282894426364',
    'req_qdepth                276900681 samples [reqs] 0 57 2957475 4049927',
    'req_active                276900681 samples [reqs] 1 82 8146351770 442948898822',
    'req_timeout               276900681 samples [secs] 15 15 4153510215 62302653225',
    'ost_read                  165682773 samples [usecs] 25 640373 940315691380 12694249795334824',
  ].join('\n');
  assert.deepEqual(parseServiceStats(text), { requests: 276900681, waitSeconds: 679087.701802, queueDepthSum: 2957475, activeSum: 8146351770, badLines: 0 });
  assert.equal(parseServiceStats('req_waittime              7077 samples [usec] 3 50384 1412555 6633863085\n').waitSeconds, 1.412555, '[usec] before 2.12');
});

test('service stats: a service with no request yet is all 0; malformed lines and req_* of another unit counted', () => {
  assert.deepEqual(parseServiceStats('snapshot_time             1709305846.702330603 secs.nsecs\n'), { requests: 0, waitSeconds: 0, queueDepthSum: 0, activeSum: 0, badLines: 0 });
  const bad = parseServiceStats('req_waittime 10 samples [secs] 1 2 30 90\nreq_qdepth 5 samples [reqs]\nreq_active 5 samples [reqs] 1 2 8 14\nnot a counter\n');
  assert.deepEqual(bad, { requests: 0, waitSeconds: 0, queueDepthSum: 0, activeSum: 8, badLines: 3 });
});
