// The byte matcher gives the regular expression's answer wherever it answers: random formats and ids
// against classifyJobId() of the decoded id, and which formats it takes at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyJobId, classifyJobIdBytes, compileJobIdFormats } from './jobid-format.js';
import { decodeJobId } from '../parsers/lustre-jobid.js';

/** A small deterministic generator (mulberry32), so the counts below are exact. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('byte matching: which formats have a program', () => {
  const taken = (list: string): boolean[] => compileJobIdFormats(list).formats.map((f) => f.bytes !== undefined);
  assert.deepEqual(taken('%j:%u:%H,%e.%u,%j,%u.%e,%j:%u:%h,%h.%u,%j%u,%j.%g.%p,%H-%u,%j%%%u'), [true, false, true, true, true, false, false, true, false, true]);
});

test('byte matching agrees with the regular expression on every id it answers for', () => {
  const next = random(28);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const codes = ['%j', '%u', '%g', '%p', '%H', '%h', '%e'];
  const literals = [':', '.', '-', '_', '%%', 'x', '1', ']', '@'];
  const idParts = [':', '.', '-', '_', '%', 'x', 'Y', '1', '42', ']', '@', 'r01c01', '17627127', ' '];
  const odd = ['"', '\\x3A', '\u00e9', '\u0001', '\u0192'];
  let answered = 0;
  let matched = 0;
  let asked = 0;
  for (let round = 0; round < 400; round += 1) {
    const format = (): string => {
      let text = pick(codes);
      const more = Math.floor(next() * 4);
      for (let i = 0; i < more; i += 1) text += next() < 0.7 ? pick(literals) + pick(codes) : pick(codes);
      return next() < 0.2 ? pick(literals) + text : text;
    };
    const formats = compileJobIdFormats(next() < 0.5 ? format() : `${format()},${format()}`);
    for (let k = 0; k < 25; k += 1) {
      let id = '';
      const parts = Math.floor(next() * 7);
      for (let i = 0; i < parts; i += 1) id += next() < 0.04 ? pick(odd) : pick(idParts);
      if (next() < 0.3) id = `"${id}"`;
      // As job_stats prints it: UTF-8 bytes, read back a byte a character.
      const bytes = Buffer.from(id, 'utf8');
      const expected = classifyJobId(decodeJobId(bytes.toString('latin1')), formats);
      const padded = Buffer.concat([Buffer.from('z:'), bytes, Buffer.from(':9')]);
      const got = classifyJobIdBytes(padded, 2, 2 + bytes.length, formats);
      asked += 1;
      if (got === undefined) continue;
      answered += 1;
      if (got.quality !== 'malformed') matched += 1;
      assert.deepEqual(got, expected, `${formats.formats.map((f) => f.source).join(',')} on ${JSON.stringify(id)}`);
    }
  }
  assert.equal(asked, 10_000);
  assert.equal(answered, 3_914);
  assert.equal(matched, 566, 'ids a format matched (correct or missing_jobid), not only malformed ones');
});

test('byte matching: the usual ids, as the string path classes them', () => {
  const defaults = compileJobIdFormats('%j:%u:%H,%e.%u');
  const cases: [string, unknown][] = [
    ['11317854:17627127:r01c01', { quality: 'correct', jobid: '11317854', uid: 17627127 }],
    [':17627127:r01c01', { quality: 'missing_jobid', uid: 17627127 }],
    ['SLURM_JOB10:0:es18kxe-co-client', { quality: 'correct', jobid: 'SLURM_JOB10', uid: 0 }],
    ['5:99999999999999999999:h', undefined], // the first format fails on its uid: %e.%u is the expression's
    ['', { quality: 'malformed' }],
    ['python3.9.1000', undefined],
    ['"a\\x3Ab:1:h"', undefined],
    ['"4000000:1000:c0000"', { quality: 'correct', jobid: '4000000', uid: 1000 }],
    ['""', { quality: 'malformed' }],
    ['"', undefined], // not quoted: matched, and %e.%u is reached
  ];
  for (const [id, expected] of cases) {
    const bytes = Buffer.from(id, 'latin1');
    assert.deepEqual(classifyJobIdBytes(bytes, 0, bytes.length, defaults), expected, id);
  }
  assert.deepEqual(classifyJobIdBytes(Buffer.from('7:99999999999999999999'), 0, 22, compileJobIdFormats('%j:%u')), { quality: 'malformed' });
});
