// Property tests of the counter invariants (docs/architecture.md "Bounded cardinality", "Lustre: counters the exporter owns") over random histories of a target: jobs
// appear, grow, are dropped by Lustre, restart from zero; reads fail; scrapes are minutes or hours
// apart; max-jobs is tiny. At every scrape:
//   - every exported counter is >= its previous value (never negative, never decreasing);
//   - a counter that appears after the first collection appears at 0;
//   - nothing is lost: exported + held back (born this scrape) + last values of expired series
//     equals the true total, computed independently from the snapshots the exporter read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { jobStatsText, type GeneratedFormat, type GeneratedJob } from '../../../test/lustre/generate-jobstats.js';
import { newAccumulator, scrapeOnce, total } from '../../../test/lustre/harness.js';

interface Values {
  writes: number;
  bytes: number;
  punch: number;
  start: number;
}

const IDS = ['1:5000:n1', '1:5000:n2', '2:5001:n1', '3:0:n1', '4:5000:n1', '6:5003:n1', ':5000:n1', 'cp.5000', 'bad id', '5:5002:n1.fqdn'] as const;

const change = fc.record({ id: fc.constantFrom(...IDS), action: fc.constantFrom('grow', 'grow', 'grow', 'drop', 'reset'), a: fc.nat(50), b: fc.nat(5000) });
// order: the file lists its entries as they came (0), backwards (1) or rotated by that many (2–5): the
// tracker expects each entry after the one before it last time, and must find it wherever it moved.
const step = fc.record({ changes: fc.array(change, { maxLength: 8 }), minutes: fc.constantFrom(1, 1, 1, 7, 45), fail: fc.nat(9).map((n) => n === 0), order: fc.nat(5) });
const history = fc.record({ maxJobs: fc.integer({ min: 1, max: 4 }), format: fc.constantFrom<GeneratedFormat>('2.10', '2.14'), steps: fc.array(step, { minLength: 1, maxLength: 25 }) });

function fileOf(model: Map<string, Values>, format: GeneratedFormat, order = 0): string {
  const listed = [...model];
  if (order === 1) listed.reverse();
  else if (order > 1 && listed.length > 0) listed.push(...listed.splice(0, order % listed.length));
  const jobs = listed.map(([id, v]): GeneratedJob => {
    const samples: Record<string, number> = format === '2.14' ? { write_bytes: v.writes, write: v.writes, punch: v.punch } : { write_bytes: v.writes, punch: v.punch };
    const sums: Record<string, number> = format === '2.14' ? { write_bytes: v.bytes, write: v.writes * 3, punch: v.punch * 2 } : { write_bytes: v.bytes };
    return { id, samples, sums, startTime: v.start };
  });
  return jobStatsText(jobs, format, format === '2.14' ? ['write_bytes', 'write', 'punch'] : ['write_bytes', 'punch']);
}

/** The truth: increments of every entry between the snapshots the exporter read (docs/architecture.md "Formulas", reset rule). */
function increments(prev: ReadonlyMap<string, Values> | undefined, cur: ReadonlyMap<string, Values>, format: GeneratedFormat): { bytes: number; ops: number; usecs: number } {
  let bytes = 0;
  let ops = 0;
  let usecs = 0;
  for (const [id, v] of cur) {
    const p = prev?.get(id);
    const reset = !p || v.writes < p.writes || v.bytes < p.bytes || v.punch < p.punch || (format === '2.14' && v.start !== p.start);
    const base = reset ? { writes: 0, bytes: 0, punch: 0 } : p;
    bytes += v.bytes - base.bytes;
    ops += v.writes - base.writes + (v.punch - base.punch);
    if (format === '2.14') usecs += (v.writes - base.writes) * 3 + (v.punch - base.punch) * 2;
  }
  return { bytes, ops, usecs };
}

test('lustre_jobstats accumulator (property): monotonic counters, born at 0, nothing lost', () => {
  fc.assert(
    fc.property(history, ({ maxJobs, format, steps }) => {
      const acc = newAccumulator({ maxJobs, expiryMs: 30 * 60_000 });
      const model = new Map<string, Values>();
      let seen: Map<string, Values> | undefined;
      const truth = { bytes: 0, ops: 0, usecs: 0 };
      const vanished = { bytes: 0, ops: 0, usecs: 0 };
      let previous: Map<string, number> | undefined;
      let now = 0;
      let startClock = 1000;
      for (const s of steps) {
        for (const c of s.changes) {
          const v = model.get(c.id);
          if (c.action === 'drop') model.delete(c.id);
          else if (c.action === 'reset' || !v) model.set(c.id, { writes: c.a, bytes: c.b, punch: c.a % 3, start: (startClock += 1) });
          else model.set(c.id, { writes: v.writes + c.a, bytes: v.bytes + c.b, punch: v.punch + (c.a % 2), start: v.start });
        }
        now += s.minutes * 60_000;
        // The first read never fails here, so the baseline is a real file.
        const fail = s.fail && seen !== undefined;
        const out = scrapeOnce(acc, { 'obdfilter/OST0': fail ? undefined : fileOf(model, format, s.order) }, now);
        if (!fail) {
          const inc = increments(seen, model, format);
          truth.bytes += inc.bytes;
          truth.ops += inc.ops;
          truth.usecs += inc.usecs;
          seen = new Map([...model].map(([id, v]) => [id, { ...v }]));
        }
        for (const [key, value] of out.exported) {
          assert.ok(value >= 0, `${key} negative`);
          const before = previous?.get(key);
          if (before !== undefined) assert.ok(value >= before, `${key} decreased ${before} → ${value}`);
          else if (previous !== undefined) assert.equal(value, 0, `${key} appeared at ${value}, not 0`);
        }
        for (const [key, value] of previous ?? []) {
          if (out.exported.has(key)) continue;
          if (key.startsWith('write_bytes{')) vanished.bytes += value;
          else if (key.startsWith('operations{')) vanished.ops += value;
          else vanished.usecs += value;
        }
        const shown = (prefix: string): number => total(out.exported, prefix) + total(out.held, prefix);
        assert.equal(shown('write_bytes{') + vanished.bytes, truth.bytes, 'bytes conserved');
        assert.equal(shown('operations{') + vanished.ops, truth.ops, 'operations conserved');
        assert.equal(shown('operation_seconds{') + vanished.usecs, truth.usecs, 'latency conserved');
        for (const t of out.targets.values()) assert.ok(t.exportedJobs <= maxJobs);
        previous = out.exported;
      }
    }),
    { numRuns: 400 },
  );
});

test('lustre_jobstats accumulator (property): cut or garbled real files never throw nor make a counter go down', async () => {
  const { readFileSync } = await import('node:fs');
  const texts = ['hp-2.10.1-ost/proc/fs/lustre/obdfilter/lustrefs-OST0000/job_stats', 'lctl/lctl_get_param.obdfilter.job_stats.txt', 'synthetic-2.15-2.17/proc/fs/lustre/mdt/fs-MDT0000/job_stats'].map(
    (p) => readFileSync(new URL(`../../../test/fixtures/lustre/${p}`, import.meta.url), 'utf8'),
  );
  const damage = fc.record({ which: fc.nat(texts.length - 1), cut: fc.nat(), at: fc.nat(), noise: fc.string({ maxLength: 30 }) });
  fc.assert(
    fc.property(fc.array(damage, { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 5 }), (scrapes, maxJobs) => {
      const acc = newAccumulator({ maxJobs });
      let previous: Map<string, number> | undefined;
      scrapes.forEach((d, i) => {
        const text = texts[d.which]!;
        const end = d.cut % (text.length + 1);
        const where = d.at % (end + 1);
        const out = scrapeOnce(acc, { 'obdfilter/OST0': text.slice(0, where) + d.noise + text.slice(where, end) }, i * 60_000);
        for (const [key, value] of out.exported) {
          assert.ok(Number.isFinite(value) && value >= 0, key);
          const before = previous?.get(key);
          if (before !== undefined) assert.ok(value >= before, `${key} decreased`);
        }
        previous = out.exported;
      });
    }),
    { numRuns: 300 },
  );
});
