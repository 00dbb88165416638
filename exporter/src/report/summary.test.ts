// The stored summary: its lists bounded, and read back only from a file that root alone could have
// written, for the job id it names (every local user is a potential attacker: a planted summary
// would say what another user's report says).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReportError } from './log-source.js';
import type { ReportJson, ReportTargetJson } from './report-schema.js';
import { MAX_SUMMARY_BYTES, readSummary, summaryFile, summaryOf } from './summary.js';
import { REPORT_PROGRAM, reportFinding, reportJson } from '../../../test/helpers/report-json.js';

function report(jobid: string, n: { findings?: number; reasons?: number; targets?: number } = {}): ReportJson {
  const target = (i: number): ReportTargetJson => ({
    target: `fs-OST${String(i).padStart(4, '0')}`,
    kind: 'ost',
    operations: i,
    operations_by_kind: { write: i },
    read_bytes: 0,
    write_bytes: i * 10,
    peak: null,
  });
  const targets = Array.from({ length: n.targets ?? 0 }, (_, i) => target(i + 1));
  const base = reportJson(jobid);
  return {
    ...base,
    source: { kind: 'prometheus', url: 'http://prom:9090', jobid, range: '30d', time: '2026-11-27T10:00:00.000Z' },
    findings: Array.from({ length: n.findings ?? 0 }, (_, i) => reportFinding(i)),
    application: {
      ...base.application,
      reasons: Array.from({ length: n.reasons ?? 0 }, (_, i) => ({
        class: 'red' as const,
        reason: `r${i}`,
        mount: '/scratch',
        program: REPORT_PROGRAM,
        calls: 100 - i,
        bytes: 0,
        share: 0.1,
        gain: true,
      })),
    },
    ...(targets.length > 0
      ? {
          file_system: {
            mdt: { targets: 0, operations: 0, read_bytes: 0, write_bytes: 0 },
            ost: { targets: targets.length, operations: 0, read_bytes: 0, write_bytes: 0 },
            osts_with_data: targets.length,
            metadata_operations: {},
            targets,
          },
        }
      : {}),
  };
}

test('summaryOf keeps the 10 most costly findings, the first 20 reasons, the 64 most loaded targets and 16 client mounts (in the report order)', () => {
  const s = summaryOf(report('7', { findings: 12, reasons: 25, targets: 70 }));
  assert.deepEqual(
    s.findings.map((f) => f.reason),
    Array.from({ length: 10 }, (_, i) => `r${i}`),
  );
  assert.equal(s.application.reasons.length, 20);
  assert.deepEqual(
    s.file_system?.targets.map((t) => t.operations),
    Array.from({ length: 64 }, (_, i) => i + 7),
  );
  // the client's 16 mounts that moved most (the report lists them so)
  const mount = (i: number) => ({ fs: `fs${i}`, mount: `/m${i}`, read_bytes: 100 - i, write_bytes: 0, operations: 0, operations_by_kind: {}, profiler_bytes: 0, coverage: 0 });
  const client = { read_bytes: 0, write_bytes: 0, profiler_bytes: 0, coverage: 0, mounts: Array.from({ length: 20 }, (_, i) => mount(i)) };
  assert.deepEqual(summaryOf({ ...report('7'), client }).client?.mounts, client.mounts.slice(0, 16));
  const small = report('7', { findings: 2 });
  assert.deepEqual(summaryOf(small), small, 'a small report is its own summary');
  assert.throws(() => summaryOf({ ...small, source: { kind: 'log', file: 'x.jsonl', lines: 1, malformed_lines: 0 } }), ReportError);
});

test('readSummary: only a root-only file in a root-only directory, of the job it names', async (t) => {
  if (process.getuid?.() !== 0) {
    t.skip('needs root (files of another owner are made with chown)');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'jobio-summary-'));
  try {
    const reports = join(dir, 'reports');
    mkdirSync(reports, { mode: 0o755 });
    chmodSync(reports, 0o755);
    const write = (jobid: string, text: string, mode = 0o644): string => {
      const f = join(reports, `${jobid}.json`);
      writeFileSync(f, text, { mode });
      chmodSync(f, mode);
      return f;
    };
    const good = write('100', JSON.stringify(report('100')));
    assert.deepEqual(await readSummary(reports, '100'), { ...report('100'), source: { kind: 'stored', file: good, stored: report('100').source } });
    assert.equal(await readSummary(reports, '101'), undefined, 'no summary: none');
    assert.equal(await readSummary(join(dir, 'absent'), '100'), undefined, 'no directory: none');
    assert.equal(summaryFile(reports, '../100'), undefined);
    assert.equal(await readSummary(reports, '../reports/100'), undefined, 'a job id that is no job id names no file');

    const refused = async (jobid: string, message: RegExp): Promise<void> => {
      await assert.rejects(readSummary(reports, jobid), (err: Error) => err instanceof ReportError && message.test(err.message));
    };
    // planted by a user: owned by them, or writable by the group, or a symlink to a file of theirs
    chownSync(write('200', JSON.stringify(report('200'))), 2000, 2000);
    await refused('200', /200\.json: the stored summary is not a regular file that root alone can write: not believed$/);
    write('201', JSON.stringify(report('201')), 0o664);
    await refused('201', /not a regular file that root alone can write/);
    symlinkSync(good, join(reports, '202.json'));
    await refused('202', /not a regular file that root alone can write/);
    write('203', 'x'.repeat(MAX_SUMMARY_BYTES + 1));
    await refused('203', new RegExp(`bigger than ${MAX_SUMMARY_BYTES} bytes`));
    // root's, but not a summary of this job
    write('204', JSON.stringify(report('100')));
    await refused('204', /not a stored jobio-report\/1 report of job 204$/);
    write('205', '{"schema":"jobio-report/1"');
    await refused('205', /is not JSON$/);
    write('206', JSON.stringify({ ...report('206'), source: { kind: 'log', file: 'x', lines: 0, malformed_lines: 0 } }));
    await refused('206', /not a stored jobio-report\/1 report of job 206$/);
    // a directory others can write: none of its files is believed
    chmodSync(reports, 0o775);
    await refused('100', /the summary directory is not root's alone \(owner uid 0, mode 775\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
