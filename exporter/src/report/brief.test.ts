// The verdict in a few lines for the job's output (`jobio report --brief`): the verdict, at most three
// findings' first lines, how many more, and the command for the whole report; 80 columns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { briefText } from './brief.js';
import type { ReportJson } from './report-schema.js';
import { REPORT_PROGRAM, reportFinding, reportJson } from '../../../test/helpers/report-json.js';

function report(jobid: string, findings: number, verdict: string, label = 'your program app'): ReportJson {
  return reportJson(jobid, {
    verdict: { text: verdict, findings, high: findings > 0 ? 1 : 0, medium: 0, low: Math.max(0, findings - 1), nothing_to_gain: 0 },
    findings: Array.from({ length: findings }, (_, i) => reportFinding(i, { program: { ...REPORT_PROGRAM, label }, ...(i === 0 ? { severity: 'high', severity_from: 'metadata_rate' } : {}) })),
  });
}

test('a job with findings: the verdict, the three most costly by their first lines, how many more, and the whole report', () => {
  assert.equal(
    briefText(report('42', 5, '5 findings: 1 high, 4 low'), '42'),
    [
      'jobio: I/O of job 42: 5 findings: 1 high, 4 low',
      'jobio:   1. HIGH your program app: r0 on /scratch (by metadata load)',
      'jobio:   2. LOW your program app: r1 on /scratch (by run time)',
      'jobio:   3. LOW your program app: r2 on /scratch (by run time)',
      'jobio:   and 2 more',
      'jobio: the whole report: jobio report 42',
      '',
    ].join('\n'),
  );
});

test('nothing to change is one line; a log without a job id is named by its file', () => {
  assert.equal(briefText(report('42', 0, 'nothing to change'), '42'), 'jobio: I/O of job 42: nothing to change (the whole report: jobio report 42)\n');
  assert.equal(briefText(report('', 1, '1 finding: 1 high'), 'run.jsonl').split('\n')[0], 'jobio: I/O of run.jsonl: 1 finding: 1 high');
});

test('every line fits in 80 columns and starts with "jobio:", a long program label wrapped under its finding', () => {
  const lines = briefText(report('42', 1, '1 finding: 1 high', `your program ${'x'.repeat(40)} with a long name`), '42')
    .trimEnd()
    .split('\n');
  assert.deepEqual(lines, [
    'jobio: I/O of job 42: 1 finding: 1 high',
    `jobio:   1. HIGH your program ${'x'.repeat(40)} with a`,
    'jobio:      long name: r0 on /scratch (by metadata load)',
    'jobio: the whole report: jobio report 42',
  ]);
  for (const l of lines) assert.ok(l.length <= 80 && l.startsWith('jobio:'), l);
});
