import { type GroupTotals, type RollupRules, rollup, shares, total } from './rollup';

const group = (seconds: [number, number, number], calls: [number, number, number] = [0, 0, 0]): GroupTotals => ({
  group: 'g',
  users: [],
  reasons: [],
  seconds: { red: seconds[0], yellow: seconds[1], green: seconds[2] },
  calls: { red: calls[0], yellow: calls[1], green: calls[2] },
});
const threshold: RollupRules = { rule: 'threshold', basis: 'time', redAt: 50, yellowAt: 50, ignoreBelow: 0 };

describe('shares and total', () => {
  it('gives percentages that add up to 100', () => {
    expect(shares({ red: 1, yellow: 1, green: 2 })).toEqual({ red: 25, yellow: 25, green: 50 });
    expect(total({ red: 1, yellow: 2, green: 3 })).toBe(6);
  });
  it('gives zeros for an empty group', () => {
    expect(shares({ red: 0, yellow: 0, green: 0 })).toEqual({ red: 0, yellow: 0, green: 0 });
  });
});

describe('rollup: threshold rule (inclusive edges)', () => {
  it.each([
    ['red share exactly at redAt is red', [50, 0, 50], 'red'],
    ['red share just under redAt, red+yellow under yellowAt is green', [49.9, 0, 50.1], 'green'],
    ['red share just under redAt, red+yellow at yellowAt is yellow', [49.9, 0.1, 50], 'yellow'],
    ['red+yellow exactly at yellowAt is yellow', [10, 40, 50], 'yellow'],
    ['red+yellow under yellowAt is green', [10, 39, 51], 'green'],
    ['all green', [0, 0, 1], 'green'],
    ['all red', [3, 0, 0], 'red'],
  ] as const)('%s', (_name, seconds, expected) => {
    expect(rollup(group([...seconds] as [number, number, number]), threshold)).toBe(expected);
  });
  it('uses the configured thresholds', () => {
    expect(rollup(group([20, 0, 80]), { ...threshold, redAt: 20 })).toBe('red');
    expect(rollup(group([5, 5, 90]), { ...threshold, redAt: 20, yellowAt: 10 })).toBe('yellow');
  });
  it('looks at calls when the basis is calls', () => {
    const g = group([0, 0, 10], [9, 0, 1]);
    expect(rollup(g, threshold)).toBe('green');
    expect(rollup(g, { ...threshold, basis: 'calls' })).toBe('red');
  });
  it('is none when the basis total is 0', () => {
    expect(rollup(group([0, 0, 0], [5, 0, 0]), threshold)).toBe('none');
  });
});

describe('rollup: worst rule', () => {
  const worst: RollupRules = { ...threshold, rule: 'worst' };
  it('one red call makes the group red with ignoreBelow 0', () => {
    expect(rollup(group([0.001, 0, 1000]), worst)).toBe('red');
  });
  it('ignores classes at or below ignoreBelow', () => {
    expect(rollup(group([1, 1, 98]), { ...worst, ignoreBelow: 1 })).toBe('green');
    expect(rollup(group([1, 2, 97]), { ...worst, ignoreBelow: 1 })).toBe('yellow');
  });
});

describe('rollup: majority rule', () => {
  const majority: RollupRules = { ...threshold, rule: 'majority' };
  it('takes the largest share', () => {
    expect(rollup(group([1, 5, 4]), majority)).toBe('yellow');
    expect(rollup(group([1, 1, 4]), majority)).toBe('green');
  });
  it('breaks ties toward the worse class', () => {
    expect(rollup(group([2, 1, 2]), majority)).toBe('red');
    expect(rollup(group([0, 3, 3]), majority)).toBe('yellow');
  });
});

it('rejects an unknown rule', () => {
  expect(() => rollup(group([1, 0, 0]), { ...threshold, rule: 'best' as never })).toThrow(/unknown roll-up rule/);
});
