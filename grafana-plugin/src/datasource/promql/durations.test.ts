import { formatDuration, parseDuration } from './durations';

describe('durations', () => {
  it.each([
    ['15s', 15],
    ['5m', 300],
    ['1h30m', 5400],
    ['2d', 172800],
    ['1w', 604800],
    ['500ms', 0.5],
  ])('parses %s', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });
  it.each(['', '5', 'm', '1h ) or vector(1', '-5m', '1.5h'])('rejects %j', (text) => {
    expect(() => parseDuration(text)).toThrow(/invalid duration/);
  });
  it('formats whole seconds, at least 1s', () => {
    expect(formatDuration(3600)).toBe('1h');
    expect(formatDuration(5430)).toBe('1h30m30s');
    expect(formatDuration(90061)).toBe('1d1h1m1s');
    expect(formatDuration(0)).toBe('1s');
    expect(formatDuration(42.6)).toBe('43s');
  });
});
