// `jobio run` with the real profiler library: every reason of a red or yellow call, with its hint,
// in the summary and in the diagnosis record (whose reasons add up to the jobsummary classes,
// checked by readValidLog); the blind spots said, never silent: programs that ran without the
// profiler (a static child inside sh -c, a cleared environment, a static command), io_uring, file
// mappings; and fio with four I/O engines against fio's own counts and strace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runJobio } from '../helpers/exporter.js';
import { buildProgram } from './frame-tool.js';
import { readValidLog, type LogRecord } from './mistral-schema.js';
import { readStraceCalls } from '../profiler-native/strace-oracle.js';
import { hintFor } from '../../exporter/src/profiler/hints.js';
import { programOf } from '../../exporter/src/profiler/programs.js';
import type { Reason, ReasonClass } from '../../exporter/src/profiler/reasons.js';

const SHM = '/dev/shm';
const reasonsProgram = buildProgram('reasons');
const reasonsStatic = buildProgram('reasons', ['-static']);

function work(): string {
  return mkdtempSync(join(SHM, 'jobio-diag-'));
}

async function runLogged(args: string[], options: string[] = []): Promise<{ code: number | null; stderr: string; stdout: string; records: LogRecord[] }> {
  const dir = work();
  const out = join(dir, 'log.jsonl');
  try {
    const r = await runJobio(['run', ...options, '--output', out, '--', ...args]);
    return { ...r, records: readValidLog(readFileSync(out, 'utf8')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A reason's advice: its hint in the log where it had something to gain, and the same hint worded with
 * the gain (as `jobio report` words a metadata load): whether a reason of few calls passes 1 % of the
 * run comes from the mean time of the job's calls, which the machine's load moves.
 */
function advice(x: LogRecord, program: string, path: string, more: { fstype?: string; deletes?: number } = {}): string[] {
  const worded = hintFor(
    { cls: x.class as ReasonClass, reason: x.reason as Reason, calls: x.calls as number, bytes: x.bytes as number, timeNs: (x.time as number) * 1000 },
    { mount: x.mount as string, small: 32768, program: programOf(program, path), gain: true, fewByteOpens: 0, ...more },
  );
  return x.gain ? [x.hint as string, worded] : [worded];
}

const diagnosisOf = (records: LogRecord[]): LogRecord => {
  const d = records.find((x) => x.type === 'diagnosis');
  assert.ok(d, 'a diagnosis record');
  return d;
};

test('every reason of a red or yellow call appears with its calls and a hint; the summary shows the top ones', async () => {
  const dir = work();
  try {
    const r = await runLogged([reasonsProgram, dir]);
    assert.equal(r.code, 0, r.stderr);
    const d = diagnosisOf(r.records);
    const got = Object.fromEntries((d.reasons as LogRecord[]).map((x) => [`${x.class}/${x.reason}`, x.calls]));
    assert.deepEqual(got, {
      'red/small_read': 1,
      'red/small_write': 2,
      'red/failed_not_found': 1,
      'red/failed_permission': 1,
      'red/failed_call': 1,
      'red/open_nothing_transferred': 1,
      'red/stat_unused': 1,
      'red/backward_seek': 1,
      'red/zero_seek': 1,
      'yellow/open_few_bytes': 1,
      'yellow/open_bytes_unseen': 1,
      'yellow/stat_used': 2,
      'yellow/forward_seek': 1,
      'yellow/sync': 1,
      'yellow/metadata_change': 2,
    });
    for (const x of d.reasons as LogRecord[]) {
      assert.equal(x.mount, SHM);
      assert.match(x.hint, new RegExp(`^Your program \\(reasons\\) on ${SHM}: ${x.calls} `), x.hint);
      assert.deepEqual(x.program, { name: 'reasons', path: reasonsProgram, role: 'job', label: 'your program (reasons)' });
    }
    assert.equal((d.reasons as LogRecord[]).find((x) => x.reason === 'small_write')?.bytes, 20);
    assert.deepEqual(d.unseen, [{ kind: 'mmap_io', processes: 1, bytes: 4096, detail: '4.0 KiB of files mapped into memory: the bytes read or written through the mappings are unknown' }]);
    assert.match(r.stderr, /why calls were red or yellow \(those with something to gain first, then by calls; 8 of 15/);
    assert.match(r.stderr, /^ {2}- Your program \(reasons\) on \/dev\/shm: 2 writes of 10 B on average: (buffer to at least 1 MiB|.*nothing to gain)/m);
    assert.match(r.stderr, /^ {2}mmap_io: 4\.0 KiB of files mapped/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('programs that ran without the profiler are said: a static child inside sh -c, a cleared environment, a static command', async () => {
  const dir = work();
  try {
    const r = await runLogged(['sh', '-c', `mkdir ${dir}/s ${dir}/e && ${reasonsStatic} ${dir}/s && env -i ${reasonsProgram} ${dir}/e`]);
    assert.equal(r.code, 0, r.stderr);
    const d = diagnosisOf(r.records);
    const np = (d.unseen as LogRecord[]).find((x) => x.kind === 'not_profiled');
    assert.ok(np, JSON.stringify(d.unseen));
    assert.equal(np.processes, 2);
    // env -i exec'd `reasons` with no environment; sh (dash) started the static one with vfork
    // (both programs are called `reasons`: names are listed once)
    assert.equal(np.detail, '2 process(es) ran without the profiler (static or setuid programs, a cleared environment, excluded, or run as another user): reasons; their I/O is not in these figures');
    assert.match(r.stderr, /^ {2}not_profiled: 2 process\(es\) ran without the profiler/m);

    const s = await runLogged([reasonsStatic, join(dir, 's')]);
    assert.equal(s.code, 99, 'the static command itself ran (and failed: its files exist already)');
    const ds = diagnosisOf(s.records);
    assert.deepEqual(ds.unseen, [
      {
        kind: 'not_profiled',
        processes: 1,
        bytes: 0,
        // the command's own file tells why: a static binary
        detail: `1 process(es) ran without the profiler (static or setuid programs, a cleared environment, excluded, or run as another user): reasons (a static binary); their I/O is not in these figures`,
      },
    ]);
    assert.match(s.stderr, /no I\/O on file systems was recorded/);
    assert.match(s.stderr, /not_profiled: 1 process\(es\) ran without the profiler/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** strace's reads and writes on files under dir. */
function straceCounts(args: string[], cwd: string, dir: string): { reads: number; writes: number } {
  const prefix = join(cwd, 'strace');
  const st = spawnSync('strace', ['-f', '-ff', '-qq', '-y', '-e', 'trace=read,write,pread64,pwrite64,readv,writev,preadv,pwritev', '-o', prefix, ...args], { cwd });
  assert.equal(st.status, 0, st.stderr.toString());
  let reads = 0;
  let writes = 0;
  for (const call of readStraceCalls(prefix)) {
    if (!call.fds[0]?.startsWith(dir)) continue;
    if (/^(p?read|readv|preadv)/.test(call.name)) reads++;
    else writes++;
  }
  return { reads, writes };
}

const onShm = (records: LogRecord[]): { reads: number; writes: number } => {
  const t = records.find((x) => x.type === 'mountpoint' && x.jobtotal === true && x.mountpoint.path === SHM);
  return { reads: t?.io?.read_all?.calls?.total ?? 0, writes: t?.io?.write_all?.calls?.total ?? 0 };
};

for (const engine of ['psync', 'sync', 'libaio', 'io_uring']) {
  test(`fio --ioengine=${engine}: reads and writes equal fio's issued counts (plus the file layout) and strace's`, async (t) => {
    const dir = work();
    try {
      const args = ['fio', '--name=t', `--filename=${join(dir, 'f')}`, '--size=2m', '--bs=64k', '--rw=randrw', '--randseed=7', `--ioengine=${engine}`, '--iodepth=4', '--minimal'];
      // fio's own count of the requests it issued (same seed, so the same read/write split), from a plain run
      const plainRun = spawnSync('fio', args.slice(1, -1).concat(['--filename=' + join(dir, 'g')]), { encoding: 'utf8' });
      if (engine === 'io_uring' && plainRun.status !== 0) {
        // e.g. a container whose seccomp profile forbids io_uring_setup: nothing to profile
        t.skip(`io_uring is not available here: ${plainRun.stderr.trim().split('\n')[0] ?? ''}`);
        return;
      }
      assert.equal(plainRun.status, 0, `fio is required (apt-get install fio): ${plainRun.stderr}`);
      const issued = /issued rwts: total=(\d+),(\d+)/.exec(plainRun.stdout);
      assert.ok(issued, plainRun.stdout);
      const r = await runLogged(args);
      assert.equal(r.code, 0, r.stderr);
      const layout = 2 * 16; // 2 MiB laid out in 64 KiB writes
      const ours = onShm(r.records);
      const d = diagnosisOf(r.records);
      if (engine === 'io_uring') {
        assert.equal(ours.reads, 0);
        assert.equal(ours.writes, layout);
        const a = (d.unseen as LogRecord[]).find((x) => x.kind === 'async_io');
        assert.ok(a && /io_uring ring\(s\) set up: the I\/O they carried is not counted/.test(a.detail), JSON.stringify(d.unseen));
        assert.ok(
          (d.reasons as LogRecord[]).some((x) => x.reason === 'open_bytes_unseen'),
          'the ring-fed open is not "nothing transferred"',
        );
        assert.ok(!(d.reasons as LogRecord[]).some((x) => x.reason === 'open_nothing_transferred'));
        return;
      }
      // randrw with a fixed seed: the same split in both runs
      assert.deepEqual(ours, { reads: Number(issued[1]), writes: Number(issued[2]) + layout });
      if (engine !== 'libaio') assert.deepEqual(ours, straceCounts(args.slice(0, 2).concat([`--filename=${join(dir, 'h')}`], args.slice(3)), dir, dir));
      else assert.equal(r.stderr.includes('async_io'), false, 'libaio requests are counted, not unseen');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test("dd bs=1M: its one seek's time rests on no timed call or one counted 16 times, so it gives no share; with every call timed it does, and nothing to gain", async () => {
  const dir = work();
  try {
    writeFileSync(join(dir, 'in'), Buffer.alloc(40 << 20, 1));
    const dd = ['dd', `if=${join(dir, 'in')}`, `of=${join(dir, 'out')}`, 'bs=1M', 'status=none'];
    // --min-sampled 1: the run's times are reported (about 5 of its 80-odd calls timed)
    const sampled = await runLogged(dd, ['--min-sampled', '1', '--sample-every', '16']);
    assert.equal(sampled.code, 0, sampled.stderr);
    const seek = (diagnosisOf(sampled.records).reasons as LogRecord[]).find((x) => x.reason === 'zero_seek');
    assert.ok(seek, JSON.stringify(diagnosisOf(sampled.records).reasons));
    // no share; its gain, from the mean time of dd's calls, is the same whether or not it was timed
    assert.deepEqual([seek.calls, seek.share], [1, null]);
    assert.match(sampled.stderr, /no share where the bound exceeds half the time/);
    // every call timed: the time is exact, and a single seek is far below 1 % of the run
    const all = await runLogged(dd, ['--sample-every', '1']);
    assert.equal(all.code, 0, all.stderr);
    const exact = (diagnosisOf(all.records).reasons as LogRecord[]).find((x) => x.reason === 'zero_seek');
    assert.ok(exact && typeof exact.share === 'number' && exact.time_error === 0, JSON.stringify(exact));
    assert.deepEqual([exact.calls, exact.gain], [1, false]);
    assert.match(exact.hint, /of the run time, nothing to gain$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('du -s: its reasons (stats, directory listings) are a metadata walk: run it once, nothing to copy', async () => {
  const dir = work();
  try {
    for (let d = 0; d < 20; d++) {
      mkdirSync(join(dir, 'tree', `d${d}`), { recursive: true });
      for (let i = 0; i < 15; i++) writeFileSync(join(dir, 'tree', `d${d}`, `f${i}`), 'x');
    }
    // every call timed: exact times, so the reasons that are most of du's run have something to gain
    const r = await runLogged(['du', '-s', join(dir, 'tree')], ['--sample-every', '1', '--min-sampled', '1']);
    assert.equal(r.code, 0, r.stderr);
    const reasons = diagnosisOf(r.records).reasons as LogRecord[];
    // a stat of each of the 300 files and 21 directories (du stats each directory again as it lists it),
    // the 21 directories listed
    const of = (reason: string): number => reasons.filter((x) => x.reason === reason).reduce((n, x) => n + (x.calls as number), 0);
    assert.equal(of('open_bytes_unseen'), 21, JSON.stringify(reasons));
    assert.ok(reasons.length > 0 && reasons.every((x) => x.program.name === 'du' && x.mount === SHM));
    for (const x of reasons) {
      for (const hint of advice(x, 'du', '/usr/bin/du', { fstype: 'tmpfs' })) {
        assert.match(hint, /du walks the metadata of a tree .* run it once and keep its answer .*; it already works in memory \(tmpfs\)$/, hint);
        assert.doesNotMatch(hint, /copy the result/);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('sort -S 1M -T DIR spilling: the hints where its temporary files were say -S and -T; its input and output keep its block size', async () => {
  const dir = work();
  try {
    // 600,000 shuffled lines (4 MiB): about 40 temporary files with a 1 MiB buffer
    const lines = Array.from({ length: 600_000 }, (_, i) => String((i * 7919) % 600_000));
    writeFileSync(join(dir, 'lines.txt'), lines.join('\n') + '\n');
    const tmp = mkdtempSync(join(tmpdir(), 'jobio-sort-'));
    try {
      const r = await runLogged(['sort', '-S', '1M', '-T', tmp, '-o', join(dir, 'sorted.txt'), join(dir, 'lines.txt')]);
      assert.equal(r.code, 0, r.stderr);
      const reasons = (diagnosisOf(r.records).reasons as LogRecord[]).filter((x) => x.program.name === 'sort');
      const spill = reasons.filter((x) => x.mount !== SHM && (x.reason === 'small_read' || x.reason === 'small_write'));
      const shm = reasons.filter((x) => x.mount === SHM && (x.reason === 'small_read' || x.reason === 'small_write'));
      // the temporary files' mount: where $TMPDIR is, another than /dev/shm
      assert.ok(spill.length > 0, `the temporary files on another mount than ${SHM}: ${JSON.stringify(reasons)}`);
      // sort deletes nothing else there: the files it says it made are its deletes, one per run spilled
      const deletes = reasons.find((x) => x.reason === 'metadata_change' && x.mount === spill[0]?.mount)?.calls as number;
      assert.ok(deletes >= 10, JSON.stringify(reasons));
      const said = new RegExp(`sort spilled what did not fit its buffer to temporary files here \\(${deletes} created and deleted\\) .*give it a larger buffer \\(-S 2G`);
      for (const x of spill) if (x.gain) assert.match(x.hint, said, x.hint);
      // the deletes themselves: too few calls for a share (1 in 16 timed); whether they have anything to
      // gain comes from the mean time of sort's calls, so their advice is also worded with the gain
      const made = reasons.find((x) => x.reason === 'metadata_change' && x.mount === spill[0]?.mount);
      assert.ok(made && made.share === null, JSON.stringify(made));
      for (const hint of advice(made, 'sort', '/usr/bin/sort', { deletes })) assert.match(hint, said);
      // on /dev/shm, its input and -o output (truncated, no delete): its own block size
      for (const x of shm) if (x.gain) assert.match(x.hint, /sort reads and writes in its own block size/, x.hint);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('tar x: its owner, mode and time changes are told the options that leave them, which do (one mkdir left)', async () => {
  const dir = work();
  try {
    mkdirSync(join(dir, 'src'));
    for (let i = 0; i < 200; i++) writeFileSync(join(dir, 'src', `f${i}`), String(i));
    const made = spawnSync('tar', ['cf', join(dir, 't.tar'), '-C', dir, 'src']);
    assert.equal(made.status, 0, made.stderr.toString());
    const extract = async (name: string, options: string[]): Promise<LogRecord | undefined> => {
      mkdirSync(join(dir, name));
      const r = await runLogged(['tar', ...options, '-xf', join(dir, 't.tar'), '-C', join(dir, name)]);
      assert.equal(r.code, 0, r.stderr);
      return (diagnosisOf(r.records).reasons as LogRecord[]).find((x) => x.reason === 'metadata_change' && x.mount === SHM);
    };
    const all = await extract('x1', []);
    // a chmod and a utimensat per file (and a chown as root), the directory's mkdir and its own
    assert.ok(all && all.calls >= (process.getuid?.() === 0 ? 600 : 400), JSON.stringify(all));
    if (all.gain) assert.match(all.hint, /tar x restores the owner .*: if you do not need them, --no-same-owner, --no-same-permissions and -m/);
    const none = await extract('x2', ['--no-same-owner', '--no-same-permissions', '-m']);
    assert.equal(none?.calls, 1, 'the mkdir of the directory only');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('git status: its stats are of the work tree (every tracked file), its failures probes, and the hints say so, not "git\'s own files"', async () => {
  const dir = work();
  try {
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    for (let i = 0; i < 100; i++) writeFileSync(join(repo, `f${i}`), `${i}\n`);
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir, GIT_AUTHOR_NAME: 'n', GIT_AUTHOR_EMAIL: 'n@x', GIT_COMMITTER_NAME: 'n', GIT_COMMITTER_EMAIL: 'n@x' };
    for (const args of [
      ['init', '-q'],
      ['add', '.'],
      ['commit', '-qm', 'init'],
    ]) {
      const g = spawnSync('git', ['-C', repo, ...args], { env });
      assert.equal(g.status, 0, g.stderr.toString());
    }
    for (let i = 0; i < 20; i++) writeFileSync(join(repo, `f${i}`), `${i} changed\n`);
    const r = await runLogged(['git', '-C', repo, 'status', '--short']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.split('\n').filter((l) => l.startsWith(' M ')).length, 20);
    const reasons = (diagnosisOf(r.records).reasons as LogRecord[]).filter((x) => x.program.name === 'git' && x.mount === SHM);
    const stats = reasons.filter((x) => x.reason === 'stat_unused' || x.reason === 'stat_used');
    // one stat of each of the 100 tracked files at least
    assert.ok(stats.reduce((n, x) => n + (x.calls as number), 0) >= 100, JSON.stringify(reasons));
    for (const x of reasons) assert.doesNotMatch(x.hint, /git's own files/);
    for (const x of stats) if (x.gain) assert.match(x.hint, /git stats every tracked file of the work tree to see what changed/);
    const probes = reasons.find((x) => x.reason === 'failed_not_found');
    assert.ok(probes, JSON.stringify(reasons));
    for (const hint of advice(probes, 'git', '/usr/bin/git')) assert.match(hint, /git looks for files that may not exist \(packed-refs/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
