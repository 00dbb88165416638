// Real programs under the profiler (docs/architecture.md "How it is proven"): dd, cp, cat, tar, python3, git. Outputs and exit
// codes must be identical with and without the profiler, and the profiler's file-backed counts and
// bytes must equal strace's on the same command where both count the same thing (docs/profiler.md
// "Comparing with strace" lists where they cannot). All the work happens in a directory on the
// /dev/shm tmpfs so that the profiler's per-mount totals and strace's per-path counts cover the
// same files (the programs' own start-up I/O on / is outside both).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { buildTests, cleanEnv, removeDir, run, runProfiled, tempDir, testBin, type Dump, type MountBody } from './harness.js';
import { STRACE_CALLS, parseStrace, type Oracle } from './strace-oracle.js';
import { requireBinary } from '../helpers/binaries.js';

const SHM = '/dev/shm';

interface Case {
  name: string;
  exe: string; // executable name(s) the profiler reports
  setup: (dir: string) => void;
  cmd: string[];
  env?: Record<string, string>;
  /** which counts must equal strace's exactly */
  exact: (keyof Oracle)[];
  /** counts where the profiler sees a subset of strace (stdio internals, mmap'd files) */
  atMost?: (keyof Oracle)[];
}

const rand = (n: number, seed: number): Buffer => {
  const b = Buffer.alloc(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
};

function inputs(dir: string): void {
  writeFileSync(join(dir, 'in.bin'), rand(1 << 20, 7));
  writeFileSync(join(dir, 'small.txt'), 'hello jobio\n'.repeat(100));
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'a.txt'), 'alpha\n'.repeat(5000));
  writeFileSync(join(dir, 'src', 'b.bin'), rand(300000, 3));
}

const PY = `
import os
fd = os.open('in.bin', os.O_RDONLY)
total = 0
while True:
    b = os.read(fd, 65536)
    if not b:
        break
    total += len(b)
os.close(fd)
with open('small.txt', 'rb') as f:
    data = f.read()
out = os.open('py.out', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
for i in range(100):
    os.write(out, data[:100])
os.write(out, data * 40)
os.close(out)
st = os.stat('py.out')
print(total, st.st_size, os.path.exists('nothing-here'))
`;

function textInputs(dir: string): void {
  inputs(dir);
  writeFileSync(join(dir, 'lines.txt'), Array.from({ length: 60000 }, (_, i) => `${(i * 7919) % 60000} some text on line ${i}\n`).join(''));
}

// Python text I/O: its own buffering over read/write (io.TextIOWrapper over BufferedReader/Writer)
const PY_TEXT = `
n = 0
with open('lines.txt') as f:
    for line in f:
        n += len(line)
with open('py-text.out', 'w') as o:
    for i in range(50000):
        o.write('line %d\\n' % i)
with open('py-text.out') as f:
    words = f.read().split()
print(n, len(words))
`;

const GIT_ENV = {
  HOME: '', // set per run
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'j',
  GIT_AUTHOR_EMAIL: 'j@example.org',
  GIT_COMMITTER_NAME: 'j',
  GIT_COMMITTER_EMAIL: 'j@example.org',
  GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
};

const cases: Case[] = [
  { name: 'dd', exe: 'dd', setup: inputs, cmd: ['dd', 'if=in.bin', 'of=dd.out', 'bs=4096', 'status=none'], exact: ['reads', 'readBytes', 'writes', 'writeBytes', 'opens'] },
  {
    name: 'dd with a large block and fsync',
    exe: 'dd',
    setup: inputs,
    cmd: ['dd', 'if=in.bin', 'of=dd2.out', 'bs=100000', 'conv=fsync', 'status=none'],
    exact: ['reads', 'readBytes', 'writes', 'writeBytes', 'opens'],
  },
  { name: 'cp (copy_file_range)', exe: 'cp', setup: inputs, cmd: ['cp', 'in.bin', 'cp.out'], exact: ['reads', 'readBytes', 'writes', 'writeBytes', 'opens'] },
  { name: 'cat to a pipe', exe: 'cat', setup: inputs, cmd: ['cat', 'in.bin', 'small.txt'], exact: ['reads', 'readBytes', 'writes', 'writeBytes', 'opens'] },
  {
    name: 'tar create',
    exe: 'tar',
    setup: inputs,
    cmd: ['tar', '--sort=name', '--mtime=2024-01-01', '--owner=0', '--group=0', '-cf', 'out.tar', 'src/a.txt', 'src/b.bin', 'small.txt'],
    exact: ['reads', 'readBytes', 'writes', 'writeBytes', 'opens'],
  },
  {
    name: 'tar extract',
    exe: 'tar',
    setup: (d) => {
      inputs(d);
      // one date for every member: the plain and the profiled copies are made in different seconds
      execFileSync('tar', ['--mtime=2024-01-01', '-cf', 'in.tar', 'src'], { cwd: d, env: cleanEnv() });
      mkdirSync(join(d, 'x'));
    },
    cmd: ['tar', '-xf', 'in.tar', '-C', 'x'],
    exact: ['reads', 'readBytes', 'writes', 'writeBytes'],
  },
  // stdio: the counts are the buffer fills and flushes, as strace sees them (docs/profiler.md "stdio")
  {
    name: 'sort (fread/fwrite through stdio; -o and > redirection)',
    exe: 'sort',
    setup: textInputs,
    cmd: ['sh', '-c', 'sort -r lines.txt -o sort.out && sort -n lines.txt > sort2.out'],
    exact: ['reads', 'readBytes', 'writes', 'writeBytes', 'opens'],
  },
  { name: 'gzip and gunzip', exe: 'gzip', setup: textInputs, cmd: ['sh', '-c', 'gzip -kn lines.txt && gzip -dc lines.txt.gz > back.txt'], exact: ['reads', 'readBytes', 'writes', 'writeBytes'] },
  { name: 'python3 text I/O', exe: 'python3.11', setup: textInputs, cmd: ['/usr/bin/python3', '-I', '-S', '-B', '-c', PY_TEXT], exact: ['reads', 'readBytes', 'writes', 'writeBytes', 'opens'] },
  {
    name: 'C program mixing every stdio text function with POSIX calls',
    exe: 't_stdio_text',
    setup: () => undefined,
    cmd: ['sh', '-c', `${testBin('t_stdio_text')} . > stdout.txt`],
    exact: ['reads', 'readBytes', 'writes', 'writeBytes', 'opens'],
  },
  {
    name: 'python3 (os.read, open().read, os.write, os.stat)',
    exe: 'python3.11',
    setup: inputs,
    cmd: ['/usr/bin/python3', '-I', '-S', '-B', '-c', PY],
    exact: ['reads', 'readBytes', 'writes', 'writeBytes', 'opens', 'stats'],
  },
  // git writes some files with fprintf/fputs and reads its config with getc: stdio moves those
  // bytes with libc-internal calls the profiler does not see (and mmaps packs and the index)
  {
    name: 'git init/add/commit',
    exe: 'git',
    setup: inputs,
    // The copies get an old mtime: a file modified in the index's own second is "racy" for git, which
    // then reads it again, so the profiled run and strace's (separate runs) read a different number of
    // times depending on timing (one read more under a loaded CI machine).
    cmd: [
      'sh',
      '-c',
      'git init -q repo && cp -r src repo/ && find repo/src -type f -exec touch -d @1600000000 {} + && git -C repo add . && git -C repo commit -q -m one && git -C repo log --format=%H',
    ],
    env: GIT_ENV,
    exact: ['stats'],
    atMost: ['reads', 'readBytes', 'writes', 'writeBytes', 'opens'],
  },
];

/** The profiler's totals on the /dev/shm mount, summed over every process of the dump. */
function onShm(dump: Dump): { reads: number; readBytes: number; writes: number; writeBytes: number; opens: number; stats: number } {
  const t = { reads: 0, readBytes: 0, writes: 0, writeBytes: 0, opens: 0, stats: 0 };
  const sum = (c: { red: number; yellow: number; green: number } | undefined): number => (c ? c.red + c.yellow + c.green : 0);
  for (const p of dump.processes) {
    for (const m of p.mounts) {
      if (m.path !== SHM) continue;
      const b: MountBody = m;
      t.reads += sum(b.calls.read);
      t.writes += sum(b.calls.write);
      t.opens += sum(b.calls.open) + sum(b.calls.create);
      t.stats += sum(b.calls.access);
      t.readBytes += Object.values(b.sizes.read).reduce((s, x) => s + x.bytes, 0);
      t.writeBytes += Object.values(b.sizes.write).reduce((s, x) => s + x.bytes, 0);
    }
  }
  return t;
}

function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && !/index$|ORIG_HEAD|\.sample$/.test(e.name)) out.set(relative(dir, p), readFileSync(p).toString('base64'));
    }
  };
  walk(dir);
  return out;
}

let strace = '';
before(() => {
  buildTests();
  strace = requireBinary('strace');
  assert.ok(existsSync(SHM) && statSync(SHM).isDirectory(), '/dev/shm (tmpfs) is required');
});

describe('real programs: identical results, counts equal to strace', () => {
  for (const c of cases) {
    test(c.name, async () => {
      const base = tempDir(SHM);
      const mk = (n: string): string => {
        const d = join(base, n);
        mkdirSync(d);
        c.setup(d);
        return d;
      };
      const envFor = (d: string): Record<string, string> => ({ ...(c.env ?? {}), ...(c.env?.HOME !== undefined ? { HOME: d } : {}) });
      try {
        const plainDir = mk('plain');
        const profDir = mk('prof');
        const traceDir = mk('trace');
        const [cmd, ...args] = c.cmd as [string, ...string[]];
        const plain = await run(cmd, args, { cwd: plainDir, env: cleanEnv(envFor(plainDir)) });
        const prof = await runProfiled(cmd, args, { cwd: profDir, env: envFor(profDir), dir: tempDir() });
        removeDir(prof.dir);
        assert.equal(plain.status, 0, plain.stderr.toString());
        assert.equal(prof.status, plain.status, 'exit status');
        assert.equal(prof.stdout.toString('base64'), plain.stdout.toString('base64'), 'stdout byte-identical');
        assert.equal(prof.stderr.toString(), plain.stderr.toString(), 'stderr identical');
        assert.deepEqual(files(profDir), files(plainDir), 'files byte-identical');
        // strace on the same command in a third copy
        const prefix = join(base, 'strace-out');
        const st = spawnSync(strace, ['-f', '-ff', '-qq', '-y', '-e', `trace=${STRACE_CALLS.join(',')}`, '-e', 'signal=none', '-o', prefix, cmd, ...args], {
          cwd: traceDir,
          env: cleanEnv(envFor(traceDir)),
        });
        assert.equal(st.status, plain.status, st.stderr.toString());
        // strace's calls on the whole /dev/shm mount, as the profiler's totals are per mount (git
        // lstat()s every parent of its working directory: /dev/shm and the test's base directory)
        const oracle = parseStrace(prefix, SHM, traceDir);
        const ours = onShm(prof.dump);
        // our counts are for the prof copy, the oracle's for the trace copy: same work, other path
        for (const k of c.exact) assert.equal(ours[k], oracle[k], `${k}: profiler ${ours[k]} vs strace ${oracle[k]} (${JSON.stringify({ ours, oracle })})`);
        for (const k of c.atMost ?? []) {
          assert.ok(ours[k] <= oracle[k] && ours[k] > 0, `${k}: profiler ${ours[k]} should be in (0, strace ${oracle[k]}]`);
        }
        assert.ok(ours.reads + ours.writes > 0);
        for (const p of prof.dump.processes) assert.ok(p.final || p.exec, `${p.exe} sent its final snapshot`);
        assert.ok(
          prof.dump.processes.some((p) => p.exe === c.exe),
          `a ${c.exe} process in ${prof.dump.processes.map((p) => p.exe).join(',')}`,
        );
      } finally {
        removeDir(base);
      }
    });
  }
});
