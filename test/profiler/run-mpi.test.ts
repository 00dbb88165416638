// `jobio run` on a real 4-rank Open MPI job on this node: one log per `jobio run` named by %h/%p,
// every record valid, and job-level memory that covers every rank. The test reads the ranks' and the
// whole job's /proc/<pid>/status itself while the ranks hold their memory, as the oracle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobioBin } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';
import { readValidLog, type LogRecord } from './mistral-schema.js';
import { buildMpiProgram } from './mpi-program.js';

const MiB = 1024 * 1024;
const RANKS = 4;
const HOLD_S = 4;
const mpirun = requireBinary('mpirun', 'openmpi-bin');
const work = mkdtempSync(join(tmpdir(), 'jobio-run-mpi-'));
const program = buildMpiProgram('mpi-ranks', work);
const short = hostname().split('.')[0] ?? '';
const MPIRUN = [mpirun, '--oversubscribe', '--allow-run-as-root', '-n', String(RANKS)];

/** VmRSS and VmSize of one process, in bytes, as /proc says now. */
function memoryOf(pid: number): { rss: number; vmem: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), vmem: kb('VmSize') };
}

/** The pids under `root` (root included), by the parent pid field of /proc/<pid>/stat. */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const [pid, ppid] of parent) if (ppid === found[i]) found.push(pid);
  return found;
}

/** Waits for the ranks' pid files (written once their memory is resident) and reads /proc. */
async function readRanks(dir: string, jobioPid: number | undefined): Promise<{ ranks: { rss: number; vmem: number }[]; tree: { rss: number; vmem: number } }> {
  const files = Array.from({ length: RANKS }, (_, r) => join(dir, `rank-${r}.pid`));
  for (let i = 0; i < 600 && !files.every((f) => existsSync(f)); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(
    files.every((f) => existsSync(f)),
    'every rank wrote its pid',
  );
  const ranks = files.map((f) => memoryOf(Number(readFileSync(f, 'utf8'))));
  const tree = { rss: 0, vmem: 0 };
  if (jobioPid !== undefined) {
    for (const pid of descendants(jobioPid).slice(1)) {
      try {
        const m = memoryOf(pid);
        tree.rss += m.rss;
        tree.vmem += m.vmem;
      } catch {
        // exited meanwhile
      }
    }
  }
  return { ranks, tree };
}

/** Starts a command; `exited` gives its status and stderr. */
function run(args: readonly string[]): { pid: number | undefined; exited: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn(args[0] as string, args.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  return { pid: child.pid, exited: once(child, 'exit').then(([code]) => ({ code: code as number | null, stderr })) };
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
const resourcesTotal = (records: LogRecord[]): LogRecord => {
  const r = records.find((x) => x.type === 'resources' && x.jobtotal === true);
  assert.ok(r, 'a job-total resources record');
  return r.resources.job as LogRecord;
};

test('jobio run -- mpirun -n 4: one log for the node, job memory over every rank', async () => {
  const dir = join(work, 'one');
  mkdirSync(dir);
  const started = run([process.execPath, jobioBin, 'run', '--timeframe', '2s', '-o', join(dir, '%h-%p.jsonl'), '--', ...MPIRUN, program, dir, String(HOLD_S)]);
  const seen = await readRanks(dir, started.pid);
  const { code, stderr } = await started.exited;
  assert.equal(code, 0, stderr);
  const logs = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
  assert.deepEqual(logs, [`${short}-${started.pid}.jsonl`]);
  const records = readValidLog(readFileSync(join(dir, logs[0] as string), 'utf8'));
  const job = resourcesTotal(records);
  const ranksRss = sum(seen.ranks.map((m) => m.rss));
  const ranksVmem = sum(seen.ranks.map((m) => m.vmem));
  // every rank touched (r+1)*16 MiB: 160 MiB in all, resident while the test read /proc
  assert.ok(ranksRss >= 160 * MiB, `ranks resident ${ranksRss}`);
  assert.ok(job.rssmem.max >= ranksRss, `rssmem.max ${job.rssmem.max} covers the ranks' ${ranksRss}`);
  assert.ok(job.vmem.max >= ranksVmem, `vmem.max ${job.vmem.max} covers the ranks' ${ranksVmem}`);
  // not counted twice: no more than the whole job's processes held (mpirun and helpers included), with room for start-up peaks
  assert.ok(job.rssmem.max <= seen.tree.rss * 1.5, `rssmem.max ${job.rssmem.max} vs the job's ${seen.tree.rss}`);
  assert.ok(job.vmem.max <= seen.tree.vmem * 1.5, `vmem.max ${job.vmem.max} vs the job's ${seen.tree.vmem}`);
  assert.ok(job.rssmem.max <= job.vmem.max && job.rssmem['mean/s'] <= job.rssmem.max && job.vmem['mean/s'] <= job.vmem.max);
  // a periodic record of the hold saw all four ranks at once
  const periodic = records.filter((x) => x.type === 'resources' && x.jobtotal === false);
  assert.ok(
    periodic.some((x) => x.resources.job.rssmem.max >= ranksRss * 0.95),
    'a frame during the hold holds every rank',
  );
  // the ranks' writes reached the log (the real profiler in every rank)
  const star = records.find((x) => x.type === 'mountpoint' && x.jobtotal === true && x.mountpoint.path === '*');
  assert.ok((star?.io['write_all']?.calls.total ?? 0) >= RANKS, 'every rank wrote its file');
});

test('mpirun -n 4 jobio run: one log per rank, %p tells them apart', async () => {
  const dir = join(work, 'per-rank');
  mkdirSync(dir);
  const started = run([...MPIRUN, process.execPath, jobioBin, 'run', '-o', join(dir, '%h-%p.jsonl'), '--', program, dir, String(HOLD_S)]);
  const seen = await readRanks(dir, undefined);
  const { code, stderr } = await started.exited;
  assert.equal(code, 0, stderr);
  const logs = readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort();
  assert.equal(logs.length, RANKS, logs.join(' '));
  for (const f of logs) assert.match(f, new RegExp(`^${short.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-\\d+\\.jsonl$`));
  // each log's memory is its own rank's: sorted, they cover the ranks' own readings one by one
  const maxima = logs.map((f) => resourcesTotal(readValidLog(readFileSync(join(dir, f), 'utf8'))).rssmem.max as number).sort((a, b) => a - b);
  const ranks = seen.ranks.map((m) => m.rss).sort((a, b) => a - b);
  maxima.forEach((max, i) => assert.ok(max >= (ranks[i] ?? 0) && max < (ranks[i] ?? 0) + 64 * MiB, `log ${i}: rssmem.max ${max} vs the rank's ${ranks[i]}`));
});

test('mpirun -n 4 jobio run -o one name per host: the four runs append whole records to one file, three say so', async () => {
  const dir = join(work, 'per-host');
  mkdirSync(dir);
  writeFileSync(join(dir, `j-${short}.jsonl`), 'a line from an earlier run, truncated by the first run\n');
  const started = run([...MPIRUN, process.execPath, jobioBin, 'run', '-o', join(dir, 'j-%h.jsonl'), '--', program, dir, String(HOLD_S)]);
  await readRanks(dir, undefined);
  const { code, stderr } = await started.exited;
  assert.equal(code, 0, stderr);
  const logs = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
  assert.deepEqual(logs, [`j-${short}.jsonl`]);
  // Every line is a valid record (before, 3 of 17 lines were broken), and each run's records are there.
  const records = readValidLog(readFileSync(join(dir, logs[0]!), 'utf8'));
  assert.equal(records.filter((x) => x.type === 'jobsummary').length, RANKS);
  assert.equal(stderr.match(/another jobio run is writing --output/g)?.length, RANKS - 1, stderr);
});
