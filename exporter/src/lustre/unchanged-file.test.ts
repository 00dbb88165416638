// A job_stats file read again with the bytes of its last read is not parsed (file-digests.ts): the
// outcome must be what parsing it gives. Each scenario runs two accumulators over the same files, one
// reading as the collector does (probe first) and one made to parse every read, and compares every
// value, count and error total they export after each scrape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readJobStatsFile, type JobStatsFile } from './jobstats-files.js';
import type { JobStatsAccumulator, TargetReader } from './jobstats-accumulator.js';
import { jobStatsText, syntheticJobs, type GeneratedJob } from '../../../test/lustre/generate-jobstats.js';
import { defaultUserLabel, newAccumulator, read } from '../../../test/lustre/harness.js';

const MIN = 60_000;
/** The collector's chunk size. */
const CHUNK = 1 << 20;

interface Pair {
  readonly probing: JobStatsAccumulator;
  readonly parsing: JobStatsAccumulator;
}

function pair(): Pair {
  return { probing: newAccumulator({ maxJobs: 5 }), parsing: newAccumulator({ maxJobs: 5 }) };
}

/** Everything the collector exports from an accumulator, as one comparable value. */
function exported(acc: JobStatsAccumulator): unknown {
  const out = read(acc);
  const views = [...acc.targetViews()].map(({ samples: _samples, ...view }) => view);
  return { exported: [...out.exported], held: [...out.held], targets: [...out.targets], views };
}

/** One scrape of both; returns the chunks the probing accumulator parsed (0: the probe ended the read). */
async function scrape(p: Pair, file: JobStatsFile, text: string, now: number, chunkBytes = 64 << 10): Promise<number> {
  writeFileSync(file.path, text);
  const buffers = { buffer: Buffer.alloc(chunkBytes), spare: Buffer.alloc(chunkBytes) };
  let parsedChunks = 0;
  for (const acc of [p.probing, p.parsing]) {
    acc.begin();
    const reader = acc.read(file.ref);
    const counted: TargetReader =
      acc === p.probing
        ? {
            ...reader,
            push: (chunk) => {
              parsedChunks += 1;
              reader.push(chunk);
            },
          }
        : { push: (chunk) => reader.push(chunk), end: (cut) => reader.end(cut), fail: (reason) => reader.fail(reason) };
    await readJobStatsFile(file, counted, 1 << 30, undefined, buffers);
    acc.finish(now, defaultUserLabel);
  }
  assert.deepEqual(exported(p.probing), exported(p.parsing));
  return parsedChunks;
}

function target(): JobStatsFile {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-unchanged-'));
  return { ref: { kind: 'obdfilter', name: 'fs-OST0000' }, path: join(dir, 'job_stats') };
}

/** Jobs whose counters all grow by `step` per scrape. */
function grown(jobs: readonly GeneratedJob[], step: number, only?: number): GeneratedJob[] {
  const add = (v: number | bigint | undefined): number => Number(v ?? 0) + step;
  return jobs.map((j, i) =>
    only !== undefined && i !== only
      ? j
      : { ...j, samples: Object.fromEntries(Object.entries(j.samples).map(([k, v]) => [k, add(v)])), sums: Object.fromEntries(Object.entries(j.sums ?? {}).map(([k, v]) => [k, add(v)])) },
  );
}

test('an unchanged file is not parsed, and exports what parsing it exports (counts, parse errors, increments)', async () => {
  const p = pair();
  const file = target();
  const jobs = syntheticJobs(40, '2.14');
  // A malformed line and a value beyond u64: both counted again at every read of the same bytes.
  const text = `${jobStatsText(jobs, '2.14')}garbage line\n- job_id: big\n  open: { samples: 99999999999999999999999, unit: usecs }\n`;
  assert.ok((await scrape(p, file, text, 0)) > 0);
  assert.equal(await scrape(p, file, text, MIN), 0, 'the same bytes: the probe ended the read, nothing was parsed');
  assert.equal(await scrape(p, file, text, 2 * MIN), 0);
  const view = [...p.probing.targetViews()][0]!;
  assert.deepEqual(view.parseErrors, { malformed_line: 3, value_out_of_range: 3, too_many_fields: 0 });
  assert.ok((await scrape(p, file, jobStatsText(grown(jobs, 3), '2.14'), 3 * MIN)) > 0);
});

test('a change beyond the first chunks is found, the file read again whole and every increment credited', async () => {
  const p = pair();
  const file = target();
  let jobs = syntheticJobs(1000, '2.14');
  const first = jobStatsText(jobs, '2.14');
  assert.ok(first.length > 2 * CHUNK, 'the file spans several chunks');
  await scrape(p, file, first, 0);
  // Only the last entry grows: every chunk but the last is the same.
  jobs = grown(jobs, 5, jobs.length - 1);
  assert.ok((await scrape(p, file, jobStatsText(jobs, '2.14'), MIN)) > 0);
  // The same bytes again, then an entry gone from the middle (the file is shorter), then one more at the end.
  assert.equal(await scrape(p, file, jobStatsText(jobs, '2.14'), 2 * MIN), 0);
  await scrape(p, file, jobStatsText([...jobs.slice(0, 500), ...jobs.slice(501)], '2.14'), 3 * MIN);
  assert.ok((await scrape(p, file, jobStatsText([...jobs.slice(0, 500), ...jobs.slice(501), ...syntheticJobs(1001, '2.14').slice(1000)], '2.14'), 4 * MIN)) > 0);
});

test('any sequence of same and changed files, read in chunks of any size, exports what parsing every read exports', async () => {
  const file = target();
  let seed = 7;
  const random = (n: number): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
  let unparsed = 0;
  for (const chunkBytes of [4096, 100_003, 1 << 20]) {
    const p = pair();
    let jobs = syntheticJobs(600, '2.14');
    for (let scrapeNo = 0; scrapeNo < 10; scrapeNo += 1) {
      const change = random(5);
      const at = random(jobs.length);
      if (change === 1) jobs = grown(jobs, 1 + random(3), at);
      else if (change === 2) jobs = jobs.filter((_, i) => i !== at);
      else if (change === 3) jobs = grown(jobs, 2);
      // change 0 or 4: the same bytes
      if ((await scrape(p, file, jobStatsText(jobs, '2.14'), scrapeNo * MIN, chunkBytes)) === 0) unparsed += 1;
    }
  }
  assert.ok(unparsed >= 5, `reads of the same bytes not parsed: ${unparsed}`);
});

/** Bytes this process has read through read() so far (the kernel's count, /proc/self/io). */
function bytesRead(): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
}

test('a file changed in its first chunk is read once (the probe hands that chunk on); changed further on, twice', async () => {
  const file = target();
  const acc = newAccumulator();
  const readOnce = async (text: string): Promise<number> => {
    writeFileSync(file.path, text);
    acc.begin();
    // Reading /proc/self/io is a read too: its own bytes are taken off.
    const itself = -bytesRead() + bytesRead();
    const before = bytesRead();
    await readJobStatsFile(file, acc.read(file.ref), 1 << 30, undefined, { buffer: Buffer.alloc(CHUNK), spare: Buffer.alloc(CHUNK) });
    const read = bytesRead() - before - itself;
    acc.finish(0, defaultUserLabel);
    // Whether it was read once or twice, in whole files: rchar counts every read of the process (its
    // threads included: a module loaded or a pipe read meanwhile adds a few bytes, never a file's worth).
    return Math.round(read / Buffer.byteLength(text));
  };
  let small = syntheticJobs(50, '2.14');
  assert.equal(await readOnce(jobStatsText(small, '2.14')), 1);
  small = grown(small, 1, 49);
  assert.equal(await readOnce(jobStatsText(small, '2.14')), 1, 'a small file, changed: one read');
  let big = syntheticJobs(1000, '2.14');
  assert.equal(await readOnce(jobStatsText(big, '2.14')), 1);
  big = grown(big, 1, 0);
  assert.equal(await readOnce(jobStatsText(big, '2.14')), 1, 'changed in the first MiB: one read');
  big = grown(big, 1, 999);
  const text = jobStatsText(big, '2.14');
  assert.equal(await readOnce(text), 2, 'changed in its last chunk: read to its end, then again into the parser');
  assert.equal(await readOnce(text), 1, 'unchanged: one read, nothing parsed');
});
