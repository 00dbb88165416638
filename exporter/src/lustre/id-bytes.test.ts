// The ids kept as bytes stay each slot's own through what moves them: slots let go and taken again,
// the buffer compacted and grown, ids longer than a page's 16-bit length. Checked against a plain map
// of the ids written alongside.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IdBytes } from './id-bytes.js';
import { hashBytes, hashString } from './id-index.js';
import { fixedSequence } from '../../../test/helpers/fixed-sequence.js';

test('each slot matches its own id only, through releases, compactions and long ids', () => {
  const ids = new IdBytes();
  const expected = new Map<number, Buffer>();
  const free: number[] = [];
  let nextSlot = 0;
  const next = fixedSequence(11);
  const idOf = (round: number): Buffer => {
    const kind = next() % 50;
    // Most ids short; some empty, some past 0xffff bytes (their length kept aside).
    const length = kind === 0 ? 0 : kind === 1 ? 0xffff + (next() % 3) : 1 + (next() % 40);
    const id = Buffer.alloc(length, 97 + (round % 26));
    for (let i = 0; i < Math.min(length, 8); i += 1) id[i] = next() & 0xff;
    return id;
  };
  // A source buffer with bytes around the id, as the scanner's chunks are.
  const framed = (id: Buffer): { src: Buffer; start: number; end: number } => ({ src: Buffer.concat([Buffer.from('- job_id: '), id, Buffer.from('\n')]), start: 10, end: 10 + id.length });
  let longIds = 0;
  for (let round = 0; round < 4000; round += 1) {
    const live = [...expected.keys()];
    if (live.length > 0 && next() % 3 === 0) {
      const slot = live[next() % live.length]!;
      ids.release(slot);
      expected.delete(slot);
      free.push(slot);
    } else {
      const slot = free.pop() ?? nextSlot++;
      const id = idOf(round);
      if (id.length >= 0xffff) longIds += 1;
      const { src, start, end } = framed(id);
      ids.set(slot, src, start, end);
      src.fill(0); // the scanner's chunk is reused: the id must have been copied
      expected.set(slot, id);
    }
    if (round % 97 !== 0 && round < 3990) continue;
    for (const [slot, id] of expected) {
      const { src, start, end } = framed(id);
      assert.equal(ids.matches(slot, src, start, end), true, `slot ${slot} keeps its id`);
      assert.equal(ids.hashOf(slot), hashBytes(id, 0, id.length));
      const other = Buffer.from(id);
      if (other.length > 0) {
        other[other.length - 1] = other[other.length - 1]! ^ 1;
        assert.equal(ids.matches(slot, other, 0, other.length), false, 'one byte changed');
      }
      assert.equal(ids.matches(slot, src, start, end + 1), false, 'one byte longer');
    }
    for (const slot of free) assert.equal(ids.matches(slot, Buffer.alloc(0), 0, 0), false, `free slot ${slot} holds no id`);
  }
  assert.ok(expected.size > 500 && longIds > 20, `${expected.size} ids live, ${longIds} long ones`);
});

test('hashBytes of latin1 bytes is hashString of their text', () => {
  const text = '"job\\x3A1:1000:n\u00e9"';
  const bytes = Buffer.from(text, 'latin1');
  assert.equal(hashBytes(bytes, 0, bytes.length), hashString(text));
});
