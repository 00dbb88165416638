// `jobio run --timeframe 1s` on programs of several processes: a shell redirection, a 2-rank Open MPI
// job, rsync -a, sqlite3 (a transaction per insert), python3 reading 2,000 small files and make -j2
// of a small C project. The oracle is strace -f -ttt inside the same run (so one run gives both):
// every call on /dev/shm is in the frame of the second its strace time falls in, and the run's
// verdicts name the program that made each call: the shell for its redirections, the command for the
// bytes moved through them, the MPI ranks as one program (one executable, the ranks' calls summed),
// the MPI launcher as the MPI runtime, never as the job's program; each program of the compiler
// toolchain its own calls.
//
// The frame a call may be counted in: the library's flush thread takes each process's snapshot 20 ms
// before a frame's end (JOBIO_FLUSH_LEAD_NS in native/profiler/src/process/flusher.c), so a call
// made in those last 20 ms is in the next frame. That is the only tolerance: by the end of frame k,
// the run counted at least the calls strace saw before 20 ms ahead of its end and at most those
// before its end. Opens and stats too, though their class is decided later (an open's at its close,
// a stat's when its path is opened or the process ends): they count in the frame they were made in,
// so sqlite3's database, open from the first statement to the exit, counts in the first statement's
// second. The jobs start each phase of their I/O 150 ms into a second of the run (they read the
// run's frame origin, JOBIO_FRAME_ORIGIN_NS), so a call near a frame's end is rare anyway.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { runJobio } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';
import { readValidLog, type LogRecord } from './mistral-schema.js';
import { MPIRUN_LOCAL, MPI_AS_ROOT_ENV, buildMpiProgram } from './mpi-program.js';
import { writeCProject } from '../profiler-native/c-project.js';
import { PROCESS_CALLS, STRACE_CALLS, readStraceCalls, straceArgs, straceStats, straceVerdicts, transfersOf, withPrograms, type StraceCall } from '../profiler-native/strace-oracle.js';

const SHM = '/dev/shm';
/** the interpreter itself, not a wrapper script (pyenv's shim is a bash script stat'ing its way around) */
const python = (): string => execFileSync(requireBinary('python3'), ['-c', 'import sys; print(sys.executable)']).toString().trim();
/** the flush thread's lead before a frame's end (native/profiler/src/process/flusher.c) */
const LEAD_MS = 20;

/** Sleeps until 150 ms into the first second of the run at least 300 ms ahead (as mpi-frames.c does). */
const ALIGN = `
import os, time
o = int(os.environ['JOBIO_FRAME_ORIGIN_NS'])
t = time.time_ns() + 300_000_000
at = o + ((t - o) // 10**9 + 1) * 10**9 + 150_000_000
if at - 10**9 >= t:
    at -= 10**9
time.sleep(max(0, at - time.time_ns()) / 1e9)
`;

/** The figures the frames and strace are compared on: calls per kind on /dev/shm. */
interface Kinds {
  read: number;
  write: number;
  open: number;
  /** the stat family and access */
  stat: number;
}
const KINDS = ['read', 'write', 'open', 'stat'] as const;

function straceKinds(calls: readonly StraceCall[], cwd: string): Kinds {
  const v = straceVerdicts(calls, SHM, cwd);
  const st = straceStats(calls, SHM, cwd);
  return { read: transfersOf(v.reads), write: transfersOf(v.writes), open: v.opens, stat: st.ok + st.failed };
}

/**
 * The stats strace saw that the library made itself (a strace inside the profiled run sees them
 * too), which the program did not make and the library does not count: its `fstat` of a descriptor
 * (the raw system call; glibc's fstat is newfstatat with AT_EMPTY_PATH) and its look for a path just
 * before an open that may create it (O_CREAT without O_EXCL: newfstatat of that path, flags 0, the
 * process's next call).
 */
function libraryStats(calls: readonly StraceCall[]): Set<StraceCall> {
  const own = new Set<StraceCall>();
  const byPid = new Map<number, StraceCall[]>();
  for (const c of calls) byPid.set(c.pid, [...(byPid.get(c.pid) ?? []), c]);
  for (const mine of byPid.values()) {
    mine.forEach((c, i) => {
      if (c.name === 'fstat') return void own.add(c);
      const next = mine[i + 1];
      if (c.name !== 'newfstatat' || !next || !/^(open|openat)$/.test(next.name)) return;
      const path = (x: StraceCall): string | undefined => /"([^"]*)"/.exec(x.args)?.[1];
      if (/, 0$/.test(c.args) && path(c) === path(next) && /O_CREAT/.test(next.args) && !/O_EXCL/.test(next.args)) own.add(c);
    });
  }
  return own;
}

/** The run's /dev/shm frames: second of the run → calls per kind. */
function frameKinds(records: LogRecord[], startMs: number): Map<number, Kinds> {
  // a frame of second k is stamped at its end, start + k + 1 s, in whole seconds (truncated)
  const second = (x: LogRecord): number => Math.ceil((Date.parse(String(x.timestamp)) - startMs) / 1000) - 1;
  const out = new Map<number, Kinds>();
  for (const f of records.filter((x) => x.type === 'mountpoint' && x.jobtotal === false && x.mountpoint.path === SHM)) {
    const c = (k: string): number => (f.io[k]?.calls.total as number | undefined) ?? 0;
    const k = second(f);
    const was = out.get(k) ?? { read: 0, write: 0, open: 0, stat: 0 };
    out.set(k, { read: was.read + c('read_all'), write: was.write + c('write_all'), open: was.open + c('open') + c('create'), stat: was.stat + c('access') });
  }
  return out;
}

/**
 * Frame by frame, the run's counts against strace's times: by the end of each second k, at least
 * the calls strace saw made before (end − lead) and at most those before the end; and in all,
 * exactly strace's. Stats: the lower bound and the total without the library's own (libraryStats).
 */
function assertFrames(records: LogRecord[], calls: readonly StraceCall[], cwd: string): void {
  const startMs = runStart(records);
  const frames = frameKinds(records, startMs);
  const last = Math.max(...frames.keys());
  const own = libraryStats(calls);
  const programs = calls.filter((c) => !own.has(c));
  const before = (ms: number, of: readonly StraceCall[] = calls): Kinds =>
    straceKinds(
      of.filter((c) => c.t * 1000 < ms),
      cwd,
    );
  const cumulative: Kinds = { read: 0, write: 0, open: 0, stat: 0 };
  const why = `frames ${JSON.stringify([...frames].sort((a, b) => a[0] - b[0]))}; strace per second ${JSON.stringify(
    Array.from({ length: last + 2 }, (_, k) =>
      straceKinds(
        programs.filter((c) => Math.floor((c.t * 1000 - startMs) / 1000) === k),
        cwd,
      ),
    ),
  )}`;
  for (let k = 0; k <= last; k++) {
    const f = frames.get(k);
    for (const kind of KINDS) cumulative[kind] += f?.[kind] ?? 0;
    const end = startMs + (k + 1) * 1000;
    const [low, high] = [before(end - LEAD_MS, programs), before(end)];
    for (const kind of KINDS) {
      assert.ok(low[kind] <= cumulative[kind] && cumulative[kind] <= high[kind], `${kind} by the end of second ${k}: ${cumulative[kind]}, strace ${low[kind]}..${high[kind]}; ${why}`);
    }
  }
  const all = straceKinds(programs, cwd);
  for (const kind of KINDS) assert.equal(cumulative[kind], all[kind], `${kind} in all: ${why}`);
  assert.ok(KINDS.some((kind) => all[kind] > 0) && frames.size >= 2, `the calls spread over frames: ${why}`);
}

/** The diagnosis's calls of one program on /dev/shm, per reason. */
function programReasons(records: LogRecord[], name: string): Map<string, number> {
  const d = records.find((x) => x.type === 'diagnosis') as LogRecord;
  const out = new Map<string, number>();
  for (const r of d.reasons as LogRecord[]) if (r.mount === SHM && r.program.name === name) out.set(r.reason, (out.get(r.reason) ?? 0) + (r.calls as number));
  return out;
}

/**
 * Program by program, the verdicts on /dev/shm are strace's calls of that program's processes: its
 * small reads and small writes (stats aside, see Kinds). Returns the programs that made calls there.
 */
function assertVerdicts(records: LogRecord[], calls: readonly (StraceCall & { program: string })[], cwd: string): string[] {
  const d = records.find((x) => x.type === 'diagnosis') as LogRecord;
  const named = new Set((d.reasons as LogRecord[]).filter((r) => r.mount === SHM).map((r) => r.program.name as string));
  const programs = [...new Set(calls.map((c) => c.program))].filter((p) => {
    const k = straceKinds(
      calls.filter((c) => c.program === p),
      cwd,
    );
    return k.read + k.write + k.open > 0;
  });
  for (const p of programs) {
    const mine = calls.filter((c) => c.program === p);
    const v = straceVerdicts(mine, SHM, cwd);
    const got = programReasons(records, p);
    const why = `${p}: strace ${JSON.stringify(v)}, verdicts ${JSON.stringify([...got])}`;
    assert.equal(got.get('small_read') ?? 0, v.reads.small, why);
    assert.equal(got.get('small_write') ?? 0, v.writes.small, why);
  }
  // no transfer is credited to a program strace did not see making calls there
  for (const n of named) assert.ok(programs.includes(n), `${n} in the verdicts, not in strace's ${programs.join(',')}`);
  return programs;
}

/** The run's start (ms since the epoch), from its job record. */
const runStart = (records: LogRecord[]): number => (records.find((x) => x.jobtotal === true && x.jobstarttime !== undefined) as LogRecord).jobstarttime as number;

/**
 * The calls (strace's, of one program) on /dev/shm fall in at least `seconds` seconds of the run:
 * the case's phases really are a second apart, so the frames have something to tell apart.
 */
function assertPhases(calls: readonly StraceCall[], records: LogRecord[], cwd: string, seconds: number): void {
  const startMs = runStart(records);
  const onShm = calls.filter((c) => {
    const k = straceKinds([c], cwd);
    return k.read + k.write + k.open > 0;
  });
  const spread = new Set(onShm.map((c) => Math.floor((c.t * 1000 - startMs) / 1000)));
  assert.ok(spread.size >= seconds, `calls in seconds ${[...spread].join(',')}`);
}

/** The program's reasons on /dev/shm have its role; those of a component inside it (`components`:
 * each one that must be there, with its role) that component's. */
function assertRoles(records: LogRecord[], name: string, role: 'job' | 'tool', components: Record<string, 'library' | 'runtime'> = {}): void {
  const d = records.find((x) => x.type === 'diagnosis') as LogRecord;
  const mine = (d.reasons as LogRecord[]).filter((r) => r.mount === SHM && r.program.name === name);
  assert.ok(mine.length > 0, `${name} has reasons on ${SHM}`);
  assert.ok(
    mine.every((r) => (r.program.component === undefined ? r.program.role === role : r.program.role === components[r.program.component as string])),
    JSON.stringify(mine.map((r) => [r.reason, r.program])),
  );
  for (const c of Object.keys(components))
    assert.ok(
      mine.some((r) => r.program.component === c),
      `${name} [${c}] has reasons on ${SHM}`,
    );
}

interface Traced {
  records: LogRecord[];
  calls: (StraceCall & { program: string })[];
}

/** jobio run --timeframe 1s -- strace -f -ttt ... cmd: the run's log and strace's calls with their programs. */
async function runTraced(work: string, cwd: string, cmd: readonly string[], env: Record<string, string> = {}): Promise<Traced> {
  const strace = requireBinary('strace');
  const out = join(work, 'out.jsonl');
  const prefix = join(work, 'st');
  const args = straceArgs(prefix, [...STRACE_CALLS, ...PROCESS_CALLS], true);
  // strace itself not profiled (its children are): it stats the traced processes' files to print
  // them (-y), calls that are not in its own output
  if (process.env.KEEP) rmSync(process.env.KEEP, { recursive: true, force: true });
  const r = await runJobio(['run', '--timeframe', '1s', '--output', out, '--', strace, ...args, ...cmd], { env: { JOBIO_EXCLUDE: 'strace', ...env }, timeoutMs: 180_000 });
  assert.equal(r.code, 0, r.stderr);
  if (process.env.KEEP) execFileSync('cp', ['-r', work, process.env.KEEP]);
  // POSIX shared-memory objects (shm_open, made by Open MPI's start-up): glibc opens /dev/shm/NAME
  // inside itself, where no wrapper sees it, and it is memory, not a file of the job's
  const shm = /^\/dev\/shm\/[^/]+$/;
  const object = (p: string | undefined): boolean => p !== undefined && p !== cwd && shm.test(p);
  const calls = readStraceCalls(prefix).filter((c) => !object(c.fds[0]) && !object(/"([^"]*)"/.exec(c.args)?.[1]));
  const named = withPrograms(calls, cwd);
  return { records: readValidLog(readFileSync(out, 'utf8')), calls: named };
}

describe('jobio run: each call in its frame and its program, against strace -f -ttt in the same run', () => {
  test('a shell redirection: the shell opens, cat and wc move the bytes, each phase in its second', async () => {
    const work = mkdtempSync(join(tmpdir(), 'jobio-frames-'));
    const data = mkdtempSync(join(SHM, 'jobio-frames-'));
    try {
      writeFileSync(join(work, 'align.py'), ALIGN);
      writeFileSync(join(data, 'in.bin'), Buffer.alloc(1 << 20, 7));
      writeFileSync(join(data, 'small.txt'), 'hello jobio\n'.repeat(100));
      const align = `${python()} -I -S ${join(work, 'align.py')}`;
      const script = [`cd ${data}`, align, 'cat in.bin > log', align, 'wc -c < log', align, 'cat small.txt >> log', align].join('; ');
      const { records, calls } = await runTraced(work, data, ['sh', '-c', script]);
      assertFrames(records, calls, data);
      const programs = assertVerdicts(records, calls, data);
      assert.deepEqual(programs.sort(), ['cat', 'dash', 'wc'].sort());
      // the shell's three redirections: opened by the shell, their bytes moved by cat and wc
      assert.equal(programReasons(records, 'dash').get('open_bytes_unseen'), 3);
      assert.equal(programReasons(records, 'dash').get('open_nothing_transferred'), undefined);
    } finally {
      rmSync(work, { recursive: true, force: true });
      rmSync(data, { recursive: true, force: true });
    }
  });

  test("rsync -a twice (three rsync processes each time): every call in its frame, all of them rsync's", async () => {
    requireBinary('rsync');
    const work = mkdtempSync(join(tmpdir(), 'jobio-frames-'));
    const data = mkdtempSync(join(SHM, 'jobio-frames-'));
    try {
      writeFileSync(join(work, 'align.py'), ALIGN);
      mkdirSync(join(data, 'src', 'd'), { recursive: true });
      for (const f of ['src/a.txt', 'src/d/b.txt']) writeFileSync(join(data, f), 'x'.repeat(5000));
      const align = `${python()} -I -S ${join(work, 'align.py')}`;
      const script = [`cd ${data}`, align, 'rsync -a src/ dst/', align, 'rsync -a src/ dst/', align].join('; ');
      const { records, calls } = await runTraced(work, data, ['sh', '-c', script]);
      assertFrames(records, calls, data);
      assert.deepEqual(assertVerdicts(records, calls, data), ['rsync']);
    } finally {
      rmSync(work, { recursive: true, force: true });
      rmSync(data, { recursive: true, force: true });
    }
  });

  test("mpirun -np 2: the ranks are one program with both ranks' calls, each call in its frame; the launcher is the MPI runtime", async () => {
    const mpirun = requireBinary('mpirun', 'openmpi-bin');
    const work = mkdtempSync(join(tmpdir(), 'jobio-frames-'));
    const data = mkdtempSync(join(SHM, 'jobio-frames-'));
    try {
      const program = buildMpiProgram('mpi-frames', work);
      // btl self,tcp: no shared-memory segments on /dev/shm beside the job's files; the launcher
      // (excluded by default) traced, to show where its calls go
      const { records, calls } = await runTraced(work, data, [mpirun, ...MPIRUN_LOCAL, '-np', '2', program, data], {
        ...MPI_AS_ROOT_ENV,
        JOBIO_TRACE_SCHEDULER: 'mpirun',
      });
      assertFrames(records, calls, data);
      const ranks = [...new Set(calls.filter((c) => c.program === 'mpi-frames').map((c) => c.pid))];
      const perRank = ranks
        .map(
          (pid) =>
            straceVerdicts(
              calls.filter((c) => c.pid === pid),
              SHM,
              data,
            ).writes.small,
        )
        .sort();
      // strace: rank 0 wrote 10 records, rank 1 20 (each its own process)
      assert.deepEqual(
        perRank.filter((n) => n > 0),
        [10, 20],
        `ranks ${ranks.join(',')}`,
      );
      assert.deepEqual(assertVerdicts(records, calls, data), ['mpi-frames']);
      const d = records.find((x) => x.type === 'diagnosis') as LogRecord;
      const mine = (d.reasons as LogRecord[]).filter((r) => r.program.name === 'mpi-frames');
      // one program: each reason once per mount and component (not once per rank); the job's own
      // code, but for what MPI_Init and MPI_Finalize did (the MPI runtime's: the configuration,
      // components and session files on /, its checks of /dev/shm)
      assert.equal(new Set(mine.map((r) => `${r.reason} ${r.mount} ${r.program.component}`)).size, mine.length);
      assert.ok(mine.every((r) => r.program.path === program && r.program.role === (r.program.component === 'mpi-runtime' ? 'runtime' : 'job')));
      assert.ok(mine.some((r) => r.program.component === 'mpi-runtime' && r.mount === '/'));
      assert.deepEqual(
        mine.filter((r) => r.mount === '/' && r.program.component === undefined),
        [],
        'the job made no call on / of its own',
      );
      assert.equal(programReasons(records, 'mpi-frames').get('small_write'), 30);
      assert.equal(programReasons(records, 'mpi-frames').get('small_read'), 30);
      // the launcher's own calls are the MPI runtime's
      const launcher = (d.reasons as LogRecord[]).filter((r) => r.program.name === 'orterun');
      assert.ok(launcher.length > 0, 'the launcher made calls');
      assert.ok(
        launcher.every((r) => r.program.role === 'runtime' && /MPI runtime/.test(r.program.label as string)),
        JSON.stringify(launcher.map((r) => r.program)),
      );
    } finally {
      rmSync(work, { recursive: true, force: true });
      rmSync(data, { recursive: true, force: true });
    }
  });

  test("sqlite3, a transaction per insert (rollback journal), fed in two phases a second apart: every call in its frame, all of them sqlite3's (its journals' as the sqlite-journal component)", async () => {
    requireBinary('sqlite3');
    const work = mkdtempSync(join(tmpdir(), 'jobio-frames-'));
    const data = mkdtempSync(join(SHM, 'jobio-frames-'));
    try {
      writeFileSync(join(work, 'align.py'), ALIGN);
      const align = `${python()} -I -S ${join(work, 'align.py')}`;
      const inserts = (from: number): string => Array.from({ length: 20 }, (_, i) => `INSERT INTO t(v) VALUES ('row ${from + i}');`).join(' ');
      // one sqlite3 process over both phases: the shell feeds its statements through a pipe, each
      // phase's at 150 ms into a second
      const feed = [align, `echo "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT); ${inserts(0)}"`, align, `echo "${inserts(20)} SELECT count(*) FROM t;"`].join('; ');
      const { records, calls } = await runTraced(work, data, ['sh', '-c', `cd ${data}; { ${feed}; } | sqlite3 db.sqlite; ${align}`]);
      assertFrames(records, calls, data);
      assert.deepEqual(assertVerdicts(records, calls, data), ['sqlite3']);
      const sqlite = calls.filter((c) => c.program === 'sqlite3');
      assert.equal(sqlite.filter((c) => c.name === 'execve' && c.ret === 0).length, 1, 'one sqlite3 process');
      assertPhases(sqlite, records, data, 2);
      // strace: every insert wrote the journal and the database (small writes)
      assert.ok(straceVerdicts(sqlite, SHM, data).writes.small >= 2 * 40, JSON.stringify(straceVerdicts(sqlite, SHM, data)));
      assertRoles(records, 'sqlite3', 'tool', { 'sqlite-journal': 'library' });
    } finally {
      rmSync(work, { recursive: true, force: true });
      rmSync(data, { recursive: true, force: true });
    }
  });

  test("python3 reading 2,000 files of 1 KiB in two phases a second apart: every call in its frame, the reads the script's", async () => {
    const work = mkdtempSync(join(tmpdir(), 'jobio-frames-'));
    const data = mkdtempSync(join(SHM, 'jobio-frames-'));
    try {
      mkdirSync(join(data, 'f'));
      for (let i = 0; i < 2000; i++) writeFileSync(join(data, 'f', String(i)), Buffer.alloc(1024, i % 256));
      const phase = (from: number): string => `n = 0\nfor i in range(${from}, ${from + 1000}):\n    with open(f'f/{i}', 'rb') as f:\n        n += len(f.read())\nassert n == 1000 * 1024\n`;
      // the script itself (and the interpreter's modules) outside /dev/shm: the job's calls there are its files'
      writeFileSync(join(work, 'read.py'), `${ALIGN}\n${phase(0)}\n${ALIGN}\n${phase(1000)}\n${ALIGN}`);
      const interpreter = python();
      const { records, calls } = await runTraced(work, data, ['sh', '-c', `cd ${data}; ${interpreter} -I -S -B ${join(work, 'read.py')}`]);
      assertFrames(records, calls, data);
      const name = basename(realpathSync(interpreter));
      assert.deepEqual(assertVerdicts(records, calls, data), [name]);
      const mine = calls.filter((c) => c.program === name);
      // strace: 2,000 reads of 1 KiB (and one at the end of each file), 1,000 in each phase; each
      // asked for a byte more than its file holds (f.read()), so it met the end of the file: short, green
      assert.equal(straceVerdicts(mine, SHM, data).reads.short, 2000);
      assertPhases(mine, records, data, 2);
      assertRoles(records, name, 'job');
    } finally {
      rmSync(work, { recursive: true, force: true });
      rmSync(data, { recursive: true, force: true });
    }
  });

  test('make -j2 of a small C project, then again after a change: every call in its frame, each compiler program its own', async () => {
    for (const p of ['make', 'cc']) requireBinary(p);
    const work = mkdtempSync(join(tmpdir(), 'jobio-frames-'));
    const data = mkdtempSync(join(SHM, 'jobio-frames-'));
    try {
      writeFileSync(join(work, 'align.py'), ALIGN);
      writeCProject(data);
      mkdirSync(join(data, 'tmp'));
      const align = `${python()} -I -S ${join(work, 'align.py')}`;
      // the compiler's temporary files on the mount too ($TMPDIR): cc names them, cc1 writes the
      // assembly, as reads it and writes the object, collect2 runs ld
      const make = 'make -j2 --no-print-directory';
      const script = [`cd ${data}`, `export TMPDIR=${join(data, 'tmp')}`, align, make, align, 'touch calc.c', make, align, './prog'].join('; ');
      const { records, calls } = await runTraced(work, data, ['sh', '-c', script]);
      assertFrames(records, calls, data);
      const programs = assertVerdicts(records, calls, data);
      // each program of the toolchain its own calls, named as its executable is (cc, as and ld are links)
      const exe = (name: string): string => basename(realpathSync(requireBinary(name)));
      assert.deepEqual(programs.sort(), ['make', exe('cc'), 'cc1', exe('as'), 'collect2', exe('ld'), 'touch'].sort());
      for (const p of programs) assertRoles(records, p, 'tool');
      assertPhases(
        calls.filter((c) => c.program === 'cc1'),
        records,
        data,
        2,
      );
    } finally {
      rmSync(work, { recursive: true, force: true });
      rmSync(data, { recursive: true, force: true });
    }
  });
});
