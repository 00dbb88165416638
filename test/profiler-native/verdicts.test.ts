// Verdicts that must not be false reds, checked on real programs against strace (docs/profiler.md
// "Classification"): the read that meets the end of a file (0 bytes) and cp's last, empty
// copy_file_range are green, not small transfers; a shell's redirection, whose descriptor the command
// it runs inherits and moves the bytes through, is `open_bytes_unseen`, not "moved no byte". An open
// that really moved nothing, with nobody to inherit it, stays red. All the files are on /dev/shm, so
// the profiler's totals on that mount and strace's calls on the directory cover the same calls.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildTests, cleanEnv, removeDir, runProfiled, tempDir, type Dump, type MountBody } from './harness.js';
import { STRACE_CALLS, readStraceCalls } from './strace-oracle.js';
import { requireBinary } from '../helpers/binaries.js';

const SHM = '/dev/shm';
const SMALL = 32768;

/** What strace says about the transfers and opens on dir: the oracle of the classes. */
interface Verdicts {
  reads: { small: number; eof: number; big: number; failed: number };
  writes: { small: number; eof: number; big: number; failed: number };
  opens: number;
  failedOpens: number;
}

function straceVerdicts(prefix: string, dir: string): Verdicts {
  const v: Verdicts = { reads: { small: 0, eof: 0, big: 0, failed: 0 }, writes: { small: 0, eof: 0, big: 0, failed: 0 }, opens: 0, failedOpens: 0 };
  const inDir = (p: string | undefined): boolean => !!p && (p === dir || p.startsWith(dir + '/'));
  const add = (side: Verdicts['reads'], ret: number): void => {
    if (ret < 0) side.failed++;
    else if (ret === 0) side.eof++;
    else if (ret < SMALL) side.small++;
    else side.big++;
  };
  for (const { name, args, ret, fds } of readStraceCalls(prefix)) {
    if (/^(read|pread64|readv|preadv2?)$/.test(name) && inDir(fds[0])) add(v.reads, ret);
    else if (/^(write|pwrite64|writev|pwritev2?)$/.test(name) && inDir(fds[0])) add(v.writes, ret);
    else if (name === 'copy_file_range' || name === 'splice' || name === 'sendfile') {
      const [src, dst] = name === 'sendfile' ? [fds[1], fds[0]] : [fds[0], fds[1]];
      if (inDir(src)) add(v.reads, ret);
      if (inDir(dst)) add(v.writes, ret);
    } else if (/^(open|openat|creat)$/.test(name)) {
      const path = /"([^"]*)"/.exec(args)?.[1] ?? '';
      if (inDir(path.startsWith('/') ? path : join(dir, path))) {
        v.opens++;
        if (ret < 0) v.failedOpens++;
      }
    }
  }
  return v;
}

/** The profiler's classes on /dev/shm, per executable and summed. */
function onShm(dump: Dump, exe?: string): MountBody[] {
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
}

const cases: Case[] = [
  { name: "dash runs 'cat in > log' (redirection, exec)", cmd: ['sh', '-c', 'cat in.bin small.txt > log'], redirector: 'dash' },
  { name: "dash runs 'wc -l < in' (input redirection)", cmd: ['sh', '-c', 'wc -l < small.txt'], redirector: 'dash' },
  { name: 'bash runs a group into one log (redirection, fork)', cmd: ['bash', '-c', '{ cat small.txt; cat in.bin; } > log; echo done'], redirector: 'bash' },
  { name: 'cp (last copy_file_range moves 0 bytes)', cmd: ['cp', 'in.bin', 'cp.out'] },
  { name: 'cat to a pipe (the read at end of file)', cmd: ['cat', 'in.bin', 'small.txt'] },
  // an open that nothing moved through and that nobody inherited stays red
  { name: "dash runs ': > empty' (a builtin: nothing moves, nothing inherits)", cmd: ['sh', '-c', ': > empty'], redOpens: 1 },
];

let strace = '';
before(() => {
  buildTests();
  strace = requireBinary('strace');
  for (const b of ['sh', 'bash', 'cat', 'cp', 'wc']) requireBinary(b);
});

describe('verdicts against strace: no false reds', () => {
  for (const c of cases) {
    test(c.name, async () => {
      const base = tempDir(SHM);
      try {
        const profDir = join(base, 'prof');
        const traceDir = join(base, 'trace');
        for (const d of [profDir, traceDir]) {
          mkdirSync(d);
          inputs(d);
        }
        const [cmd, ...args] = c.cmd as [string, ...string[]];
        const prof = await runProfiled(cmd, args, { cwd: profDir, dir: tempDir() });
        removeDir(prof.dir);
        assert.equal(prof.status, 0, prof.stderr.toString());
        const prefix = join(base, 'strace-out');
        const st = spawnSync(strace, ['-f', '-ff', '-qq', '-y', '-e', `trace=${STRACE_CALLS.join(',')}`, '-e', 'signal=none', '-o', prefix, cmd, ...args], {
          cwd: traceDir,
          env: cleanEnv(),
        });
        assert.equal(st.status, 0, st.stderr.toString());
        const o = straceVerdicts(prefix, traceDir);
        const all = onShm(prof.dump);
        const why = JSON.stringify({ strace: o, profiler: all.map((b) => ({ calls: b.calls, reasons: b.reasons })) });
        // a transfer is red only when it failed or moved 1 byte to below the threshold; 0 bytes: green
        for (const [dir, side] of [
          ['read', o.reads],
          ['write', o.writes],
        ] as const) {
          assert.deepEqual(cls(all, dir), [side.failed + side.small, 0, side.eof + side.big], `${dir}: ${why}`);
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
        if (c.redirector) {
          const shell = onShm(prof.dump, c.redirector);
          assert.equal(reason(shell, 'open_bytes_unseen'), 1, `the ${c.redirector} redirection: ${why}`);
          assert.equal(reason(all, 'open_bytes_unseen'), 1, why);
        }
      } finally {
        removeDir(base);
      }
    });
  }
});
