// Programs left out of tracing, with real programs under the library: bypass and exclude lists by
// base name, full path and directory, their children, scheduler commands named one by one, and
// JOBIO_TIMEFRAME=no. The profiled reads are checked against strace on the same command.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildTests, removeDir, runProfiled, tempDir, testBin, type DumpProcess, type ProfiledResult } from './harness.js';
import { requireBinary } from '../helpers/binaries.js';
import { straceCount } from '../profiler/real-library.js';

const FILE_BYTES = 100000;

interface Work {
  dir: string;
  bin: string;
  file: string;
  mycat: string;
}

/** A temp dir with a data file and a copy of cat in bin/mycat (a program only found by its path). */
function work(): Work {
  const dir = tempDir();
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const mycat = join(bin, 'mycat');
  copyFileSync(requireBinary('cat'), mycat);
  const file = join(dir, 'data');
  writeFileSync(file, Buffer.alloc(FILE_BYTES, 1));
  return { dir, bin, file, mycat };
}

const exes = (r: ProfiledResult): string[] => r.dump.processes.map((p) => p.exe).sort();

/** Bytes the process read on every mount (the data file is the only file cat reads). */
function readBytes(p: DumpProcess): number {
  let n = 0;
  for (const m of p.mounts) for (const s of Object.values(m.sizes.read)) n += s.bytes;
  return n;
}

before(() => buildTests());

describe('opt-outs', () => {
  test('bypass by full path and by directory: the copy in bin/ is left alone, /usr/bin/cat is traced', async () => {
    const w = work();
    const script = `${w.mycat} ${w.file} > /dev/null; cat ${w.file} > /dev/null`;
    const oracle = straceCount(['sh', '-c', script], ['read'], (path) => path === w.file);
    assert.equal(oracle.bytes, 2 * FILE_BYTES, 'strace: both programs read the whole file');
    for (const entry of [w.mycat, w.bin, `${w.bin}/`, `foo, ${w.bin}`]) {
      const r = await runProfiled('sh', ['-c', script], { dir: w.dir, env: { JOBIO_BYPASS: entry } });
      assert.equal(r.status, 0, r.stderr.toString());
      assert.deepEqual(
        exes(r).filter((e) => e !== 'dash' && e !== 'bash' && e !== 'sh'),
        ['cat'],
        `JOBIO_BYPASS=${entry}`,
      );
      const cat = r.dump.processes.find((p) => p.exe === 'cat');
      assert.equal(readBytes(cat!), oracle.bytes / 2, 'the traced cat read what strace saw it read');
    }
    // a prefix that is not a whole directory name does not match
    const partial = await runProfiled('sh', ['-c', script], { dir: w.dir, env: { JOBIO_BYPASS: w.bin.slice(0, -1) } });
    assert.ok(exes(partial).includes('mycat'));
    removeDir(w.dir);
  });

  test('children covered: a bypassed shell takes its cat with it; an excluded one only with JOBIO_EXCLUDE_CHILDREN', async () => {
    const w = work();
    const script = `cat ${w.file} > /dev/null; cat ${w.file} > /dev/null`;
    const sh = requireBinary('sh');
    const bypassed = await runProfiled(sh, ['-c', script], { dir: w.dir, env: { JOBIO_BYPASS: sh } });
    assert.equal(bypassed.status, 0);
    assert.deepEqual(bypassed.dump.processes, []);
    const excluded = await runProfiled(sh, ['-c', script], { dir: w.dir, env: { JOBIO_EXCLUDE: sh } });
    assert.deepEqual(exes(excluded), ['cat', 'cat'], 'JOBIO_EXCLUDE alone: the children are traced');
    assert.equal(
      excluded.dump.processes.reduce((a, p) => a + readBytes(p), 0),
      2 * FILE_BYTES,
    );
    const covered = await runProfiled(sh, ['-c', script], { dir: w.dir, env: { JOBIO_EXCLUDE: sh, JOBIO_EXCLUDE_CHILDREN: '1' } });
    assert.deepEqual(covered.dump.processes, []);
    const again = await runProfiled(sh, ['-c', script], { dir: w.dir, env: { JOBIO_EXCLUDE: sh, JOBIO_EXCLUDE_CHILDREN: '1', JOBIO_TRACE_CHILDREN: '1' } });
    assert.deepEqual(exes(again), ['cat', 'cat']);
    removeDir(w.dir);
  });

  test('path entries are resolved through links (merged /usr: /bin -> usr/bin): the program named by a linked directory is left out', async () => {
    const w = work();
    // alias -> bin, as /bin -> usr/bin: the kernel reports the program as bin/mycat
    const alias = join(w.dir, 'alias');
    symlinkSync('bin', alias);
    const script = `${w.mycat} ${w.file} > /dev/null; cat ${w.file} > /dev/null`;
    for (const entry of [join(alias, 'mycat'), alias, `${alias}/`]) {
      const r = await runProfiled('sh', ['-c', script], { dir: w.dir, env: { JOBIO_EXCLUDE: entry } });
      assert.equal(r.status, 0, r.stderr.toString());
      assert.deepEqual(
        exes(r).filter((e) => e === 'mycat' || e === 'cat'),
        ['cat'],
        `JOBIO_EXCLUDE=${entry}`,
      );
    }
    // a link to another directory covers that directory only
    mkdirSync(join(w.dir, 'elsewhere'));
    symlinkSync('elsewhere', join(w.dir, 'alias2'));
    const other = await runProfiled('sh', ['-c', script], { dir: w.dir, env: { JOBIO_EXCLUDE: `${join(w.dir, 'alias2')},${join(w.dir, 'missing')}/mycat` } });
    assert.deepEqual(
      exes(other).filter((e) => e === 'mycat' || e === 'cat'),
      ['cat', 'mycat'],
    );
    removeDir(w.dir);
  });

  test('JOBIO_BYPASS_DISABLE: below a bypassed shell, the child started with the named variable set is traced again', async () => {
    const w = work();
    const sh = requireBinary('sh');
    const script = `cat ${w.file} > /dev/null; REENABLE_TRACING=1 ${w.mycat} ${w.file} > /dev/null`;
    const r = await runProfiled(sh, ['-c', script], { dir: w.dir, env: { JOBIO_BYPASS: sh, JOBIO_BYPASS_DISABLE: 'REENABLE_TRACING', REENABLE_TRACING: undefined } });
    assert.equal(r.status, 0, r.stderr.toString());
    assert.deepEqual(exes(r), ['mycat'], 'the shell and its first cat bypassed, mycat traced');
    assert.equal(readBytes(r.dump.processes[0]!), FILE_BYTES);
    const without = await runProfiled(sh, ['-c', script], { dir: w.dir, env: { JOBIO_BYPASS: sh, REENABLE_TRACING: undefined } });
    assert.deepEqual(without.dump.processes, [], 'without JOBIO_BYPASS_DISABLE the whole subtree is left alone');
    removeDir(w.dir);
  });

  test('JOBIO_TRACE_SCHEDULER names single commands: mpirun traced, srun still left out', async () => {
    const dir = tempDir();
    for (const name of ['srun', 'mpirun']) copyFileSync(testBin('t_noop'), join(dir, name));
    const script = `${join(dir, 'srun')}; ${join(dir, 'mpirun')}`;
    const named = await runProfiled('sh', ['-c', script], { dir, env: { JOBIO_TRACE_SCHEDULER: 'mpirun' } });
    assert.equal(named.status, 0, named.stderr.toString());
    assert.deepEqual(
      exes(named).filter((e) => e === 'srun' || e === 'mpirun'),
      ['mpirun'],
    );
    const all = await runProfiled('sh', ['-c', script], { dir, env: { JOBIO_TRACE_SCHEDULER: '1' } });
    assert.deepEqual(
      exes(all).filter((e) => e === 'srun' || e === 'mpirun'),
      ['mpirun', 'srun'],
    );
    const none = await runProfiled('sh', ['-c', script], { dir });
    assert.deepEqual(
      exes(none).filter((e) => e === 'srun' || e === 'mpirun'),
      [],
    );
    removeDir(dir);
  });

  test('JOBIO_TRACE_SCHEDULER=mpirun traces mpirun installed as a link to orterun (Open MPI), by either name', async () => {
    const dir = tempDir();
    copyFileSync(testBin('t_noop'), join(dir, 'orterun'));
    symlinkSync(join(dir, 'orterun'), join(dir, 'mpirun'));
    for (const list of ['mpirun', 'orterun']) {
      const r = await runProfiled(join(dir, 'mpirun'), [], { dir, env: { JOBIO_TRACE_SCHEDULER: list } });
      assert.equal(r.status, 0, r.stderr.toString());
      assert.deepEqual(exes(r), ['orterun'], `JOBIO_TRACE_SCHEDULER=${list}`);
    }
    const none = await runProfiled(join(dir, 'mpirun'), [], { dir, env: { JOBIO_TRACE_SCHEDULER: 'srun' } });
    assert.deepEqual(exes(none), []);
    removeDir(dir);
  });

  test('JOBIO_TIMEFRAME=no: one snapshot at exit, none in between (a run of several seconds of writes)', async () => {
    const dir = tempDir();
    const script = `for i in 1 2 3; do echo x >> ${join(dir, 'f')}; sleep 1; done`;
    const sh = requireBinary('sh');
    const none = await runProfiled(sh, ['-c', script], { dir, env: { JOBIO_TIMEFRAME: 'no' } });
    assert.equal(none.status, 0);
    const shell = none.dump.processes.filter((p) => p.exe === 'dash' || p.exe === 'bash' || p.exe === 'sh');
    assert.equal(shell.length, 1);
    assert.ok(shell[0]!.final);
    const each = await runProfiled(sh, ['-c', script], { dir, env: { JOBIO_TIMEFRAME: '1' } });
    const shell1 = each.dump.processes.find((p) => p.exe === shell[0]!.exe)!;
    assert.ok(shell1.frames > shell[0]!.frames, `every second: ${shell1.frames} snapshots, no timeframe: ${shell[0]!.frames}`);
    const log = join(dir, 'jobio-error.log');
    assert.ok(!existsSync(log) || !readFileSync(log, 'utf8').includes('invalid value'), '"no" is a valid value');
    removeDir(dir);
  });
});
