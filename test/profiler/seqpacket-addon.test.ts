// The receiver addon (native/seqpacket) on its own: argument checks, socket file handling, message
// boundaries, oversized messages, per-message credentials (a forked child on its parent's connection).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireBinary } from '../helpers/binaries.js';
import { loadSeqpacketAddon, type SeqpacketEvent } from '../../exporter/src/profiler/native.js';
import { JOBID_VARIABLES } from '../../exporter/src/profiler/job-verifier.js';

const addon = loadSeqpacketAddon();
const dir = mkdtempSync(join(tmpdir(), 'jobio-addon-'));

async function until(predicate: () => boolean): Promise<void> {
  const end = Date.now() + 5000;
  while (!predicate() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}

test('validates its arguments with precise messages', () => {
  const ok = (): void => undefined;
  assert.throws(() => new addon.SeqpacketServer(1 as never, { maxFrame: 10 }, ok), /path must be a string/);
  assert.throws(() => new addon.SeqpacketServer('', { maxFrame: 10 }, ok), /path must not be empty/);
  assert.throws(() => new addon.SeqpacketServer(`/tmp/${'x'.repeat(120)}`, { maxFrame: 10 }, ok), /too long for a Unix socket/);
  assert.throws(() => new addon.SeqpacketServer(join(dir, 'a'), {} as never, ok), /options.maxFrame is required/);
  assert.throws(() => new addon.SeqpacketServer(join(dir, 'a'), { maxFrame: 0 }, ok), /options.maxFrame must be an integer in \[1,/);
  assert.throws(() => new addon.SeqpacketServer(join(dir, 'a'), { maxFrame: 10, mode: 0o1777 }, ok), /options.mode/);
  assert.throws(() => new addon.SeqpacketServer(join(dir, 'a'), { maxFrame: 10 }, 'nope' as never), /onEvent must be a function/);
  assert.throws(() => new (addon.SeqpacketServer as unknown as new (...a: unknown[]) => unknown)(join(dir, 'a'), { maxFrame: 10 }, ok, 4), /takes 3 arguments/);
  assert.throws(
    () => new addon.SeqpacketServer('/nonexistent-jobio/a.sock', { maxFrame: 10 }, ok),
    (e: Error & { code?: string }) => e.code === 'ENOENT',
  );
});

test('socket files: stale ones are replaced, live ones and regular files are not; mode is applied; close removes it', () => {
  const path = join(dir, 's.sock');
  const a = new addon.SeqpacketServer(path, { maxFrame: 10, mode: 0o660 }, () => undefined);
  assert.equal(statSync(path).mode & 0o777, 0o660);
  assert.throws(
    () => new addon.SeqpacketServer(path, { maxFrame: 10 }, () => undefined),
    (e: Error & { code?: string }) => e.code === 'EADDRINUSE',
  );
  a.close();
  a.close();
  assert.equal(existsSync(path), false);
  const file = join(dir, 'regular');
  writeFileSync(file, 'keep me');
  assert.throws(() => new addon.SeqpacketServer(file, { maxFrame: 10 }, () => undefined), /exists and is not a socket/);
  // A stale socket file (its server gone without cleanup) is taken over.
  const stale = join(dir, 'stale.sock');
  const py = spawnSync(requireBinary('python3'), ['-c', `import socket; s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.bind(${JSON.stringify(stale)})`]);
  assert.equal(py.status, 0);
  const b = new addon.SeqpacketServer(stale, { maxFrame: 10 }, () => undefined);
  assert.equal(b.stats().listening, true);
  b.close();
});

test('messages keep their boundaries; oversized ones are counted; credentials are per message', async () => {
  const path = join(dir, 'm.sock');
  const events: SeqpacketEvent[] = [];
  const server = new addon.SeqpacketServer(path, { maxFrame: 100 }, (e) => events.push(e));
  try {
    const script = [
      'import socket, os',
      `c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); c.connect(${JSON.stringify(path)})`,
      "c.send(b'one'); c.send(b'two'); c.send(b'x' * 100); c.send(b'y' * 5000)",
      'pid = os.fork()',
      'if pid == 0:',
      "    c.send(b'child %d' % os.getpid()); os._exit(0)",
      'os.waitpid(pid, 0); c.close()',
    ].join('\n');
    const py = spawnSync(requireBinary('python3'), ['-c', script], { encoding: 'utf8' });
    assert.equal(py.status, 0, py.stderr);
    await until(() => events.some((e) => e.type === 'close'));
    const frames = events.filter((e) => e.type === 'frame');
    assert.deepEqual(
      frames.slice(0, 3).map((e) => e.data?.toString()),
      ['one', 'two', 'x'.repeat(100)],
    );
    const oversized = events.find((e) => e.type === 'oversized');
    assert.equal(oversized?.size, 5000);
    const child = frames[3];
    assert.ok(child);
    assert.equal(child.data?.toString(), `child ${child.pid}`, 'the forked child is identified by the kernel');
    assert.notEqual(child.pid, frames[0]?.pid);
    assert.equal(frames[0]?.uid, process.getuid?.());
    const stats = server.stats();
    assert.equal(stats.accepted, 1);
    assert.equal(stats.closed, 1);
    assert.equal(stats.oversized, 1);
    assert.equal(stats.frames, 4);
    assert.equal(stats.enqueued, stats.delivered);
  } finally {
    server.close();
  }
});

test('evidence: the cgroup, the job variables of environ and the exe link by default; only the parts options.evidence names', async () => {
  assert.throws(() => new addon.SeqpacketServer(join(dir, 'e.sock'), { maxFrame: 10, evidence: ['exe', 'argv'] as never }, () => undefined), /options.evidence must be an array of/);
  // the one job variable the sender has: this one (the tests may run inside a job)
  const jobless = Object.fromEntries(Object.entries(process.env).filter(([k]) => !(JOBID_VARIABLES as readonly string[]).includes(k)));
  const firstEvidence = async (name: string, evidence?: readonly ('cgroup' | 'environ' | 'exe')[]): Promise<SeqpacketEvent['evidence']> => {
    const path = join(dir, name);
    const events: SeqpacketEvent[] = [];
    const server = new addon.SeqpacketServer(path, { maxFrame: 100, procfs: '/proc', ...(evidence !== undefined ? { evidence } : {}) }, (e) => events.push(e));
    try {
      // sleep: the sender is still there when its frame is read
      const script = `import socket, time\nc = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); c.connect(${JSON.stringify(path)}); c.send(b'hi'); time.sleep(0.5); c.close()`;
      const py = spawnSync(requireBinary('python3'), ['-c', script], { encoding: 'utf8', env: { ...jobless, SLURM_JOB_ID: '77' } });
      assert.equal(py.status, 0, py.stderr);
      await until(() => events.some((e) => e.type === 'close'));
      return events.find((e) => e.type === 'frame')?.evidence;
    } finally {
      server.close();
    }
  };
  const all = await firstEvidence('all.sock');
  const exe = await firstEvidence('exe.sock', ['exe']);
  assert.ok(all && exe, 'evidence with each first frame');
  assert.deepEqual(Object.keys(all).sort(), ['cgroup', 'environ', 'exe']);
  assert.equal(all.environ?.toString(), 'SLURM_JOB_ID=77\0');
  assert.match(all.exe ?? '', /python3/);
  assert.deepEqual(Object.keys(exe), ['exe'], 'neither the cgroup file nor environ read');
  assert.equal(exe.exe, all.exe);
});

test('childrenUsage reports the CPU time and peak RSS of reaped children', () => {
  const before = addon.childrenUsage();
  spawnSync(requireBinary('python3'), ['-c', 'x = bytearray(50_000_000); sum(range(2_000_000))']);
  const after = addon.childrenUsage();
  assert.ok(after.userMicros + after.systemMicros > before.userMicros + before.systemMicros);
  assert.ok(after.maxRssBytes >= 50_000_000);
  assert.throws(() => (addon.childrenUsage as (x: number) => unknown)(1), /takes no arguments/);
});

test('a process that ends with frames still queued for JavaScript exits cleanly', () => {
  // The environment's teardown empties the queue: Node frees the function's context before handing
  // the last events back, and JavaScript can no longer run. The receiver used to touch that context
  // and to rethrow a failed call as a C++ exception, which ended the process with SIGABRT
  // ("terminate called after throwing an instance of 'Napi::Error'"): 9 runs in 10 on this script.
  const script = join(dir, 'ends-with-queue.ts');
  const native = new URL('../../exporter/src/profiler/native.ts', import.meta.url).href;
  writeFileSync(
    script,
    [
      `import { spawn } from 'node:child_process';`,
      `import { loadSeqpacketAddon } from ${JSON.stringify(native)};`,
      `const path = ${JSON.stringify(join(dir, 'q'))} + process.pid + '.sock';`,
      `new (loadSeqpacketAddon().SeqpacketServer)(path, { maxFrame: 4096 }, () => undefined);`,
      `const sender = 'import socket\\ns = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)\\ns.connect(' + JSON.stringify(path) + ')\\nfor i in range(500): s.send(b"x" * 100)';`,
      `spawn(${JSON.stringify(requireBinary('python3'))}, ['-c', sender], { stdio: 'ignore' }).unref();`,
      // JavaScript busy while the frames arrive, then the script ends: they are still queued.
      `const end = Date.now() + 1000;`,
      `while (Date.now() < end);`,
    ].join('\n'),
  );
  for (let run = 0; run < 3; run++) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8' });
    assert.equal(r.signal, null, `run ${run}: ${r.stderr}`);
    assert.equal(r.status, 0, `run ${run}: ${r.stderr}`);
  }
});
