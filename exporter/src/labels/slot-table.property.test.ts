// Property tests of the slot table (docs/architecture.md "Bounded cardinality") over random use: keys
// arrive with increments, time passes (often exactly the expiry), members expire, go, slots are refilled.
// The increments are credited the way every collector does it: to the key's own series when route()
// says it has a slot, else to `_other`; a released member's series goes. After every step:
//   - nothing is lost: exported values + values of released series = every increment routed;
//   - no exported counter decreases, and only released members' series disappear;
//   - at most `max` members; a series exists only for a member (or `_other`);
//   - sticky: a member stays one until it has been idle for at least the expiry or is gone, and the
//     expiry releases exactly the members idle that long;
//   - pinned: a key folded once stays folded until it is gone;
//   - caps: no owner holds more than its share.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { OTHER } from './reserved.js';
import { SlotTable, type FoldPolicy } from './slot-table.js';
import { mostActiveFirst } from './most-active.js';

const EXPIRY = 600;
const KEYS = ['a', 'b', 'c', 'd', 'e', 'f', 'g'] as const;
/** Owners are fixed per key (so a verified claim never moves a slot to another owner's share). */
const ownerOf = (key: string): number => key.charCodeAt(0) % 3;

const op = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('route' as const), key: fc.constantFrom(...KEYS), weight: fc.nat(20), verified: fc.boolean() }), weight: 4 },
  fc.record({ kind: fc.constant('time' as const), ms: fc.constantFrom(0, 100, 300, 599, 600, 601) }),
  fc.record({ kind: fc.constant('expire' as const) }),
  fc.record({ kind: fc.constant('fill' as const) }),
  fc.record({ kind: fc.constant('gone' as const), present: fc.subarray([...KEYS]) }),
);
const history = fc.record({
  max: fc.integer({ min: 1, max: 4 }),
  folded: fc.constantFrom<FoldPolicy>('compete', 'pinned', 'forget'),
  caps: fc.option(fc.record({ maxPerOwner: fc.integer({ min: 1, max: 3 }), maxUnverified: fc.integer({ min: 1, max: 4 }) }), { nil: undefined }),
  ops: fc.array(op, { minLength: 1, maxLength: 80, size: 'max' }),
});

test('slot table (property): nothing lost, no counter decreases, at most max members, sticky, pinned, caps', () => {
  fc.assert(
    fc.property(history, ({ max, folded, caps, ops }) => {
      const table = new SlotTable({ max, folded, ...(caps ? { caps } : {}) });
      const exported = new Map<string, number>();
      let routed = 0;
      let retired = 0;
      let now = 0;
      const lastSeen = new Map<string, number>();
      const pinned = new Set<string>();
      const retire = (keys: readonly string[]): void => {
        for (const key of keys) {
          retired += exported.get(key) ?? 0;
          exported.delete(key);
        }
      };
      for (const step of ops) {
        const membersBefore = new Set(table.memberKeys());
        const before = new Map(exported);
        let released: string[] = [];
        switch (step.kind) {
          case 'route': {
            const claim = caps ? { owner: ownerOf(step.key), verified: step.verified } : undefined;
            const own = table.route(step.key, step.weight, now, claim);
            if (folded === 'pinned' && pinned.has(step.key)) assert.equal(own, false, `${step.key} is pinned as folded`);
            if (!own && folded === 'pinned') pinned.add(step.key);
            const label = own ? step.key : OTHER;
            exported.set(label, (exported.get(label) ?? 0) + step.weight);
            routed += step.weight;
            lastSeen.set(step.key, now);
            break;
          }
          case 'time':
            now += step.ms;
            break;
          case 'expire': {
            released = table.expire(now, EXPIRY);
            for (const key of membersBefore) {
              const idle = now - (lastSeen.get(key) ?? 0) >= EXPIRY;
              assert.equal(released.includes(key), idle, `${key} released exactly when idle for the expiry`);
            }
            // Folded keys idle as long are forgotten too: pinned or not, they start afresh.
            for (const key of pinned) if (now - (lastSeen.get(key) ?? 0) >= EXPIRY) pinned.delete(key);
            break;
          }
          case 'fill':
            table.fill();
            break;
          case 'gone': {
            const present = new Set<string>(step.present);
            released = table.retainOnly(present);
            assert.deepEqual([...membersBefore].filter((k) => !present.has(k)).sort(), [...released].sort());
            for (const key of pinned) if (!present.has(key)) pinned.delete(key);
            break;
          }
        }
        retire(released);
        const members = new Set(table.memberKeys());
        // Sticky: every member before is a member after unless this step released it.
        for (const key of membersBefore) assert.equal(members.has(key), !released.includes(key), `${key} sticky`);
        assert.ok(members.size <= max);
        assert.equal(table.memberCount, members.size);
        for (const label of exported.keys()) assert.ok(label === OTHER || members.has(label), `${label}: a series only for a member`);
        for (const [label, value] of before) {
          const after = exported.get(label);
          if (after === undefined) assert.ok(released.includes(label), `${label} vanished without release`);
          else assert.ok(after >= value, `${label} decreased`);
        }
        assert.equal([...exported.values()].reduce((a, b) => a + b, 0) + retired, routed, 'nothing lost');
        if (folded === 'forget') assert.equal(table.waitingCount, 0);
        if (caps) {
          const perOwner = new Map<number, number>();
          for (const key of members) perOwner.set(ownerOf(key), (perOwner.get(ownerOf(key)) ?? 0) + 1);
          for (const n of perOwner.values()) assert.ok(n <= caps.maxPerOwner, 'owner within its share');
        }
      }
    }),
    { numRuns: 300 },
  );
});

test('most active first (property): the same order as a full sort by activity, then key', () => {
  const candidates = fc.uniqueArray(fc.record({ key: fc.string({ maxLength: 3 }), activity: fc.nat(5) }), { selector: (c) => c.key, maxLength: 40 });
  fc.assert(
    fc.property(candidates, (list) => {
      const sorted = [...list].sort((a, b) => b.activity - a.activity || (a.key < b.key ? -1 : 1));
      assert.deepEqual([...mostActiveFirst([...list])], sorted);
    }),
  );
});
