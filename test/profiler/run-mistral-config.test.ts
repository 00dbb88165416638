// `jobio run --mistral-config` with the real library and real programs: the manual's example
// configuration (every key of its configuration table) runs with no warning but license and the
// absent plug-in, and each key shows in the log (combined reads give only read_all, binary writes
// power-of-two keys, separate metadata per-call keys, cpu-memory host no job block, ...); a second
// file turns the other way (totals no, metadata combined, read disabled, cpu-memory job); a directory
// on jobio's bypass list; warnings for keys that are not Mistral's and exit 2 for a bad value.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { once } from 'node:events';
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

const totalOf = (records: LogRecord[], mount: string): LogRecord => {
  const r = records.find((x) => x.type === 'mountpoint' && x.jobtotal === true && x.mountpoint.path === mount);
  assert.ok(r, `a job-total mountpoint record for ${mount}`);
  return r.io as LogRecord;
};

// 40 writes of 4 KiB, 320 reads of 512 B (the 160 KiB less the block skipped, and the read at the end), 200 opens by the shell's redirections, a seek (dd skip=)
const data = join(work, 'data.bin');
const script = [
  `dd if=/dev/zero of=${data} bs=4096 count=40 status=none`,
  `dd if=${data} of=/dev/null bs=512 count=400 skip=1 status=none`,
  `i=0; while [ $i -lt 200 ]; do : < ${data}; i=$((i+1)); done`,
].join('; ');

test("the manual's example configuration: only license and the absent plug-in are warned about, and every key shows in the log", async () => {
  const server = createServer((s) => s.on('data', () => s.end()).on('error', () => undefined));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  const out = join(work, 'example.jsonl');
  const fixture = join(fixtures, 'mistral_config.yaml');
  const net = `exec 3<>/dev/tcp/127.0.0.1/${port}; printf hello >&3; exec 3>&-`;
  const r = await runJobio(['run', '--mistral-config', fixture, '--output', out, '--error-log', join(work, 'errors.log'), '--', 'bash', '-c', `${script}; ${net}`], {
    env: { SLURM_JOB_NAME: 'mistral-test', OMP_NUM_THREADS: undefined },
  });
  server.close();
  assert.equal(r.code, 0, r.stderr);
  const warnings = r.stderr.split('\n').filter((l) => l.includes('warning'));
  assert.deepEqual(warnings, [
    `jobio run: warning: ${fixture}:5: license: not applicable: jobio needs no licence, ignored`,
    `jobio run: warning: ${fixture}:35: plugin: the plug-in ${join(fixtures, 'plugins/absent-output-plugin')} does not exist; the records go to the log file (output)`,
  ]);
  const records = readValidLog(readFileSync(out, 'utf8'));
  const io = totalOf(records, mountOf(data));
  // read.sized combined: one aggregate; read.duration yes (400 reads, 1 in 8 timed)
  assert.deepEqual(
    Object.keys(io).filter((k) => k.startsWith('read_')),
    ['read_all'],
  );
  assert.equal(io['read_all'].calls.total, 320, '319 blocks after the one skipped, and the read at the end');
  assert.ok(io['read_all'].duration, 'read durations');
  // write.sized binary: powers of two (and the aggregate); write.duration no
  assert.deepEqual(
    Object.keys(io).filter((k) => k.startsWith('write_')),
    ['write_4KiB-8KiB', 'write_all'],
  );
  assert.equal(io['write_4KiB-8KiB'].calls.total, 40);
  assert.equal(io['write_all'].duration, undefined, 'no write durations');
  // seek.enabled no; metadata.enabled separate (per-call keys, no metadata key) with durations
  assert.equal(io['seek'], undefined);
  assert.equal(io['metadata'], undefined);
  assert.ok(io['open'] && io['open'].calls.total >= 200, `open: ${JSON.stringify(io['open'])}`);
  assert.ok(io['open'].duration, 'metadata durations');
  // vars: the requested variables in every record, unset ones as ""
  assert.ok(records.every((x) => x.environment?.SLURM_JOB_NAME === 'mistral-test' && x.environment?.OMP_NUM_THREADS === ''));
  // network.enabled yes: the peer's record
  assert.ok(
    records.some((x) => x.type === 'network' && x.address === '127.0.0.1'),
    'network record for 127.0.0.1',
  );
  // cpu-memory.enabled host: resources records without a job block; gpu.enabled no; totals yes
  const resources = records.filter((x) => x.type === 'resources');
  assert.ok(resources.length >= 2);
  assert.ok(resources.every((x) => x.resources.host && x.resources.job === undefined));
  assert.equal(records.filter((x) => x.type === 'gpu').length, 0);
  assert.equal(records.filter((x) => x.type === 'jobsummary').length, 1);
});

test('the other way: totals no, metadata combined, read disabled, cpu-memory job, network off', async () => {
  const out = join(work, 'other.jsonl');
  const cfg = config(
    'other.yaml',
    'timeframe: no\ntotals: no\nduration-sampling:\n  sample: 1\nread:\n  enabled: no\nwrite:\n  sized: combined\n  duration: yes\nmetadata:\n  enabled: combined\ncpu-memory:\n  enabled: job\nnetwork:\n  enabled: no\n',
  );
  const r = await runJobio(['run', '--mistral-config', cfg, '--output', out, '--', 'bash', '-c', script]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!r.stderr.includes('warning'), r.stderr);
  const records = readValidLog(readFileSync(out, 'utf8'));
  assert.ok(
    records.every((x) => x.jobtotal === false),
    'no job-total record',
  );
  assert.deepEqual([...new Set(records.map((x) => x.type))].sort(), ['mountpoint', 'resources']);
  const rec = records.find((x) => x.type === 'mountpoint' && x.mountpoint.path === mountOf(data));
  assert.ok(rec);
  // one frame for the whole run; no read keys; one write aggregate with durations; seek on by default; one metadata key
  assert.deepEqual(Object.keys(rec.io).sort(), ['metadata', 'seek', 'write_all']);
  assert.ok(rec.io.write_all.duration, 'write.duration yes');
  assert.equal(rec.io.metadata.duration, undefined, "metadata.duration: Mistral's default no");
  assert.ok(records.filter((x) => x.type === 'resources').every((x) => x.resources.job && x.resources.host === undefined));
});

test('a directory on the bypass list leaves its programs out; the rest of the job is profiled', async () => {
  const bin = join(work, 'tools');
  mkdirSync(bin);
  copyFileSync(requireBinary('cat'), join(bin, 'mycat'));
  const file = join(work, 'bypass-data');
  writeFileSync(file, Buffer.alloc(50000, 7));
  const out = join(work, 'bypass.jsonl');
  const cfg = config('bypass.yaml', `bypass: [${bin}/]\ntotals: yes\n`);
  const cmd = `${join(bin, 'mycat')} ${file} > /dev/null; cat ${file} > /dev/null`;
  const oracle = straceCount(['sh', '-c', cmd], ['read'], (path) => path === file);
  assert.equal(oracle.bytes, 100000, 'strace: both cats read the file');
  const r = await runJobio(['run', '--mistral-config', cfg, '--output', out, '--', 'sh', '-c', cmd]);
  assert.equal(r.code, 0, r.stderr);
  const records = readValidLog(readFileSync(out, 'utf8'));
  assert.equal(totalOf(records, mountOf(file))['read_all'].bytes.total, oracle.bytes / 2, 'only the cat outside the bypassed directory');
});

test("the fixtures: keys that are not Mistral's are warned about by name and line, an invalid value exits 2", async () => {
  const unsupported = join(fixtures, 'mistral_config-unsupported.yaml');
  const r = await runJobio(['run', '--mistral-config', unsupported, '--', 'true']);
  assert.equal(r.code, 0, r.stderr);
  for (const [line, key] of [
    [3, 'license'],
    [4, 'contract'],
    [7, 'thresholds.huge'],
    [10, 'duration-sampling.per-file'],
    [11, 'sizebins'],
    [18, 'plugin.vars'],
  ] as const) {
    assert.ok(r.stderr.includes(`jobio run: warning: ${unsupported}:${line}: ${key}: `), `${key} named:\n${r.stderr}`);
  }
  const invalid = join(fixtures, 'mistral_config-invalid.yaml');
  const bad = await runJobio(['run', '--mistral-config', invalid, '--', 'true']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, new RegExp(`${invalid.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:5: read.sized: "logarithmic" must be`));
  const missing = await runJobio(['run', '--mistral-config', join(work, 'nope.yaml'), '--', 'true']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--mistral-config .*nope\.yaml: ENOENT/);
});
