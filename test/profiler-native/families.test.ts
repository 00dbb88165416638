// One C program per wrapped function family (native/profiler/tests/t_*.c), each with the exact
// counts and classes (docs/profiler.md "Classification") it must produce, read back through jobio-dump.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { buildTests, counted, proc, removeDir, runProfiled, run, cleanEnv, tempDir, testBin, lib, profDir, type DumpProcess } from './harness.js';

type Counts = Record<string, [number, number, number]>;

async function profile(prog: string, setup: (dir: string) => void = () => {}, env: Record<string, string> = {}, extraArgs: string[] = []): Promise<{ p: DumpProcess; stdout: string }> {
  const dir = tempDir();
  try {
    const work = join(dir, 'work');
    mkdirSync(work);
    setup(work);
    const r = await runProfiled(testBin(prog), [work, ...extraArgs], { dir, env });
    assert.equal(r.status, 0, `${prog} failed: ${r.stderr.toString()}`);
    return { p: proc(r.dump, prog), stdout: r.stdout.toString() };
  } finally {
    removeDir(dir);
  }
}

const bytes = (n: number): Buffer => Buffer.alloc(n, 'x');

before(() => buildTests());

describe('wrapped families: exact counts and classes', () => {
  test('open family (open, open64, openat, openat64, creat, creat64, __open*_2)', async () => {
    const { p } = await profile('t_open');
    const expected: Counts = {
      read: [1, 0, 3], // the read at end of file (0 bytes), and the one that got 100 of the 1000 bytes it asked for, are green
      write: [1, 0, 1],
      open: [6, 2, 2], // the directory, opened for openat64 in it, is green
      create: [2, 1, 1],
      close: [0, 0, 11],
    };
    assert.deepEqual(counted(p.totals), expected);
    assert.equal(p.ignored_calls, 0);
  });

  test('read/write family with size bins and failures', async () => {
    const { p } = await profile('t_rw', () => {}, { JOBIO_LARGE_THRESHOLD: '45000' });
    assert.deepEqual(counted(p.totals), {
      read: [5, 0, 4], // the pread past the end (0 bytes) is green
      write: [6, 0, 3],
      open: [1, 0, 1],
      create: [0, 0, 1],
      close: [0, 0, 3],
    });
    assert.deepEqual(p.totals.sizes.write.small, { calls: 5, bytes: 172, time_ns: p.totals.sizes.write.small.time_ns });
    assert.equal(p.totals.sizes.write.medium.calls, 2);
    assert.equal(p.totals.sizes.write.medium.bytes, 72768);
    assert.equal(p.totals.sizes.write.large.calls, 1);
    assert.equal(p.totals.sizes.write.large.bytes, 50000);
    assert.equal(p.totals.sizes.read.small.calls, 4); // the 0-byte read is in pow2 bin 0 only
    assert.equal(p.totals.sizes.read.small.bytes, 1115);
    assert.equal(p.totals.sizes.read.medium.calls, 3);
    assert.equal(p.totals.sizes.read.medium.bytes, 112768);
    assert.equal(p.totals.sizes.read.large.calls, 0);
    assert.equal(p.large_threshold, 45000);
    assert.equal(p.small_threshold, 32768);
    // pow2 bins: [bin, calls, bytes]; 0 bytes in bin 0, 32768 = 2^15 in bin 16
    const r = new Map(p.totals.pow2.read.map(([b, c, n]) => [b, [c, n]]));
    assert.deepEqual(r.get(0), [1, 0]);
    assert.equal(r.get(16)?.[0], 3); // 32768, 40000, 40000 are all in [2^15, 2^16)
    assert.equal(r.get(16)?.[1], 112768);
  });

  test('_FORTIFY_SOURCE=2 -O2 build: __read_chk, __pread_chk, __fread_chk, __open_2, __openat_2 counted', async () => {
    const imports = execFileSync('nm', ['-D', '--undefined-only', testBin('t_fortify_on')]).toString();
    for (const sym of ['__read_chk', '__pread_chk', '__fread_chk', '__open_2', '__openat_2']) {
      assert.match(imports, new RegExp(`\\b${sym}\\b`), `the fortified build should import ${sym}`);
    }
    const { p } = await profile('t_fortify_on');
    assert.equal(p.exe, 't_fortify_on');
    assert.deepEqual(counted(p.totals), {
      read: [410, 0, 0],
      write: [200, 0, 0],
      open: [1, 0, 2],
      create: [0, 0, 1],
      close: [0, 0, 4],
      access: [0, 1, 0], // the fstat sizing the stream's buffer (strace sees it)
    });
  });

  test('stat family (glibc >= 2.33 symbols, statx, access): yellow only when the path is opened later', async () => {
    const { p } = await profile('t_stat', (d) => {
      writeFileSync(join(d, 'a'), bytes(100));
      writeFileSync(join(d, 'b'), bytes(10));
      writeFileSync(join(d, 'c'), bytes(10));
    });
    assert.deepEqual(counted(p.totals), {
      access: [6, 11, 0],
      open: [1, 1, 0],
      read: [1, 0, 0],
      close: [0, 0, 2],
    });
  });

  test('legacy __xstat family of binaries linked against glibc < 2.33', async () => {
    const { p } = await profile('t_xstat', (d) => {
      writeFileSync(join(d, 'a'), bytes(100));
      writeFileSync(join(d, 'b'), bytes(10));
    });
    assert.deepEqual(counted(p.totals), { access: [1, 8, 0], open: [2, 0, 0], close: [0, 0, 2] });
  });

  test('lseek/lseek64: backward and zero seeks red, forward yellow (offset tracked through reads and dup)', async () => {
    const { p } = await profile('t_seek', (d) => writeFileSync(join(d, 'f'), bytes(1000)));
    assert.deepEqual(counted(p.totals), { seek: [8, 4, 0], read: [2, 0, 1], open: [0, 1, 0] });
  });

  // the timed and the untimed calls take different bodies in the library: the same counts from both
  for (const [every, timed] of [
    ['1', 'every call timed'],
    [String(2 ** 30), 'no call timed'],
  ] as const) {
    test(`lseek and the stat family count the same with ${timed}`, async () => {
      const seek = await profile('t_seek', (d) => writeFileSync(join(d, 'f'), bytes(1000)), { JOBIO_SAMPLE_EVERY: every });
      assert.deepEqual(counted(seek.p.totals), { seek: [8, 4, 0], read: [2, 0, 1], open: [0, 1, 0] });
      assert.equal(seek.p.totals.calls.seek!.sampled, every === '1' ? 12 : 0);
      const stat = await profile(
        't_stat',
        (d) => {
          writeFileSync(join(d, 'a'), bytes(100));
          writeFileSync(join(d, 'b'), bytes(10));
          writeFileSync(join(d, 'c'), bytes(10));
        },
        { JOBIO_SAMPLE_EVERY: every },
      );
      assert.deepEqual(counted(stat.p.totals), { access: [6, 11, 0], open: [1, 1, 0], read: [1, 0, 0], close: [0, 0, 2] });
      assert.equal(stat.p.totals.calls.access!.sampled, every === '1' ? 17 : 0);
    });
  }

  test('delete and fschange: unlink unlinkat remove rename* mkdir* rmdir chmod fchmod* truncate* ftruncate*', async () => {
    const { p } = await profile('t_fsops', (d) => {
      writeFileSync(join(d, 'f'), bytes(100));
      writeFileSync(join(d, 'e'), bytes(1));
      writeFileSync(join(d, 'e2'), bytes(1));
    });
    assert.deepEqual(counted(p.totals), {
      fschange: [5, 14, 0],
      delete: [2, 3, 0],
      // its descriptor changed with fchmod/ftruncate: the open did its work without moving a byte
      open: [0, 0, 1],
      close: [0, 0, 1],
    });
  });

  test('sync family: fsync fdatasync syncfs sync_file_range sync', async () => {
    const { p } = await profile('t_sync', (d) => writeFileSync(join(d, 'f'), bytes(100)));
    // the open was made to sync the file: green, though no byte moved through it
    assert.deepEqual(counted(p.totals), { sync: [1, 5, 0], open: [0, 0, 1], close: [0, 0, 1] });
  });

  test('mmap/mmap64 of files (anonymous mappings not counted)', async () => {
    const { p } = await profile('t_mmap', (d) => writeFileSync(join(d, 'f'), bytes(4096)));
    // the open's bytes went through the mapping, which the profiler cannot count: not "nothing transferred"
    assert.deepEqual(counted(p.totals), { mmap: [1, 0, 2], open: [0, 1, 0], close: [0, 0, 1] });
    assert.deepEqual(p.totals.reasons, { failed_call: 1, open_bytes_unseen: 1 });
    assert.equal(p.mmap_bytes, 8192);
  });

  test('stdio: fopen fopen64 fdopen freopen fread* fwrite* fclose: reads/writes are the buffer fills and flushes (as strace sees them), calls apart', async () => {
    const { p } = await profile('t_stdio');
    // writes: f's 4096-byte buffer flushed (100 + 3996 of the 40000), then 32768 written directly,
    // the last 3236 at fclose; g's 5 bytes flushed by freopen. reads: fread(50000) asks the kernel
    // for 49152 directly (40100 come) and then 8192 (0: end of file); fread(10) after the sticky end
    // of file reads nothing; the fdopen'd and the freopen'd stream each fill one 4096-byte buffer.
    assert.deepEqual(counted(p.totals), {
      create: [0, 1, 1],
      open: [1, 2, 1],
      write: [3, 0, 1],
      read: [2, 0, 2], // the end-of-file read (0 bytes) is green
      close: [0, 0, 5],
      // each stream's first buffer is sized by an fstat (5 buffers); fopen(g, "a") seeks to the end
      // of the empty file: where it was (strace sees both)
      access: [0, 5, 0],
      seek: [1, 0, 0],
    });
    assert.equal(p.totals.sizes.write.medium.bytes, 32768);
    assert.equal(p.totals.sizes.write.small.bytes, 4096 + 3236 + 5);
    assert.equal(p.totals.sizes.read.medium.bytes, 40100);
    assert.deepEqual(p.totals.stdio, { fread: [5, 40220], fwrite: [3, 40105] });
  });

  test("no fstat per open: files reached through symlinks into another mount are attributed by device (the program's fstat, or one before the first transfer)", async () => {
    const shm = tempDir('/dev/shm');
    try {
      const { p } = await profile('t_symlink', () => {}, {}, [shm]);
      const on = p.mounts.find((m) => m.path === '/dev/shm');
      assert.ok(on, JSON.stringify(p.mounts.map((m) => m.path)));
      assert.deepEqual(counted(on), { open: [0, 0, 2], create: [0, 0, 2], write: [0, 0, 2], read: [0, 0, 2], access: [0, 1, 0], close: [0, 0, 4] });
      for (const m of p.mounts.filter((x) => x.path !== '/dev/shm')) assert.equal(counted(m).read, undefined, `no read on ${m.path}`);
    } finally {
      removeDir(shm);
    }
  });

  test('dup dup2 dup3 fcntl(F_DUPFD*): bytes through aliases count for the open', async () => {
    const { p } = await profile('t_dup');
    assert.deepEqual(counted(p.totals), {
      create: [0, 0, 1],
      open: [1, 3, 2],
      read: [3, 0, 2],
      write: [0, 0, 1],
      close: [0, 0, 12],
    });
  });

  test('copy_file_range, sendfile, sendfile64, splice count their bytes on both sides', async () => {
    const { p } = await profile('t_copy', (d) => writeFileSync(join(d, 's'), bytes(100000)));
    assert.deepEqual(counted(p.totals), {
      read: [3, 0, 4], // the 0-byte copy at end of file is green on both sides, and the one that got 9990 of the 20000 asked on the source's
      write: [4, 0, 3],
      open: [0, 0, 1],
      create: [0, 0, 1],
      close: [0, 0, 2],
    });
    const readBytes = Object.values(p.totals.sizes.read).reduce((s, b) => s + b.bytes, 0);
    const writeBytes = Object.values(p.totals.sizes.write).reduce((s, b) => s + b.bytes, 0);
    assert.equal(readBytes, 50000 + 10 + 40000 + 100 + 1000 + 9990);
    assert.equal(writeBytes, 50000 + 10 + 40000 + 100 + 1000 + 9990);
    assert.equal(p.ignored_calls, 4);
  });

  test('network calls only with JOBIO_NETWORK=1, per peer address: a pair, a Unix path, a failed connect', async () => {
    const on = await profile('t_net', () => {}, { JOBIO_NETWORK: '1' });
    const net = on.p.mounts.filter((m) => m.path.startsWith('[network]'));
    assert.ok(net.every((m) => m.fstype === 'socket'));
    // the work directory is a temporary one: the Unix paths are named by their last component
    const byPeer = Object.fromEntries(net.map((m) => [m.path.replace(/unix:\/.*\//, 'unix:…/'), counted(m)]));
    assert.deepEqual(byPeer, {
      '[network] unix': { write: [0, 0, 4], read: [1, 0, 4] }, // the socketpair: no names on either side
      '[network] unix:…/sock': { connect: [0, 0, 1], accept: [0, 0, 1] }, // both ends named by the listening path
      '[network] unix:…/nosock': { connect: [1, 0, 0] }, // a failed connect counts on the address it tried
      '[network]': { accept: [1, 0, 0] }, // a failed accept has no peer
    });
    assert.equal(on.p.network_folded, 0);
    const off = await profile('t_net');
    assert.equal(
      off.p.mounts.find((m) => m.path.startsWith('[network]')),
      undefined,
    );
    assert.deepEqual(counted(off.p.totals), {});
    assert.equal(off.p.ignored_calls, 2); // the plain read/write on sockets
  });

  test('network peers: the first 16 addresses of a process apart, later ones folded into [network] and counted', async () => {
    const { p } = await profile('t_net_peers', () => {}, { JOBIO_NETWORK: '1' }, ['fold']);
    const byPeer = Object.fromEntries(p.mounts.filter((m) => m.fstype === 'socket').map((m) => [m.path, counted(m)]));
    const expected: Record<string, Counts> = { '[network] 127.0.0.1': { write: [0, 0, 1], read: [0, 0, 1] } };
    for (let i = 2; i <= 16; i++) expected[`[network] 127.0.0.${i}`] = { write: [0, 0, 1] };
    expected['[network]'] = { write: [0, 0, 3], connect: [0, 0, 1] }; // to .17 and .18, and the socket connected to .19
    assert.deepEqual(byPeer, expected);
    assert.equal(p.network_folded, 3);
    const peer1 = p.mounts.find((m) => m.path === '[network] 127.0.0.1');
    const folded = p.mounts.find((m) => m.path === '[network]');
    assert.ok(peer1 && folded);
    assert.deepEqual([peer1.sizes.write.small.bytes, peer1.sizes.read.small.bytes, folded.sizes.write.small.bytes], [10, 10, 25]);
  });

  test('network peers: an unreadable address makes the call fail with EFAULT, never the program crash', async () => {
    const { p } = await profile('t_net_peers', () => {}, { JOBIO_NETWORK: '1' }, ['badbuf']);
    const byPeer = Object.fromEntries(p.mounts.filter((m) => m.fstype === 'socket').map((m) => [m.path, counted(m)]));
    // the failed calls count on their sockets' peers: unconnected, so "[network]"
    assert.deepEqual(byPeer, { '[network] 127.0.0.1': { write: [0, 0, 1] }, '[network]': { write: [2, 0, 0], read: [1, 0, 0] } });
  });

  for (const every of ['16', '1', String(2 ** 30)]) {
    test(`network peers: a socket's last IPv4 address counted without a lookup (JOBIO_SAMPLE_EVERY=${every})`, async () => {
      const { p } = await profile('t_net_peers', () => {}, { JOBIO_NETWORK: '1', JOBIO_SAMPLE_EVERY: every }, ['repeat']);
      const peers = p.mounts.filter((m) => m.fstype === 'socket');
      const byPeer = Object.fromEntries(peers.map((m) => [m.path, counted(m)]));
      assert.deepEqual(byPeer, {
        '[network] 127.0.0.1': { write: [0, 0, 6] }, // 3 x 10, 30 (back from .2), 30 to another port, 40 (a longer address)
        '[network] 127.0.0.2': { write: [0, 0, 1] },
        '[network] 127.0.0.3': { connect: [0, 0, 1], write: [1, 0, 2] }, // no address: the socket's peer; the failed one too
      });
      const written = Object.fromEntries(peers.map((m) => [m.path, m.sizes.write.small.bytes]));
      assert.deepEqual(written, { '[network] 127.0.0.1': 130, '[network] 127.0.0.2': 20, '[network] 127.0.0.3': 10 });
      const sampled = peers.reduce((n, m) => n + (m.calls.write?.sampled ?? 0), 0);
      if (every !== '16') assert.equal(sampled, every === '1' ? 10 : 0);
      assert.equal(p.network_folded, 0);
    });
  }

  test('network peers: IPv6, an IPv4-mapped address as its IPv4 peer, an abstract Unix name made printable', async (t) => {
    const dir = tempDir();
    try {
      const r = await runProfiled(testBin('t_net_peers'), [dir, 'v6'], { dir, env: { JOBIO_NETWORK: '1' } });
      if (r.status === 77) return t.skip('no IPv6 loopback (::1) on this machine');
      assert.equal(r.status, 0, r.stderr.toString());
      const p = proc(r.dump, 't_net_peers');
      const byPeer = Object.fromEntries(p.mounts.filter((m) => m.fstype === 'socket').map((m) => [m.path.replace(/@jobio\?t\d+#[0-9a-f]{16}$/, '@jobio?t…#…'), counted(m)]));
      assert.deepEqual(byPeer, {
        '[network] ::1': { connect: [0, 0, 1], accept: [0, 0, 1], write: [0, 0, 2], read: [0, 0, 2] },
        '[network] 127.0.0.1': { write: [0, 0, 1], read: [0, 0, 1] },
        '[network] unix:@jobio?t…#…': { write: [0, 0, 1] },
        '[network]': { write: [1, 0, 0] }, // a failed sendto counts on its socket's peer (an unconnected one has none)
      });
      assert.equal(p.network_folded, 0);
    } finally {
      removeDir(dir);
    }
  });

  test('a known mix, classified by hand', async () => {
    const { p } = await profile('t_mix', (d) => {
      writeFileSync(join(d, 'input'), bytes(70000));
      writeFileSync(join(d, 'settings'), bytes(10));
    });
    assert.deepEqual(counted(p.totals), {
      access: [2, 1, 0],
      read: [0, 0, 3], // the end-of-file reads (4464 of the 65536 asked, then 0 bytes) are green
      seek: [1, 1, 0],
      open: [2, 1, 1], // the mmap'd input's open is yellow: its bytes moved through the mapping
      close: [0, 0, 5],
      create: [0, 1, 1],
      write: [11, 0, 1],
      sync: [0, 1, 0],
      fschange: [0, 1, 0],
      delete: [1, 1, 0],
      mmap: [0, 0, 1],
    });
    const sum = (i: 0 | 1 | 2): number => Object.values(counted(p.totals)).reduce((s, c) => s + c[i], 0);
    assert.deepEqual([sum(0), sum(1), sum(2)], [17, 7, 12]);
    // the reasons of the red and yellow calls the counts cannot tell apart
    assert.deepEqual(p.totals.reasons, { failed_not_found: 3, open_nothing_transferred: 1, stat_unused: 1, backward_seek: 1, open_bytes_unseen: 1 });
  });

  test('return values and errno are unchanged (byte-identical output with and without the profiler)', async () => {
    const dirA = tempDir();
    const dirB = tempDir();
    try {
      const plain = await run(testBin('t_errno'), [dirA], { env: cleanEnv() });
      const dirP = tempDir();
      const prof = await runProfiled(testBin('t_errno'), [dirB], { dir: dirP });
      removeDir(dirP);
      assert.equal(plain.status, 0, plain.stderr.toString());
      assert.equal(prof.status, plain.status);
      const norm = (s: string, d: string): string => s.split(d).join('DIR');
      assert.equal(norm(prof.stdout.toString(), dirB), norm(plain.stdout.toString(), dirA));
      assert.ok(plain.stdout.toString().split('\n').length > 40);
      // the same when the program is excluded, and with every call timed
      const dirX = tempDir();
      const timed = await runProfiled(testBin('t_errno'), [dirX], { env: { JOBIO_SAMPLE_EVERY: '1' } });
      assert.equal(norm(timed.stdout.toString(), dirX), norm(plain.stdout.toString(), dirA));
      removeDir(timed.dir);
      removeDir(dirX);
    } finally {
      removeDir(dirA);
      removeDir(dirB);
    }
  });

  test('tmpfs is a counted mount of its own (not ignored); /dev/null and /proc are ignored', async () => {
    let shm: string | undefined;
    try {
      if (statSync('/dev/shm').isDirectory()) shm = tempDir('/dev/shm');
    } catch {
      /* no /dev/shm */
    }
    assert.ok(shm, '/dev/shm (tmpfs) is needed for this test');
    try {
      const { p } = await profile('t_rw', () => {}, {}, []);
      assert.ok(p.mounts.length >= 1);
      const dir = tempDir();
      const r = await runProfiled(testBin('t_rw'), [shm], { dir });
      removeDir(dir);
      assert.equal(r.status, 0);
      const q = proc(r.dump, 't_rw');
      assert.deepEqual(
        q.mounts.map((m) => m.fstype),
        ['tmpfs'],
      );
      const dir2 = tempDir();
      const devnull = await runProfiled('/bin/dd', ['if=/proc/self/status', 'of=/dev/null', 'bs=4096'], { dir: dir2 });
      removeDir(dir2);
      const dd = proc(devnull.dump, 'dd');
      assert.deepEqual(counted(dd.totals), {});
      assert.ok(dd.ignored_calls >= 4, `ignored ${dd.ignored_calls}`);
    } finally {
      removeDir(shm);
    }
  });
});

describe('library surface', () => {
  test('exports exactly the declaration table (version script), every entry resolvable', () => {
    const table = execFileSync(join(testBin('..'), 'jobio-symbols'))
      .toString()
      .trim()
      .split('\n')
      .sort();
    const exported = execFileSync('nm', ['-D', '--defined-only', lib])
      .toString()
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/).pop()!)
      .sort();
    assert.deepEqual(exported, table);
    const check = execFileSync(join(testBin('..'), 'jobio-symbols'), ['--check', lib]).toString();
    assert.match(check, /, 0 missing/);
  });

  // The MPI-IO calls passed through as six words are right only where a word holds an MPI_Offset: a
  // build with 4-byte pointers (as the preprocessor sees it, no 32-bit libc needed) neither defines
  // nor exports them, and the version script and the wrappers leave out the same ones.
  test('with 4-byte pointers, only MPI_File_open of the MPI-IO calls is wrapped and exported', () => {
    const as32 = (file: string): string =>
      execFileSync('cc', ['-E', '-P', '-x', 'c', '-U__SIZEOF_POINTER__', '-D__SIZEOF_POINTER__=4', '-D_GNU_SOURCE', '-iquote', 'src', '-Isrc', file], { cwd: profDir }).toString();
    const mpiIo = (text: string, re: RegExp): string[] => [...new Set([...text.matchAll(re)].map((m) => m[1]!))].sort();
    assert.deepEqual(mpiIo(as32('src/exports.map.in'), /\b(P?MPI_File_\w+);/g), ['MPI_File_open', 'PMPI_File_open']);
    assert.deepEqual(mpiIo(as32('src/wrap/wrap_mpi.c'), /\bint (P?MPI_File_\w+)\(/g), ['MPI_File_open', 'PMPI_File_open']);
    // and with 8-byte pointers (this build) the others are there
    const as64 = execFileSync('cc', ['-E', '-P', '-x', 'c', '-Isrc', 'src/exports.map.in'], { cwd: profDir }).toString();
    assert.ok(mpiIo(as64, /\b(P?MPI_File_\w+);/g).includes('MPI_File_write_all'));
  });
});
