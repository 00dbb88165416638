import { assertLabelName, escapeLabelValue, escapeRegexLiteral } from './escape';
import { renderMatcher, renderMatchers, selector } from './matchers';

describe('escapeLabelValue', () => {
  it.each([
    ['plain', 'alice', 'alice'],
    ['double quote', 'a"b', 'a\\"b'],
    ['backslash', 'a\\b', 'a\\\\b'],
    ['newline', 'a\nb', 'a\\nb'],
    ['carriage return and tab', 'a\r\tb', 'a\\r\\tb'],
    ['backslash before quote', '\\"', '\\\\\\"'],
    ['unicode', 'jöb-ü', 'jöb-ü'],
  ])('%s', (_name, input, expected) => {
    expect(escapeLabelValue(input)).toBe(expected);
  });
});

describe('escapeRegexLiteral', () => {
  it('backslashes every RE2 metacharacter', () => {
    expect(escapeRegexLiteral('.+*?()|[]{}^$\\')).toBe('\\.\\+\\*\\?\\(\\)\\|\\[\\]\\{\\}\\^\\$\\\\');
  });
  it('leaves ordinary characters alone', () => {
    expect(escapeRegexLiteral('scratch-OST0001_x:y')).toBe('scratch-OST0001_x:y');
  });
});

describe('assertLabelName', () => {
  it('accepts Prometheus label names', () => {
    expect(assertLabelName('jobid')).toBe('jobid');
    expect(assertLabelName('_x9')).toBe('_x9');
  });
  it.each(['9a', 'a-b', 'a"}', 'user) or vector(1', ''])('rejects %j', (name) => {
    expect(() => assertLabelName(name)).toThrow(/invalid label name/);
  });
});

describe('renderMatcher', () => {
  it('renders one value with =', () => {
    expect(renderMatcher({ label: 'user', values: ['alice'] })).toBe('user="alice"');
  });
  it('renders a negated value with !=', () => {
    expect(renderMatcher({ label: 'user', values: ['_system'], negate: true })).toBe('user!="_system"');
  });
  it('renders several values as an escaped alternation', () => {
    expect(renderMatcher({ label: 'jobid', values: ['7001', '7.2', 'a|b'] })).toBe('jobid=~"7001|7\\\\.2|a\\\\|b"');
  });
  it('dedupes values and drops empty lists', () => {
    expect(renderMatcher({ label: 'user', values: ['a', 'a'] })).toBe('user="a"');
    expect(renderMatcher({ label: 'user', values: [] })).toBeUndefined();
  });
  it('keeps a quote-breaking value inside the string (injection attempt)', () => {
    const m = renderMatcher({ label: 'jobid', values: ['x"} or vector(1) or {a="'] });
    expect(m).toBe('jobid="x\\"} or vector(1) or {a=\\""');
    // The rendered string literal ends exactly at the last character: no unescaped quote inside.
    const body = (m ?? '').slice('jobid="'.length, -1);
    expect(body.replace(/\\\\/g, '').replace(/\\"/g, '')).not.toContain('"');
  });
  it('keeps a newline-breaking value on one line (injection attempt)', () => {
    expect(renderMatcher({ label: 'user', values: ['a"}\n+ on() vector(1)'] })).toBe('user="a\\"}\\n+ on() vector(1)"');
  });
  it('makes regex metacharacters literal in multi-value matchers (injection attempt)', () => {
    expect(renderMatcher({ label: 'user', values: ['alice', '.*'] })).toBe('user=~"alice|\\\\.\\\\*"');
    expect(renderMatcher({ label: 'user', values: ['a"})|(.*', 'b'] })).toBe('user=~"a\\"\\\\}\\\\)\\\\|\\\\(\\\\.\\\\*|b"');
  });
  it('refuses label names that are not names', () => {
    expect(() => renderMatcher({ label: 'user="x"} or up{a', values: ['1'] })).toThrow(/invalid label name/);
  });
});

describe('selector', () => {
  it('joins matchers and omits empty braces', () => {
    expect(selector('jobio_profiler_calls_total', [])).toBe('jobio_profiler_calls_total');
    expect(
      selector('m', [
        { label: 'a', values: ['1'] },
        { label: 'b', values: ['2', '3'] },
      ]),
    ).toBe('m{a="1", b=~"2|3"}');
    expect(renderMatchers([{ label: 'a', values: ['1'] }], ['__name__="x"'])).toBe('__name__="x", a="1"');
  });
  it('refuses metric names that are not names', () => {
    expect(() => selector('up or vector(1)', [])).toThrow(/invalid metric name/);
  });
});
