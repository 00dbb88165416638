// Real programs under `jobio run` with the real profiler library: outputs and exit statuses identical
// to plain runs, valid Mistral records, and write/read counts and bytes equal to `strace -f` where the
// two count the same thing. strace sees system calls, the profiler sees the program's library calls:
// the oracle is restricted to the test's own files, because ld.so loading libraries and libc's
// internal reads (setlocale reading /etc/locale.alias through non-interposable internal calls) are
// system calls no wrapper can see; coreutils 9 cat/cp into a file use copy_file_range (counted by the
// profiler as writes, compared as such); git buffers through stdio, so it is compared on output only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobioBin } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';
import { buildProgram } from './frame-tool.js';
import { readValidLog } from './mistral-schema.js';
import { mountOf, requireProfilerLibrary, straceCount } from './real-library.js';

type Obj = Record<string, any>;
const work = mkdtempSync(join(tmpdir(), 'jobio-real-'));

/** Keeps strace paths under the test's own directory. */
const ownFiles = (path: string): boolean => path.replace(/ \(deleted\)$/, '').startsWith(`${work}/`);

interface Run {
  status: number | null;
  stdout: Buffer;
  stderr: string;
}

function plain(cmd: readonly string[], env: NodeJS.ProcessEnv = {}): Run {
  const r = spawnSync(cmd[0] ?? '', cmd.slice(1), { env: { ...process.env, ...env }, timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString('utf8') };
}

function profiled(cmd: readonly string[], output: string, env: NodeJS.ProcessEnv = {}, extra: readonly string[] = []): Run {
  requireProfilerLibrary();
  const r = spawnSync(process.execPath, [jobioBin, 'run', '--output', output, '--sample-every', '1', ...extra, '--', ...cmd], { env: { ...process.env, ...env }, timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString('utf8') };
}

/** The job-total mountpoint record of `mount` in a run's log. */
function mountTotal(log: string, mount: string): Obj {
  const records = readValidLog(readFileSync(log, 'utf8'));
  const r = records.find((x) => x.type === 'mountpoint' && x.jobtotal === true && (x.mountpoint as Obj).path === mount);
  assert.ok(
    r,
    `no job-total record for mount ${mount}; mounts: ${records
      .filter((x) => x.type === 'mountpoint')
      .map((x) => (x.mountpoint as Obj).path)
      .join(', ')}`,
  );
  return r;
}

const calls = (io: Obj, key: string): number => io[key]?.calls?.total ?? 0;
const bytes = (io: Obj, key: string): number => io[key]?.bytes?.total ?? 0;

// The reported command wrote /tmp/x; a file of the test's own keeps parallel runs and other users' files apart.
test('Done-when: jobio run --output out.jsonl -- dd if=/dev/zero of=<dir>/x bs=4k count=1000', () => {
  requireProfilerLibrary();
  const x = join(work, 'x');
  const out = join(work, 'out.jsonl');
  const cmd = ['dd', 'if=/dev/zero', `of=${x}`, 'bs=4k', 'count=1000'];
  const r = spawnSync(process.execPath, [jobioBin, 'run', '--output', out, '--', ...cmd], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(r.stderr.split('\n').includes(`jobio run: dd if=/dev/zero of=${x} bs=4k count=1000 (exit status 0)`), r.stderr);
  assert.match(r.stderr, /^class\s+calls\s+calls %\s+time\s+time %$/m);
  assert.match(r.stderr, /^red\s+\d+/m);
  const mount = mountOf(x);
  const io = mountTotal(out, mount).io as Obj;
  const oracle = straceCount(cmd, ['write'], (path) => path === x);
  assert.equal(oracle.calls, 1000, 'strace sees 1000 writes to x');
  assert.equal(calls(io, 'write_all'), oracle.calls);
  assert.equal(bytes(io, 'write_all'), oracle.bytes);
  assert.equal(calls(io, 'write_0-32KiB'), 1000);
  const summary = readValidLog(readFileSync(out, 'utf8')).find((x) => x.type === 'jobsummary') as Obj;
  assert.ok(summary.iosummary.red.calls.iocount >= 1000, '4 KiB writes are small: red');
});

test('dd: output and exit status identical; write counts and bytes equal strace', () => {
  const src = join(work, 'dd-src.bin');
  writeFileSync(src, Buffer.alloc(300_000, 7));
  const a = plain(['dd', `if=${src}`, 'bs=64k', 'status=none']);
  const out = join(work, 'dd.jsonl');
  const b = profiled(['dd', `if=${src}`, 'bs=64k', 'status=none'], out);
  assert.equal(b.status, a.status);
  assert.ok(b.stdout.equals(a.stdout), 'stdout identical');
  const target = join(work, 'dd-out.bin');
  const cmd = ['dd', `if=${src}`, `of=${target}`, 'bs=8k', 'status=none'];
  const log = join(work, 'dd2.jsonl');
  assert.equal(profiled(cmd, log).status, 0);
  const mount = mountOf(work);
  const io = mountTotal(log, mount).io as Obj;
  const writes = straceCount(cmd, ['write'], ownFiles);
  const reads = straceCount(cmd, ['read'], ownFiles);
  assert.equal(calls(io, 'write_all'), writes.calls);
  assert.equal(bytes(io, 'write_all'), writes.bytes);
  assert.equal(calls(io, 'read_all'), reads.calls);
  assert.equal(bytes(io, 'read_all'), reads.bytes);
  assert.equal(bytes(io, 'write_all'), 300_000);
});

test('cat and cp: identical outputs and statuses; cat writes equal strace', () => {
  const a = join(work, 'a.txt');
  const b = join(work, 'b.txt');
  writeFileSync(a, 'alpha\n'.repeat(5000));
  writeFileSync(b, 'beta\n'.repeat(7000));
  const p = plain(['cat', a, b]);
  const q = profiled(['cat', a, b], join(work, 'cat.jsonl'));
  assert.equal(q.status, p.status);
  assert.ok(q.stdout.equals(p.stdout));
  assert.equal(profiled(['cat', join(work, 'missing')], join(work, 'cat2.jsonl')).status, plain(['cat', join(work, 'missing')]).status);
  const catOut = join(work, 'cat-out.txt');
  const cmd = ['sh', '-c', `cat ${a} ${b} > ${catOut}`];
  const log = join(work, 'cat3.jsonl');
  assert.equal(profiled(cmd, log).status, 0);
  const mount = mountOf(work);
  // cat uses copy_file_range into a regular file: one write-side call per copy_file_range.
  const oracle = straceCount(cmd, ['write', 'copy_file_range'], ownFiles);
  assert.ok(oracle.calls > 0);
  assert.equal(calls(mountTotal(log, mount).io, 'write_all'), oracle.calls);
  assert.equal(bytes(mountTotal(log, mount).io, 'write_all'), statSync(catOut).size);
  const dst1 = join(work, 'cp1.txt');
  const dst2 = join(work, 'cp2.txt');
  assert.equal(plain(['cp', a, dst1]).status, 0);
  assert.equal(profiled(['cp', a, dst2], join(work, 'cp.jsonl')).status, 0);
  assert.ok(readFileSync(dst1).equals(readFileSync(dst2)));
  assert.equal(profiled(['cp', join(work, 'missing'), dst2], join(work, 'cp2.jsonl')).status, plain(['cp', join(work, 'missing'), dst2]).status);
});

test('tar: identical archives and listings', () => {
  const src = join(work, 'tree');
  mkdirSync(join(src, 'sub'), { recursive: true });
  for (let i = 0; i < 20; i++) writeFileSync(join(src, i % 2 ? 'sub' : '', `f${i}.txt`), `file ${i}\n`.repeat(i * 100));
  const args = ['tar', '--sort=name', '--mtime=2020-01-01', '--owner=0', '--group=0', '-C', src, '-cf', '-', '.'];
  const p = plain(args);
  const q = profiled(args, join(work, 'tar.jsonl'));
  assert.equal(q.status, p.status);
  assert.ok(q.stdout.equals(p.stdout), 'tar stream identical');
  const archive = join(work, 't.tar');
  writeFileSync(archive, p.stdout);
  const x = profiled(['tar', '-tvf', archive], join(work, 'tar2.jsonl'));
  assert.ok(x.stdout.equals(plain(['tar', '-tvf', archive]).stdout));
});

test('python3: identical output and exit status; writes equal strace', () => {
  const python = requireBinary('python3');
  const script = join(work, 'io.py');
  const data = join(work, 'py.dat');
  writeFileSync(
    script,
    [
      'import os, sys, hashlib',
      `path = ${JSON.stringify(data)}`,
      'fd = os.open(path, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o644)',
      'for i in range(500):',
      '    os.write(fd, bytes([i % 256]) * 100)',
      'os.close(fd)',
      'for i in range(50):',
      '    os.stat(path)',
      'with open(path, "rb") as f:',
      '    digest = hashlib.sha256(f.read()).hexdigest()',
      'print(digest, os.path.getsize(path))',
      'sys.exit(3)',
    ].join('\n'),
  );
  const env = { PYTHONDONTWRITEBYTECODE: '1' };
  const p = plain([python, script], env);
  const log = join(work, 'py.jsonl');
  const q = profiled([python, script], log, env);
  assert.equal(p.status, 3);
  assert.equal(q.status, 3);
  assert.ok(q.stdout.equals(p.stdout));
  const mount = mountOf(work);
  const io = mountTotal(log, mount).io as Obj;
  const oracle = straceCount([python, script], ['write'], ownFiles, { env });
  assert.equal(oracle.calls, 500);
  assert.equal(calls(io, 'write_all'), oracle.calls);
  assert.equal(bytes(io, 'write_all'), 50_000);
  assert.ok(calls(io, 'access') >= 50, 'os.stat is counted (glibc >= 2.33 stat symbols)');
});

test('git: identical commits and exit statuses', () => {
  const git = requireBinary('git');
  const env = {
    GIT_AUTHOR_NAME: 'a',
    GIT_AUTHOR_EMAIL: 'a@example.com',
    GIT_COMMITTER_NAME: 'a',
    GIT_COMMITTER_EMAIL: 'a@example.com',
    GIT_AUTHOR_DATE: '2020-01-01T00:00:00Z',
    GIT_COMMITTER_DATE: '2020-01-01T00:00:00Z',
    HOME: work,
    GIT_CONFIG_NOSYSTEM: '1',
  };
  const heads: string[] = [];
  for (const [i, run] of [plain, (cmd: readonly string[], e: NodeJS.ProcessEnv) => profiled(cmd, join(work, `git-${Date.now()}.jsonl`), e)].entries()) {
    const repo = join(work, `repo${i}`);
    mkdirSync(repo);
    for (let f = 0; f < 10; f++) writeFileSync(join(repo, `f${f}.txt`), `content ${f}\n`.repeat(50));
    for (const cmd of [
      ['init', '-q', '-b', 'main'],
      ['add', '.'],
      ['commit', '-q', '-m', 'first'],
    ])
      assert.equal(run([git, '-C', repo, ...cmd], env).status, 0, cmd.join(' '));
    const log = run([git, '-C', repo, 'log', '--format=%H %s'], env);
    heads.push(log.stdout.toString('utf8'));
    assert.equal(run([git, '-C', repo, 'rev-parse', 'nope'], env).status, plain([git, '-C', repo, 'rev-parse', 'nope'], env).status);
  }
  assert.equal(heads[1], heads[0]);
  rmSync(join(work, 'repo0'), { recursive: true, force: true });
});

test('multi-threaded C program: identical output; writes and reads equal strace', () => {
  const threads = buildProgram('threads', ['-pthread']);
  const dirA = join(work, 'thr-a');
  const dirB = join(work, 'thr-b');
  mkdirSync(dirA);
  mkdirSync(dirB);
  const p = plain([threads, dirA, '4', '2000']);
  const log = join(work, 'thr.jsonl');
  const q = profiled([threads, dirB, '4', '2000'], log);
  assert.equal(q.status, p.status);
  assert.ok(q.stdout.equals(p.stdout));
  assert.equal(q.stdout.toString('utf8').trim(), String(4 * 2000 * 100));
  const mount = mountOf(work);
  const io = mountTotal(log, mount).io as Obj;
  const writes = straceCount([threads, dirA, '4', '2000'], ['write'], ownFiles);
  const reads = straceCount([threads, dirA, '4', '2000'], ['read'], ownFiles);
  assert.equal(writes.calls, 8000);
  assert.equal(calls(io, 'write_all'), writes.calls);
  assert.equal(bytes(io, 'write_all'), writes.bytes);
  assert.equal(calls(io, 'read_all'), reads.calls);
  assert.equal(bytes(io, 'read_all'), reads.bytes);
});

test('exit statuses under the profiler: plain codes and signals (128+n)', () => {
  assert.equal(profiled(['sh', '-c', 'exit 42'], join(work, 'e1.jsonl')).status, 42);
  assert.equal(profiled(['sh', '-c', 'kill -INT $$'], join(work, 'e2.jsonl')).status, 130);
  assert.equal(profiled(['sh', '-c', 'kill -SEGV $$'], join(work, 'e3.jsonl')).status, 139);
});

/** The reasons of a run's `diagnosis` record. */
const reasonsOf = (log: string): Obj[] => (readValidLog(readFileSync(log, 'utf8')).find((x) => x.type === 'diagnosis') as Obj).reasons as Obj[];

// Times left unreported (--min-sampled above any count) so that every reason gets its advice: what is
// asserted is whom the advice is for, not the share of run time, which the node's load decides.
test("cp -r of small files and dd bs=4k: small writes equal strace's, hinted as small files and as dd's bs=, not as the tool's block size", () => {
  const tree = join(work, 'small-files');
  mkdirSync(tree);
  for (let i = 0; i < 60; i++) writeFileSync(join(tree, `f${i}.txt`), 'x'.repeat(1000 + 30 * i));
  const copy = join(work, 'small-files-copy');
  const cp = ['cp', '-r', '--reflink=never', tree, copy]; // (never a clone: a btrfs or xfs /tmp would copy no byte)
  const cpLog = join(work, 'cp-r.jsonl');
  assert.equal(profiled(cp, cpLog, {}, ['--min-sampled', '1000000000']).status, 0);
  rmSync(copy, { recursive: true });
  // coreutils 9 copies with copy_file_range (the profiler: a read and a write), older ones read and write
  const moved = straceCount(cp, ['copy_file_range', 'write'], ownFiles);
  const data = straceCount(cp, ['copy_file_range', 'write'], (p) => ownFiles(p) && p.startsWith(`${copy}/`));
  const cpWrites = reasonsOf(cpLog).find((r) => r.reason === 'small_write' && r.program.name === 'cp');
  assert.ok(cpWrites, JSON.stringify(reasonsOf(cpLog)));
  // each file moved in one call with data (and a last one of 0 bytes, green)
  assert.equal(cpWrites.calls, 60);
  assert.ok(moved.calls >= 60 || data.calls >= 60, `strace: ${JSON.stringify({ moved, data })}`);
  assert.equal(cpWrites.bytes, moved.bytes || data.bytes);
  assert.match(cpWrites.hint, /the files themselves are small \(\d+ opens moved less than 32 KiB each\), so no block size can help/);
  assert.doesNotMatch(cpWrites.hint, /own block size/);

  const x = join(work, 'dd-4k');
  const dd = ['dd', 'if=/dev/zero', `of=${x}`, 'bs=4k', 'count=200', 'status=none'];
  const ddLog = join(work, 'dd-4k.jsonl');
  assert.equal(profiled(dd, ddLog, {}, ['--min-sampled', '1000000000']).status, 0);
  const oracle = straceCount(dd, ['write'], (p) => p === x);
  const ddWrites = reasonsOf(ddLog).find((r) => r.reason === 'small_write' && r.program.name === 'dd');
  assert.ok(ddWrites, JSON.stringify(reasonsOf(ddLog)));
  assert.equal(oracle.calls, 200);
  assert.equal(ddWrites.calls, oracle.calls);
  assert.equal(ddWrites.bytes, oracle.bytes);
  assert.match(ddWrites.hint, /: dd moves one block of the size its command line gives per call .*: give it bs=1M or larger$/);
});
