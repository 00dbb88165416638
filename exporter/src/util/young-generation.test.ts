import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getHeapSpaceStatistics } from 'node:v8';
import { holdYoungGeneration, releaseYoungGeneration } from './young-generation.js';

const youngBytes = (): number => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;

// Objects that stay alive: every scavenge finds its young generation full of survivors, the case
// in which V8 grows it (module loading at start-up is one).
const kept: object[][] = [];
function allocateSurvivors(): void {
  for (let round = 0; round < 20; round++) {
    const batch: object[] = [];
    for (let i = 0; i < 100_000; i++) batch.push({ i, text: String(i) });
    kept.push(batch);
  }
}

test('held, the young generation keeps its size under surviving allocation; released, V8 grows it again', () => {
  const before = youngBytes();
  holdYoungGeneration();
  allocateSurvivors();
  const held = youngBytes();
  releaseYoungGeneration();
  allocateSurvivors();
  const released = youngBytes();
  assert.equal(held, before);
  assert.ok(released > held, `released ${released} should exceed held ${held}`);
  assert.equal(kept.length, 40);
});
