import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { libraryMismatches, librarySampling, parseAttach, processExit, waitedPid } from './attached-job.js';
import { UsageError } from './run-options.js';

test('--attach: the descriptor and the four processes, in the order the library writes them', () => {
  const attach = parseAttach('3,200,100,150,90');
  assert.deepEqual(attach, { fd: 3, first: 200, parent: 100, group: 150, parentGroup: 90 });
  assert.equal(waitedPid(attach, 'mistral'), 200);
  assert.equal(waitedPid(attach, 'first'), 200);
  assert.equal(waitedPid(attach, 'parent'), 100);
  assert.equal(waitedPid(attach, 'group'), 150);
  assert.equal(waitedPid(attach, 'parent-group'), 90);
  // the sixth: the socket of refused processes, when the first process could make it
  assert.deepEqual(parseAttach('3,200,100,150,90,4'), { ...attach, refusedFd: 4 });
  for (const bad of ['3,200,100,150', '3,200,100,150,90,4,5', '3,200,100,150,90,', 'x,200,100,150,90', '3,-1,100,150,90', '']) assert.throws(() => parseAttach(bad), UsageError, bad);
});

test("the library's variables that differ from the options are named; an unset one stands for the library's default", () => {
  const wanted = { JOBIO_SMALL_THRESHOLD: '32768', JOBIO_SAMPLE_EVERY: '1', JOBIO_NETWORK: '0', JOBIO_BYPASS: 'rsync' };
  const lines = libraryMismatches(wanted, { JOBIO_BYPASS: 'rsync' });
  assert.equal(lines.length, 1);
  assert.match(lines[0] ?? '', /JOBIO_SAMPLE_EVERY=16 where the configuration asks for 1/);
  assert.deepEqual(libraryMismatches(wanted, { JOBIO_SAMPLE_EVERY: '1', JOBIO_BYPASS: 'rsync', JOBIO_NETWORK: '' }), []);
  assert.match(libraryMismatches({ JOBIO_EXCLUDE: 'srun' }, {})[0] ?? '', /JOBIO_EXCLUDE=\(unset\)/);
});

test("a factor chosen from the clock's cost is the library's; a limit the file gives stays", () => {
  assert.deepEqual(librarySampling({ sampleEvery: 0, sampleMaxPerSec: 0 }, { JOBIO_SAMPLE_EVERY: '3', JOBIO_SAMPLE_MAX_PER_SEC: '1000' }), { sampleEvery: 3, sampleMaxPerSec: 1000 });
  assert.deepEqual(librarySampling({ sampleEvery: 0, sampleMaxPerSec: 50 }, { JOBIO_SAMPLE_EVERY: '1' }), { sampleEvery: 1, sampleMaxPerSec: 50 });
});

test('the exit of a process that is not a child: seen in /proc, a zombie counts as gone', async () => {
  // sh's child sleeps, then exits; sh itself lives on without reaping it: the zombie is the end
  const child = spawn('sh', ['-c', 'sleep 1 & pid=$!; echo $pid; exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const pid = await new Promise<number>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
  const state = (): string => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  };
  assert.notEqual(state(), 'Z', 'running when the wait starts');
  await processExit('/proc', pid);
  assert.equal(state(), 'Z', 'ended, and not reaped by anyone');
  child.kill();
});
