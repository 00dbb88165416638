// The small-files worker reads a file as streamPseudoFile does (same chunks), or leaves it to the caller.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SmallFilesWorker, WORKER_SOURCE, readSmallFiles, type WholeFileOptions, type WholeFileResult } from './small-files-worker.js';
import { streamPseudoFile } from './pseudo-files.js';

const CHUNK = 4096;

function options(over: Partial<WholeFileOptions> = {}): WholeFileOptions {
  return { chunkBytes: CHUNK, maxBytes: 1 << 20, maxWholeBytes: 16 * CHUNK, notAfter: Date.now() + 60_000, timeoutMs: 60_000, ...over };
}

async function readAll(paths: readonly string[], over: Partial<WholeFileOptions> = {}, worker?: SmallFilesWorker): Promise<WholeFileResult[]> {
  const results: WholeFileResult[] = [];
  await readSmallFiles(
    paths,
    options(over),
    (i, result) => {
      assert.equal(i, results.length, 'results come in order');
      results.push(result);
    },
    worker,
  );
  return results;
}

const texts = (result: WholeFileResult | undefined): string[] | WholeFileResult | undefined => (typeof result === 'object' ? result.chunks.map((c) => c.toString('latin1')) : result);

test('small-files worker: the chunks of a streamed read of the same size; what it does not read whole is declined', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-small-files-'));
  const put = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text, 'latin1');
    return join(dir, name);
  };
  const sizes = [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 17, 16 * CHUNK];
  const files = sizes.map((n, i) => put(`f${i}`, Array.from({ length: n }, (_, k) => String.fromCharCode(33 + ((k * 7 + i) % 90))).join('')));
  const results = await readAll(files);
  for (const [i, path] of files.entries()) {
    const streamed: string[] = [];
    await streamPseudoFile(path, (c) => void streamed.push(c.toString('latin1')), { maxBytes: 1 << 20, chunkBytes: CHUNK });
    assert.deepEqual(results[i], { chunks: streamed.map((s) => Buffer.from(s, 'latin1')), late: false }, `size ${sizes[i]}`);
  }

  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  mkdirSync(join(dir, 'a-dir'));
  const declined = [
    ...(await readAll([fifo, join(dir, 'a-dir'), join(dir, 'missing'), put('big', 'x'.repeat(16 * CHUNK + 1))])),
    // At the caller's bound: the caller's read says whether anything is left (a cut read).
    ...(await readAll([put('bounded', 'y'.repeat(100))], { maxBytes: 100 })),
  ];
  assert.deepEqual(declined, ['declined', 'declined', 'declined', 'declined', 'declined']);
});

test('small-files worker: deadlines, many requests in order, and the reads are not on the event loop thread', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-small-files-'));
  const paths = Array.from({ length: 70 }, (_, i) => {
    writeFileSync(join(dir, `f${i}`), `${i}:`.repeat(CHUNK));
    return join(dir, `f${i}`);
  });
  // Past its read deadline: not opened. No time for the file: its first chunk only, and said late.
  const timed = [...(await readAll([paths[0] as string], { notAfter: Date.now() - 1 })), ...(await readAll([paths[1] as string], { timeoutMs: 0 }))];
  assert.deepEqual(timed.map(texts), ['not_reached', ['1:'.repeat(CHUNK / 2)]]);
  assert.equal(typeof timed[1] === 'object' && timed[1].late, true);

  const before = readCharsByThread();
  const all = await readAll(paths);
  const after = readCharsByThread();
  const expected = paths.map((_, i) => `${i}:`.repeat(CHUNK));
  assert.deepEqual(
    all.map((r) => (typeof r === 'object' ? r.chunks.map((c) => c.toString()).join('') : r)),
    expected,
  );
  // The bytes were read by another thread: the event loop's own reads (its wake-ups) are a few bytes.
  const bytes = expected.reduce((n, text) => n + text.length, 0);
  let others = 0;
  for (const [tid, chars] of after) if (tid !== process.pid) others += chars - (before.get(tid) ?? 0);
  assert.ok((after.get(process.pid) ?? 0) - (before.get(process.pid) ?? 0) < 4096, 'the event loop thread read the files');
  assert.ok(others >= bytes, `the other threads read ${others} bytes of ${bytes}`);
});

// A read that does not return for a while, as on a hung server: the worker's open of a path ending in
// "stalls" first waits STALL_S seconds in a system call (a child's sleep, which terminate() cannot cut short).
const STALL_S = 8;
const stallingSource = `{
  const fs = require('node:fs');
  const open = fs.openSync;
  fs.openSync = (p, ...rest) => {
    if (String(p).endsWith('stalls')) require('node:child_process').spawnSync('sleep', ['${STALL_S}']);
    return open(p, ...rest);
  };
}
${WORKER_SOURCE}`;

test('small-files worker: a read that does not return gives its files as not reached, a new worker reads the next, and at most two stay stuck (then files are declined)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-small-files-'));
  const [a, c, stalls] = ['a', 'c', 'stalls'].map((name) => {
    writeFileSync(join(dir, name), name);
    return join(dir, name);
  }) as [string, string, string];
  const reader = new SmallFilesWorker(stallingSource);
  const soon = (): Partial<WholeFileOptions> => ({ notAfter: Date.now() + 200 });
  // The request holding the stuck read is given up whole, STALL_GRACE_MS after its notAfter.
  assert.deepEqual(await readAll([a, stalls, c], soon(), reader), ['not_reached', 'not_reached', 'not_reached']);
  assert.equal(reader.stalledWorkers, 1);
  // A new worker reads the files while the first is stuck.
  assert.deepEqual((await readAll([a, c], {}, reader)).map(texts), [['a'], ['c']]);
  // A second stuck worker: the files are then left to the caller (streamed through the pool).
  assert.deepEqual(await readAll([stalls], soon(), reader), ['not_reached']);
  assert.equal(reader.stalledWorkers, 2);
  assert.deepEqual(await readAll([a, c], {}, reader), ['declined', 'declined']);
  // Once the stuck reads return, those workers end and files are read whole again.
  for (let waited = 0; reader.stalledWorkers > 0 && waited < 4 * STALL_S * 1000; waited += 100) await new Promise((r) => setTimeout(r, 100));
  assert.equal(reader.stalledWorkers, 0, 'the stuck workers ended after their reads returned');
  assert.deepEqual((await readAll([a], {}, reader)).map(texts), [['a']]);
});

/** Bytes each thread of this process has read (rchar of /proc/self/task/<tid>/io), by thread id. */
function readCharsByThread(): Map<number, number> {
  const chars = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    let io = '';
    try {
      io = readFileSync(`/proc/self/task/${tid}/io`, 'utf8');
    } catch {
      continue; // a thread that ended meanwhile
    }
    chars.set(Number(tid), Number(/^rchar: (\d+)$/m.exec(io)?.[1]));
  }
  return chars;
}
