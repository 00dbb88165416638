// The client view from fixed vectors: mounts summed over the nodes, the profiler's bytes joined on the
// mount, coverage per mount and overall, a mount without bytes has no coverage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clientView } from './client.js';

const v = (metric: Record<string, string>, value: number) => ({ metric, value: [0, String(value)] as const });

test('clientView: per mount and in all, the profiler bytes over the client bytes', () => {
  const view = clientView({
    // two nodes' sums arrive summed already; a second mount with reads only, a third that moved no byte
    readBytes: [v({ fs: 'scratch', mount: '/data' }, 100), v({ fs: 'home', mount: '/home' }, 1000), v({ fs: 'proj', mount: '/proj' }, 0)],
    writeBytes: [v({ fs: 'scratch', mount: '/data' }, 300), v({ fs: 'proj', mount: '/proj' }, 0)],
    operations: [
      v({ fs: 'scratch', mount: '/data', operation: 'open' }, 7),
      v({ fs: 'scratch', mount: '/data', operation: 'getattr' }, 7),
      v({ fs: 'scratch', mount: '/data', operation: 'write' }, 9),
      v({ fs: 'proj', mount: '/proj', operation: 'statfs' }, 0),
    ],
    // the profiler's read and write series of /data, and /tmp that is no Lustre mount
    profilerBytes: [v({ mount: '/data' }, 50), v({ mount: '/data' }, 150), v({ mount: '/tmp' }, 999)],
  });
  assert.deepEqual(view, {
    read_bytes: 1100,
    write_bytes: 300,
    profiler_bytes: 200,
    coverage: 0.142857,
    mounts: [
      { fs: 'home', mount: '/home', read_bytes: 1000, write_bytes: 0, operations: 0, operations_by_kind: {}, profiler_bytes: 0, coverage: 0 },
      { fs: 'scratch', mount: '/data', read_bytes: 100, write_bytes: 300, operations: 23, operations_by_kind: { write: 9, getattr: 7, open: 7 }, profiler_bytes: 200, coverage: 0.5 },
      { fs: 'proj', mount: '/proj', read_bytes: 0, write_bytes: 0, operations: 0, operations_by_kind: {}, profiler_bytes: 0, coverage: null },
    ],
  });
  const data = view.mounts[1];
  assert.ok(data);
  assert.deepEqual(Object.keys(data.operations_by_kind), ['write', 'getattr', 'open'], 'most operations first, then by name');
  assert.equal(clientView({ readBytes: [], writeBytes: [], operations: [], profilerBytes: [v({ mount: '/data' }, 5)] }), undefined, 'no client series: no view');
});
