// The pure parts of the lustre_client collector: mount table lines, instance → file system and mount
// point, which job a scrape interval is credited to, and the latency sums kept from [usecs] counters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLustreMounts } from '../sources/lustre-client-files.js';
import { parseLustreStats } from '../parsers/lustre-stats.js';
import { clientPlace, instanceFs, mountsByFs, SEVERAL_MOUNTS, UNKNOWN_MOUNT } from './client-book.js';
import { FieldTable } from './export-fields.js';
import { nodeJobLabel } from './node-job.js';
import { statsFields } from './stats-fields.js';

test('parseLustreMounts: client mounts only, fsname from the device, escaped mount points', () => {
  const table = [
    'proc /proc proc rw 0 0',
    '172.20.20.1@o2ib:/lustrefs /lustre lustre rw,flock 0 0',
    '10.0.0.2@tcp:10.0.0.3@tcp:/scratch/projects /mnt/my\\040scratch lustre rw 0 0',
    '/dev/sdb /mnt/ost0 lustre ro 0 0', // a server target: not a client
    'nfs:/home /home nfs4 rw 0 0',
    'garbage',
    '',
  ].join('\n');
  assert.deepEqual(parseLustreMounts(table), [
    { fs: 'lustrefs', mount: '/lustre' },
    { fs: 'scratch', mount: '/mnt/my scratch' },
  ]);
});

test('instanceFs and clientPlace: one mount, none, several; the key survives a remount', () => {
  assert.equal(instanceFs('lustrefs-ffff88105db50000'), 'lustrefs');
  assert.equal(instanceFs('my-fs-ff47bce9ca35d800'), 'my-fs');
  assert.equal(instanceFs('odd'), 'odd');
  const byFs = mountsByFs([
    { fs: 'a', mount: '/a' },
    { fs: 'b', mount: '/b1' },
    { fs: 'b', mount: '/b2' },
  ]);
  const a1 = clientPlace('a-ffff0001', byFs);
  const a2 = clientPlace('a-ffff0002', byFs);
  assert.equal(a1.mount, '/a');
  assert.equal(a1.key, a2.key, 'a new instance on the same mount point is the same place');
  assert.notEqual(a1.instance, a2.instance);
  const b1 = clientPlace('b-ffff0001', byFs);
  const b2 = clientPlace('b-ffff0002', byFs);
  assert.equal(b1.mount, SEVERAL_MOUNTS);
  assert.notEqual(b1.key, b2.key, 'several mounts stay apart by instance');
  assert.equal(clientPlace('c-ffff0001', byFs).mount, UNKNOWN_MOUNT);
});

test('nodeJobLabel: the jobs seen at either end of the interval', () => {
  const s = (...ids: string[]): Set<string> => new Set(ids);
  assert.equal(nodeJobLabel(undefined, s()), '_none');
  assert.equal(nodeJobLabel(undefined, s('7')), '7');
  assert.equal(nodeJobLabel(s(), s('7')), '7', 'a job that started on an idle node');
  assert.equal(nodeJobLabel(s('7'), s()), '7', 'a job that ended: its last writes are its own');
  assert.equal(nodeJobLabel(s('7'), s('8')), '_shared', 'one job ending and the next starting');
  assert.equal(nodeJobLabel(s('7', '8'), s('7', '8')), '_shared');
});

test('statsFields: [usecs] latency sums become operation seconds (exact above 2^53), other units do not', () => {
  const [section] = parseLustreStats(
    'snapshot_time 1 secs.nsecs\nopen 5 samples [usecs] 1 9 30 200\nopenclosetime 2 samples [usecs] 1 2 9007199254740993 1\nioctl 3 samples [reqs]\nwrite_bytes 2 samples [bytes] 1 1 8192\n',
  );
  const table = new FieldTable();
  const { values, dropped } = statsFields(section!, table);
  assert.equal(dropped, 0);
  const named = values.map(({ id, value }) => [`${table.fields[id]!.kind}:${table.fields[id]!.operation}`, value]);
  assert.deepEqual(named, [
    ['operations:open', 5],
    ['operation_seconds:open', 30],
    ['operations:openclosetime', 2],
    ['operation_seconds:openclosetime', 9007199254740993n],
    ['operations:ioctl', 3],
    ['write_bytes:write', 8192],
    ['operations:write', 2],
  ]);
});
