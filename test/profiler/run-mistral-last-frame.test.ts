// The last, short frame of a `jobio run` log, with the real library and a real program that holds a
// known amount of memory: its `resources` record carries the job's memory (not 0 next to real CPU
// figures), and every frame is stamped at its end on the log's clock, start + its last second, so the
// last frame's timestamp follows the previous one by its timeframe and the job-total records share it.
// The oracle for memory is the program's own allocation (64 MiB written byte by byte, so resident);
// for time, the run's `jobstarttime` and the frames' `timeframe`s.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runJobio } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';
import { readValidLog, type LogRecord } from './mistral-schema.js';
import { requireProfilerLibrary } from './real-library.js';
import { isoTimestamp } from '../../exporter/src/profiler/mistral-records.js';

requireProfilerLibrary();
const work = mkdtempSync(join(tmpdir(), 'jobio-last-frame-'));
after(() => rmSync(work, { recursive: true, force: true }));

const HELD = 64 << 20;
/**
 * Holds HELD resident bytes, then sleeps 2.5 s: the memory is sampled, and the run ends between two
 * samples. It leaves with os._exit, holding the bytes to the end: Python's own finalization would
 * free them first, and a sample then would rightly see less.
 */
const PROGRAM = `
import os, time
held = b'\\x01' * ${HELD}
time.sleep(2.5)
os._exit(0)
`;

const seconds = (r: LogRecord): number => Number(/^(\d+)s$/.exec(String(r.timeframe))?.[1]);

test('a run ending between two memory samples: the last short frame has the memory held and a timestamp of its own', async () => {
  const python = requireBinary('python3');
  const out = join(work, 'long.jsonl');
  const r = await runJobio(['run', '--timeframe', '1s', '-o', out, '--', python, '-c', PROGRAM], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const records = readValidLog(readFileSync(out, 'utf8'));
  const total = records.find((x) => x.type === 'resources' && x.jobtotal === true);
  assert.ok(total);
  const startMs = total.jobstarttime as number;
  const frames = records.filter((x) => x.type === 'resources' && x.jobtotal === false);
  assert.ok(frames.length >= 3, `frames of a 2.5 s run: ${frames.length}`);
  // Frame k ends at start + k + 1 s; the last one too, and the job total with it.
  let end = 0;
  for (const f of frames) {
    assert.equal(seconds(f), 1, 'one-second frames');
    end += seconds(f);
    assert.equal(f.timestamp, isoTimestamp(startMs + end * 1000), `frame ending at second ${end}`);
  }
  assert.equal(new Set(frames.map((f) => f.timestamp)).size, frames.length, `distinct timestamps: ${frames.map((f) => String(f.timestamp)).join(' ')}`);
  assert.equal(seconds(total), end, "the job total's timeframe is the frames' seconds");
  for (const x of records.filter((y) => y.jobtotal === true)) assert.equal(x.timestamp, frames.at(-1)?.timestamp, `${String(x.type)}: the job-total records are stamped with the last frame's end`);
  // The last frame, short and typically without a memory sample of its own, holds the program's
  // memory (the frames before the allocation may not: the program starts small).
  const job = frames.at(-1)?.resources.job as LogRecord;
  assert.ok(job.rssmem.max >= HELD && job.rssmem['mean/s'] >= HELD, `last frame: rssmem ${JSON.stringify(job.rssmem)} holds the ${HELD} bytes`);
  assert.ok(job.vmem.max >= job.rssmem.max && job.vmem['mean/s'] >= job.rssmem['mean/s'], `last frame: vmem ${JSON.stringify(job.vmem)} not below rssmem`);
  assert.ok(job.rssmem.max <= total.resources.job.rssmem.max, 'not above the job total');
});
