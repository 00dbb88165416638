// Flux ids in every spelling become one ASCII F58 label; the pairs are from `flux jobs --json` output
// published with Open OnDemand's Flux adapter tests ("jobid" f58 vs "id" decimal).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalFluxJobId, fluxF58Plain } from './flux-jobid.js';

test('F58 of known Flux ids, and the bounds of a 64-bit id', () => {
  assert.equal(fluxF58Plain(91088924704768n), 'fiFkbMhFM');
  assert.equal(fluxF58Plain(91093387444224n), 'fiFsPiQD5');
  assert.equal(fluxF58Plain(91150983626752n), 'fiHP9Htes');
  assert.equal(fluxF58Plain(0n), 'f1');
  assert.equal(fluxF58Plain((1n << 64n) - 1n), 'fjpXCZedGfVQ');
});

test('decimal, ƒ-prefixed and f-prefixed spellings of one job give one label', () => {
  for (const spelling of ['91088924704768', 'ƒiFkbMhFM', 'fiFkbMhFM']) assert.equal(canonicalFluxJobId(spelling), 'fiFkbMhFM', spelling);
});

test('malformed Flux ids are refused, not labelled', () => {
  for (const bad of ['', 'ƒ', 'f', 'iFkbMhFM', 'f0bad', 'fIl', 'fiFkbMhFM ', '18446744073709551616', 'fjpXCZedGfVR', 'f1111111111111', '-1', 'ƒƒ1']) {
    assert.equal(canonicalFluxJobId(bad), undefined, JSON.stringify(bad));
  }
});
