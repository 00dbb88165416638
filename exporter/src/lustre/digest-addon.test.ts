// The digest addon computes the reference XXH64 (vectors from xxHash's own tests and its Python binding's
// documentation), for every length class of its loop: empty, under 4, 4–7, 8–31 and 32+ bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type * as Addon from '../../../native/digest/index.js';
import { findRepoFile } from '../profiler/repo-file.js';
import { digestOf } from './digest-addon.js';

const addon = createRequire(import.meta.url)(findRepoFile('native/digest/build/Release/jobio_digest.node')!) as typeof Addon;

test('xxh64: reference values', () => {
  const hex = (text: string, seed = 0n): string => addon.xxh64(Buffer.from(text), seed).toString(16).padStart(16, '0');
  assert.equal(hex(''), 'ef46db3751d8e999');
  assert.equal(hex('a'), 'd24ec4f1a98c6e5b');
  assert.equal(hex('abc'), '44bc2cf5ad770999');
  assert.equal(hex('Nobody inspects the spammish repetition'), 'fbcea83c8a378bf1');
});

test('xxh64: every byte and the seed count; a view is hashed as its own bytes', () => {
  const bytes = Buffer.from('- job_id: "1234:5000:node1"\n  open: { samples: 1, unit: usecs }\n');
  const base = addon.xxh64(bytes, 1n);
  assert.notEqual(addon.xxh64(bytes, 2n), base);
  for (let i = 0; i < bytes.length; i += 1) {
    const changed = Buffer.from(bytes);
    changed[i]! ^= 1;
    assert.notEqual(addon.xxh64(changed, 1n), base, `byte ${i}`);
  }
  const framed = Buffer.concat([Buffer.from('xx'), bytes, Buffer.from('yy')]);
  assert.equal(addon.xxh64(framed.subarray(2, 2 + bytes.length), 1n), base);
  assert.equal(digestOf(bytes), digestOf(Buffer.from(bytes)));
  assert.throws(() => addon.xxh64(bytes, 1 as unknown as bigint), TypeError);
});
