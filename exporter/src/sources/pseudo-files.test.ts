// The one reader of files under configurable roots: FIFOs, devices and directories refused without
// blocking, regular files streamed in bounded chunks up to a byte bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileTooLargeError, NotRegularFileError, readPseudoFile, streamPseudoFile } from './pseudo-files.js';

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
});
