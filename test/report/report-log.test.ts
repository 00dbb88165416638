// `jobio report FILE.jsonl` on the logs of real programs run under the profiler by `jobio run`: the
// verdict and the findings a user gets for a healthy job, a job writing many small files, a metadata
// storm in a job that mostly computes, and a Python job that only imports modules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runJobio } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';
import type { ReportJson } from '../../exporter/src/report/report-schema.js';
import { METADATA_RATE_HIGH, SHARE_HIGH } from '../../exporter/src/report/findings.js';

// the interpreter itself, not a wrapper script (pyenv's shims run bash and more processes, whose run
// time dilutes every share)
const python = execFileSync(requireBinary('python3'), ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();

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
    const first = small.findings[0];
    assert.ok(first, 'a finding');
    assert.equal(first.severity, 'high');
    assert.ok(['open_few_bytes', 'small_write'].includes(first.reason), first.reason);
    assert.equal(first.program.role, 'job');
    assert.match(first.program.name, /^python3/);
    const writes = small.findings.find((f) => f.reason === 'small_write');
    assert.ok(writes);
    assert.equal(writes.calls, 2000);
    assert.equal(writes.bytes, 2000);
    assert.match(writes.hint, /the files themselves are small .*pack them into one file/);
    assert.ok((small.findings.find((f) => f.reason === 'open_few_bytes')?.calls ?? 0) >= 2000);
    assert.ok(small.verdict.high >= 1);

    // a metadata storm (12,000 failed stats within a second or two) in a job that then sleeps 8 s:
    // a few % of its run time, high for the metadata server's sake
    const stormCode = `import os, time\nfor i in range(12000):\n    try: os.stat('${dir}/missing%d' % i)\n    except FileNotFoundError: pass\ntime.sleep(8)\n`;
    const storm = await profiledReport(dir, 'storm', [python, '-c', stormCode]);
    const s = storm.findings[0];
    assert.ok(s, 'a finding');
    assert.equal(s.reason, 'failed_not_found');
    assert.equal(s.severity, 'high');
    assert.equal(s.severity_from, 'metadata_rate');
    assert.ok(s.calls >= 12000 && s.calls < 12100, String(s.calls));
    assert.ok((s.metadata_rate ?? 0) >= METADATA_RATE_HIGH, String(s.metadata_rate));
    assert.ok(s.share !== null && s.share < SHARE_HIGH, String(s.share));
    assert.equal(s.program.role, 'job');
    assert.match(s.hint, /check the paths/);

    // Python importing modules only: every reason is the interpreter's (until the library tells the
    // import system apart: component python-imports, see findings.test.ts), and the report names it
    const imports = await profiledReport(dir, 'imports', [python, '-c', 'import json, email.mime.text, http.client, xml.dom.minidom, decimal, asyncio']);
    assert.ok(imports.application.reasons.length > 0);
    for (const r of imports.application.reasons) assert.match(r.program.name, /^python3/);
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
    const { readFileSync } = await import('node:fs');
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
