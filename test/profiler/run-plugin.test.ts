// `jobio run` with a Mistral configuration naming an output plug-in, end to end: the real library, a
// real program (dd, counted by strace too), the shipped plug-in (bin/jobio-victoriametrics-plugin.js)
// and a real VictoriaMetrics on 127.0.0.1. Every figure of every mountpoint record in the log
// (`file-output: yes`) is in the store as a sample with the record's timestamp, and nothing else is;
// the write figures of the data file's mount equal dd's and strace's. A plug-in that exits 1 leaves
// every record to the log file, and `jobio run` says so.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runJobio } from '../helpers/exporter.js';
import { readValidLog, type LogRecord } from './mistral-schema.js';
import { mountOf, requireProfilerLibrary, straceCount } from './real-library.js';
import { authHeader, startVictoriaMetrics, VM_AUTH, type Service } from '../distributed/services.js';

requireProfilerLibrary();
const work = mkdtempSync(join(tmpdir(), 'jobio-run-plugin-'));
let vm: Service | undefined;
before(async () => {
  vm = await startVictoriaMetrics();
});
after(async () => {
  await vm?.stop();
  rmSync(work, { recursive: true, force: true });
});
const vmUrl = (): string => {
  assert.ok(vm, 'VictoriaMetrics started');
  return vm.url;
};

const BLOCK = 4096;
const COUNT = 300;
/** Two bursts of dd writes a second and a half apart: records in at least two frames and two plug-in blocks. */
const program = (data: string): string[] => [
  'sh',
  '-c',
  `dd if=/dev/zero of=${data} bs=${BLOCK} count=${COUNT} status=none; sleep 1.5; dd if=/dev/zero of=${data} bs=${BLOCK} count=${COUNT} conv=notrunc oflag=append status=none`,
];

function writeConfig(name: string, lines: readonly string[]): string {
  const path = join(work, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** The one log file a `%h` output path gave. */
function logOf(prefix: string): LogRecord[] {
  const names = readdirSync(work).filter((n) => n.startsWith(prefix));
  assert.equal(names.length, 1, `one log ${prefix}*: ${names.join(' ')}`);
  return readValidLog(readFileSync(join(work, names[0] ?? ''), 'utf8'));
}

/** "metric{labels} ts" → value, of every figure of every mountpoint record (the oracle, read off the log). */
function logFigures(records: readonly LogRecord[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of records.filter((x) => x.type === 'mountpoint')) {
    for (const [op, figures] of Object.entries(r.io as Record<string, Record<string, { total: number }>>)) {
      for (const unit of ['calls', 'bytes']) {
        const f = figures[unit];
        if (f === undefined) continue;
        out.set(`jobio_run_mountpoint_${unit} ${r.mountpoint.path} ${r.mountpoint.fstype} ${op} ${String(r.jobtotal)} ${Date.parse(r.timestamp)}`, f.total);
      }
    }
  }
  return out;
}

/** The same, of every jobio_run_* sample in VictoriaMetrics (its raw export, after a flush). */
async function storedFigures(): Promise<Map<string, number>> {
  const headers = { authorization: authHeader(VM_AUTH) };
  assert.equal((await fetch(`${vmUrl()}/internal/force_flush`, { headers })).status, 200);
  const res = await fetch(`${vmUrl()}/api/v1/export?${new URLSearchParams({ 'match[]': '{__name__=~"jobio_run_.*"}' }).toString()}`, { headers });
  assert.equal(res.status, 200);
  const out = new Map<string, number>();
  for (const line of (await res.text()).split('\n').filter((l) => l !== '')) {
    const s = JSON.parse(line) as { metric: Record<string, string>; values: number[]; timestamps: number[] };
    const m = s.metric;
    s.timestamps.forEach((ts, i) => {
      const key = `${m['__name__']} ${m['mountpoint']} ${m['fstype']} ${m['op']} ${m['jobtotal']} ${ts}`;
      assert.ok(!out.has(key), `one sample for ${key}`);
      out.set(key, s.values[i] ?? NaN);
    });
  }
  return out;
}

const writeTotal = (records: readonly LogRecord[], mount: string): { calls: number; bytes: number } => {
  const r = records.find((x) => x.type === 'mountpoint' && x.jobtotal === true && x.mountpoint.path === mount);
  assert.ok(r, `job total of ${mount}`);
  return { calls: r.io['write_all'].calls.total, bytes: r.io['write_all'].bytes.total };
};

test('the shipped plug-in puts every figure of the log into VictoriaMetrics', async () => {
  const data = join(work, 'data.bin');
  const auth = join(work, 'vm-auth');
  writeFileSync(auth, `${VM_AUTH.username}:${VM_AUTH.password}\n`, { mode: 0o600 });
  const config = writeConfig('mistral_config.yaml', [
    `output: ${join(work, 'kept-%h.log')}`,
    'timeframe: 1s',
    'plugin:',
    `  path: ${join(repoRoot, 'bin/jobio-victoriametrics-plugin.js')}`,
    '  interval: 1s',
    '  file-output: yes',
    '  options:',
    `    url: ${vmUrl()}`,
    `    basic-auth-file: ${auth}`,
  ]);
  const r = await runJobio(['run', '--mistral-config', config, '--', ...program(data)], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /plug-in/, 'no word from or about the plug-in: it ran cleanly');
  const records = logOf('kept-');
  const frames = records.filter((x) => x.type === 'mountpoint' && x.jobtotal === false && x.mountpoint.path === mountOf(data));
  assert.ok(frames.length >= 2, `dd wrote in ${frames.length} frames`);
  const expected = logFigures(records);
  // VictoriaMetrics makes an import searchable a moment after answering it (its in-memory parts and
  // index): the export is asked again until every figure is there, for 15 s at most
  let stored = await storedFigures();
  for (const until = Date.now() + 15_000; [...expected.keys()].some((k) => !stored.has(k)) && Date.now() < until; stored = await storedFigures()) {
    await new Promise((done) => setTimeout(done, 250));
  }
  assert.deepEqual([...stored.keys()].sort(), [...expected.keys()].sort(), 'the same samples as the log has figures');
  for (const [key, value] of expected) assert.equal(stored.get(key), value, key);
  // dd's own count, and strace's
  const oracle = straceCount(program(join(work, 'strace.bin')), ['write'], (path) => path === join(work, 'strace.bin'));
  assert.deepEqual(oracle, { calls: 2 * COUNT, bytes: 2 * COUNT * BLOCK });
  assert.deepEqual(writeTotal(records, mountOf(data)), oracle);
  const job = [...stored].filter(([k]) => k.startsWith(`jobio_run_mountpoint_bytes ${mountOf(data)} `) && k.includes(' write_all true '));
  assert.equal(job.length, 1);
  assert.equal(job[0]?.[1], oracle.bytes, 'the stored job total is the bytes dd wrote');
});

test('a plug-in that exits 1: every record goes to the log file, and jobio run says so', async () => {
  const data = join(work, 'data-2.bin');
  const failing = join(work, 'failing-plugin');
  writeFileSync(failing, '#!/bin/sh\necho cannot reach the database >&2\nexit 1\n');
  chmodSync(failing, 0o755);
  const config = writeConfig('mistral_config-failing.yaml', ['output: ' + join(work, 'fallback-%h.log'), 'timeframe: 1s', 'plugin:', `  path: ${failing}`, '  interval: 1s']);
  const r = await runJobio(['run', '--mistral-config', config, '--', ...program(data)], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`jobio run: plug-in ${failing}: cannot reach the database\n`));
  assert.match(r.stderr, new RegExp(`jobio run: the plug-in ${failing} exited with status 1: the records go to the log file ${work}/fallback-`));
  const records = logOf('fallback-');
  assert.deepEqual(writeTotal(records, mountOf(data)), { calls: 2 * COUNT, bytes: 2 * COUNT * BLOCK });
  // every frame of the run is there: the frames' timeframes add up to the job total's
  const resources = records.filter((x) => x.type === 'resources');
  const seconds = (x: LogRecord): number => Number(/^(\d+)s$/.exec(String(x.timeframe))?.[1]);
  const total = resources.find((x) => x.jobtotal === true);
  assert.ok(total);
  assert.equal(
    resources.filter((x) => x.jobtotal === false).reduce((a, x) => a + seconds(x), 0),
    seconds(total),
  );
  const frameWrites = records
    .filter((x) => x.type === 'mountpoint' && x.jobtotal === false && x.mountpoint.path === mountOf(data))
    .reduce((a, x) => a + Number(x.io['write_all']?.bytes.total ?? 0), 0);
  assert.equal(frameWrites, 2 * COUNT * BLOCK, "the frames' writes add up to dd's");
});
