// SQLite's journals are a component of any process that embeds SQLite (docs/profiler.md, "Who the
// hint is for"): the calls on a path named as one of its journals (`-journal`, `-wal`, `-shm`), on
// the descriptors such opens return, and the open of the directory SQLite makes to sync a journal it
// created (with the calls on that descriptor) are `sqlite-journal`, not the program's. Checked on
// python3's sqlite3 module, a transaction per insert, against strace's calls in the same run,
// replayed in order with the same rule: the database file's own calls and the script's own file stay
// the program's, and every count is strace's.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { buildTests, callsOfKinds, componentOpens, removeDir, runProfiled, tempDir, testBin, type DumpMount } from './harness.js';
import { PROCESS_CALLS, STRACE_CALLS, readStraceCalls, straceArgs, withPrograms, withoutLibraryProbes, type StraceCall } from './strace-oracle.js';
import { requireBinary } from '../helpers/binaries.js';
import { programOf } from '../../exporter/src/profiler/programs.js';
import { hintFor } from '../../exporter/src/profiler/hints.js';

const SHM = '/dev/shm';
const INSERTS = 20;
const journalName = (p: string): boolean => /-(journal|wal|shm)$/.test(p);
/** The kinds of call the test compares, by strace's names. */
const KINDS: Record<string, string> = {
  open: 'open',
  openat: 'open',
  read: 'read',
  pread64: 'read',
  write: 'write',
  pwrite64: 'write',
  fsync: 'sync',
  fdatasync: 'sync',
  unlink: 'delete',
  unlinkat: 'delete',
  newfstatat: 'access',
  fstat: 'access',
  statx: 'access',
  stat: 'access',
  lstat: 'access',
  access: 'access',
  faccessat: 'access',
  faccessat2: 'access',
  close: 'close',
};
/** The calls whose first string argument is a path (the others' are data). */
const PATH_CALLS = new Set(['open', 'openat', 'unlink', 'unlinkat', 'newfstatat', 'statx', 'stat', 'lstat', 'access', 'faccessat', 'faccessat2']);
type Counts = Record<string, number>;
const zero = (): Counts => Object.fromEntries([...new Set(Object.values(KINDS))].map((k) => [k, 0]));

/**
 * The rule replayed on one process's calls in order: each call on a file of `mount` is the journal's
 * or the program's. A path named as a journal is the journal's; a descriptor is its open's; after a
 * rollback journal or write-ahead log opened by a thread, that thread's next open of its directory
 * is the journal's.
 */
function replay(calls: readonly StraceCall[], mount: string): { journal: Counts; program: Counts; dirOpens: number } {
  const journal = zero();
  const program = zero();
  const fdOwner = new Map<number, 'journal' | 'program'>();
  const awaited = new Map<number, string>();
  let dirOpens = 0;
  const inDir = (p: string | undefined): boolean => !!p && (p === mount || p.startsWith(mount + '/'));
  for (const c of calls) {
    const kind = KINDS[c.name];
    if (!kind) continue;
    const path = PATH_CALLS.has(c.name) ? /"([^"]*)"/.exec(c.args)?.[1] : undefined;
    const at = /^AT_FDCWD<([^>]*)>/.exec(c.args)?.[1] ?? /^\d+<([^>]*)>/.exec(c.args)?.[1] ?? mount;
    const fd = Number(/^(\d+)</.exec(c.args)?.[1] ?? NaN);
    let owner: 'journal' | 'program';
    if (path !== undefined && path !== '') {
      const target = resolve(at, path);
      if (!inDir(target)) continue;
      owner = journalName(target) ? 'journal' : 'program';
      if (kind === 'open') {
        // SQLite syncs the directory of a journal it opened to create (O_CREAT), not of one it only opened
        if (owner === 'journal' && /-(journal|wal)$/.test(target) && /O_CREAT/.test(c.args)) awaited.set(c.pid, dirname(target));
        else if (awaited.get(c.pid) === target) {
          owner = 'journal';
          awaited.delete(c.pid);
          dirOpens++;
        }
        if (c.ret >= 0) fdOwner.set(c.ret, owner);
      }
    } else {
      if (!inDir(c.fds[0])) continue;
      owner = fdOwner.get(fd) ?? 'program';
      if (kind === 'close') fdOwner.delete(fd);
    }
    (owner === 'journal' ? journal : program)[kind]!++;
  }
  return { journal, program, dirOpens };
}

const got = (ms: DumpMount[]): Counts => callsOfKinds(ms, Object.keys(zero()));

let strace = '';
let python3 = '';
before(() => {
  buildTests();
  strace = requireBinary('strace');
  python3 = requireBinary('python3');
});

interface Run {
  expected: ReturnType<typeof replay>;
  actual: { journal: Counts; program: Counts };
  onShm: DumpMount[];
  exe: string;
  why: string;
}

/** python3 -c SCRIPT (a table, INSERTS inserts each committed, then a file of the script's own) under
 * strace under the profiler; `pragma` is run first. */
async function runPython(pragma: string): Promise<Run> {
  const base = tempDir(SHM);
  const work = tempDir();
  try {
    const prefix = join(work, 'strace-out');
    const script = [
      'import sqlite3, os',
      `db = sqlite3.connect(${JSON.stringify(join(base, 'db.sqlite'))})`,
      ...(pragma ? [`db.execute(${JSON.stringify(pragma)})`] : []),
      "db.execute('CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT)')",
      'db.commit()',
      `for i in range(${INSERTS}):`,
      "    db.execute('INSERT INTO t VALUES (?, ?)', (i, 'x' * 100))",
      '    db.commit()',
      'db.close()',
      `open(${JSON.stringify(join(base, 'out.txt'))}, 'w').write('done')`,
      `os.stat(${JSON.stringify(join(base, 'out.txt'))})`,
    ].join('\n');
    const traced = [...STRACE_CALLS, ...PROCESS_CALLS, 'close', 'fsync', 'fdatasync', 'unlink', 'unlinkat'];
    const prof = await runProfiled(strace, [...straceArgs(prefix, traced), python3, '-c', script], {
      cwd: work,
      dir: tempDir(),
      env: { JOBIO_EXCLUDE: 'strace', PYTHONDONTWRITEBYTECODE: '1' },
      timeoutMs: 120_000,
    });
    removeDir(prof.dir);
    assert.equal(prof.status, 0, prof.stderr.toString());
    const pys = prof.dump.processes.filter((p) => /^python3/.test(p.exe));
    assert.equal(pys.length, 1, prof.dump.processes.map((p) => p.exe).join(','));
    const py = pys[0]!;
    const mine = withPrograms(readStraceCalls(prefix), work).filter((c) => c.program === py.exe);
    // on the whole mount, as the profiler counts per mount (SQLite lstat()s every directory of the
    // database's path, /dev/shm included)
    const expected = replay(withoutLibraryProbes(mine), SHM);
    const onShm = py.mounts.filter((m) => m.path === SHM);
    const actual = {
      journal: got(onShm.filter((m) => m.component === 'sqlite-journal')),
      program: got(onShm.filter((m) => m.component === '')),
    };
    return { expected, actual, onShm, exe: py.exe, why: JSON.stringify({ expected, actual }) };
  } finally {
    removeDir(base);
    removeDir(work);
  }
}

test("python3's sqlite3, a transaction per insert: the rollback journal's calls (and its directory's sync) are sqlite-journal, the database's and the script's own the program's, each count strace's", async (t) => {
  const { expected, actual, onShm, exe, why } = await runPython('');
  t.diagnostic(why);
  // strace: a journal created, synced (with its directory), written and deleted per transaction
  assert.ok(expected.journal.open! >= INSERTS, why);
  assert.ok(expected.journal.delete! >= INSERTS, why);
  assert.ok(expected.journal.sync! >= 2 * INSERTS, why);
  assert.ok(expected.dirOpens >= INSERTS, `strace: SQLite synced the journal's directory: ${why}`);
  // the database's writes and syncs, and the script's file, are the program's
  assert.ok(expected.program.write! >= INSERTS && expected.program.sync! >= INSERTS && expected.program.open! >= 2, why);
  assert.deepEqual(actual, { journal: expected.journal, program: expected.program }, why);
  assert.equal(onShm.filter((m) => m.component !== '' && m.component !== 'sqlite-journal').length, 0, why);
  // the journal's reasons are addressed to SQLite: a library inside python3, with SQLite's hint
  const program = programOf(exe, '', 'sqlite-journal');
  assert.equal(program.role, 'library');
  const hint = hintFor({ cls: 'yellow', reason: 'sync', calls: expected.journal.sync!, bytes: 0, timeNs: 0 }, { mount: SHM, small: 32768, program, gain: true, fewByteOpens: 0 });
  assert.match(hint, /SQLite syncs at every commit/);
});

test("python3's sqlite3 in WAL mode: the write-ahead log's and its index's calls (and the directory's sync after the log's creation) are sqlite-journal, the checkpoint's writes to the database the program's, each count strace's", async (t) => {
  const { expected, actual, why } = await runPython('PRAGMA journal_mode=WAL');
  t.diagnostic(why);
  // strace: the log and its index opened once, a log write and sync per commit, the directory synced
  // once after the log was created; at the close the checkpoint writes the database, the log and
  // the index are deleted
  assert.ok(expected.journal.open! >= 3, why);
  assert.ok(expected.journal.write! >= INSERTS && expected.journal.sync! >= INSERTS, why);
  assert.ok(expected.dirOpens >= 1, `strace: SQLite synced the log's directory: ${why}`);
  assert.ok(expected.journal.delete! >= 2, why);
  assert.ok(expected.program.write! >= 1, why);
  assert.deepEqual(actual, { journal: expected.journal, program: expected.program }, why);
});

test("a journal only looked at (stat, access, an open without O_CREAT): the program's next open of its directory is the program's", async () => {
  const dir = tempDir();
  try {
    const work = join(dir, 'work');
    mkdirSync(work);
    writeFileSync(join(work, 'db-journal'), 'x');
    const r = await runProfiled(testBin('t_sqlite_probe'), [work], { dir });
    assert.equal(r.status, 0, r.stderr.toString());
    const opens = (component: string): number => componentOpens(r.dump, component);
    assert.equal(opens('sqlite-journal'), 1, 'the open of db-journal');
    assert.equal(opens(''), 1, 'the open of its directory');
  } finally {
    removeDir(dir);
  }
});
