// `jobio report FILE.jsonl` on the logs of real programs run under the profiler by `jobio run`: the
// verdict and the findings a user gets for a healthy job, a job writing many small files, a metadata
// storm in a job that mostly computes, and a Python job that only imports modules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runJobio } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';
import type { ReportJson } from '../../exporter/src/report/report-schema.js';
import type { DiagnosisJson } from '../../exporter/src/profiler/diagnosis-schema.js';
import { METADATA_RATE_HIGH, METADATA_RATE_LOW, METADATA_RATE_MEDIUM, SHARE_HIGH, SHARE_MEDIUM } from '../../exporter/src/report/findings.js';
import { isMetadataReason } from '../../exporter/src/report/why.js';

// the interpreter itself, not a wrapper script (pyenv's shims run bash and more processes, whose run
// time dilutes every share)
const python = execFileSync(requireBinary('python3'), ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();

/** The figures of a `jobio run` log's job totals the findings are made of. */
function logFigures(log: string): { diagnosis: DiagnosisJson; peak: number; total: number } {
  const totals = readFileSync(log, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((r) => r['jobtotal'] === true);
  const diagnosis = totals.find((r) => r['type'] === 'diagnosis') as unknown as DiagnosisJson;
  const all = totals.find((r) => r['type'] === 'mountpoint' && (r['mountpoint'] as { path: string }).path === '*') as { io: { metadata: { calls: { total: number; 'max/s': number } } } };
  return { diagnosis, peak: all.io.metadata.calls['max/s'], total: all.io.metadata.calls.total };
}

/**
 * The findings the report must give, worked out here again from the log's own figures: each reason's
 * time over the diagnosis's run time (its share), and its part of the job's busiest second of metadata
 * operations (the all-mounts total's `max/s` times its part of the metadata calls). The figures are
 * measured and vary with the machine's load (a busy machine stretches the run and spreads a storm over
 * more seconds), so the severities are not fixed in advance; the rule that turns figures into
 * severities is (10 % / 3 % of the run time; 5,000 / 2,000 / 1,000 metadata ops/s; the higher wins,
 * the share on a tie). Returned as `reason severity severity_from`, most costly first.
 */
function expectedFindings(log: string): string[] {
  const { diagnosis, peak, total } = logFigures(log);
  const levels = ['high', 'medium', 'low', 'none'];
  const out = diagnosis.reasons.flatMap((r) => {
    // (the log rounds the share to 1e-6 and the times to whole µs)
    const rounding = 0.5e-6 + 0.5 / diagnosis.runtime + (0.5 * r.time) / diagnosis.runtime ** 2;
    if (r.share !== null) assert.ok(Math.abs(r.share - r.time / diagnosis.runtime) <= rounding, `${r.reason}: share ${r.share} is its time over the run time`);
    const byShare = !r.gain ? 'none' : r.share === null ? 'low' : r.share >= SHARE_HIGH ? 'high' : r.share >= SHARE_MEDIUM ? 'medium' : 'low';
    const rate = isMetadataReason(r.reason) ? peak * Math.min(1, r.calls / total) : -1;
    const byRate = rate >= METADATA_RATE_HIGH ? 'high' : rate >= METADATA_RATE_MEDIUM ? 'medium' : rate >= METADATA_RATE_LOW ? 'low' : 'none';
    const fromRate = levels.indexOf(byRate) < levels.indexOf(byShare);
    const severity = fromRate ? byRate : byShare;
    return severity === 'none'
      ? []
      : [{ key: `${r.reason} ${severity} ${fromRate ? 'metadata_rate' : 'run_time'}`, rank: levels.indexOf(severity), share: r.share ?? 0, rate: Math.max(rate, 0), calls: r.calls }];
  });
  out.sort((a, b) => a.rank - b.rank || b.share - a.share || b.rate - a.rate || b.calls - a.calls);
  return out.map((f) => f.key);
}

const findingKeys = (r: ReportJson): string[] => r.findings.map((f) => `${f.reason} ${f.severity} ${f.severity_from}`);

/** Runs CMD under `jobio run -o LOG`, then `jobio report LOG --json`. */
async function profiledReport(dir: string, name: string, cmd: readonly string[]): Promise<ReportJson> {
  const log = join(dir, `${name}.jsonl`);
  const run = await runJobio(['run', '-o', log, '--', ...cmd], { timeoutMs: 120_000 });
  assert.equal(run.code, 0, run.stderr);
  const r = await runJobio(['report', log, '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  return JSON.parse(r.stdout) as ReportJson;
}

test('jobio report on real programs: healthy, small files, metadata storm, Python imports', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-report-'));
  try {
    // dd with large blocks: every call green, nothing to change
    const dd = await profiledReport(dir, 'dd', ['dd', 'if=/dev/zero', `of=${join(dir, 'big')}`, 'bs=4M', 'count=16', 'status=none']);
    assert.equal(dd.schema, 'jobio-report/1');
    assert.deepEqual(dd.verdict, { text: 'nothing to change', findings: 0, high: 0, medium: 0, low: 0, nothing_to_gain: dd.application.reasons.length });
    assert.deepEqual(dd.findings, []);
    assert.deepEqual(dd.source, { kind: 'log', file: join(dir, 'dd.jsonl'), lines: dd.source.kind === 'log' ? dd.source.lines : -1, malformed_lines: 0 });
    assert.equal(dd.application.red.calls, 0);

    // 2,000 small files written by the job's own (Python) code: the first finding, high, addressed to it
    mkdirSync(join(dir, 'small'));
    const smallFiles = `for i in range(2000):\n    with open('${join(dir, 'small')}/f%d' % i, 'w') as f: f.write('x')\n`;
    const small = await profiledReport(dir, 'small', [python, '-c', smallFiles]);
    assert.deepEqual(findingKeys(small), expectedFindings(join(dir, 'small.jsonl')));
    // the 2,000 creations are a finding whatever the load, by two routes: their opens are about 11 %
    // of the run time on an idle machine (10 times the 1 % gain threshold), and they are 2,000 of the
    // run's 6,500 metadata calls, made within 0.4 s on an idle machine: 1,000 ops/s in the busiest
    // second (low) unless the loop is spread evenly over more than 2 s
    const opens = small.findings.find((f) => f.reason === 'open_few_bytes');
    assert.ok(opens, 'the small files are a finding');
    assert.ok(opens.calls >= 2000, String(opens.calls));
    assert.equal(opens.program.role, 'job');
    assert.match(opens.program.name, /^python3/);
    assert.match(opens.hint, /pack small files into one/);
    // the writes: 2,000 of 1 B; whether their own time is a finding too is the rule's (above)
    const writes = small.application.reasons.find((r) => r.reason === 'small_write');
    assert.ok(writes);
    assert.equal(writes.calls, 2000);
    assert.equal(writes.bytes, 2000);
    assert.equal(writes.program.role, 'job');
    const writeFinding = small.findings.find((f) => f.reason === 'small_write');
    if (writeFinding !== undefined) assert.match(writeFinding.hint, /the files themselves are small .*pack them into one file/);
    assert.equal(small.verdict.findings, small.findings.length);

    // a metadata storm (12,000 failed stats within a second or two) in a job that then sleeps 8 s: a
    // small part of its run time, a finding for the metadata server's sake. Its severity is the rule's
    // on the measured rate (high from 5,000 stats in the busiest second: the loop takes 0.05 s on an
    // idle machine; a loaded one spreads it over more seconds)
    const stormCode = `import os, time\nfor i in range(12000):\n    try: os.stat('${dir}/missing%d' % i)\n    except FileNotFoundError: pass\ntime.sleep(8)\n`;
    const storm = await profiledReport(dir, 'storm', [python, '-c', stormCode]);
    assert.deepEqual(findingKeys(storm), expectedFindings(join(dir, 'storm.jsonl')));
    const s = storm.findings.find((f) => f.reason === 'failed_not_found' && f.calls >= 12000);
    // a finding whatever the load: at least 1,000 ops/s in its busiest second unless the loop takes
    // more than 12 s, 240 times its idle time
    assert.ok(s, 'the storm is a finding');
    assert.ok(s.calls >= 12000 && s.calls < 12100, String(s.calls));
    const stormLog = logFigures(join(dir, 'storm.jsonl'));
    assert.equal(storm.application.peak_metadata_rate, stormLog.peak);
    assert.equal(s.metadata_rate, Math.round(stormLog.peak * Math.min(1, s.calls / stormLog.total) * 10) / 10);
    // the 8 s sleep keeps the stats' share below 10 % unless they take 0.8 s, 16 times their idle time
    assert.ok(s.share !== null && s.share < SHARE_HIGH, String(s.share));
    assert.equal(s.program.role, 'job');
    assert.match(s.hint, /check the paths/);

    // Python importing modules only: the calls on module files (.py, .pyc, .so) are the import
    // system's (component python-imports), and they are most of the job's; the stats and listings of
    // sys.path's directories that held no module file before stay the interpreter's own (docs/profiler.md)
    const imports = await profiledReport(dir, 'imports', [python, '-c', 'import json, email.mime.text, http.client, xml.dom.minidom, decimal, asyncio']);
    assert.ok(imports.application.reasons.length > 0);
    for (const r of imports.application.reasons) assert.match(r.program.name, /^python3/);
    const callsOf = (imports_: boolean): number => imports.application.reasons.filter((r) => (r.program.component === 'python-imports') === imports_).reduce((n, r) => n + r.calls, 0);
    assert.ok(callsOf(true) > callsOf(false), `import system ${callsOf(true)} calls, the interpreter's own ${callsOf(false)}`);
    assert.ok(imports.application.reasons.some((r) => r.program.component === 'python-imports' && r.program.label === "Python's import system" && r.program.role === 'runtime'));
    for (const f of imports.findings) assert.match(f.hint, new RegExp(`^${f.program.label.replace(/[()]/g, '\\$&')}`, 'i'));
    const text = await runJobio(['report', join(dir, 'imports.jsonl')]);
    assert.equal(text.code, 0);
    for (const line of text.stdout.split('\n')) assert.ok(line.length <= 80, `line of ${line.length} columns: ${line}`);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(text.stdout, /\x1b/, 'no colour when stdout is not a terminal');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('jobio report: usage and input errors are said clearly', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-report-err-'));
  try {
    const missing = await runJobio(['report', join(dir, 'nope.jsonl')]);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, `jobio report: ${join(dir, 'nope.jsonl')}: no such file\n`);
    const flag = await runJobio(['report', '--bogus', join(dir, 'x')]);
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /unknown option '--bogus'/);
    const none = await runJobio(['report']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /missing required argument 'file\|jobid'/);
    const help = await runJobio(['report', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: jobio report \[options\] <file\|jobid>/);

    // no diagnosis record: said, exit 1
    const other = join(dir, 'other.jsonl');
    writeFileSync(other, '{"type":"mountpoint","jobtotal":false}\n');
    const noDiag = await runJobio(['report', other]);
    assert.equal(noDiag.code, 1);
    assert.match(noDiag.stderr, /other\.jsonl: no diagnosis record \(1 record\(s\) read\)/);

    // malformed lines are counted, said on stderr and in the JSON; the rest is reported
    const log = join(dir, 'run.jsonl');
    const run = await runJobio(['run', '-o', log, '--', 'true']);
    assert.equal(run.code, 0, run.stderr);
    const lines = readFileSync(log, 'utf8').trimEnd().split('\n');
    writeFileSync(log, ['not json', ...lines.slice(0, 2), '[1,2]', '{"truncated":', ...lines.slice(2)].join('\n') + '\n');
    const bad = await runJobio(['report', log, '--json']);
    assert.equal(bad.code, 0);
    assert.equal(bad.stderr, `jobio report: ${log}: 3 of ${lines.length + 3} line(s) are not JSON records and were skipped\n`);
    const report = JSON.parse(bad.stdout) as ReportJson;
    assert.deepEqual(report.source, { kind: 'log', file: log, lines: lines.length + 3, malformed_lines: 3 });
    assert.equal(report.verdict.text, 'nothing to change');

    // two runs in one log: refused with the way out
    writeFileSync(log, [...lines, ...lines].join('\n') + '\n');
    const two = await runJobio(['report', log]);
    assert.equal(two.code, 1);
    assert.match(two.stderr, /2 runs wrote to this log .*put %p in the name/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
