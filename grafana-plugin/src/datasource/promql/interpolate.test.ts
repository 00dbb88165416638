import { makeReplace } from '../../test-utils/replace';
import { interpolateExpr, resolveFilters, resolveValues } from './interpolate';
import { renderMatchers } from './matchers';

describe('resolveValues', () => {
  const replace = makeReplace({ user: 'alice', users: ['alice', 'bob'], evil: 'x"} or vector(1) #', none: [] });
  it('keeps literals', () => {
    expect(resolveValues('7001', replace)).toEqual(['7001']);
  });
  it('expands single and multi-value variables', () => {
    expect(resolveValues('$user', replace)).toEqual(['alice']);
    expect(resolveValues('${users}', replace)).toEqual(['alice', 'bob']);
  });
  it('treats empty input and empty variables as no filter', () => {
    expect(resolveValues('', replace)).toEqual([]);
    expect(resolveValues('  ', replace)).toEqual([]);
    expect(resolveValues(undefined, replace)).toEqual([]);
    expect(resolveValues('$none', replace)).toEqual([]);
  });
  it('keeps a hostile variable value as one literal value', () => {
    expect(resolveValues('$evil', replace)).toEqual(['x"} or vector(1) #']);
  });
  it('keeps a value holding the ASCII unit separator (or any control character) whole', () => {
    const odd = makeReplace({ one: 'job\u001f42', many: ['a\u001fb', 'c\u0000d'] });
    expect(resolveValues('$one', odd)).toEqual(['job\u001f42']);
    expect(resolveValues('$many', odd)).toEqual(['a\u001fb', 'c\u0000d']);
  });
  it('joins literal text to each value of a variable', () => {
    expect(resolveValues('job-$users', replace)).toEqual(['job-alice', 'job-bob']);
  });
});

describe('resolveFilters', () => {
  it('resolves every filter in a fixed order, dropping empty ones and unlisted labels', () => {
    const replace = makeReplace({ job: ['1', '2'] });
    expect(resolveFilters({ user: 'alice', jobid: '$job', target: '' }, replace)).toEqual([
      { label: 'jobid', values: ['1', '2'] },
      { label: 'user', values: ['alice'] },
    ]);
    expect(resolveFilters({ user: 'alice', target: 'OST0' }, replace, ['user'])).toEqual([{ label: 'user', values: ['alice'] }]);
  });
  it('never lets a variable value out of its string (injection through a variable)', () => {
    const replace = makeReplace({ user: 'a"} or vector(1) or {b="', users: ['a', '.*"} or vector(1) #'] });
    expect(renderMatchers(resolveFilters({ user: '$user' }, replace))).toBe('user="a\\"} or vector(1) or {b=\\""');
    expect(renderMatchers(resolveFilters({ user: '$users' }, replace))).toBe('user=~"a|\\\\.\\\\*\\"\\\\} or vector\\\\(1\\\\) #"');
  });
});

describe('interpolateExpr', () => {
  it('string-escapes single values and regex-escapes multi-values', () => {
    const replace = makeReplace({ user: 'a"b', users: ['a.b', 'c'] });
    expect(interpolateExpr('m{user="$user"}', replace)).toBe('m{user="a\\"b"}');
    expect(interpolateExpr('m{user=~"$users"}', replace)).toBe('m{user=~"a\\\\.b|c"}');
  });
});
