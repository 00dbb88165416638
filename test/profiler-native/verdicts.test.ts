// Verdicts that must not be false reds, checked on real programs against strace (docs/profiler.md
// "Classification"): the read that meets the end of a file (0 bytes) and cp's last, empty
// copy_file_range are green, not small transfers; a shell's redirection, whose descriptor the command
// it runs inherits and moves the bytes through, is `open_bytes_unseen`, not "moved no byte". An open
// that really moved nothing, with nobody to inherit it, stays red. All the files are on /dev/shm, so
// the profiler's totals on that mount and strace's calls on the directory cover the same calls.
// MPI-IO: the opens MPI_File_open makes on every rank (the file, and a lock-test file beside it),
// through which only the aggregator ranks move the data, are `open_bytes_unseen`, not red.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildTests, cleanEnv, removeDir, runProfiled, tempDir, type Dump, type DumpMount, type DumpProcess, type MountBody } from './harness.js';
import { PROCESS_CALLS, STRACE_CALLS, greenOf, processOfThreads, readStraceCalls, straceArgs, straceStats, straceVerdicts, transfersOf, withPrograms, type StraceCall } from './strace-oracle.js';
import { requireBinary } from '../helpers/binaries.js';
import { programOf, type ProgramFamily } from '../../exporter/src/profiler/programs.js';
import { MPIRUN_LOCAL, MPI_AS_ROOT_ENV, buildMpiProgram } from '../profiler/mpi-program.js';
import { writeCProject } from './c-project.js';

const SHM = '/dev/shm';
/** The profiler's classes on /dev/shm, per executable and summed. */
function onShm(dump: Dump, exe?: string): DumpMount[] {
  return dump.processes.filter((p) => exe === undefined || p.exe === exe).flatMap((p) => p.mounts.filter((m) => m.path === SHM));
}
const cls = (bodies: MountBody[], call: string): [number, number, number] =>
  bodies.reduce<[number, number, number]>(
    (s, b) => {
      const c = b.calls[call];
      return c ? [s[0] + c.red, s[1] + c.yellow, s[2] + c.green] : s;
    },
    [0, 0, 0],
  );
const reason = (bodies: MountBody[], r: string): number => bodies.reduce((s, b) => s + (b.reasons[r] ?? 0), 0);
const eofCalls = (bodies: MountBody[], dir: 'read' | 'write'): number => bodies.reduce((s, b) => s + (b.pow2[dir].find(([bin]) => bin === 0)?.[1] ?? 0), 0);

/**
 * Program by program (strace's calls given the program of the process that made them), the
 * profiler's classes on the mount equal strace's calls there: reads and writes per class, opens and
 * stats (red only when failed, or nothing moved, or never used), failed_not_found. Strace is counted
 * on the whole mount, as the profiler counts per mount (sqlite3 lstat()s every directory of the
 * database's path, /dev/shm included). Returns the programs that made calls on it.
 */
function assertPerProgram(calls: readonly (StraceCall & { program: string })[], dump: Dump, cwd: string): string[] {
  const oracle = new Map(
    [...new Set(calls.map((x) => x.program))].map((p) => {
      const mine = calls.filter((x) => x.program === p);
      return [p, { ...straceVerdicts(mine, SHM, cwd), stats: straceStats(mine, SHM, cwd) }] as const;
    }),
  );
  const programs = [...oracle]
    .filter(([, o]) => o.opens + o.stats.ok + o.stats.failed + transfersOf(o.reads) + transfersOf(o.writes) > 0)
    .map(([p]) => p)
    .sort();
  assert.deepEqual(programs, [...new Set(dump.processes.filter((p) => onShm(dump, p.exe).length > 0).map((p) => p.exe))].sort(), 'the same programs');
  const sum = (x: [number, number, number]): number => x[0] + x[1] + x[2];
  for (const p of programs) {
    const o = oracle.get(p)!;
    const mine = onShm(dump, p);
    const why = `${p}: ${JSON.stringify({ strace: o, profiler: mine.map((b) => ({ calls: b.calls, reasons: b.reasons })) })}`;
    assert.deepEqual(cls(mine, 'read'), [o.reads.failed + o.reads.small, 0, greenOf(o.reads)], why);
    assert.deepEqual(cls(mine, 'write'), [o.writes.failed + o.writes.small, 0, greenOf(o.writes)], why);
    const opens = cls(mine, 'open').map((n, i) => n + (cls(mine, 'create')[i] ?? 0)) as [number, number, number];
    assert.equal(sum(opens), o.opens, why);
    assert.equal(opens[0], o.failedOpens + reason(mine, 'open_nothing_transferred'), why);
    const stats = cls(mine, 'access');
    assert.equal(sum(stats), o.stats.ok + o.stats.failed, why);
    assert.equal(stats[0], o.stats.failed + reason(mine, 'stat_unused'), why);
    // every failure here is a path that does not exist (journal probes, search paths)
    assert.equal(reason(mine, 'failed_not_found'), o.failedOpens + o.stats.failed, why);
  }
  return programs;
}

/** The mount of a path: the longest mount point before it (this process's mount table). */
function mountOf(path: string): string {
  const points = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[4])
    .filter((p): p is string => !!p);
  return points.filter((m) => path === m || path.startsWith(m === '/' ? '/' : m + '/')).sort((a, b) => b.length - a.length)[0] ?? '';
}

function inputs(dir: string): void {
  writeFileSync(join(dir, 'in.bin'), Buffer.alloc(1 << 20, 7));
  writeFileSync(join(dir, 'small.txt'), 'hello jobio\n'.repeat(100));
}

interface Case {
  name: string;
  cmd: string[];
  /** the process whose open is a redirection another process moved the bytes through */
  redirector?: string;
  /** opens (and creates) that really moved nothing: red */
  redOpens?: number;
  /** the opens per class [red, yellow, green], when the case pins them */
  opens?: [number, number, number];
}

const cases: Case[] = [
  { name: "dash runs 'cat in > log' (redirection, exec)", cmd: ['sh', '-c', 'cat in.bin small.txt > log'], redirector: 'dash' },
  { name: "dash runs 'wc -l < in' (input redirection)", cmd: ['sh', '-c', 'wc -l < small.txt'], redirector: 'dash' },
  { name: 'bash runs a group into one log (redirection, fork)', cmd: ['bash', '-c', '{ cat small.txt; cat in.bin; } > log; echo done'], redirector: 'bash' },
  { name: 'cp (last copy_file_range moves 0 bytes)', cmd: ['cp', 'in.bin', 'cp.out'] },
  { name: 'cat to a pipe (the read at end of file)', cmd: ['cat', 'in.bin', 'small.txt'] },
  // gzip opens "." and creates, stats and deletes in it by *at calls (and with --synchronous syncs
  // it): the directory's open did its work, green; the input green, the 1 KiB output yellow
  { name: 'gzip (the directory it works in by *at calls)', cmd: ['gzip', 'in.bin'], opens: [0, 1, 2] },
  { name: 'gzip --synchronous (the directory synced)', cmd: ['gzip', '--synchronous', 'in.bin'], opens: [0, 1, 2] },
  // an open that nothing moved through and that nobody inherited stays red
  { name: "dash runs ': > empty' (a builtin: nothing moves, nothing inherits)", cmd: ['sh', '-c', ': > empty'], redOpens: 1 },
];

let strace = '';
before(() => {
  buildTests();
  strace = requireBinary('strace');
  for (const b of ['sh', 'bash', 'cat', 'cp', 'wc', 'perl', 'gzip']) requireBinary(b);
});

/**
 * Runs cmd once under the profiler (in base/prof) and once under strace (in base/trace), each
 * directory first given its files by `prepare`; both runs must succeed. The profiler's dump, strace's
 * calls, and the directory strace ran in (the calls' paths are in it).
 */
async function profiledAndTraced(base: string, cmdLine: readonly string[], prepare: (dir: string) => void): Promise<{ dump: Dump; calls: StraceCall[]; traceDir: string }> {
  const [cmd, ...args] = cmdLine as [string, ...string[]];
  const profDir = join(base, 'prof');
  const traceDir = join(base, 'trace');
  for (const d of [profDir, traceDir]) {
    mkdirSync(d);
    prepare(d);
  }
  const prof = await runProfiled(cmd, args, { cwd: profDir, dir: tempDir() });
  removeDir(prof.dir);
  assert.equal(prof.status, 0, prof.stderr.toString());
  const prefix = join(base, 'strace-out');
  const st = spawnSync(strace, [...straceArgs(prefix, [...STRACE_CALLS, ...PROCESS_CALLS]), cmd, ...args], { cwd: traceDir, env: cleanEnv(), maxBuffer: 1 << 26 });
  assert.equal(st.status, 0, st.stderr.toString());
  return { dump: prof.dump, calls: readStraceCalls(prefix), traceDir };
}

describe('verdicts against strace: no false reds', () => {
  for (const c of cases) {
    test(c.name, async () => {
      const base = tempDir(SHM);
      try {
        const { dump, calls, traceDir } = await profiledAndTraced(base, c.cmd, inputs);
        const o = straceVerdicts(calls, traceDir);
        // the shell's opens are the shell's, the bytes moved through them the command's
        assertPerProgram(withPrograms(calls, traceDir), dump, traceDir);
        const all = onShm(dump);
        const why = JSON.stringify({ strace: o, profiler: all.map((b) => ({ calls: b.calls, reasons: b.reasons })) });
        // a transfer is red only when it failed or moved 1 byte to below the threshold; 0 bytes: green
        for (const [dir, side] of [
          ['read', o.reads],
          ['write', o.writes],
        ] as const) {
          assert.deepEqual(cls(all, dir), [side.failed + side.small, 0, greenOf(side)], `${dir}: ${why}`);
          assert.equal(eofCalls(all, dir), side.eof, `${dir}s of 0 bytes: ${why}`);
        }
        assert.ok(o.reads.eof > 0 || c.redOpens, 'the case meets the end of a file');
        // opens: as many as strace's; red only for the ones that failed or really moved nothing
        const opens = cls(all, 'open').map((n, i) => n + (cls(all, 'create')[i] ?? 0));
        assert.equal(
          opens.reduce((s, n) => s + n, 0),
          o.opens,
          `opens: ${why}`,
        );
        assert.equal(opens[0], o.failedOpens + (c.redOpens ?? 0), `red opens: ${why}`);
        assert.equal(reason(all, 'open_nothing_transferred'), c.redOpens ?? 0, why);
        if (c.opens) assert.deepEqual(opens, c.opens, `opens per class: ${why}`);
        if (c.redirector) {
          const shell = onShm(dump, c.redirector);
          assert.equal(reason(shell, 'open_bytes_unseen'), 1, `the ${c.redirector} redirection: ${why}`);
          assert.equal(reason(all, 'open_bytes_unseen'), 1, why);
        }
      } finally {
        removeDir(base);
      }
    });
  }
});

// A read that gets fewer bytes than it asked for met the end of the file: the program asked for more
// than was left, so its size tells how much was left, not how the program reads. Green, counted in
// its true size bins and apart (short_reads), so that cat, gzip or sed of a file whose size is no
// multiple of their block, or Python's f.read() of a small file (it asks one byte more than the
// file holds), get no red small read; a program that reads small blocks still does.
interface ShortCase {
  name: string;
  cmd: string[];
  /** strace's small reads (red) and short ones (green) on the files, pinned */
  small: number;
  short: number;
}
const END = 3 * 128 * 1024 + 1000; // 3 blocks of 128 KiB and 1000 bytes
const shortCases: ShortCase[] = [
  { name: 'cat of a file of 3 x 128 KiB + 1000 B and of a 1000 B file', cmd: ['cat', 'big.bin', 'small.bin'], small: 0, short: 2 },
  { name: 'gzip -c of the same two files', cmd: ['gzip', '-c', 'big.bin', 'small.bin'], small: 0, short: 2 },
  { name: 'python3 reading a 1 KiB file whole (f.read() asks 1025 bytes)', cmd: ['python3', '-I', '-S', '-c', "open('k.bin', 'rb').read()"], small: 0, short: 1 },
  // a vector read: what its buffers hold in all (1200) is what it asked, with or without an offset
  {
    name: 'python3 os.readv and os.preadv of 2 x 600 B from a 1000 B file',
    cmd: ['python3', '-I', '-S', '-c', "import os; fd = os.open('small.bin', os.O_RDONLY); os.readv(fd, [bytearray(600), bytearray(600)]); os.preadv(fd, [bytearray(600), bytearray(600)], 0)"],
    small: 0,
    short: 2,
  },
  // sed reads through stdio: buffer fills of 4 KiB (tmpfs's block), the last one short
  { name: 'sed through stdio (buffer fills of 4 KiB, the last one short)', cmd: ['sed', '-n', '$p', 'big.bin'], small: Math.floor(END / 4096), short: 1 },
  // reading in blocks of 100 B is what the red is for: every full one stays red, the last (16 B) is short
  { name: 'dd in blocks of 100 B: the full ones still small_read (red)', cmd: ['dd', 'if=big.bin', 'of=/dev/null', 'bs=100', 'status=none'], small: Math.floor(END / 100), short: 1 },
];

describe('verdicts against strace: reads that meet the end of a file', () => {
  before(() => {
    for (const b of ['cat', 'gzip', 'python3', 'sed', 'dd']) requireBinary(b);
  });
  for (const c of shortCases) {
    test(`${c.name}: the short reads green, counted apart, the classes and small bytes strace's`, async () => {
      const base = tempDir(SHM);
      try {
        const { dump, calls, traceDir } = await profiledAndTraced(base, c.cmd, (d) => {
          writeFileSync(join(d, 'big.bin'), Buffer.alloc(END, 7));
          writeFileSync(join(d, 'small.bin'), Buffer.alloc(1000, 8));
          writeFileSync(join(d, 'k.bin'), Buffer.alloc(1024, 9));
        });
        const o = straceVerdicts(calls, traceDir);
        assertPerProgram(withPrograms(calls, traceDir), dump, traceDir);
        const all = onShm(dump);
        const why = JSON.stringify({ strace: o, profiler: all.map((b) => ({ calls: b.calls.read, small: b.sizes.read.small, short: b.short_reads })) });
        assert.deepEqual([o.reads.small, o.reads.short], [c.small, c.short], `strace: ${why}`);
        assert.deepEqual(cls(all, 'read'), [o.reads.small, 0, greenOf(o.reads)], why);
        const shortReads = all.reduce((s, b) => s + b.short_reads[0], 0);
        assert.equal(shortReads, o.reads.short, why);
        // the small size bin holds both, with their exact bytes
        const inDir = (p: string | undefined): boolean => !!p && p.startsWith(traceDir + '/');
        const smallBytes = calls.filter((x) => /^(read|pread64|readv|preadv2?)$/.test(x.name) && inDir(x.fds[0]) && x.ret > 0 && x.ret < 32768).reduce((s, x) => s + x.ret, 0);
        assert.deepEqual([all.reduce((s, b) => s + b.sizes.read.small.calls, 0), all.reduce((s, b) => s + b.sizes.read.small.bytes, 0)], [o.reads.small + o.reads.short, smallBytes], why);
      } finally {
        removeDir(base);
      }
    });
  }
});

// preadv2 with RWF_NOWAIT returns what the page cache holds, so its short read says nothing of the end
// of the file: it keeps the size rule. The same program reads the same cached 100-byte tail with and
// without the flag; only the flagged run has a red small read, and one short read fewer. (On a file
// system that refuses the flag, e.g. tmpfs, the case cannot be made: skipped, saying so.)
test('preadv2 with RWF_NOWAIT: its short read keeps the size rule (red), the same read without the flag is green', async (t) => {
  requireBinary('python3');
  const base = tempDir(); // not /dev/shm: tmpfs refuses RWF_NOWAIT
  try {
    writeFileSync(join(base, 'tail.bin'), Buffer.alloc(4096 + 100, 5));
    // the whole file read first (cached, and that read is itself short: 4,196 of 8,192), then its tail
    const script = (flag: string): string => `import os; fd = os.open('tail.bin', os.O_RDONLY); os.pread(fd, 8192, 0); n = os.preadv(fd, [bytearray(4096)], 4096, ${flag}); assert n == 100, n`;
    const probe = spawnSync('python3', ['-I', '-S', '-c', script('os.RWF_NOWAIT')], { cwd: base, env: cleanEnv() });
    if (probe.status !== 0) {
      t.skip(`the file system of ${base} refuses preadv2 with RWF_NOWAIT: ${probe.stderr.toString().trim().split('\n').pop()}`);
      return;
    }
    const mount = mountOf(realpathSync(base));
    const counts = async (flag: string): Promise<{ red: number; short: number; smallBin: number; reads: number }> => {
      const prof = await runProfiled('python3', ['-I', '-S', '-c', script(flag)], { cwd: base, dir: tempDir() });
      removeDir(prof.dir);
      assert.equal(prof.status, 0, prof.stderr.toString());
      const bodies = prof.dump.processes.flatMap((p) => p.mounts.filter((m) => m.path === mount));
      return {
        red: cls(bodies, 'read')[0],
        short: bodies.reduce((s, b) => s + b.short_reads[0], 0),
        smallBin: bodies.reduce((s, b) => s + b.sizes.read.small.calls, 0),
        reads: cls(bodies, 'read').reduce((s, n) => s + n, 0),
      };
    };
    const plain = await counts('0');
    const nowait = await counts('os.RWF_NOWAIT');
    const why = JSON.stringify({ mount, plain, nowait });
    // the same calls, sizes and bins; only the tail's verdict differs
    assert.deepEqual([nowait.reads, nowait.smallBin], [plain.reads, plain.smallBin], why);
    assert.deepEqual([nowait.red - plain.red, plain.short - nowait.short], [1, 1], why);
  } finally {
    removeDir(base);
  }
});

// dd reading a FIFO on the file system: its open waits for the writer and the bytes move through a
// pipe, not the file system; the open is counted (a path lookup), green, not "moved no byte" (it was
// red, and its wait, when timed, the job's top finding). Its reads are not file I/O: only ignored.
test("dd reading a FIFO: the FIFO's open is green, not red; its bytes are not the file system's", async () => {
  requireBinary('dd');
  requireBinary('mkfifo');
  const base = tempDir(SHM);
  try {
    const script = 'mkfifo gate && { head -c 65536 in.bin > gate & } && dd if=gate of=dd.out bs=512 iflag=fullblock status=none && wait';
    writeFileSync(join(base, 'in.bin'), Buffer.alloc(1 << 20, 7));
    const prof = await runProfiled('sh', ['-c', script], { cwd: base, dir: tempDir() });
    removeDir(prof.dir);
    assert.equal(prof.status, 0, prof.stderr.toString());
    const dd = onShm(prof.dump, 'dd');
    const why = JSON.stringify(dd.map((b) => ({ calls: b.calls, reasons: b.reasons })));
    // the FIFO's open and dd.out's create: neither red; dd.out got 64 KiB, at or above the threshold
    const opens = cls(dd, 'open').map((n, i) => n + (cls(dd, 'create')[i] ?? 0));
    assert.deepEqual(opens, [0, 0, 2], why);
    assert.equal(reason(dd, 'open_nothing_transferred'), 0, why);
    // the FIFO's 128 reads of 512 B are not counted on the mount; dd.out's 128 writes of 512 B are
    assert.deepEqual(cls(dd, 'read'), [0, 0, 0], why);
    assert.deepEqual(cls(dd, 'write'), [128, 0, 0], why);
  } finally {
    removeDir(base);
  }
});

describe('verdicts against strace: MPI-IO collective opens (Open MPI)', () => {
  test("4 ranks, one collective write: no rank's open of the file or of its lock-test file is red", async () => {
    const mpirun = requireBinary('mpirun', 'openmpi-bin');
    const base = tempDir(SHM);
    const work = tempDir();
    try {
      const program = buildMpiProgram('mpi-io-collective', work);
      // btl self,tcp: no shared-memory segments on /dev/shm beside the job's own file
      const args = [...MPIRUN_LOCAL, '-n', '4', program];
      const profDir = join(base, 'prof');
      const traceDir = join(base, 'trace');
      mkdirSync(profDir);
      mkdirSync(traceDir);
      const prof = await runProfiled(mpirun, [...args, join(profDir, 'out.dat')], { cwd: work, dir: tempDir(), timeoutMs: 120_000 });
      removeDir(prof.dir);
      assert.equal(prof.status, 0, prof.stderr.toString());
      const prefix = join(base, 'strace-out');
      const st = spawnSync(strace, [...straceArgs(prefix, STRACE_CALLS), mpirun, ...args, join(traceDir, 'out.dat')], {
        cwd: work,
        env: cleanEnv(),
        timeout: 120_000,
      });
      assert.equal(st.status, 0, st.stderr.toString());
      const o = straceVerdicts(readStraceCalls(prefix), traceDir);
      // the MPI-IO library's calls (the program makes none of its own there; what MPI_Init and
      // MPI_Finalize did is the MPI runtime's)
      const ranks = onShm(prof.dump, 'mpi-io-collective').filter((b) => b.component === 'mpi-io');
      const runtime = onShm(prof.dump, 'mpi-io-collective').filter((b) => b.component === 'mpi-runtime');
      const own = onShm(prof.dump, 'mpi-io-collective').filter((b) => b.component === '');
      const why = JSON.stringify({ strace: o, profiler: ranks.map((b) => ({ calls: b.calls, reasons: b.reasons })) });
      assert.equal(ranks.length, 4, why);
      assert.deepEqual(
        own.map((b) => Object.values(b.calls).reduce((n, c) => n + c.red + c.yellow + c.green, 0)).filter((n) => n > 0),
        [],
        why,
      );
      // the file and a lock-test file on every rank: 8 opens, none failed
      assert.equal(o.opens, 8, why);
      assert.equal(o.failedOpens, 0, why);
      const opens = cls(ranks, 'open').map((n, i) => n + (cls(ranks, 'create')[i] ?? 0));
      // the aggregator's open moved its 64 KiB (green); the other ranks' and the lock-test files' none
      assert.deepEqual(opens, [0, o.opens - 1, 1], `opens: ${why}`);
      assert.equal(reason(ranks, 'open_bytes_unseen'), o.opens - 1, why);
      assert.equal(reason(ranks, 'open_nothing_transferred'), 0, why);
      // the aggregator's write: 64 KiB in one call (the transfers themselves are counted as ever)
      assert.deepEqual(cls(ranks, 'write'), [o.writes.failed + o.writes.small, 0, o.writes.big], `writes: ${why}`);
      assert.equal(o.writes.small + o.writes.big, 1, why);
      // the stat MPI_File_open makes of the file (after opening it) is used, yellow, on every rank,
      // and the library's only stat there; the MPI runtime's start-up checks of /dev/shm itself
      // (access W_OK, in MPI_Init: no file of the job) are the runtime's, red, never failed
      const stats = straceStats(readStraceCalls(prefix), traceDir);
      assert.equal(stats.ok, 4, `strace: one stat of the file per rank: ${why}`);
      assert.deepEqual(cls(ranks, 'access'), [0, stats.ok, 0], why);
      assert.equal(runtime.length, 4, why);
      assert.deepEqual(cls(runtime, 'access'), [reason(runtime, 'stat_unused'), 0, 0], why);
      assert.ok(reason(runtime, 'stat_unused') >= 4, why);
    } finally {
      removeDir(base);
      removeDir(work);
    }
  });
});

describe('verdicts against strace: the ranks of one MPI job (Open MPI)', () => {
  test("mpirun -np 2: each rank's reads, writes and opens per class equal strace's of that rank; the two are one program", async () => {
    const mpirun = requireBinary('mpirun', 'openmpi-bin');
    const base = tempDir(SHM);
    const work = tempDir();
    try {
      const program = buildMpiProgram('mpi-frames', work);
      const args = [...MPIRUN_LOCAL, '-n', '2', program];
      const env = MPI_AS_ROOT_ENV;
      const profDir = join(base, 'prof');
      const traceDir = join(base, 'trace');
      mkdirSync(profDir);
      mkdirSync(traceDir);
      const prof = await runProfiled(mpirun, [...args, profDir], { cwd: work, dir: tempDir(), env, timeoutMs: 120_000 });
      removeDir(prof.dir);
      assert.equal(prof.status, 0, prof.stderr.toString());
      const prefix = join(base, 'strace-out');
      const st = spawnSync(strace, [...straceArgs(prefix, STRACE_CALLS), mpirun, ...args, traceDir], {
        cwd: work,
        env: cleanEnv(env),
        timeout: 120_000,
      });
      assert.equal(st.status, 0, st.stderr.toString());
      // each rank (told apart by its writes): strace's transfers and opens of that process in the
      // job's directory, the profiler's of that process on /dev/shm (where the job's files are all)
      const calls = readStraceCalls(prefix);
      const perRank = [...new Set(calls.map((c) => c.pid))]
        .map((pid) =>
          straceVerdicts(
            calls.filter((c) => c.pid === pid),
            traceDir,
            work,
          ),
        )
        .filter((v) => v.opens > 0)
        .sort((a, b) => a.writes.small - b.writes.small);
      // the program's own calls (what MPI_Init did there, its checks of /dev/shm, is the runtime's)
      const shm = (p: DumpProcess): DumpMount[] => p.mounts.filter((m) => m.path === SHM && m.component === '');
      const ranks = prof.dump.processes.filter((p) => p.exe === 'mpi-frames').sort((a, b) => cls(shm(a), 'write')[0] - cls(shm(b), 'write')[0]);
      const why = JSON.stringify({ strace: perRank, profiler: ranks.map((p) => shm(p).map((m) => m.calls)) });
      assert.equal(perRank.length, 2, why);
      assert.equal(ranks.length, 2, why);
      ranks.forEach((p, r) => {
        const o = perRank[r]!;
        const mine = shm(p);
        assert.deepEqual(cls(mine, 'read'), [o.reads.failed + o.reads.small, 0, greenOf(o.reads)], `rank ${r}: ${why}`);
        assert.deepEqual(cls(mine, 'write'), [o.writes.failed + o.writes.small, 0, greenOf(o.writes)], `rank ${r}: ${why}`);
        const opens = cls(mine, 'open').map((n, i) => n + (cls(mine, 'create')[i] ?? 0));
        assert.equal(opens[0]! + opens[1]! + opens[2]!, o.opens, `rank ${r}: ${why}`);
      });
      // strace: rank 0 wrote 10 records, rank 1 20; one program for both, their calls summed
      assert.deepEqual(
        perRank.map((v) => v.writes.small),
        [10, 20],
      );
      assert.deepEqual(cls(onShm(prof.dump, 'mpi-frames'), 'write'), [30, 0, 0]);
      assert.equal(programOf('mpi-frames').role, 'job');
    } finally {
      removeDir(base);
      removeDir(work);
    }
  });

  test("what MPI_Init and MPI_Finalize do is the MPI runtime's: per rank, its opens, reads and writes on / are the ones strace -ttt sees between the marks around them", async () => {
    const mpirun = requireBinary('mpirun', 'openmpi-bin');
    const base = tempDir(SHM);
    const work = tempDir();
    try {
      const program = buildMpiProgram('mpi-frames', work);
      const prefix = join(base, 'strace-out');
      // strace inside the profiled run (not profiled itself), so both see the same calls; the stats
      // are left out: strace would also see those the library makes itself
      const prof = await runProfiled(strace, [...straceArgs(prefix, [...STRACE_CALLS, ...PROCESS_CALLS], true), mpirun, ...MPIRUN_LOCAL, '-n', '2', program, base], {
        cwd: work,
        dir: tempDir(),
        env: { ...MPI_AS_ROOT_ENV, JOBIO_EXCLUDE: 'strace' },
        timeoutMs: 120_000,
      });
      removeDir(prof.dir);
      assert.equal(prof.status, 0, prof.stderr.toString());
      const calls = readStraceCalls(prefix);
      const pidOf = processOfThreads(calls);
      // a transfer's file is its descriptor's, an open's the path it names
      const target = (c: StraceCall): string | undefined => {
        const path = /^(?:AT_FDCWD<[^>]*>|\d+<[^>]*>)?,? ?"([^"]*)"/.exec(c.args)?.[1];
        if (kind(c) !== 'open' || path === undefined) return c.fds[0];
        return resolve(/^AT_FDCWD<([^>]*)>/.exec(c.args)?.[1] ?? /^\d+<([^>]*)>/.exec(c.args)?.[1] ?? work, path);
      };
      const kind = (c: StraceCall): 'read' | 'write' | 'open' | undefined =>
        /^(read|pread64|readv|preadv2?)$/.test(c.name) ? 'read' : /^(write|pwrite64|writev|pwritev2?)$/.test(c.name) ? 'write' : /^(open|openat|creat)$/.test(c.name) ? 'open' : undefined;
      // the dynamic loader's opens and reads of shared objects (at the start, and in the dlopen of
      // the runtime's components) are made inside ld.so, where no wrapper is: not counted
      const sharedObject = (p: string): boolean => /\.so(\.[\d.]+)?$/.test(p) || p === '/etc/ld.so.cache';
      const ranks = prof.dump.processes.filter((p) => p.exe === 'mpi-frames');
      assert.equal(ranks.length, 2);
      for (const rank of ranks) {
        // the rank's threads, from its exec on (before, the process was the launcher's child)
        const exec = calls.find((c) => c.pid === rank.pid && c.name === 'execve' && c.ret === 0);
        assert.ok(exec, `rank ${rank.pid}: its exec`);
        const mine = calls.filter((c) => pidOf(c.pid) === rank.pid && c.t >= exec.t);
        const at = (what: string): number => {
          const m = mine.find((c) => c.args.startsWith(`"/proc/self/jobio-mark-${what}"`));
          assert.ok(m, `rank ${rank.pid}: the mark ${what}`);
          return m.t;
        };
        const windows = [
          [at('init'), at('init-done')],
          [at('finalize'), at('finalize-done')],
        ];
        const expected = { runtime: { read: 0, write: 0, open: 0 }, program: { read: 0, write: 0, open: 0 } };
        for (const c of mine) {
          const k = kind(c);
          const p = target(c);
          if (!k || !p?.startsWith('/') || mountOf(p) !== '/' || sharedObject(p)) continue;
          expected[windows.some(([from, to]) => c.t >= from! && c.t <= to!) ? 'runtime' : 'program'][k]++;
        }
        const sum = (ms: DumpMount[], call: string): number => cls(ms, call).reduce((a, b) => a + b, 0);
        const got = (component: '' | 'mpi-runtime') => {
          const ms = rank.mounts.filter((m) => m.path === '/' && m.component === component);
          return { read: sum(ms, 'read'), write: sum(ms, 'write'), open: sum(ms, 'open') + sum(ms, 'create') };
        };
        const why = JSON.stringify({ expected, windows });
        assert.ok(expected.runtime.open >= 10, `strace: MPI_Init opened its files: ${why}`);
        assert.deepEqual({ runtime: got('mpi-runtime'), program: got('') }, expected, why);
      }
    } finally {
      removeDir(base);
      removeDir(work);
    }
  });
});

// Owner and times: each one a setattr on a parallel file system's metadata server (rsync -a made
// thousands), counted as fschange (reason metadata_change) like chmod, whichever libc entry made them;
// so are the renames and directory creations rsync -a also makes (its temporary files renamed).
const SETATTR = ['chown', 'lchown', 'fchown', 'fchownat', 'utimensat', 'chmod', 'fchmod', 'fchmodat', 'rename', 'renameat', 'renameat2', 'mkdir', 'mkdirat'];

describe('verdicts against strace: owner and time changes are counted', () => {
  const cmds: [string, string[]][] = [
    ['touch', ['touch', 'small.txt', 'new.txt']],
    ['chown', ['chown', `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`, 'small.txt', 'in.bin']],
    ['cp -p', ['cp', '-p', 'small.txt', 'copy.txt']],
    ['touch -h -d (utimensat on a path)', ['touch', '-h', '-d', '2024-01-01', 'small.txt']],
    // perl's utime calls the older utimes (a path) and futimes (a handle); glibc makes each a utimensat
    ['perl utime (utimes, futimes)', ['perl', '-e', 'open my $f, "<", "small.txt" or die; utime undef, undef, $f or die; utime undef, undef, "small.txt", "in.bin" or die']],
    // three rsync processes (sender, generator, receiver): modes, times, temporary files renamed; the
    // sources are dated in the past, so rsync always sets the copies' directory times (with sources
    // made in the same second as the copies it may not, and the two runs would differ)
    ['rsync -a', ['sh', '-c', 'mkdir -p src/d && cp small.txt src/ && cp small.txt src/d/ && touch -d @1600000000 src/d/small.txt src/small.txt src/d src && rsync -a src/ dst/']],
  ];
  for (const [name, cmd] of cmds) {
    test(`${name}: fschange calls equal strace's chown/utimensat/chmod calls on the directory`, async () => {
      const base = tempDir(SHM);
      try {
        const profDir = join(base, 'prof');
        const traceDir = join(base, 'trace');
        for (const d of [profDir, traceDir]) {
          mkdirSync(d);
          inputs(d);
        }
        const [c0, ...args] = cmd as [string, ...string[]];
        const prof = await runProfiled(c0, args, { cwd: profDir, dir: tempDir() });
        removeDir(prof.dir);
        assert.equal(prof.status, 0, prof.stderr.toString());
        const prefix = join(base, 'strace-out');
        const st = spawnSync(strace, [...straceArgs(prefix, [...SETATTR, ...PROCESS_CALLS]), c0, ...args], {
          cwd: traceDir,
          env: cleanEnv(),
        });
        assert.equal(st.status, 0, st.stderr.toString());
        // per program (rsync's three processes, and the mkdir, cp and touch before them)
        const expected = new Map<string, number>();
        for (const { name: call, args: a, ret, fds, program } of withPrograms(readStraceCalls(prefix), traceDir)) {
          if (!SETATTR.includes(call) || ret < 0) continue;
          const path = /"([^"]*)"/.exec(a)?.[1];
          const at = /^AT_FDCWD<([^>]*)>/.exec(a)?.[1] ?? /^\d+<([^>]*)>/.exec(a)?.[1] ?? traceDir;
          const target = path === undefined || path === '' ? fds[0] : resolve(at, path);
          if (target && (target === traceDir || target.startsWith(traceDir + '/'))) expected.set(program, (expected.get(program) ?? 0) + 1);
        }
        assert.ok(expected.size > 0, `strace saw the calls (${name})`);
        const ours = new Map([...new Set(prof.dump.processes.map((p) => p.exe))].map((exe) => [exe, cls(onShm(prof.dump, exe), 'fschange')] as const).filter(([, x]) => x[0] + x[1] + x[2] > 0));
        assert.deepEqual([...ours].sort(), [...expected].map(([p, n]) => [p, [0, n, 0]]).sort(), name);
      } finally {
        removeDir(base);
      }
    });
  }
});

describe('verdicts against strace: mkstemp opens are counted', () => {
  test('mkstemp, mkostemp, mkstemps (called through ctypes): one create each, as strace sees the opens', async () => {
    const python = requireBinary('python3');
    const script = [
      'import ctypes, os',
      'libc = ctypes.CDLL(None)',
      "for name, args in (('mkstemp', ()), ('mkostemp', (os.O_CLOEXEC,)), ('mkstemps', (4,))):",
      "    t = ctypes.create_string_buffer(b'tmp-XXXXXX.dat' if name == 'mkstemps' else b'tmp-XXXXXX')",
      '    fd = getattr(libc, name)(t, *args)',
      '    assert fd >= 0',
      "    os.write(fd, b'x' * 40000)",
      '    os.close(fd)',
    ].join('\n');
    const base = tempDir(SHM);
    try {
      const profDir = join(base, 'prof');
      const traceDir = join(base, 'trace');
      mkdirSync(profDir);
      mkdirSync(traceDir);
      const prof = await runProfiled(python, ['-c', script], { cwd: profDir, dir: tempDir() });
      removeDir(prof.dir);
      assert.equal(prof.status, 0, prof.stderr.toString());
      const prefix = join(base, 'strace-out');
      const st = spawnSync(strace, ['-f', '-ff', '-qq', '-y', '-e', `trace=${STRACE_CALLS.join(',')}`, '-e', 'signal=none', '-o', prefix, python, '-c', script], { cwd: traceDir, env: cleanEnv() });
      assert.equal(st.status, 0, st.stderr.toString());
      const o = straceVerdicts(readStraceCalls(prefix), traceDir);
      const all = onShm(prof.dump);
      assert.equal(o.exclOpens, 3, 'strace: the three temporary files');
      // created, and 40000 bytes written through each: green
      assert.deepEqual(cls(all, 'create'), [0, 0, o.exclOpens]);
      // (the other opens: Python's import system lists the directory, an opendir: yellow)
      assert.deepEqual(cls(all, 'open'), [0, o.opens - o.exclOpens, 0]);
      assert.deepEqual(cls(all, 'write'), [0, 0, o.writes.big]);
    } finally {
      removeDir(base);
    }
  });
});

/** strace's seeks on dir's files, classified as the profiler classifies them: the kernel offset of
 * each descriptor followed through its opens, reads, writes and seeks (one process). */
function straceSeeks(prefix: string, dir: string): { red: number; yellow: number; zero: number; backward: number; stats: number } {
  const inDir = (p: string | undefined): boolean => !!p && (p === dir || p.startsWith(dir + '/'));
  const off = new Map<string, number>();
  const s = { red: 0, yellow: 0, zero: 0, backward: 0, stats: 0 };
  for (const { name, args, ret, fds } of readStraceCalls(prefix)) {
    const fd = /^(\d+)</.exec(args)?.[1];
    if (name === 'openat' && ret >= 0) off.set(String(ret), 0);
    const path = /^AT_FDCWD<[^>]*>, "([^"]*)"/.exec(args)?.[1];
    if (name === 'newfstatat' && path !== undefined && ret === 0 && inDir(resolve(dir, path))) s.stats++;
    if (!fd || !inDir(fds[0])) continue;
    if ((name === 'read' || name === 'write') && ret > 0) off.set(fd, (off.get(fd) ?? 0) + ret);
    else if (name === 'newfstatat' && /, "", /.test(args)) s.stats++;
    else if (name === 'lseek') {
      const before = off.get(fd) ?? -1;
      if (ret < 0) s.red++;
      else if (ret > before) s.yellow++;
      else {
        s.red++;
        if (ret === before) s.zero++;
        else s.backward++;
      }
      if (ret >= 0) off.set(fd, ret);
    }
  }
  return s;
}

// glibc's stdio seeks inside fseek (to the block it then reads, or to where it already is, to resync
// the kernel) and asks the kernel inside ftell when it does not know the offset: lseeks nobody calls
// by name, deduced from the stream (binutils, ImageMagick and tar read this way).
describe('verdicts against strace: the seeks and reads stdio makes inside fseek and ftell are counted', () => {
  const cmds: [string, string[]][] = [
    ['readelf -a (fseek, fread: thousands of seeks)', ['readelf', '-a', 'prog.elf']],
    ['objdump -d (fseek, fread)', ['objdump', '-d', 'prog.elf']],
    // lua's file:seek is fseek then ftell; an append-only stream is seeked to its end by fopen
    [
      'lua (file:seek: fseek and ftell; fopen with "a")',
      [
        'lua',
        '-e',
        [
          'local f = assert(io.open("prog.elf", "rb"))',
          'f:read(10); f:seek(); f:seek("set", 50000); f:read(5); f:seek("cur"); f:seek("cur", 3000); f:read(100)',
          'f:seek("end", -10); f:read(10); f:seek("set", 4); f:seek(); f:close()',
          'for _ = 1, 2 do local g = assert(io.open("out.txt", "a")); g:write("abc"); g:seek(); g:write("de"); g:close() end',
        ].join(' '),
      ],
    ],
    // seeks past the end of a 4,200-byte file (4 KiB blocks): glibc reads the target's block, gets
    // less than the target's distance into it (104 bytes, then none) and seeks the rest from there
    [
      'lua (file:seek past the end of the file: a short block read, then a second lseek)',
      [
        'lua',
        '-e',
        [
          'local w = assert(io.open("small.dat", "wb")); w:write(string.rep("x", 4200)); w:close()',
          'local f = assert(io.open("small.dat", "rb"))',
          'f:seek("set", 4500); assert(f:read(1) == nil); f:seek("set", 10000); f:seek("set", 8192)',
          'f:seek("set", 100); assert(#f:read(10) == 10); f:seek("end", 300); f:seek("cur", 5); f:close()',
        ].join(' '),
      ],
    ],
  ];
  for (const [name, cmd] of cmds) {
    test(`${name}: seeks per class and reason, reads and fstats equal strace's`, async () => {
      const base = tempDir(SHM);
      try {
        const profDir = join(base, 'prof');
        const traceDir = join(base, 'trace');
        for (const d of [profDir, traceDir]) {
          mkdirSync(d);
          copyFileSync(requireBinary('ls'), join(d, 'prog.elf'));
        }
        const [c0, ...args] = cmd as [string, ...string[]];
        const prof = await runProfiled(c0, args, { cwd: profDir, dir: tempDir() });
        removeDir(prof.dir);
        assert.equal(prof.status, 0, prof.stderr.toString());
        const prefix = join(base, 'strace-out');
        const st = spawnSync(strace, ['-f', '-ff', '-qq', '-y', '-e', 'trace=openat,read,write,lseek,newfstatat', '-e', 'signal=none', '-o', prefix, c0, ...args], {
          cwd: traceDir,
          env: cleanEnv(),
          maxBuffer: 1 << 28,
        });
        assert.equal(st.status, 0, st.stderr.toString());
        const o = straceSeeks(prefix, traceDir);
        const v = straceVerdicts(readStraceCalls(prefix), traceDir);
        const all = onShm(prof.dump);
        assert.ok(o.red + o.yellow >= 8, `strace saw the seeks (${JSON.stringify(o)})`);
        assert.deepEqual(cls(all, 'seek'), [o.red, o.yellow, 0], JSON.stringify(o));
        assert.equal(reason(all, 'zero_seek'), o.zero);
        assert.equal(reason(all, 'backward_seek'), o.backward);
        assert.deepEqual(cls(all, 'read'), [v.reads.small, 0, greenOf(v.reads)]);
        assert.deepEqual(cls(all, 'write'), [v.writes.small, 0, greenOf(v.writes)]);
        // the stats of the path before its open, the fstat sizing the stream's buffer, fseek's to the end
        assert.deepEqual(cls(all, 'access'), [0, o.stats, 0]);
      } finally {
        removeDir(base);
      }
    });
  }
});

// dprintf prints through a stream glibc makes on the descriptor: an fstat, a position query and the
// write, none of them called by name.
describe('verdicts against strace: what dprintf makes is counted', () => {
  test('dprintf (called through ctypes): its fstats, position queries and writes equal strace', async () => {
    // the interpreter itself, not a wrapper script (pyenv's shim looks for version files in every
    // directory up from the working one); -I: no import looks in the working directory
    const python = execFileSync(requireBinary('python3'), ['-c', 'import sys; print(sys.executable)']).toString().trim();
    const script = [
      'import ctypes, os',
      'libc = ctypes.CDLL(None)',
      "fd = os.open('log.txt', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)",
      'for i in range(5):',
      "    assert libc.dprintf(fd, b'step %d of %s\\n', i, b'five') == 15",
      'os.lseek(fd, 0, os.SEEK_SET)',
      "assert libc.dprintf(fd, b'%s\\n', b'x' * 100) == 101",
      'os.close(fd)',
    ].join('\n');
    const base = tempDir(SHM);
    try {
      const profDir = join(base, 'prof');
      const traceDir = join(base, 'trace');
      mkdirSync(profDir);
      mkdirSync(traceDir);
      const prof = await runProfiled(python, ['-I', '-c', script], { cwd: profDir, dir: tempDir() });
      removeDir(prof.dir);
      assert.equal(prof.status, 0, prof.stderr.toString());
      const prefix = join(base, 'strace-out');
      const st = spawnSync(strace, ['-f', '-ff', '-qq', '-y', '-e', 'trace=openat,read,write,lseek,newfstatat', '-e', 'signal=none', '-o', prefix, python, '-I', '-c', script], {
        cwd: traceDir,
        env: cleanEnv(),
      });
      assert.equal(st.status, 0, st.stderr.toString());
      const o = straceSeeks(prefix, traceDir);
      const v = straceVerdicts(readStraceCalls(prefix), traceDir);
      const all = onShm(prof.dump);
      // strace: 6 fstats, 6 position queries (zero seeks), the program's own seek back, 6 writes
      assert.deepEqual([o.stats, o.zero, o.backward, v.writes.small], [6, 6, 1, 6]);
      assert.deepEqual(cls(all, 'access'), [0, o.stats, 0]);
      assert.deepEqual(cls(all, 'seek'), [o.red, o.yellow, 0]);
      assert.equal(reason(all, 'zero_seek'), o.zero);
      assert.equal(reason(all, 'backward_seek'), o.backward);
      assert.deepEqual(cls(all, 'write'), [v.writes.small, 0, v.writes.big]);
      assert.equal(
        all.reduce((s, b) => s + b.sizes.write.small.bytes, 0),
        5 * 15 + 101,
      );
    } finally {
      removeDir(base);
    }
  });
});

// A directory listing (opendir, or fdopendir of a directory the program opened) is a metadata read:
// the directory's open is counted and is `open_bytes_unseen`, not "moved no byte"; the fstat glibc
// makes of the directory is a stat (yellow); closedir is its close. readdir's getdents is not
// counted: every other call strace sees on the directory tree is, so the profiler's counts are
// strace's minus exactly the getdents64 calls.
describe('verdicts against strace: directory listings', () => {
  const cmds: [string, string[]][] = [
    ['ls -R (opendir)', ['ls', '-R', 'tree']],
    ['find (openat O_DIRECTORY, fdopendir)', ['find', 'tree']],
  ];
  for (const [name, cmd] of cmds) {
    test(`${name}: directory opens and closes equal strace's, the listed ones yellow`, async () => {
      const base = tempDir(SHM);
      try {
        const profDir = join(base, 'prof');
        const traceDir = join(base, 'trace');
        for (const d of [profDir, traceDir]) {
          for (const sub of ['tree/a/b', 'tree/c']) mkdirSync(join(d, sub), { recursive: true });
          for (const f of ['tree/a/f1', 'tree/a/b/f2', 'tree/c/f3']) writeFileSync(join(d, f), 'x');
        }
        const [c0, ...args] = cmd as [string, ...string[]];
        const prof = await runProfiled(c0, args, { cwd: profDir, dir: tempDir() });
        removeDir(prof.dir);
        assert.equal(prof.status, 0, prof.stderr.toString());
        const prefix = join(base, 'strace-out');
        const st = spawnSync(strace, ['-f', '-ff', '-qq', '-y', '-e', `trace=${[...STRACE_CALLS, 'close', 'getdents64'].join(',')}`, '-e', 'signal=none', '-o', prefix, c0, ...args], {
          cwd: traceDir,
          env: cleanEnv(),
        });
        assert.equal(st.status, 0, st.stderr.toString());
        const v = straceVerdicts(readStraceCalls(prefix), traceDir);
        const stats = straceStats(readStraceCalls(prefix), traceDir);
        const inTree = (p: string | undefined): boolean => !!p && p.startsWith(join(traceDir, 'tree'));
        const inDir = (p: string | undefined): boolean => !!p && (p === traceDir || p.startsWith(traceDir + '/'));
        const calls = readStraceCalls(prefix);
        const opened = (c: { args: string }): string => resolve(/^AT_FDCWD<([^>]*)>/.exec(c.args)?.[1] ?? /^\d+<([^>]*)>/.exec(c.args)?.[1] ?? traceDir, /"([^"]*)"/.exec(c.args)?.[1] ?? '');
        const dirOpens = calls.filter((c) => c.name === 'openat' && c.ret >= 0 && inTree(opened(c))).length;
        const closes = calls.filter((c) => c.name === 'close' && inDir(c.fds[0])).length;
        const listings = calls.filter((c) => c.name === 'getdents64' && inTree(c.fds[0])).length;
        const all = onShm(prof.dump);
        const why = JSON.stringify({ v, dirOpens, stats, closes, listings, calls: all.map((b) => b.calls), reasons: all.map((b) => b.reasons) });
        assert.equal(dirOpens, 4, `strace: the four directories opened: ${why}`);
        assert.ok(listings >= 4, why);
        // the directories listed: yellow, the listing unseen; another open (find keeps "." open to
        // come back to) moved nothing: red
        assert.deepEqual(cls(all, 'open'), [v.opens - dirOpens, dirOpens, 0], why);
        assert.equal(reason(all, 'open_bytes_unseen'), dirOpens, why);
        assert.deepEqual(cls(all, 'close'), [0, 0, closes], why);
        const sum = (c: [number, number, number]): number => c[0] + c[1] + c[2];
        // every stat strace saw, the fstat glibc makes of each listed directory included
        assert.equal(sum(cls(all, 'access')), stats.ok + stats.failed, why);
        // every call strace saw on the directory (reads, writes, opens, closes, stats, getdents64)
        // but the listings is counted
        const transfers = [v.reads, v.writes].reduce((n, x) => n + transfersOf(x), 0);
        const ours = ['open', 'create', 'close', 'access', 'read', 'write'].reduce((n, k) => n + sum(cls(all, k)), 0);
        assert.equal(ours, transfers + v.opens + closes + stats.ok + stats.failed, why);
      } finally {
        removeDir(base);
      }
    });
  }
});

interface ProgramCase {
  name: string;
  cmd: string[];
  setup: (dir: string) => void;
  /** the catalogue's family of every program that made calls on the files (docs/profiler.md "Who the hint is for") */
  family: ProgramFamily;
  /** programs that must be among them */
  programs: string[];
}

const inserts = Array.from({ length: 20 }, (_, i) => `INSERT INTO t(v) VALUES ('row ${i}');`);
const programCases: ProgramCase[] = [
  {
    name: 'sqlite3, rollback journal (a transaction per insert)',
    cmd: ['sqlite3', 'db.sqlite', ['CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT);', ...inserts, 'SELECT count(*) FROM t;'].join(' ')],
    setup: () => undefined,
    family: 'sqlite',
    programs: ['sqlite3'],
  },
  {
    name: 'sqlite3, WAL',
    cmd: ['sqlite3', 'db.sqlite', ['PRAGMA journal_mode=WAL;', 'CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT);', ...inserts, 'SELECT count(*) FROM t;'].join(' ')],
    setup: () => undefined,
    family: 'sqlite',
    programs: ['sqlite3'],
  },
  {
    name: 'python3 writing and reading 200 small files',
    cmd: [
      '/usr/bin/python3',
      '-I',
      '-S',
      '-B',
      '-c',
      "import os\nos.mkdir('d')\nfor i in range(200):\n    with open(f'd/f{i}.txt', 'w') as f:\n        f.write('x' * 1000)\nn = 0\nfor i in range(200):\n    with open(f'd/f{i}.txt') as f:\n        n += len(f.read())\nprint(n)",
    ],
    setup: () => undefined,
    family: 'interpreter',
    programs: ['python3.11'],
  },
  {
    // the compiler's temporary files in $TMPDIR, on the same mount: cc makes their names, cc1 writes
    // the assembly, as reads it and writes the object, collect2 runs ld
    name: 'make -j2 of a small C project (cc, cc1, as, collect2, ld)',
    cmd: ['make', '-j2', '--no-print-directory'],
    setup: (d) => {
      writeCProject(d);
      mkdirSync(join(d, 'tmp'));
    },
    family: 'build',
    programs: ['make', 'cc1', 'collect2'],
  },
];

// Who made each call: strace's calls are given the program of the process that made them (followed
// through clone and execve), the profiler's are its processes' own; per program, the classes and
// reasons must be strace's, and the program's place in the catalogue (the hint's addressee) right.
describe('verdicts against strace, per program: sqlite3, python3, make', () => {
  for (const c of programCases) {
    test(`${c.name}: each program's calls per class and reason equal strace's calls of that program`, async () => {
      for (const p of ['sqlite3', 'make', 'cc']) requireBinary(p);
      const base = tempDir(SHM);
      try {
        const profDir = join(base, 'prof');
        const traceDir = join(base, 'trace');
        for (const d of [profDir, traceDir]) {
          mkdirSync(d);
          c.setup(d);
        }
        const [c0, ...args] = c.cmd as [string, ...string[]];
        const prof = await runProfiled(c0, args, { cwd: profDir, dir: tempDir(), env: { TMPDIR: join(profDir, 'tmp') }, timeoutMs: 120_000 });
        removeDir(prof.dir);
        assert.equal(prof.status, 0, prof.stderr.toString());
        const prefix = join(base, 'strace-out');
        const st = spawnSync(strace, ['-f', '-ff', '-qq', '-y', '-e', `trace=${[...STRACE_CALLS, ...PROCESS_CALLS].join(',')}`, '-e', 'signal=none', '-o', prefix, c0, ...args], {
          cwd: traceDir,
          env: cleanEnv({ TMPDIR: join(traceDir, 'tmp') }),
          timeout: 120_000,
        });
        assert.equal(st.status, 0, st.stderr.toString());
        assert.equal(prof.stdout.toString(), st.stdout.toString(), 'same output');
        const programs = assertPerProgram(withPrograms(readStraceCalls(prefix), traceDir), prof.dump, traceDir);
        for (const p of c.programs) assert.ok(programs.includes(p), `${p} in ${programs.join(',')}`);
        for (const p of programs) {
          const program = programOf(p);
          assert.equal(program.family, c.family, p);
          assert.equal(program.role, c.family === 'interpreter' ? 'job' : 'tool', p);
        }
        // SQLite's journals are a component of the process (its hint SQLite's too): every open of
        // a journal's name is the component's, none the program's
        if (c.family === 'sqlite') {
          const journals = onShm(prof.dump, 'sqlite3').filter((m) => m.component === 'sqlite-journal');
          const own = onShm(prof.dump, 'sqlite3').filter((m) => m.component === '');
          const opens = (ms: DumpMount[]): number => cls(ms, 'open').reduce((a, b) => a + b, 0) + cls(ms, 'create').reduce((a, b) => a + b, 0);
          const sqliteOpens = withPrograms(readStraceCalls(prefix), traceDir).filter((x) => x.program === 'sqlite3' && /^open(at)?$/.test(x.name));
          const named = sqliteOpens.filter((x) => /-(journal|wal|shm)"/.test(x.args)).length;
          // and the opens of the database's directory, to sync it after creating a rollback journal
          const dirSyncs = sqliteOpens.filter((x) => x.args.includes(`"${traceDir}"`)).length;
          assert.ok(named >= 1, 'strace: sqlite3 opened a journal');
          assert.equal(opens(journals), named + dirSyncs, JSON.stringify({ named, dirSyncs, journals: journals.map((m) => m.calls) }));
          const inTrace = sqliteOpens.filter((x) => resolve(traceDir, /"([^"]*)"/.exec(x.args)?.[1] ?? '/').startsWith(traceDir)).length;
          assert.equal(opens(own), inTrace - named - dirSyncs);
          assert.equal(programOf('sqlite3', '', 'sqlite-journal').role, 'library');
        }
      } finally {
        removeDir(base);
      }
    });
  }
});
