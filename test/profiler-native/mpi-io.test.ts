// The MPI-IO library is a component of an MPI rank's calls (docs/profiler.md, "Who the hint is for"):
// what a thread does inside an MPI_File_* call (the opens of the file and of the library's lock-test
// files, the collective buffering's writes, the syncs and closes), and the calls on the descriptors
// opened there, are `mpi-io`; the program's own POSIX I/O before and after stays the program's. Checked
// on a real 2-rank Open MPI job writing one shared file on /dev/shm with MPI_File_write_all, against
// strace -ttt in the same run: the calls each rank's main thread makes between the marks around its
// MPI-IO calls are the component's, the others the program's, count for count. The ranks that are
// not aggregators opened the file and moved nothing through it: not red, and not told to stop
// opening files.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildTests, callsOfKinds, removeDir, runProfiled, tempDir, type DumpMount } from './harness.js';
import { PROCESS_CALLS, STRACE_CALLS, processOfThreads, readStraceCalls, straceArgs, withoutLibraryProbes } from './strace-oracle.js';
import { requireBinary } from '../helpers/binaries.js';
import { MPIRUN_LOCAL, MPI_AS_ROOT_ENV, buildMpiProgram } from '../profiler/mpi-program.js';
import { programOf } from '../../exporter/src/profiler/programs.js';
import { hintFor } from '../../exporter/src/profiler/hints.js';
import { runJobio } from '../helpers/exporter.js';
import { readValidLog, type LogRecord } from '../profiler/mistral-schema.js';

const SHM = '/dev/shm';
const KINDS: Record<string, string> = {
  open: 'open',
  openat: 'open',
  read: 'read',
  pread64: 'read',
  readv: 'read',
  preadv: 'read',
  write: 'write',
  pwrite64: 'write',
  writev: 'write',
  pwritev: 'write',
  fsync: 'sync',
  fdatasync: 'sync',
  unlink: 'delete',
  unlinkat: 'delete',
  newfstatat: 'access',
  statx: 'access',
  access: 'access',
  faccessat: 'access',
  faccessat2: 'access',
  close: 'close',
};
const PATH_CALLS = new Set(['open', 'openat', 'unlink', 'unlinkat', 'newfstatat', 'statx', 'access', 'faccessat', 'faccessat2']);
type Counts = Record<string, number>;
const zero = (): Counts => Object.fromEntries([...new Set(Object.values(KINDS))].map((k) => [k, 0]));

const got = (ms: DumpMount[]): Counts => callsOfKinds(ms, Object.keys(zero()));
const reason = (ms: DumpMount[], r: string): number => ms.reduce((s, m) => s + (m.reasons[r] ?? 0), 0);

let strace = '';
let mpirun = '';
before(() => {
  buildTests();
  strace = requireBinary('strace');
  mpirun = requireBinary('mpirun', 'openmpi-bin');
});

test("mpirun -np 2, one MPI_File_write_all to /dev/shm: per rank, the calls strace -ttt sees inside the MPI-IO calls are mpi-io's, the others the program's; no open of the file is red", async (t) => {
  const base = tempDir(SHM);
  const work = tempDir();
  try {
    const program = buildMpiProgram('mpi-io-marks', work);
    // fcoll two_phase: collective buffering with one aggregator (OMPIO's default lets each of two
    // ranks write its own contiguous block), so one rank opens the file and moves nothing through it
    const prefix = join(work, 'strace-out');
    const traced = [...STRACE_CALLS, ...PROCESS_CALLS, 'close', 'fsync', 'fdatasync', 'unlink', 'unlinkat'];
    const prof = await runProfiled(strace, [...straceArgs(prefix, traced, true), mpirun, ...MPIRUN_LOCAL, '--mca', 'fcoll', 'two_phase', '-n', '2', program, base], {
      cwd: work,
      dir: tempDir(),
      env: { ...MPI_AS_ROOT_ENV, JOBIO_EXCLUDE: 'strace' },
      timeoutMs: 120_000,
    });
    removeDir(prof.dir);
    assert.equal(prof.status, 0, prof.stderr.toString());
    const calls = readStraceCalls(prefix);
    const pidOf = processOfThreads(calls);
    // the job's files are in its directory on /dev/shm; POSIX shared-memory objects and semaphores
    // (/dev/shm/NAME: Open MPI's start-up, OMPIO's shared file pointer) are opened by glibc inside
    // itself, where no wrapper sees them, and are memory, not files of the job's
    const onShm = (p: string | undefined): boolean => !!p && p.startsWith(base + '/');
    const ranks = prof.dump.processes.filter((p) => p.exe === 'mpi-io-marks');
    assert.equal(ranks.length, 2);
    const all: DumpMount[] = [];
    let aggregatorWrites = 0;
    for (const rank of ranks) {
      const exec = calls.find((c) => c.pid === rank.pid && c.name === 'execve' && c.ret === 0);
      assert.ok(exec, `rank ${rank.pid}: its exec`);
      const mine = withoutLibraryProbes(calls.filter((c) => pidOf(c.pid) === rank.pid && c.t >= exec.t));
      const at = (what: string): number => {
        const m = mine.find((c) => c.pid === rank.pid && c.args.startsWith(`"/proc/self/jobio-mark-${what}"`));
        assert.ok(m, `rank ${rank.pid}: the mark ${what}`);
        return m.t;
      };
      const [from, to] = [at('io'), at('io-done')];
      const expected = { mpiio: zero(), program: zero() };
      const fdOwner = new Map<string, 'mpiio' | 'program'>();
      for (const c of mine) {
        const kind = KINDS[c.name];
        if (!kind) continue;
        const path = PATH_CALLS.has(c.name) ? /"([^"]*)"/.exec(c.args)?.[1] : undefined;
        const dir = /^AT_FDCWD<([^>]*)>/.exec(c.args)?.[1] ?? /^\d+<([^>]*)>/.exec(c.args)?.[1] ?? work;
        const target = path !== undefined && path !== '' ? resolve(dir, path) : c.fds[0];
        if (!onShm(target)) continue;
        // inside the marks on the main thread, or on a descriptor opened there
        const fdKey = `${c.pid}:${/^(\d+)</.exec(c.args)?.[1] ?? ''}`;
        const inside = c.pid === rank.pid && c.t >= from && c.t <= to;
        const owner = path !== undefined && path !== '' ? (inside ? 'mpiio' : 'program') : (fdOwner.get(fdKey) ?? (inside ? 'mpiio' : 'program'));
        if (kind === 'open' && c.ret >= 0) fdOwner.set(`${c.pid}:${c.ret}`, owner);
        if (kind === 'close') fdOwner.delete(fdKey);
        expected[owner][kind]!++;
      }
      const mounts = rank.mounts.filter((m) => m.path === SHM);
      const actual = { mpiio: got(mounts.filter((m) => m.component === 'mpi-io')), program: got(mounts.filter((m) => m.component === '')) };
      const why = JSON.stringify({ rank: rank.pid, expected, actual, window: [from, to] });
      t.diagnostic(why);
      // strace: MPI_File_open opened the shared file; the program created, wrote and read its own
      assert.ok(expected.mpiio.open! >= 1 && expected.mpiio.close! >= 1, why);
      assert.deepEqual(expected.program.open, 3, why);
      assert.deepEqual(expected.program.write, 5, why);
      assert.deepEqual(actual, expected, why);
      all.push(...mounts.filter((m) => m.component === 'mpi-io'));
      aggregatorWrites += expected.mpiio.write!;
    }
    // collective I/O: the 32 KiB reached the file in one write of the aggregator; the other rank's
    // open of it (and every lock-test file's) moved its bytes elsewhere, not "nothing"
    const reasons = JSON.stringify(all.map((m) => m.reasons));
    assert.equal(aggregatorWrites, 1, reasons);
    assert.equal(reason(all, 'open_nothing_transferred'), 0, reasons);
    assert.equal(reason(all, 'open_bytes_unseen'), 3, reasons);
    // whoever is told: the MPI-IO library inside the rank, not the job's code
    const lib = programOf('mpi-io-marks', '', 'mpi-io');
    assert.equal(lib.role, 'library');
    for (const r of ['open_bytes_unseen', 'open_nothing_transferred'] as const) {
      const hint = hintFor({ cls: r === 'open_bytes_unseen' ? 'yellow' : 'red', reason: r, calls: 1, bytes: 0, timeNs: 0 }, { mount: SHM, small: 32768, program: lib, gain: true, fewByteOpens: 0 });
      assert.doesNotMatch(hint, /do not open files you do not read or write/, hint);
    }
  } finally {
    removeDir(base);
    removeDir(work);
  }
});

test("jobio run -- mpirun -np 2 with MPI-IO: the diagnosis names the MPI-IO library inside the ranks (role library) for its calls, with its own hint, and the ranks' code for theirs", async () => {
  const base = tempDir(SHM);
  const work = tempDir();
  try {
    const program = buildMpiProgram('mpi-io-marks', work);
    const out = join(work, 'out.jsonl');
    const r = await runJobio(['run', '-o', out, '--', mpirun, ...MPIRUN_LOCAL, '--mca', 'fcoll', 'two_phase', '-n', '2', program, base], {
      env: MPI_AS_ROOT_ENV,
      timeoutMs: 120_000,
    });
    assert.equal(r.code, 0, r.stderr);
    const d = readValidLog(readFileSync(out, 'utf8')).find((x) => x.type === 'diagnosis') as LogRecord;
    const mine = (d.reasons as LogRecord[]).filter((x) => x.mount === SHM && x.program.name === 'mpi-io-marks');
    const why = JSON.stringify(mine.map((x) => [x.reason, x.calls, x.program.component, x.program.role, x.hint]));
    const lib = mine.filter((x) => x.program.component === 'mpi-io');
    const own = mine.filter((x) => x.program.component === undefined);
    assert.ok(lib.length > 0 && lib.every((x) => x.program.role === 'library' && x.program.label === 'the MPI-IO library (ROMIO/OMPIO)'), why);
    // the opens of the file and of the lock-test files (4), through which this rank moved nothing: not red
    assert.equal(lib.find((x) => x.reason === 'open_bytes_unseen')?.calls, 3, why);
    assert.ok(!mine.some((x) => x.reason === 'open_nothing_transferred'), why);
    assert.ok(
      lib.every((x) => !/do not open files/.test(x.hint as string)),
      why,
    );
    // the ranks' own 100-byte writes (5 each) are the job's code's, with its advice
    assert.ok(
      own.every((x) => x.program.role === 'job'),
      why,
    );
    assert.equal(own.find((x) => x.reason === 'small_write')?.calls, 10, why);
  } finally {
    removeDir(base);
    removeDir(work);
  }
});
