// The processes of another user that jobio run's private socket refused: the name a process sent is
// a label only, kept when it is a plain file name; in the run's not_profiled list each refused process
// is one entry with its uid, and a program a profiled process named is not counted a second time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FLAG_EXEC } from '../parsers/profiler-wire.js';
import { processRecord } from '../../../test/helpers/profiler-records.js';
import { claimedName } from './refused-processes.js';
import { ANOTHER_USER, RunTotals } from './run-totals.js';

test('a name a refused process sent is kept only as a plain file name', () => {
  assert.equal(claimedName(Buffer.from('switch-then-fork')), 'switch-then-fork');
  assert.equal(claimedName(Buffer.from('données')), 'données');
  for (const bad of ['', '?', '../etc/passwd', '/bin/true', 'a\x1b[2Jb', 'tab\there', 'bidi\u202eevil']) assert.equal(claimedName(Buffer.from(bad)), undefined, JSON.stringify(bad));
  assert.equal(claimedName(Buffer.from([0x61, 0xff, 0x62])), undefined, 'not UTF-8');
  assert.equal(claimedName(undefined), undefined);
});

test('not_profiled: each refused process once, with its uid; a named exec that was refused is not counted twice', () => {
  const totals = new RunTotals(0, () => 0);
  const id = { key: '30/1', pid: 30, uid: 0, gid: 0, jobid: '', exe: 'sh' };
  const increment = { runtimeNs: 0, droppedFrames: 0, ignoredCalls: 0, networkFolded: 0 };
  // pid 30 is about to exec true, which never says hello (the socket refuses it: it runs as nobody)
  totals.processDelta(id, increment, processRecord({ header: { version: 2, flags: FLAG_EXEC, sequence: 0n, claimedPid: 0, startNs: 1n, nowNs: 1n }, execTarget: 'true' }));
  assert.deepEqual(totals.unprofiledExecs(), ['true'], 'without the refused processes: named, no uid known');
  const refused = new Map([
    [30, { uid: 65534, name: 'true' }],
    [31, { uid: 65534, name: 'worker' }],
    [32, { uid: 1000, name: 'worker' }],
  ]);
  assert.deepEqual(totals.unprofiledExecs({ byPid: refused, more: 1 }), [
    `true (${ANOTHER_USER(65534)})`,
    `worker (${ANOTHER_USER(65534)})`,
    `worker (${ANOTHER_USER(1000)})`,
    "(unknown program) (run as another user, whom the run's private socket refuses)",
  ]);
});
