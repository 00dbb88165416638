// `jobio run` as root with children that change user (programs/user-switch.c): a child that said
// hello as root and then became nobody has its calls counted, in full, however late JavaScript
// reads them (its frames as nobody used to overtake its hello in the receiver's queue and be taken
// as a baseline); a program exec'd as nobody cannot reach the run's private socket and is named as
// run by another user; setpriv, and any program that changes user the way it does (keeping its
// capabilities, raising its own thread's again, then changing its groups), runs to its end with
// its calls counted; children a process forks after it became nobody are refused by the run's
// private socket, and counted as unseen, one each, with their uid; so are they when the job was
// started by a Mistral-style script (MISTRAL_LOG and LD_PRELOAD, the session started by the job's
// first process: `jobio run --attach`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { runJobio } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';
import { buildProgram } from './frame-tool.js';
import { readValidLog, type LogRecord } from './mistral-schema.js';
import { ANOTHER_USER } from '../../exporter/src/profiler/run-totals.js';
import { requireProfilerLibrary } from './real-library.js';

const SHM = '/dev/shm';
const NOBODY = 65534;

test(
  'children that become another user: calls made after the switch are counted, a program exec’d as that user is named with why',
  { skip: process.getuid?.() !== 0 && 'needs root to change user' },
  async () => {
    const program = buildProgram('user-switch');
    // Several runs: before the fix the child's calls were lost in about half of the runs on a loaded machine.
    for (let run = 0; run < 3; run++) {
      const dir = mkdtempSync(join(SHM, 'jobio-user-switch-'));
      try {
        const out = join(dir, 'log.jsonl');
        const r = await runJobio(['run', '--output', out, '--', program, dir]);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout, 'done\n');
        assert.doesNotMatch(r.stderr, /rejected/, 'no frame refused');
        const records = readValidLog(readFileSync(out, 'utf8'));
        const d = records.find((x) => x.type === 'diagnosis');
        assert.ok(d, 'a diagnosis record');
        const failed = (d.reasons as LogRecord[]).filter((x) => x.reason === 'failed_permission');
        assert.deepEqual(
          failed.map((x) => [x.mount, (x.program as LogRecord).name, x.calls]),
          [[SHM, 'user-switch', 1]],
          `run ${run}: the child's open as nobody, counted`,
        );
        const unseen = (d.unseen as LogRecord[]).filter((x) => x.kind === 'not_profiled');
        assert.equal(unseen.length, 1);
        const [notProfiled] = unseen as [LogRecord];
        assert.equal(notProfiled.processes, 1);
        const named = `true (${ANOTHER_USER(NOBODY)})`;
        assert.ok(String(notProfiled.detail).includes(`: ${named};`), String(notProfiled.detail));
        assert.ok(r.stderr.includes(named), r.stderr);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  },
);

test(
  'children forked after their parent became another user: the run’s socket refuses them, and jobio run counts each one, with its uid',
  { skip: process.getuid?.() !== 0 && 'needs root to change user' },
  async () => {
    const program = buildProgram('switch-then-fork');
    const dir = mkdtempSync(join(SHM, 'jobio-switch-then-fork-'));
    try {
      chmodSync(dir, 0o755); // the children, as nobody, open the data file in it
      writeFileSync(join(dir, 'data'), '12345', { mode: 0o644 });
      const out = join(dir, 'log.jsonl');
      const children = 3;
      const r = await runJobio(['run', '--output', out, '--', program, dir, String(children)]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'done\n', 'every child opened the file as nobody');
      const d = readValidLog(readFileSync(out, 'utf8')).find((x) => x.type === 'diagnosis');
      assert.ok(d, 'a diagnosis record');
      const unseen = (d.unseen as LogRecord[]).filter((x) => x.kind === 'not_profiled');
      assert.equal(unseen.length, 1, 'the refused children are said to be unseen');
      const [notProfiled] = unseen as [LogRecord];
      assert.equal(notProfiled.processes, children, 'each child counted once; the parent, profiled, not at all');
      const named = `switch-then-fork (${ANOTHER_USER(NOBODY)})`;
      assert.ok(String(notProfiled.detail).includes(`: ${named};`), String(notProfiled.detail));
      assert.ok(r.stderr.includes(`not_profiled: ${children} process(es)`), r.stderr);
      assert.ok(r.stderr.includes(named), r.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  'a job a start script began (the session attached by its first process): children forked after it became another user are counted each, with their uid',
  { skip: process.getuid?.() !== 0 && 'needs root to change user' },
  async () => {
    const library = requireProfilerLibrary();
    const program = buildProgram('switch-then-fork');
    const dir = mkdtempSync(join(SHM, 'jobio-attached-switch-'));
    try {
      chmodSync(dir, 0o755); // the children, as nobody, open the data file in it and reach the session's sockets
      writeFileSync(join(dir, 'data'), '12345', { mode: 0o644 });
      const sessions = join(dir, 'sessions');
      mkdirSync(sessions, { mode: 0o755 });
      const log = join(dir, `log-${hostname().split('.')[0] ?? ''}.jsonl`);
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MISTRAL_') && !k.startsWith('JOBIO_') && k !== 'LD_PRELOAD'));
      const children = 3;
      const s = spawnSync(program, [dir, String(children)], {
        env: { ...env, MISTRAL_LOG: join(dir, 'log-%h.jsonl'), MISTRAL_ERR_LOG: join(dir, 'errors.log'), MISTRAL_OUTPUT_DIRECTORY: sessions, LD_PRELOAD: library },
        encoding: 'utf8',
      });
      assert.equal(s.status, 0, s.stderr);
      assert.equal(s.stdout, 'done\n', 'every child opened the file as nobody');
      // the session removes its directories last
      const until = Date.now() + 60_000;
      while (readdirSync(sessions).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(readdirSync(sessions), [], 'the session ended and removed both its directories');
      assert.doesNotMatch(readFileSync(join(dir, 'errors.log'), { encoding: 'utf8', flag: 'a+' }), /will not be counted/);
      const d = readValidLog(readFileSync(log, 'utf8')).find((x) => x.type === 'diagnosis');
      assert.ok(d, 'a diagnosis record');
      const unseen = (d.unseen as LogRecord[]).filter((x) => x.kind === 'not_profiled');
      assert.equal(unseen.length, 1, 'the refused children are said to be unseen');
      const [notProfiled] = unseen as [LogRecord];
      assert.equal(notProfiled.processes, children, 'each child counted once; the first process, profiled, not at all');
      assert.ok(String(notProfiled.detail).includes(`: switch-then-fork (${ANOTHER_USER(NOBODY)});`), String(notProfiled.detail));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  'setpriv changing user under jobio run: it runs to its end (its flush thread used to make glibc abort it), and the program it execs as nobody is named',
  { skip: process.getuid?.() !== 0 && 'needs root to change user' },
  async () => {
    const setpriv = requireBinary('setpriv', 'util-linux');
    const r = await runJobio(['run', '--', setpriv, `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '/bin/true']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stderr.includes(`true (${ANOTHER_USER(NOBODY)})`), r.stderr);
  },
);

test(
  'a program that changes user as setpriv does (keeps capabilities, raises its own thread’s, then setresgid) runs to its end, its read after the change counted',
  { skip: process.getuid?.() !== 0 && 'needs root to change user' },
  async () => {
    // Its flush thread, without CAP_SETGID, failed glibc's setresgid on every thread: exit 134.
    const program = buildProgram('cap-switch');
    const dir = mkdtempSync(join(SHM, 'jobio-cap-switch-'));
    try {
      writeFileSync(join(dir, 'data'), '12345', { mode: 0o644 });
      const out = join(dir, 'log.jsonl');
      const r = await runJobio(['run', '--output', out, '--', program, dir]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'done\n');
      const records = readValidLog(readFileSync(out, 'utf8'));
      const shm = records.find((x) => x.type === 'mountpoint' && x.jobtotal === true && (x.mountpoint as LogRecord).path === SHM);
      assert.ok(shm, 'a job total for /dev/shm');
      const io = shm.io as Partial<Record<string, { calls: { total: number }; bytes: { total: number } }>>;
      assert.equal(io['open']?.calls.total, 1, 'the open made as nobody');
      assert.equal(io['read_all']?.calls.total, 1);
      assert.equal(io['read_all'].bytes.total, 5);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
