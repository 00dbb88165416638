// The demo's job_stats replay, read back by the exporter's own parser: the captures load as their
// targets, a replay at its start holds the captured values, and the scenario's jobs appear on time
// with exactly their rates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseJobStats, type JobStatsEntry } from '../parsers/lustre-jobstats.js';
import { parseLustreStats } from '../parsers/lustre-stats.js';
import { loadCapturedTargets } from './captured-targets.js';
import { JobStatsReplay, replayTargets } from './jobstats-replay.js';
import { DEMO_JOBS, MDT, OSTS, STORM_RATES } from './scenario.js';

const START = 1_795_000_000_000;

function withReplay(fn: (replay: JobStatsReplay, read: (kind: string, target: string) => JobStatsEntry[], dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-replay-'));
  try {
    const replay = new JobStatsReplay(dir, replayTargets(loadCapturedTargets(), OSTS), DEMO_JOBS, START);
    fn(
      replay,
      (kind, target) => {
        const { entries, malformedLines } = parseJobStats(readFileSync(join(dir, 'fs', 'lustre', kind, target, 'job_stats')));
        assert.equal(malformedLines, 0, `${target}: every line written is a job_stats line`);
        return entries;
      },
      dir,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const counter = (entry: JobStatsEntry | undefined, name: string): { samples: number; sum: number } => {
  const c = entry?.counters.find((x) => x.name === name);
  return { samples: Number(c?.samples ?? -1), sum: Number(c?.sum ?? -1) };
};

test('the captures give 2 MDTs and 1 OST with their entries; the replay adds 3 OSTs in the OST layout', () => {
  const captured = loadCapturedTargets();
  assert.deepEqual(
    captured.map((t) => `${t.kind}/${t.name}:${t.entries.length}`),
    ['mdt/es01a-MDT0000:5', 'mdt/es02a-MDT0000:7', 'obdfilter/es01a-OST0001:16'],
  );
  assert.equal(captured[0]!.operations.length, 24);
  assert.equal(captured[2]!.operations.length, 15);
  const targets = replayTargets(captured, OSTS);
  assert.deepEqual(
    targets.map((t) => t.name),
    ['es01a-MDT0000', 'es02a-MDT0000', 'es01a-OST0000', 'es01a-OST0001', 'es01a-OST0002', 'es01a-OST0003'],
  );
  assert.deepEqual(targets[2]!.operations, captured[2]!.operations);
});

test('at the start the replay holds the captured values, and only the jobs started at 0 s', () => {
  withReplay((replay, read) => {
    replay.write(START);
    const original = parseJobStats(readFileSync(new URL('./captures/obdfilter.job_stats.lctl.txt', import.meta.url))).entries;
    const ost1 = read('obdfilter', 'es01a-OST0001');
    assert.equal(ost1.length, 16 + 1, 'the 16 captured entries and job 4201');
    ost1.slice(0, 16).forEach((entry, i) => {
      assert.equal(entry.rawId, original[i]!.rawId);
      assert.deepEqual(entry.counters, original[i]!.counters);
    });
    assert.equal(ost1[16]!.rawId, '"4201:2001:n001"');
    assert.equal(read('obdfilter', 'es01a-OST0000').length, 1);
  });
});

test('jobs grow at their rates from their start: the storm, the tiny writes, a job that ended', () => {
  withReplay((replay, read) => {
    replay.write(START + 60_000);
    const storm = read('mdt', MDT).find((e) => e.rawId === '"4203:2003:n018"');
    // Started at 5 s: 55 s of storm.
    for (const [op, rate] of Object.entries(STORM_RATES)) assert.equal(counter(storm, op).samples, rate * 55, op);
    assert.equal(counter(storm, 'open').sum, 32_000 * 55 * 140, 'latency sum: 140 µs per open');
    assert.equal(counter(storm, 'read_bytes').samples, 0);
    const tiny = read('obdfilter', 'es01a-OST0001').find((e) => e.rawId === '"4202:2002:n017"');
    assert.deepEqual(counter(tiny, 'write_bytes'), { samples: 5000 * 58, sum: 5000 * 58 * 4096 });
    assert.deepEqual(counter(tiny, 'write'), { samples: 5000 * 58, sum: 5000 * 58 * 60 });
    const ended = read('obdfilter', 'es01a-OST0003').find((e) => e.rawId === '"4205:2005:n024"');
    assert.equal(counter(ended, 'write').samples, 50 * 25, 'ran from 20 s to 45 s');
    assert.equal(ended?.startTime, START / 1000 + 20);
    const background = read('mdt', MDT).find((e) => e.rawId === '"node_exporter:989:es-2-virt3-co"');
    // Captured: 326 statfs in 2420 s; one more minute at that pace.
    assert.equal(counter(background, 'statfs').samples, 326 + Math.floor((326 * 60) / 2420.120267092));
  });
});

test("each target's stats file (md_stats, stats) holds the sum of its job_stats entries", () => {
  withReplay((replay, read, dir) => {
    replay.write(START + 30_000);
    for (const [kind, target, file] of [
      ['mdt', MDT, 'md_stats'],
      ['obdfilter', 'es01a-OST0001', 'stats'],
    ] as const) {
      const [section] = parseLustreStats(readFileSync(join(dir, 'fs', 'lustre', kind, target, file)));
      assert.equal(section?.badLines, 0);
      const sums = new Map<string, number>();
      for (const entry of read(kind, target)) for (const c of entry.counters) sums.set(c.name, (sums.get(c.name) ?? 0) + Number(c.samples));
      const expected = [...sums].filter(([, n]) => n > 0);
      assert.deepEqual(
        section.counters.map((c) => [c.name, Number(c.samples)]),
        expected,
        target,
      );
    }
  });
});
