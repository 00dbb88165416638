// The soak of bench/soak for about a minute: two honest users' dd runs under the real profiler keep
// their exact write counts while four hostile users flood the socket with forged processes, mounts,
// counters (huge, falling), garbage and fake job ids, hold idle socket connections (one past its
// share), pipeline GET /metrics without reading, and one runs a job whose name and work dir forge
// squeue records; no exported counter ever goes down, memory stays flat, the hostile users' losses
// are their own, and jobio_job_info lists exactly the node's jobs, whole. (`npm run bench -- soak`
// runs it for 15 minutes.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSoak } from '../../bench/soak/soak.js';

test(
  'soak: six local users on the exporter, four hostile; honest counts and job metadata exact, counters monotonic, memory flat',
  { skip: process.getuid?.() !== 0 && 'needs root to run processes as other users' },
  async (t) => {
    const r = await runSoak({ durationMs: 60_000, log: (line) => t.diagnostic(line) });
    t.diagnostic(JSON.stringify(r));
    for (const h of r.honest) {
      assert.ok(h.runs > 0, `${h.user} ran dd (${h.runs} runs)`);
      assert.equal(h.counted, h.expected, `${h.user}: every write of its ${h.runs} dd runs counted, under its job and name`);
    }
    assert.deepEqual(r.decreases, [], 'no counter went down');
    assert.ok((r.rejected.implausible ?? 0) > 0, 'huge deltas rejected as implausible');
    assert.ok((r.rejected.counter_decrease ?? 0) > 0, 'falling counters rejected, not counted as resets');
    const losers = Object.keys(r.rejectedByUser);
    assert.ok(
      losers.every((user) => r.hostileUsers.includes(user)),
      `only hostile users lost frames or connections (${losers.join(', ')})`,
    );
    const last = r.hostileUsers.at(-1) ?? '';
    assert.equal(r.connectionsRefusedByUser[last], r.held.tried - r.held.share, 'the connections past its share refused and counted for it');
    assert.deepEqual(r.jobInfo.seen, r.jobInfo.expected, 'job_info: the running jobs of this node, each whole, none forged');
    assert.ok(r.pipelineRounds > 0 && (r.webDropped.pipelined ?? 0) > 0, `the pipelining clients were cut off (${JSON.stringify(r.webDropped)})`);
    assert.ok(r.processesMax <= 4 * 4096 + 16, `the hostile users' invented processes stay within their 4,096 each (${r.processesMax})`);
    assert.ok(r.rssMb.max < 1024, `exporter RSS stayed bounded (${r.rssMb.max.toFixed(0)} MB)`);
    assert.ok(r.rssMb.end < 1.5 * r.rssMb.warm, `memory flat from a third of the run to the end (${r.rssMb.warm.toFixed(0)} -> ${r.rssMb.end.toFixed(0)} MB)`);
  },
);
