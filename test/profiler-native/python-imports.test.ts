// Python's import system is a component of a Python interpreter's calls (docs/profiler.md, "Who the
// hint is for"): in a process whose executable is python, python3 or python3.N, a call on a path
// ending in .py, .pyc, .pth or .so, and the calls on the descriptors such opens return, are counted
// as `python-imports`, not as the script's own. Checked on a real interpreter importing real modules
// against strace's calls that match the same rule; the script's own write stays the program's.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { buildTests, removeDir, runProfiled, tempDir, type DumpMount } from './harness.js';
import { PROCESS_CALLS, STRACE_CALLS, readStraceCalls, withPrograms, type StraceCall } from './strace-oracle.js';
import { requireBinary } from '../helpers/binaries.js';

const SHM = '/dev/shm';
/** The rule's path test, as the library states it. */
const moduleFile = (p: string): boolean => /\.(py|pyc|pth|so)$/.test(p);
const python = (exe: string): boolean => /^python(3(\.\d+)?)?$/.test(exe);

let strace = '';
let python3 = '';
before(() => {
  buildTests();
  strace = requireBinary('strace');
  python3 = requireBinary('python3');
});

const total = (ms: DumpMount[], call: string): number => ms.reduce((s, m) => s + (m.calls[call] ? m.calls[call].red + m.calls[call].yellow + m.calls[call].green : 0), 0);

test("python3's imports are the python-imports component: its opens and stats equal strace's on module files; the script's write stays the program's", async (t) => {
  const base = tempDir(SHM);
  const work = tempDir();
  try {
    const out = join(base, 'out.txt');
    const prefix = join(work, 'strace-out');
    const prof = await runProfiled(
      strace,
      [
        '-f',
        '-ff',
        '-qq',
        '-y',
        '-e',
        `trace=${[...STRACE_CALLS, ...PROCESS_CALLS].join(',')}`,
        '-e',
        'signal=none',
        '-o',
        prefix,
        python3,
        '-c',
        `import json, email.mime.text, sqlite3; open('${out}', 'w').write('x' * 10)`,
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
    const pathOf = (c: StraceCall): string | undefined => /"([^"]*)"/.exec(c.args)?.[1];
    // the extension modules' opens (and the fstats of them) are the dynamic loader's, inside dlopen,
    // where no wrapper is: not counted by the library, so not here either
    const loaders = new Set(mine.filter((c) => /^open(at)?$/.test(c.name) && /\.so$/.test(pathOf(c) ?? '')).map((c) => c.pid));
    assert.ok(loaders.size > 0, 'strace: an extension module was loaded (sqlite3, json)');
    const opens = mine.filter((c) => /^(open|openat|creat)$/.test(c.name) && moduleFile(pathOf(c) ?? '') && !/\.so$/.test(pathOf(c) ?? ''));
    const stats = mine.filter((c) => {
      if (!/^(newfstatat|fstat|statx|lstat|stat|access|faccessat2?)$/.test(c.name)) return false;
      const p = pathOf(c);
      if (p !== undefined && p !== '') return moduleFile(p);
      const f = c.fds[0] ?? '';
      return moduleFile(f) && !/\.so$/.test(f);
    });
    const component = py.mounts.filter((m) => m.component === 'python-imports');
    const why = JSON.stringify({ opens: opens.length, stats: stats.length, component: component.map((m) => ({ path: m.path, calls: m.calls })) });
    t.diagnostic(why);
    assert.ok(opens.length >= 20, `strace: the imports opened module files: ${why}`);
    assert.equal(total(component, 'open') + total(component, 'create'), opens.length, why);
    assert.equal(total(component, 'access'), stats.length, why);
    // the script's own file: one create and one write, the program's, none of it the component's
    const own = py.mounts.filter((m) => m.path === SHM && m.component === '');
    assert.equal(total(own, 'create') + total(own, 'open'), 1, why);
    assert.equal(total(own, 'write'), 1, why);
    assert.equal(component.filter((m) => m.path === SHM).length, 0, why);
  } finally {
    removeDir(base);
    removeDir(work);
  }
});
