// Process lifecycle and rules of conduct: fork, vfork/posix_spawn, exec, _exit, threads, signals,
// programs that close every descriptor, no listener, constructor order, count-only, opt-outs.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildTests, cleanEnv, counted, lib, proc, removeDir, run, runProfiled, startDump, tempDir, testBin, type ProfiledResult } from './harness.js';

async function profiled(prog: string, args: string[] = [], env: Record<string, string | undefined> = {}): Promise<ProfiledResult & { work: string }> {
  const dir = tempDir();
  const work = join(dir, 'work');
  mkdirSync(work);
  const r = await runProfiled(testBin(prog), [work, ...args], { dir, env });
  return { ...r, work };
}

before(() => buildTests());

describe('lifecycle', () => {
  test('fork: the child starts clean with its own start time, the parent is not double counted', async () => {
    const r = await profiled('t_fork');
    assert.equal(r.status, 0, r.stderr.toString());
    const procs = r.dump.processes.filter((p) => p.exe === 't_fork');
    assert.equal(procs.length, 2);
    const [parent, child] = procs[0]!.start_ns < procs[1]!.start_ns ? [procs[0]!, procs[1]!] : [procs[1]!, procs[0]!];
    assert.deepEqual(counted(parent.totals), { write: [10, 0, 0], create: [0, 1, 0], close: [0, 0, 1] });
    assert.deepEqual(counted(child.totals), { write: [5, 0, 0], close: [0, 0, 1] });
    assert.ok(child.start_ns > parent.start_ns);
    assert.ok(parent.final && child.final);
    assert.equal(child.claimed_pid, child.pid);
    removeDir(r.dir);
  });

  test('vfork and posix_spawn: the vfork child touches no state of the parent', async () => {
    const r = await profiled('t_vfork');
    assert.equal(r.status, 0, r.stderr.toString());
    const p = proc(r.dump, 't_vfork'); // exactly one: no frame was sent from a vfork child
    assert.deepEqual(counted(p.totals), { write: [6, 0, 0], create: [0, 1, 0], close: [0, 0, 1] });
    assert.equal(r.dump.processes.filter((q) => q.exe === 'true').length, 2); // the exec'd children are traced
    removeDir(r.dir);
  });

  test('exec: the replaced image flushes first (EXEC flag, pending opens decided), the new one starts fresh', async () => {
    const r = await profiled('t_exec');
    assert.equal(r.status, 0, r.stderr.toString());
    const incarnations = r.dump.processes.filter((p) => p.exe === 't_exec');
    assert.equal(incarnations.length, 2);
    assert.equal(incarnations[0]!.pid, incarnations[1]!.pid);
    const before = incarnations.find((p) => p.exec);
    const after = incarnations.find((p) => !p.exec);
    assert.ok(before && after);
    assert.deepEqual(counted(before.totals), { write: [10, 0, 0], create: [0, 1, 0] });
    assert.deepEqual(counted(after.totals), { write: [3, 0, 0], create: [0, 1, 0], close: [0, 0, 1] });
    assert.ok(after.final);
    assert.ok(after.start_ns > before.start_ns);
    removeDir(r.dir);
  });

  for (const how of ['execl', 'execlp', 'execle']) {
    test(`${how}: the variadic arguments (and execle's environment) reach the new image intact, and the replaced image flushes first`, async () => {
      const r = await profiled('t_execl', [how]);
      assert.equal(r.status, 0, r.stderr.toString()); // 99: phase 2 got other arguments or another environment
      const incarnations = r.dump.processes.filter((p) => p.exe === 't_execl');
      assert.equal(incarnations.length, 2);
      assert.equal(incarnations[0]!.pid, incarnations[1]!.pid);
      const before = incarnations.find((p) => p.exec);
      const after = incarnations.find((p) => !p.exec);
      assert.ok(before && after);
      assert.deepEqual(counted(before.totals), { write: [2, 0, 0], create: [0, 1, 0] });
      assert.deepEqual(counted(after.totals), { write: [3, 0, 0], create: [0, 1, 0], close: [0, 0, 1] });
      removeDir(r.dir);
    });
  }

  for (const how of ['_exit', '_Exit']) {
    test(`${how}: final flush before the process ends, exit status kept`, async () => {
      const r = await profiled('t_exit', how === '_Exit' ? ['Exit'] : []);
      assert.equal(r.status, 3);
      const p = proc(r.dump, 't_exit');
      assert.ok(p.final);
      assert.deepEqual(counted(p.totals), { write: [4, 0, 0], create: [0, 1, 0] });
      removeDir(r.dir);
    });
  }

  test('threads: 2 rounds x 8 threads x 10000 writes counted exactly', async () => {
    const r = await profiled('t_threads');
    assert.equal(r.status, 0, r.stderr.toString());
    const p = proc(r.dump, 't_threads');
    assert.deepEqual(counted(p.totals), { write: [160000, 0, 0], create: [0, 0, 16], close: [0, 0, 16] });
    assert.equal(p.totals.sizes.write.small.bytes, 160000 * 8);
    removeDir(r.dir);
  });

  test('a signal handler doing I/O while the program does I/O: every call counted once', async () => {
    const r = await profiled('t_signal', [], { JOBIO_SAMPLE_EVERY: '1' });
    assert.equal(r.status, 0, r.stderr.toString());
    const handled = Number(r.stdout.toString().trim());
    assert.ok(handled > 0, 'the timer fired');
    const p = proc(r.dump, 't_signal');
    assert.deepEqual(counted(p.totals), { write: [20000 + handled, 0, 0], create: [0, 1, 1] });
    assert.equal(statSync(join(r.work, 'sig')).size, handled);
    removeDir(r.dir);
  });

  for (const mode of ['closefrom', 'close_range', 'dup2']) {
    test(`a program that ${mode === 'dup2' ? 'dup2s over' : `closes (${mode})`} our socket: reconnect, nothing written into its files`, async () => {
      const r = await profiled('t_closefrom', [mode], { JOBIO_SAMPLE_EVERY: '1', JOBIO_TIMEFRAME: '1' });
      assert.equal(r.status, 0, r.stderr.toString());
      const p = proc(r.dump, 't_closefrom');
      assert.ok(p.final);
      assert.ok(r.dump.connections >= 2, 'reconnected after losing the socket');
      const c = counted(p.totals);
      assert.deepEqual(c.write, [8, 0, 0]);
      if (mode === 'dup2') {
        assert.deepEqual(c.create, [1, 1, 0]); // o: no bytes; f: 60 bytes (decided at exit)
        assert.deepEqual(c.open, [0, 1, 0]);
        assert.equal(statSync(join(r.work, 'o')).size, 0, 'no frame bytes in the program file');
      } else {
        assert.deepEqual(c.create, [0, 1, 0]);
        assert.deepEqual(c.open, [0, 1, 0]);
        assert.deepEqual(c.close, [0, 0, 1]);
      }
      assert.equal(statSync(join(r.work, 'f')).size, 80);
      removeDir(r.dir);
    });
  }

  test('no listener (missing path, not a socket, backlog full): no hang, same exit status and output', async () => {
    const dir = tempDir();
    const work = join(dir, 'w');
    mkdirSync(work);
    writeFileSync(join(dir, 'plain-file'), 'x');
    const plain = await run(testBin('t_exit'), [work]);
    const stalled = await startDump(dir, ['--no-accept']);
    for (const sock of [join(dir, 'missing.sock'), join(dir, 'plain-file'), stalled.socket]) {
      for (let i = 0; i < 3; i++) {
        const r = await run(testBin('t_exit'), [work], { env: cleanEnv({ LD_PRELOAD: lib, JOBIO_SOCKET: sock, JOBIO_TIMEFRAME: '1' }) });
        assert.equal(r.status, plain.status);
        assert.equal(r.stdout.length, 0);
        assert.equal(r.stderr.length, 0, 'nothing on the job stderr');
        assert.ok(r.ms < 5000, `took ${r.ms} ms`);
      }
    }
    await stalled.stop();
    removeDir(dir);
  });

  test('constructor order: a library whose constructor does I/O before ours is counted', async () => {
    const dir = tempDir();
    const ctorFile = join(dir, 'ctor.out');
    const errLog = join(dir, 'err.log');
    const recv = await startDump(dir);
    const r = await run(testBin('t_noop'), [], {
      env: cleanEnv({
        LD_PRELOAD: `${lib} ${testBin('libctor.so')}`,
        JOBIO_SOCKET: recv.socket,
        JOBIO_ERROR_LOG: errLog,
        JOBIO_DEBUG: '1',
        CTOR_FILE: ctorFile,
      }),
    });
    const dump = await recv.stop();
    assert.equal(r.status, 0);
    assert.match(readFileSync(errLog, 'utf8'), /initialised lazily from a wrapper/, 'the wrappers ran before our constructor');
    assert.deepEqual(counted(proc(dump, 't_noop').totals), { write: [3, 0, 0], create: [0, 1, 0], close: [0, 0, 1] });
    assert.equal(readFileSync(ctorFile).length, 300);
    removeDir(dir);
  });

  test('JOBIO_SOCKET unset: counts only, sends nothing, never fails', async () => {
    const dir = tempDir();
    const plain = await run(testBin('t_mix'), [dir], { env: cleanEnv() });
    removeDir(dir);
    const dir2 = tempDir();
    writeFileSync(join(dir2, 'input'), Buffer.alloc(70000));
    writeFileSync(join(dir2, 'settings'), 'x');
    const r = await run(testBin('t_mix'), [dir2], { env: cleanEnv({ LD_PRELOAD: lib }) });
    assert.equal(r.status, 0, r.stderr.toString());
    assert.notEqual(plain.status, 0); // without its input files the program fails the same way either way
    removeDir(dir2);
  });

  test('job id from the first of SLURM_JOB_ID, PBS_JOBID, LSB_JOBID, JOB_ID, FLUX_JOB_ID', async () => {
    const r = await profiled('t_noop', [], { PBS_JOBID: '77.pbs', JOB_ID: '5', FLUX_JOB_ID: 'f1' });
    const p = proc(r.dump, 't_noop');
    assert.equal(p.jobid, '77.pbs');
    assert.equal(p.jobid_source, 'PBS_JOBID');
    removeDir(r.dir);
    const r2 = await profiled('t_noop', [], { SLURM_JOB_ID: '1234', LSB_JOBID: '9' });
    assert.equal(proc(r2.dump, 't_noop').jobid, '1234');
    removeDir(r2.dir);
  });

  test('opt-outs: JOBIO_EXCLUDE, JOBIO_BYPASS (+ JOBIO_TRACE_CHILDREN), scheduler commands', async () => {
    const ex = await profiled('t_vfork', [], { JOBIO_EXCLUDE: 'foo, t_vfork' });
    assert.equal(ex.status, 0);
    assert.deepEqual(ex.dump.processes.map((p) => p.exe).sort(), ['true', 'true']); // children still traced
    removeDir(ex.dir);
    const by = await profiled('t_vfork', [], { JOBIO_BYPASS: 't_vfork' });
    assert.equal(by.status, 0);
    assert.deepEqual(by.dump.processes, []); // the whole subtree is left alone
    removeDir(by.dir);
    const byc = await profiled('t_vfork', [], { JOBIO_BYPASS: 't_vfork', JOBIO_TRACE_CHILDREN: '1' });
    assert.deepEqual(byc.dump.processes.map((p) => p.exe).sort(), ['true', 'true']);
    removeDir(byc.dir);
    // a scheduler command (here: a copy of t_noop named srun) is not traced unless asked
    const dir = tempDir();
    const srun = join(dir, 'srun');
    writeFileSync(srun, readFileSync(testBin('t_noop')), { mode: 0o755 });
    const s1 = await runProfiled(srun, [], { dir });
    assert.deepEqual(s1.dump.processes, []);
    const s2 = await runProfiled(srun, [], { dir, env: { JOBIO_TRACE_SCHEDULER: '1' } });
    assert.deepEqual(
      s2.dump.processes.map((p) => p.exe),
      ['srun'],
    );
    removeDir(dir);
  });

  test('durations: JOBIO_SAMPLE_EVERY=1 times every call; the default samples about 1 in 16', async () => {
    const all = await profiled('t_threads', [], { JOBIO_SAMPLE_EVERY: '1' });
    const pa = proc(all.dump, 't_threads');
    assert.equal(pa.sample_every, 1);
    assert.equal(pa.totals.calls.write!.sampled, 160000);
    assert.ok(pa.totals.calls.write!.time_ns[0] > 0);
    removeDir(all.dir);
    const def = await profiled('t_threads');
    const pd = proc(def.dump, 't_threads');
    assert.equal(pd.sample_every, 16);
    const s = pd.totals.calls.write!.sampled;
    assert.ok(s > 160000 / 16 / 1.3 && s < (160000 / 16) * 1.3, `sampled ${s}`);
    removeDir(def.dir);
  });
});
