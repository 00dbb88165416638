// The --output file of `jobio run` as opened on the real file system, with the addon's locks: never
// through a planted symbolic link, never a FIFO or a file someone else owns; the first run truncates,
// a run that finds another one writing the file appends (whole records, see run-output.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chownSync, closeSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRunOutput } from './output-file.js';
import { loadSeqpacketAddon } from '../profiler/native.js';

const lockFile = loadSeqpacketAddon().lockFile;

function withDir(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-output-file-'));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a symbolic link planted at the --output name is refused, and its target is left alone', () => {
  withDir((dir) => {
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'the victim file\n');
    symlinkSync(victim, join(dir, 'io.jsonl'));
    assert.throws(() => openRunOutput(join(dir, 'io.jsonl'), lockFile), /symbolic link/);
    assert.equal(readFileSync(victim, 'utf8'), 'the victim file\n');
  });
});

test('a FIFO, and a file another user owns, are refused', { skip: process.getuid?.() === 0 ? false : 'chown needs root' }, () => {
  withDir((dir) => {
    execFileSync('mkfifo', [join(dir, 'fifo.jsonl')]);
    assert.throws(() => openRunOutput(join(dir, 'fifo.jsonl'), lockFile), /not a regular file/);
    const theirs = join(dir, 'theirs.jsonl');
    writeFileSync(theirs, 'theirs\n');
    chownSync(theirs, 65534, 65534);
    assert.throws(() => openRunOutput(theirs, lockFile), /belongs to uid 65534/);
    assert.equal(readFileSync(theirs, 'utf8'), 'theirs\n');
  });
});

test('the first run truncates; a second run on the same file appends, and says so', () => {
  withDir((dir) => {
    const path = join(dir, 'io.jsonl');
    writeFileSync(path, 'an old run\n');
    const first = openRunOutput(path, lockFile);
    assert.equal(first.joined, false);
    writeSync(first.fd, '{"a":1}\n');
    const second = openRunOutput(path, lockFile);
    assert.equal(second.joined, true);
    writeSync(second.fd, '{"b":2}\n');
    writeSync(first.fd, '{"a":3}\n');
    assert.equal(readFileSync(path, 'utf8'), '{"a":1}\n{"b":2}\n{"a":3}\n');
    closeSync(first.fd);
    closeSync(second.fd);
    // Both gone: the next run is a first run again.
    const third = openRunOutput(path, lockFile);
    assert.equal(third.joined, false);
    assert.equal(readFileSync(path, 'utf8'), '');
    closeSync(third.fd);
  });
});
