import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countsBegan, peakRate } from './peak-rate.js';

test('the peak rate sums the series between their samples', () => {
  const a = {
    instance: 'n1',
    samples: [
      [10, 0],
      [11, 500],
      [12, 500],
    ] as const,
  };
  const b = {
    instance: 'n1',
    samples: [
      [10, 5],
      [11, 105],
      [12, 1105],
    ] as const,
  };
  assert.equal(peakRate([a, b]), 1000 * 1);
  assert.equal(peakRate([a]), 500);
  // a counter reset starts again from 0
  assert.equal(
    peakRate([
      {
        instance: 'n1',
        samples: [
          [10, 900],
          [11, 30],
        ],
      },
    ]),
    30,
  );
});

test("a series' first sample is an increase from 0: since the same exporter's sample before it, else since the counts began", () => {
  // one final snapshot: 30,000 calls in a job whose run time at that sample is 5 s (its counts began at 95)
  const runtime = [
    {
      instance: 'n1',
      samples: [
        [100, 5],
        [101, 5],
      ] as const,
    },
  ];
  assert.equal(countsBegan(runtime), 95);
  const storm = {
    instance: 'n1',
    samples: [
      [100, 30_000],
      [101, 30_000],
    ] as const,
  };
  assert.equal(peakRate([storm]), 0, 'no began: no rate from a first sample');
  assert.equal(peakRate([storm], countsBegan(runtime)), 6000);
  // the same exporter had a sample of the job at 99 without the series: it was 0 then
  const other = {
    instance: 'n1',
    samples: [
      [99, 0],
      [100, 0],
    ] as const,
  };
  assert.equal(peakRate([storm, other], 95), 30_000);
  // another exporter's sample says nothing of this one's series
  assert.equal(peakRate([storm, { ...other, instance: 'n2' }], 95), 6000);
  // a first sample at or before the counts began, or of 0, adds nothing
  assert.equal(peakRate([{ instance: 'n1', samples: [[95, 100]] }], 95), 0);
  assert.equal(peakRate([{ instance: 'n1', samples: [[100, 0]] }], 95), 0);
  assert.equal(countsBegan([]), undefined);
});
