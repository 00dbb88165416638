import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JobSlots, OTHER } from './job-slots.js';

test('at most max jobs own series; others fold into _other; slots are sticky and go to the busiest when freed', () => {
  const slots = new JobSlots(2);
  assert.equal(slots.route('a', 1, 0), 'a');
  assert.equal(slots.route('b', 1, 0), 'b');
  assert.equal(slots.route('c', 5, 0), OTHER);
  assert.equal(slots.route('d', 50, 0), OTHER);
  assert.equal(slots.route('a', 1, 500), 'a', 'sticky');
  assert.deepEqual(slots.maintain(1000, 600), ['b'], 'b idle past the expiry');
  assert.equal(slots.route('d', 1, 1000), 'd', 'the busiest waiting job got the free slot');
  assert.equal(slots.route('c', 1, 1000), OTHER);
  assert.equal(slots.ownCount, 2);
  assert.equal(slots.waitingCount, 1);
});

test('fake job ids of one user cannot take the slots: a uid holds at most its share, jobs without kernel evidence at most their pool', () => {
  const slots = new JobSlots(8, { maxPerUser: 2, maxUnverified: 4, maxUnverifiedPerUser: 2 });
  // The flood: uid 2001 claims 100 job ids from its own environment (no cgroup or step daemon behind them).
  for (let i = 0; i < 100; i++) slots.route(`fake${i}`, 1000, 0, { uid: 2001, verified: false });
  assert.equal(slots.ownCount, 2, 'before: all 8 slots went to the flood');
  // Two more users with unverified claims fill the pool of unverified jobs (4), not more.
  for (const uid of [2002, 2003]) for (let i = 0; i < 5; i++) slots.route(`u${uid}-${i}`, 1000, 0, { uid, verified: false });
  assert.equal(slots.ownCount, 4);
  // Real jobs (kernel evidence) of other users get their own series at once.
  assert.equal(slots.route('real1', 1, 0, { uid: 1000, verified: true }), 'real1');
  assert.equal(slots.route('real2', 1, 0, { uid: 1000, verified: true }), 'real2');
  assert.equal(slots.route('real3', 1, 0, { uid: 1000, verified: true }), OTHER, 'uid 1000 is at its share too');
  assert.equal(slots.route('real4', 1, 0, { uid: 1001, verified: true }), 'real4');
  assert.equal(slots.route('_none', 1, 0), '_none', 'jobs without a uid (processes outside any job) are not charged to anyone');
  assert.equal(slots.ownCount, 8);
  // Freed slots go to the busiest waiting job that fits the rules: not to the flood.
  assert.deepEqual(slots.maintain(700, 600).sort(), ['_none', 'fake0', 'fake1', 'real1', 'real2', 'real4', 'u2002-0', 'u2002-1'].sort());
  slots.route('real3', 1, 700, { uid: 1000, verified: true });
  slots.route('real5', 1, 700, { uid: 1001, verified: true });
  for (let i = 2; i < 100; i++) slots.route(`fake${i}`, 1000, 700, { uid: 2001, verified: false });
  slots.maintain(800, 600);
  assert.equal(slots.route('real3', 1, 800, { uid: 1000, verified: true }), 'real3');
  assert.equal(slots.route('real5', 1, 800, { uid: 1001, verified: true }), 'real5');
  assert.equal([...Array(100).keys()].filter((i) => slots.route(`fake${i}`, 1, 800, { uid: 2001, verified: false }) !== OTHER).length, 2);
});

test('a job first seen on an unverified claim is charged to its owner once kernel evidence shows up', () => {
  const slots = new JobSlots(4, { maxPerUser: 1, maxUnverified: 1 });
  assert.equal(slots.route('9', 1, 0, { uid: 2001, verified: false }), '9');
  assert.equal(slots.route('9', 1, 0, { uid: 1000, verified: true }), '9', "the real owner's traffic");
  // The squatter's pool and share are free again; the owner's share is used.
  assert.equal(slots.route('10', 1, 0, { uid: 2001, verified: false }), '10');
  assert.equal(slots.route('11', 1, 0, { uid: 1000, verified: true }), OTHER);
});

test('a job idle for exactly the expiry loses its slot, as in every bounded table (it used to keep it one more round)', () => {
  const slots = new JobSlots(1);
  assert.equal(slots.route('a', 1, 0), 'a');
  assert.equal(slots.route('b', 9, 100), OTHER);
  assert.deepEqual(slots.maintain(599, 600), [], 'idle 599 ms of 600: kept');
  assert.deepEqual(slots.maintain(600, 600), ['a'], 'idle 600 ms of 600: released');
  assert.equal(slots.route('b', 1, 600), 'b', 'the waiting job took the freed slot');
  assert.deepEqual(slots.maintain(1200, 600), ['b']);
  assert.equal(slots.waitingCount, 0);
});

test('a waiting job that gets a slot on arrival stops waiting: a later maintain does not admit it again and charge its uid twice', () => {
  const slots = new JobSlots(4, { maxPerUser: 2, maxUnverified: 4, maxUnverifiedPerUser: 2 });
  const squatter = { uid: 5, verified: false };
  assert.equal(slots.route('8', 1, 0, squatter), '8');
  assert.equal(slots.route('9', 1, 0, squatter), '9');
  assert.equal(slots.route('10', 1, 500, squatter), OTHER, 'uid 5 at its share: 10 waits');
  assert.equal(slots.route('9', 1, 500, { uid: 1000, verified: true }), '9', "job 9 is uid 1000's: uid 5 has one slot left");
  assert.equal(slots.route('10', 1, 550, squatter), '10', 'the free share goes to 10 at once');
  slots.route('9', 1, 600, { uid: 1000, verified: true });
  slots.route('10', 1, 600, squatter);
  assert.deepEqual(slots.maintain(700, 600), ['8']);
  assert.equal(slots.waitingCount, 0);
  assert.equal(slots.route('11', 1, 700, squatter), '11', 'uid 5 holds one slot (10), so it may have a second');
});

test('colluding uids share the slots of jobs without kernel evidence: each holds at most an eighth of that half, so N uids take N eighths', () => {
  // The exporter's defaults: 100 slots, 25 per uid, 50 for jobs without kernel evidence, 6 of those per uid.
  const slots = new JobSlots(100);
  const fakes = (uid: number, nowMs = 0): number => [...Array(30).keys()].filter((i) => slots.route(`${uid}-${i}`, 1000, nowMs, { uid, verified: false }) !== OTHER).length;
  // Before the per-uid share, two uids took 25 each: the whole half.
  assert.deepEqual([fakes(2001), fakes(2002)], [6, 6], 'two colluding uids: two shares');
  assert.equal(slots.ownCount, 12);
  assert.equal(slots.route('2003-own', 1, 0, { uid: 2003, verified: false }), '2003-own', 'a third uid without kernel evidence still finds room');
  assert.deepEqual(
    [2004, 2005, 2006, 2007, 2008].map((uid) => fakes(uid)),
    [6, 6, 6, 6, 6],
  );
  assert.equal(fakes(2003), 5, 'its own job and five more');
  assert.equal(fakes(2009), 2, 'the half is full after 48 of 50: the ninth uid gets what is left');
  assert.equal(slots.ownCount, 50);
  // Kernel-proven jobs take the other half, a uid's own unverified jobs not counting against it.
  assert.equal([...Array(30).keys()].filter((i) => slots.route(`real-${i}`, 1, 0, { uid: 2001, verified: true }) !== OTHER).length, 19, "uid 2001's quarter (25) less its 6 unverified slots");
  assert.equal([...Array(40).keys()].filter((i) => slots.route(`other-${i}`, 1, 0, { uid: 1000, verified: true }) !== OTHER).length, 25, 'the rest of the proven half goes up to a quarter');
  assert.equal(slots.ownCount, 94);
  // Nothing waiting fits later either: the unverified half is full, the proven uids are at their quarters.
  assert.deepEqual(slots.maintain(1, 600), []);
  assert.equal(slots.ownCount, 94);
});
