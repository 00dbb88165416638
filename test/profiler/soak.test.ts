// The soak of bench/soak for about a minute: two honest users' dd runs under the real profiler keep
// their exact write counts while a third, hostile user floods the socket with forged processes,
// mounts, counters (huge, falling), garbage and fake job ids; no exported counter ever goes down,
// and the hostile user's losses are its own. (`npm run bench -- soak` runs it for 15 minutes.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSoak } from '../../bench/soak/soak.js';

test(
  'soak: three local users on the profiler socket, one hostile; honest counts exact, counters monotonic, memory bounded',
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
    assert.deepEqual(Object.keys(r.rejectedByUser), ['jobiohostile'], 'only the hostile user lost frames');
    assert.ok(r.processesMax <= 4096 + 16, `the hostile user's invented processes stay within its 4,096 (${r.processesMax})`);
    assert.ok(r.rssMb.max < 1024, `exporter RSS stayed bounded (${r.rssMb.max.toFixed(0)} MB)`);
  },
);
