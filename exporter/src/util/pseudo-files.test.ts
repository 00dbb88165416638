// The one reader of files under configurable roots: FIFOs, devices and directories refused without
// blocking, regular files streamed in bounded chunks up to a byte bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileTooLargeError, NotRegularFileError, readPseudoFile, readPseudoFileSync, streamPseudoFile } from './pseudo-files.js';

const dir = mkdtempSync(join(tmpdir(), 'jobio-pseudo-files-'));

// The guard only turns a hang (a FIFO opened without O_NONBLOCK) into a failure; nothing is timed.
test('pseudo-files: a FIFO, a device, a directory are refused at once as not regular files', { timeout: 60_000 }, async () => {
  assert.equal(spawnSync('mkfifo', [join(dir, 'fifo')]).status, 0);
  symlinkSync('/dev/zero', join(dir, 'zero'));
  mkdirSync(join(dir, 'directory'));
  for (const [name, kind] of [
    ['fifo', 'a FIFO'],
    ['zero', 'a character device'],
    ['directory', 'a directory'],
  ] as const) {
    await assert.rejects(readPseudoFile(join(dir, name)), (err: unknown) => err instanceof NotRegularFileError && err.message.includes(kind), name);
    await assert.rejects(
      streamPseudoFile(join(dir, name), () => undefined, { maxBytes: 10 }),
      NotRegularFileError,
      name,
    );
    assert.throws(() => readPseudoFileSync(join(dir, name)), NotRegularFileError, name);
  }
  await assert.rejects(readPseudoFile(join(dir, 'missing')), { code: 'ENOENT' });
});

test('pseudo-files: a stream stops at maxBytes and says truncated; chunks never exceed chunkBytes', async () => {
  const path = join(dir, 'regular');
  writeFileSync(path, 'x'.repeat(10_000));
  const sizes: number[] = [];
  assert.deepEqual(await streamPseudoFile(path, (c) => void sizes.push(c.length), { maxBytes: 2500, chunkBytes: 1000 }), { bytes: 2500, truncated: true });
  assert.deepEqual(sizes, [1000, 1000, 500]);
  assert.deepEqual(await streamPseudoFile(path, () => undefined, { maxBytes: 10_000, chunkBytes: 4096 }), { bytes: 10_000, truncated: false });
  assert.deepEqual(await streamPseudoFile(path, () => false, { maxBytes: 10_000, chunkBytes: 4096 }), { bytes: 4096, truncated: true }, 'the consumer can stop');
  assert.equal((await readPseudoFile(path)).length, 10_000);
  await assert.rejects(readPseudoFile(path, { maxBytes: 9_999 }), FileTooLargeError);
  assert.equal(readPseudoFileSync(path).length, 10_000);
  assert.throws(() => readPseudoFileSync(path, 9_999), FileTooLargeError);
});

test('pseudo-files: with a spare buffer (read ahead) the chunks are the same bytes in the same order, and the bounds hold', async () => {
  const path = join(dir, 'numbered');
  const text = Array.from({ length: 3000 }, (_, i) => `line ${i}\n`).join('');
  writeFileSync(path, text);
  const buffers = { buffer: Buffer.alloc(1000), spare: Buffer.alloc(1000) };
  const copies = (maxBytes: number, stopAfter = Number.POSITIVE_INFINITY) => {
    const seen: string[] = [];
    const result = streamPseudoFile(path, (c) => seen.push(c.toString('latin1')) < stopAfter && undefined, { maxBytes, ...buffers });
    return result.then((r) => ({ ...r, seen }));
  };
  const whole = await copies(1 << 20);
  assert.deepEqual({ bytes: whole.bytes, truncated: whole.truncated }, { bytes: text.length, truncated: false });
  assert.equal(whole.seen.join(''), text, 'every byte once, in order, though each buffer is refilled while the other is handed over');
  assert.ok(whole.seen.every((c) => c.length <= 1000));
  const cut = await copies(2500);
  assert.deepEqual(
    cut.seen.map((c) => c.length),
    [1000, 1000, 500],
  );
  assert.equal(cut.seen.join(''), text.slice(0, 2500));
  assert.equal(cut.truncated, true);
  const exact = await copies(text.length);
  assert.equal(exact.truncated, false, 'exactly at the bound with nothing left');
  const stopped = await copies(1 << 20, 2);
  assert.deepEqual(
    { bytes: stopped.bytes, truncated: stopped.truncated, chunks: stopped.seen.length },
    { bytes: 2000, truncated: true, chunks: 2 },
    'the consumer can stop; the read already started is waited for',
  );
});
