import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DiagnosisReasonJson } from '../profiler/diagnosis-schema.js';
import { findingsOf, type FindingsInput } from './findings.js';
import { reportText } from './text.js';
import { parseLog, reportFromRecords } from './log-source.js';

const python = { name: 'python3.11', path: '/usr/bin/python3.11', role: 'job', label: 'your Python code (python3.11)' } as const;
const imports = { ...python, role: 'runtime', label: "Python's import system", component: 'python-imports' } as const;

function reason(over: Partial<DiagnosisReasonJson>): DiagnosisReasonJson {
  return { class: 'red', reason: 'stat_unused', mount: '/scratch', program: python, calls: 100, bytes: 0, time: 1000, time_error: 0, share: 0.001, gain: false, hint: 'h', ...over };
}

const input = (reasons: DiagnosisReasonJson[], peak = 0, metadataCalls = 0): FindingsInput => ({
  diagnosis: { reasons, runtime: 1_000_000, gain_threshold: 0.01, unseen: [] },
  peakMetadataRate: peak,
  metadataCalls,
  smallThreshold: 32 * 1024,
});

test('severity from the share of the run time: 10 % high, 3 % medium, above the gain threshold low, below it nothing to change', () => {
  const { findings, verdict } = findingsOf(
    input([
      reason({ reason: 'small_read', share: 0.02, gain: true, calls: 9 }),
      reason({ reason: 'small_write', share: 0.1, gain: true, calls: 1 }),
      reason({ reason: 'backward_seek', share: 0.03, gain: true, calls: 5 }),
      reason({ reason: 'zero_seek', share: 0.005, gain: false, calls: 50 }),
    ]),
  );
  assert.deepEqual(
    findings.map((f) => [f.reason, f.severity, f.severity_from]),
    [
      ['small_write', 'high', 'run_time'],
      ['backward_seek', 'medium', 'run_time'],
      ['small_read', 'low', 'run_time'],
    ],
  );
  assert.deepEqual(verdict, { text: '3 findings: 1 high, 1 medium, 1 low', findings: 3, high: 1, medium: 1, low: 1, nothing_to_gain: 1 });
  assert.equal(findingsOf(input([reason({ gain: false })])).verdict.text, 'nothing to change');
  // times not reported (share null, gain true): low, nothing declared harmless unmeasured
  assert.equal(findingsOf(input([reason({ share: null, gain: true })])).findings[0]?.severity, 'low');
});

test('a metadata storm is high at 0.1 % of the run time; its "nothing to gain" hint is worded again with the advice', () => {
  // the job's busiest second: 12,000 metadata ops, of which this reason made 9,000 of 12,000 calls
  const { findings } = findingsOf(input([reason({ reason: 'failed_not_found', calls: 9000, hint: 'Your Python code (python3.11) on /scratch: 9,000 …: nothing to gain' })], 12_000, 12_000));
  const f = findings[0];
  assert.ok(f);
  assert.equal(f.severity, 'high');
  assert.equal(f.severity_from, 'metadata_rate');
  assert.equal(f.metadata_rate, 9000);
  assert.equal(f.hint, 'Your Python code (python3.11) on /scratch: 9,000 calls failed with "no such file or directory": check the paths; probing search paths costs a metadata round trip each');
  assert.match(f.seen, /about 9,000 metadata ops\/s at the busiest second/);
  // below 1,000 ops/s and nothing to gain: not a finding; medium from 2,000
  assert.equal(findingsOf(input([reason({ calls: 999 })], 999, 999)).findings.length, 0);
  assert.equal(findingsOf(input([reason({ calls: 2000 })], 2000, 2000)).findings[0]?.severity, 'medium');
  // small transfers are not metadata operations, whatever the rate
  assert.equal(findingsOf(input([reason({ reason: 'small_write', calls: 9000 })], 12_000, 12_000)).findings.length, 0);
});

test("calls of Python's import system are addressed to it, not to the job's code", () => {
  const { findings } = findingsOf(input([reason({ program: imports, calls: 6000, reason: 'stat_unused' })], 6000, 6000));
  const f = findings[0];
  assert.ok(f);
  assert.equal(f.program.label, "Python's import system");
  assert.equal(f.program.role, 'runtime');
  assert.match(f.hint, /^Python's import system on \/scratch: 6,000 stats of paths never opened: .*(container image|squashfs|local disk)/);
  const text = reportText(
    reportFromRecords('x.jsonl', {
      records: [
        {
          type: 'diagnosis',
          jobtotal: true,
          jobid: '77',
          hostname: 'n1',
          jobrealtime: 1e6,
          jobstarttime: 0,
          jobendtime: 1000,
          reasons: [reason({ program: imports, calls: 6000 })],
          runtime: 1e6,
          gain_threshold: 0.01,
          unseen: [],
        },
        { type: 'mountpoint', jobtotal: true, mountpoint: { path: '*' }, io: { metadata: { calls: { total: 6000, 'max/s': 6000 } } } },
      ],
      lines: 2,
      malformed: 0,
    }),
    false,
  );
  assert.match(text, /^verdict: 1 finding: 1 high$/m);
  assert.match(text, /^1\. HIGH Python's import system: stat_unused on \/scratch \(by metadata load\)$/m);
  for (const line of text.split('\n')) assert.ok(line.length <= 80, line);
});

test('text: colour only when asked, control characters of the source replaced', () => {
  const records = [
    {
      type: 'diagnosis',
      jobtotal: true,
      jobid: '1',
      hostname: 'h\x1b[2J',
      jobrealtime: 1e6,
      jobstarttime: 0,
      jobendtime: 1000,
      reasons: [reason({ share: 0.5, gain: true, hint: 'x\x1b]0;pwned\x07' })],
      runtime: 1e6,
      gain_threshold: 0.01,
      unseen: [],
    },
  ];
  const r = reportFromRecords('x', parseLog(records.map((x) => JSON.stringify(x)).join('\n')));
  const plain = reportText(r, false);
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(plain, /[\x00-\x08\x0b-\x1f\x7f]/);
  // eslint-disable-next-line no-control-regex
  assert.match(reportText(r, true), /\x1b\[1;31mverdict: 1 finding: 1 high\x1b\[0m/);
});
