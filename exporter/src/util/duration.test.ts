import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDuration, formatDuration } from './duration.js';

test('parses Prometheus-style durations', () => {
  const cases: Array<[string, number]> = [
    ['0', 0],
    ['250ms', 250],
    ['15s', 15_000],
    ['1m30s', 90_000],
    ['1h', 3_600_000],
    ['2d', 172_800_000],
    ['1.5s', 1500],
  ];
  for (const [text, ms] of cases) assert.equal(parseDuration(text), ms, text);
});

test('rejects malformed durations with the text in the message', () => {
  for (const bad of ['', '10', 's', '10x', '1h foo', '-5s']) {
    assert.throws(
      () => parseDuration(bad),
      (err: Error) => err.message.includes(`"${bad}"`),
      bad,
    );
  }
});

test('formats round durations back', () => {
  assert.equal(formatDuration(1_800_000), '30m');
  assert.equal(formatDuration(10_000), '10s');
  assert.equal(formatDuration(7_200_000), '2h');
  assert.equal(formatDuration(250), '250ms');
});
