// `jobio run --mistral-config` with the real library and real programs: timeframe `no`, totals off,
// record types switched off, `combined` size bins (write counts against strace), a directory on the
// bypass list, warnings for unsupported keys and exit 2 for a value that cannot be honoured.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runJobio } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';
import { readValidLog, type LogRecord } from './mistral-schema.js';
import { mountOf, requireProfilerLibrary, straceCount } from './real-library.js';

requireProfilerLibrary();
const work = mkdtempSync(join(tmpdir(), 'jobio-mistral-config-'));
after(() => rmSync(work, { recursive: true, force: true }));
const fixtures = fileURLToPath(new URL('../fixtures/mistral/', import.meta.url));

function config(name: string, text: string): string {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
}

const ioOf = (records: LogRecord[], mount: string): Record<string, LogRecord> => {
  const r = records.find((x) => x.type === 'mountpoint' && x.mountpoint.path === mount);
  assert.ok(r, `a mountpoint record for ${mount}`);
  return r.io as Record<string, LogRecord>;
};

test('timeframe no, totals no, resources and diagnosis off, combined size bins: the records say so', async () => {
  const out = join(work, 'combined.jsonl');
  const target = join(work, 'dd.out');
  const cfg = config('combined.yaml', 'timeframe: no\ntotals: no\nresources: no\ndiagnosis: no\nsizebins: combined\n');
  const cmd = ['dd', 'if=/dev/zero', `of=${target}`, 'bs=4096', 'count=40', 'status=none'];
  const oracle = straceCount(cmd, ['write'], (path) => path === target);
  assert.equal(oracle.calls, 40);
  const r = await runJobio(['run', '--mistral-config', cfg, '--output', out, '--', ...cmd]);
  assert.equal(r.code, 0, r.stderr);
  const records = readValidLog(readFileSync(out, 'utf8'));
  assert.deepEqual([...new Set(records.map((x) => x.type))].sort(), ['jobsummary', 'mountpoint', 'mountpointsummary']);
  assert.ok(
    records.every((x) => x.type !== 'mountpoint' || x.jobtotal === false),
    'no job-total mountpoint records',
  );
  // one frame for the whole run: one record per mount with I/O and one for all mounts
  const mount = mountOf(target);
  assert.equal(records.filter((x) => x.type === 'mountpoint' && x.mountpoint.path === mount).length, 1);
  assert.equal(records.filter((x) => x.type === 'mountpoint' && x.mountpoint.path === '*').length, 1);
  const io = ioOf(records, mount);
  const [small, pow2, all] = [io['write_0-32KiB'], io['write_4KiB-8KiB'], io['write_all']];
  assert.ok(small && pow2 && all, `both kinds of keys: ${Object.keys(io).join(' ')}`);
  assert.equal(small.calls.total, oracle.calls, 'threshold range');
  assert.equal(pow2.calls.total, oracle.calls, 'power-of-two range');
  assert.equal(pow2.bytes.total, oracle.bytes);
  assert.equal(all.calls.total, oracle.calls);
});

test('a directory on the bypass list leaves its programs out; the rest of the job is profiled', async () => {
  const bin = join(work, 'tools');
  mkdirSync(bin);
  copyFileSync(requireBinary('cat'), join(bin, 'mycat'));
  const data = join(work, 'data');
  writeFileSync(data, Buffer.alloc(50000, 7));
  const out = join(work, 'bypass.jsonl');
  const cfg = config('bypass.yaml', `bypass: [${bin}/]\ntotals: yes\n`);
  const script = `${join(bin, 'mycat')} ${data} > /dev/null; cat ${data} > /dev/null`;
  const oracle = straceCount(['sh', '-c', script], ['read'], (path) => path === data);
  assert.equal(oracle.bytes, 100000, 'strace: both cats read the file');
  const r = await runJobio(['run', '--mistral-config', cfg, '--output', out, '--', 'sh', '-c', script]);
  assert.equal(r.code, 0, r.stderr);
  const records = readValidLog(readFileSync(out, 'utf8'));
  const total = records.find((x) => x.type === 'mountpoint' && x.jobtotal === true && x.mountpoint.path === mountOf(data));
  assert.equal(total?.io['read_all'].bytes.total, oracle.bytes / 2, 'only the cat outside the bypassed directory');
});

test('the fixtures: unsupported keys are warned about by name and line, an invalid value exits 2', async () => {
  const unsupported = join(fixtures, 'mistral_config-unsupported.yaml');
  const r = await runJobio(['run', '--mistral-config', unsupported, '--', 'true']);
  assert.equal(r.code, 0, r.stderr);
  for (const [line, key] of [
    [3, 'license'],
    [4, 'contract'],
    [7, 'thresholds.huge'],
    [10, 'sampling.per-file'],
    [14, 'plugin'],
  ] as const) {
    assert.ok(r.stderr.includes(`jobio run: warning: ${unsupported}:${line}: ${key}: not supported by jobio, ignored`), `${key} named:\n${r.stderr}`);
  }
  // The plug-in mapping is named once, not once per sub-key.
  assert.equal(r.stderr.split('\n').filter((l) => l.includes(': plugin')).length, 1, r.stderr);
  const invalid = join(fixtures, 'mistral_config-invalid.yaml');
  const bad = await runJobio(['run', '--mistral-config', invalid, '--', 'true']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, new RegExp(`${invalid.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:4: sizebins: "logarithmic" must be`));
  const missing = await runJobio(['run', '--mistral-config', join(work, 'nope.yaml'), '--', 'true']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--mistral-config .*nope\.yaml: ENOENT/);
});
