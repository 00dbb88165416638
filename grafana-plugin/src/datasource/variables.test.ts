import { parseVariableQuery } from './variables';

describe('parseVariableQuery', () => {
  it('parses a bare kind', () => {
    expect(parseVariableQuery('jobs')).toEqual({ kind: 'jobs', filters: {} });
    expect(parseVariableQuery('  targets ')).toEqual({ kind: 'targets', filters: {} });
  });
  it('parses filters', () => {
    expect(parseVariableQuery('jobs(user=$user, target=scratch-OST0001)')).toEqual({ kind: 'jobs', filters: { user: '$user', target: 'scratch-OST0001' } });
  });
  it('keeps everything after the first = as the value', () => {
    expect(parseVariableQuery('users(user=a=b)')).toEqual({ kind: 'users', filters: { user: 'a=b' } });
  });
  it.each(['hosts', 'jobs(host=x)', 'jobs(user)', 'label_values(up, job)'])('rejects %j', (q) => {
    expect(() => parseVariableQuery(q)).toThrow();
  });
});
