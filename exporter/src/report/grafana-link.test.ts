import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { grafanaLink, JOB_DASHBOARD } from './grafana-link.js';

const job = { jobid: '1234', user: 'alice', start: '2026-11-27T03:39:13.027Z', end: '2026-11-27T03:39:15.037Z' };

test('the job dashboard link: uid and variables of dashboards/job.json, the job time range in ms', () => {
  const dashboard = JSON.parse(readFileSync(new URL('../../../dashboards/job.json', import.meta.url), 'utf8')) as { uid: string; templating: { list: { name: string }[] } };
  assert.equal(dashboard.uid, JOB_DASHBOARD.uid);
  const vars = dashboard.templating.list.map((v) => v.name);
  assert.ok(vars.includes('user') && vars.includes('jobid'), vars.join(','));
  assert.equal(grafanaLink({ base: 'https://grafana.example.org', ...job }), 'https://grafana.example.org/d/jobio-job/jobio-job?var-user=alice&var-jobid=1234&from=1795750753027&to=1795750755037');
  // a sub-path with a trailing slash; no user known
  assert.equal(grafanaLink({ base: 'http://host:3000/grafana/', ...job, user: '' }), 'http://host:3000/grafana/d/jobio-job/jobio-job?var-jobid=1234&from=1795750753027&to=1795750755037');
});

test('the link escapes what the job and its user are named, and leaves credentials out', () => {
  assert.equal(
    grafanaLink({ base: 'https://admin:secret@grafana/?orgId=2#x', ...job, jobid: '12&var-jobid=x #1', user: 'a/b c' }),
    'https://grafana/d/jobio-job/jobio-job?var-user=a%2Fb+c&var-jobid=12%26var-jobid%3Dx+%231&from=1795750753027&to=1795750755037',
  );
  assert.equal(grafanaLink({ base: 'https://grafana', ...job, jobid: '' }), undefined, 'no job id: no job dashboard');
});
