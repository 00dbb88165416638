// Python's import system is a component of a Python interpreter's calls (docs/profiler.md, "Who the
// hint is for"): in a process whose executable is python, python3 or python3.N, a call on a path
// ending in .py, .pyc, .pth or .so, or on a directory that held such a file before (its directory as
// written, the one above a __pycache__), and the calls on the descriptors such opens return, are
// counted as `python-imports`, not as the script's own. Checked on a real interpreter importing real
// modules against strace's calls that match the same rule, replayed in order; the script's own
// stats of its directory and its write stay the program's.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { basename, dirname, join } from 'node:path';
import { buildTests, removeDir, runProfiled, tempDir, type DumpMount } from './harness.js';
import { PROCESS_CALLS, STRACE_CALLS, readStraceCalls, straceArgs, withPrograms, type StraceCall } from './strace-oracle.js';
import { requireBinary } from '../helpers/binaries.js';

const SHM = '/dev/shm';
/** The rule's path test, as the library states it. */
const moduleFile = (p: string): boolean => /\.(py|pyc|pth|so)$/.test(p);
const python = (exe: string): boolean => /^python(3(\.\d+)?)?$/.test(exe);
const isStat = (c: StraceCall): boolean => /^(newfstatat|fstat|statx|lstat|stat|access|faccessat2?)$/.test(c.name);
const isOpen = (c: StraceCall): boolean => /^(open|openat|creat)$/.test(c.name);
const pathOf = (c: StraceCall): string | undefined => /"([^"]*)"/.exec(c.args)?.[1];

/**
 * The rule replayed on one process's calls in order: which stats and opens are the import system's
 * as each is made. A module file's call is, and remembers its directory (and the one above a
 * __pycache__); a call on a remembered directory is; a stat of a descriptor is its open's. The
 * extension modules' opens are the dynamic loader's, inside dlopen, where no wrapper is: neither
 * counted nor remembered. `early` are the successful stats of directories made before the directory
 * was remembered: the library keeps a path's undecided stats together until the path is opened or
 * the process ends, and counts them where the last of them went, so these may be either's.
 */
function replayRule(calls: readonly StraceCall[]): { opens: number; stats: number; dirStats: number; early: number } {
  const dirs = new Set<string>();
  const before = new Map<string, number>();
  const fdIsModule = new Map<number, boolean>();
  let opens = 0;
  let stats = 0;
  let dirStats = 0;
  const rule = (p: string): boolean => {
    if (moduleFile(p)) {
      const d = dirname(p);
      dirs.add(d);
      if (basename(d) === '__pycache__') dirs.add(dirname(d));
      return true;
    }
    return dirs.has(p);
  };
  for (const c of calls) {
    const p = pathOf(c);
    if (isOpen(c) && p !== undefined) {
      if (/\.so$/.test(p)) {
        fdIsModule.delete(c.ret);
        continue;
      }
      const mine = rule(p);
      if (mine) opens++;
      if (c.ret >= 0) fdIsModule.set(c.ret, mine);
    } else if (isStat(c)) {
      if (p !== undefined && p !== '') {
        const wasDir = dirs.has(p);
        if (rule(p)) {
          stats++;
          if (wasDir) dirStats++;
        } else if (c.ret === 0) before.set(p, (before.get(p) ?? 0) + 1);
      } else if (/^\d+</.test(c.args) && fdIsModule.get(Number(/^(\d+)</.exec(c.args)?.[1])) === true) stats++;
    }
  }
  const early = [...before].filter(([p]) => dirs.has(p)).reduce((n, [, k]) => n + k, 0);
  return { opens, stats, dirStats, early };
}

let strace = '';
let python3 = '';
before(() => {
  buildTests();
  strace = requireBinary('strace');
  python3 = requireBinary('python3');
});

const total = (ms: DumpMount[], call: string): number => ms.reduce((s, m) => s + (m.calls[call] ? m.calls[call].red + m.calls[call].yellow + m.calls[call].green : 0), 0);

test("python3's imports are the python-imports component: its opens and stats are strace's on module files and their directories; the script's own stats and write stay the program's", async (t) => {
  const base = tempDir(SHM);
  const work = tempDir();
  try {
    const out = join(base, 'out.txt');
    const prefix = join(work, 'strace-out');
    const prof = await runProfiled(
      strace,
      [
        ...straceArgs(prefix, [...STRACE_CALLS, ...PROCESS_CALLS]),
        python3,
        '-c',
        `import json, email.mime.text, sqlite3, os; [os.stat('${base}') for _ in range(5)]; open('${out}', 'w').write('x' * 10)`,
      ],
      // no bytecode written (the system's __pycache__ may not be writable): only reads of module files
      { cwd: work, dir: tempDir(), env: { JOBIO_EXCLUDE: 'strace', PYTHONDONTWRITEBYTECODE: '1' }, timeoutMs: 120_000 },
    );
    removeDir(prof.dir);
    assert.equal(prof.status, 0, prof.stderr.toString());
    const interpreters = prof.dump.processes.filter((p) => python(p.exe));
    assert.equal(interpreters.length, 1, prof.dump.processes.map((p) => p.exe).join(','));
    const py = interpreters[0]!;
    const mine = withPrograms(readStraceCalls(prefix), work).filter((c) => c.program === py.exe);
    // the extension modules' opens (and the fstats of them) are the dynamic loader's, inside dlopen,
    // where no wrapper is: not counted by the library, so not here either
    const loaders = new Set(mine.filter((c) => isOpen(c) && /\.so$/.test(pathOf(c) ?? '')).map((c) => c.pid));
    assert.ok(loaders.size > 0, 'strace: an extension module was loaded (sqlite3, json)');
    const rule = replayRule(mine);
    const component = py.mounts.filter((m) => m.component === 'python-imports');
    const why = JSON.stringify({ rule, component: component.map((m) => ({ path: m.path, calls: m.calls })) });
    t.diagnostic(why);
    assert.ok(rule.opens >= 20, `strace: the imports opened module files: ${why}`);
    // the finders' stats of sys.path's and the packages' directories: hundreds
    assert.ok(rule.dirStats >= 50, `strace: the finders stat their directories: ${why}`);
    assert.equal(total(component, 'open') + total(component, 'create'), rule.opens, why);
    const stats = total(component, 'access');
    assert.ok(stats >= rule.stats && stats <= rule.stats + rule.early, why);
    // the script's own stats of its directory, its file's create and write: the program's, none of
    // them the component's
    const ownStats = mine.filter((c) => isStat(c) && (pathOf(c) === base || (pathOf(c) === '' && c.fds[0] === out))).length;
    assert.ok(ownStats >= 5, why);
    // the script's own file: one create and one write, the program's, none of it the component's
    const own = py.mounts.filter((m) => m.path === SHM && m.component === '');
    assert.equal(total(own, 'access'), ownStats, why);
    assert.equal(total(own, 'create') + total(own, 'open'), 1, why);
    assert.equal(total(own, 'write'), 1, why);
    assert.equal(component.filter((m) => m.path === SHM).length, 0, why);
  } finally {
    removeDir(base);
    removeDir(work);
  }
});
