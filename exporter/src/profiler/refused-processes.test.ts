// The processes of another user that jobio run's private socket refused: the name a process sent is
// a label only, kept when it is a plain file name; in the run's not_profiled list each refused process
// is one entry with its uid, and a program a profiled process named is not counted a second time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FLAG_EXEC } from '../parsers/profiler-wire.js';
import { processRecord } from '../../../test/helpers/profiler-records.js';
import { claimedName, RefusedTally } from './refused-processes.js';
import type { SeqpacketEvent } from './native.js';
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
  assert.deepEqual(totals.unprofiledExecs({ byPid: refused }), [`true (${ANOTHER_USER(65534)})`, `worker (${ANOTHER_USER(65534)})`, `worker (${ANOTHER_USER(1000)})`]);
});

/** A message as the addon hands it over. */
function frame(connection: number, pid: number, uid: number, data: string, exe?: string): SeqpacketEvent {
  return { type: 'frame', connection, pid, uid, gid: uid, size: data.length, data: Buffer.from(data), ...(exe !== undefined ? { evidence: { exe } } : {}) };
}

test("the tally: a process once, whatever its connection repeats; beyond those named, one a connection; the run's uid and root not at all", () => {
  const tally = new RefusedTally(1000, 2);
  tally.onEvent(frame(1, 50, 65534, 'a', '/usr/bin/a'));
  for (let i = 0; i < 100_000; i++) tally.onEvent(frame(1, 50, 65534, 'again'));
  tally.onEvent(frame(2, 51, 1000, 'own')); // the run's own uid: never refused by its socket
  tally.onEvent(frame(3, 52, 0, 'root'));
  tally.onEvent(frame(4, 53, 65534, 'b'));
  // the two remembered are taken: a flooding connection counts once, a new one once more
  for (let i = 0; i < 100_000; i++) tally.onEvent(frame(5, 54, 65534, 'flood'));
  tally.onEvent({ type: 'close', connection: 5, pid: 54, uid: 65534, gid: 65534, size: 0 });
  tally.onEvent(frame(6, 54, 65534, 'flood'));
  const { byPid, more } = tally.refused();
  assert.deepEqual(
    [...byPid],
    [
      [50, { uid: 65534, name: 'a' }],
      [53, { uid: 65534, name: 'b' }],
    ],
  );
  assert.equal(more, 2);
});

test("the tally: the kernel's path names the program only if its base name prints as it is", () => {
  const tally = new RefusedTally(1000);
  tally.onEvent(frame(1, 60, 65534, 'claimed', '/tmp/x/a\nFAKE LINE'));
  tally.onEvent(frame(2, 61, 65534, 'bad\nclaim', '/tmp/x/b\u001b[2J'));
  tally.onEvent(frame(3, 62, 65534, 'ignored', '/opt/tool'));
  assert.deepEqual(
    [...tally.refused().byPid.values()].map((r) => r.name),
    ['claimed', '(unknown program)', 'tool'],
  );
});
