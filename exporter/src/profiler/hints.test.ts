import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hintFor, type HintContext } from './hints.js';
import { programOf } from './programs.js';
import type { ReasonFigure } from './reasons.js';

const fig = (reason: ReasonFigure['reason'], calls: number, bytes = 0): ReasonFigure => ({ cls: 'red', reason, calls, bytes, timeNs: 0 });
const ctx = (name: string, over: Partial<HintContext> = {}): HintContext => ({ mount: '/scratch', small: 32768, program: programOf(name), gain: true, fewByteOpens: 0, ...over });

test("the job's own code gets the reason's advice, with the figures, the mount and the program", () => {
  assert.equal(
    hintFor(fig('small_write', 2000, 2000 * 512), ctx('app')),
    'Your program (app) on /scratch: 2,000 writes of 512 B on average: buffer to at least 1 MiB before writing (a larger buffer, setvbuf for stdio) or use MPI-IO collective writes',
  );
  // find and other fts walkers open each directory with openat and list it with getdents64, which
  // the profiler does not count: "do not open files you do not read" alone would be wrong for them
  assert.equal(
    hintFor(fig('open_nothing_transferred', 5), ctx('app')),
    'Your program (app) on /scratch: 5 opens moved no byte: do not open files you do not read or write (to test for existence, stat once and remember it); directories opened to be listed (find, fts) count here too, as their listing is not counted: walk the tree once',
  );
  // python3's open() asks lseek(fd, 0, SEEK_CUR) once per file: seeks the script never wrote
  assert.equal(
    hintFor(fig('zero_seek', 2142), ctx('python3.11')),
    "Your Python code (python3.11) on /scratch: 2,142 seeks to the offset the file was already at: position queries (lseek(fd, 0, SEEK_CUR): Python's open(), ftell, tell()) included: remove the ones your code makes, each is a system call; fewer opens mean fewer queries",
  );
  assert.match(hintFor(fig('small_read', 10, 1000), ctx('python3')), /f\.read\(1 << 20\)/);
});

test('small reads of small files: pack the files, not "read in larger blocks"', () => {
  // 20,000 files of 1 KiB: a larger read size cannot help
  const h = hintFor(fig('small_read', 20000, 20000 * 1024), ctx('python3.11', { fewByteOpens: 20000 }));
  assert.match(h, /the files themselves are small \(20,000 opens moved less than 32 KiB each\), so larger reads cannot help: pack them/);
  assert.doesNotMatch(h, /read in blocks/);
  // a few small files among many small reads of one big file: the read advice stands
  assert.match(hintFor(fig('small_read', 20000, 20000 * 1024), ctx('app', { fewByteOpens: 3 })), /read in blocks of at least 32 KiB/);
});

test('known tools, shells, runtimes and libraries get what is true of them, not the advice for code', () => {
  const sed = hintFor(fig('small_write', 300, 300 * 80), ctx('sed'));
  assert.match(sed, /^Sed on \/scratch: 300 writes of 80 B on average: sed reads and writes in its own block size/);
  assert.doesNotMatch(sed, /setvbuf|MPI-IO/);
  assert.match(hintFor(fig('failed_not_found', 40), ctx('rsync')), /rsync checks whether each file already exists at the destination: expected/);
  assert.match(hintFor(fig('metadata_change', 2042), ctx('rsync')), /-rlt instead of -a/);
  const journal = hintFor(fig('open_few_bytes', 10), ctx('sqlite3'));
  assert.match(journal, /^The SQLite shell \(sqlite3\) on \/scratch: 10 opens moved less than 32 KiB each: SQLite creates, writes and deletes its rollback journal/);
  assert.doesNotMatch(journal, /pack small files/);
  assert.match(hintFor(fig('failed_not_found', 3), ctx('sqlite3')), /hot journal .* expected/);
  assert.match(hintFor(fig('open_nothing_transferred', 1), ctx('bash')), /^The shell \(bash\) on \/scratch: 1 open moved no byte: the shell opens the files of redirections/);
  assert.match(hintFor(fig('stat_unused', 300), ctx('cc1')), /^The compiler toolchain \(cc1\) .* compilers search their include and library paths/);
  assert.match(hintFor(fig('stat_unused', 300), ctx('make')), /^The build tool \(make\)/);
  assert.match(hintFor(fig('failed_not_found', 9), ctx('orted')), /^The MPI runtime \(orted\) .* not your code|nothing to change in your code/);
  assert.match(
    hintFor(fig('failed_not_found', 900), ctx('python3.11', { program: programOf('python3.11', '/usr/bin/python3.11', 'python-imports') })),
    /^Python's import system on \/scratch: 900 calls failed .*: Python searches sys\.path/,
  );
  assert.match(
    hintFor(fig('open_nothing_transferred', 3), ctx('app', { program: programOf('app', '', 'mpi-io') })),
    /in collective I\/O every rank opens the file \(and the library its lock-test and shared-file-pointer files\) and only the aggregators move the data: expected/,
  );
  // MPI-IO's opens on ranks that are not aggregators: never "do not open files you do not read or write"
  const mpiio = programOf('app', '', 'mpi-io');
  assert.equal(mpiio.role, 'library');
  for (const r of ['open_nothing_transferred', 'open_bytes_unseen', 'open_few_bytes'] as const)
    assert.doesNotMatch(hintFor(fig(r, 3), ctx('app', { program: mpiio })), /do not open files|pack small files/);
  assert.match(hintFor(fig('small_write', 300, 300 * 80), ctx('app', { program: mpiio })), /^The MPI-IO library \(ROMIO\/OMPIO\) on \/scratch: 300 writes .*\(MPI_File_write_all/);
  // SQLite's journals inside any program (python3's sqlite3 module): SQLite's hint, a library's role
  const embedded = programOf('python3.11', '', 'sqlite-journal');
  assert.equal(embedded.role, 'library');
  assert.match(hintFor(fig('sync', 63), ctx('python3.11', { program: embedded })), /^SQLite's journal on \/scratch: 63 syncs: SQLite syncs at every commit/);
  assert.match(hintFor(fig('failed_not_found', 44), ctx('python3.11', { program: embedded })), /hot journal .* expected/);
  assert.match(hintFor(fig('small_write', 162, 162 * 500), ctx('python3.11', { program: embedded })), /rollback journal at every transaction: make fewer, larger transactions .*journal_mode=WAL/);
});

test('below the gain threshold a hint says "nothing to gain" and gives no advice', () => {
  assert.equal(
    hintFor(fig('stat_unused', 120), ctx('app', { gain: false, share: 0.0004 })),
    'Your program (app) on /scratch: 120 stats of paths never opened: 0.04 % of the run time, nothing to gain',
  );
});

test('dd\'s block size is the one its command line asked for: the hint says bs=, not "its own block size"', () => {
  // dd if=/dev/zero of=x bs=4k count=5000: 5,000 writes of 4 KiB, each exactly the bs= given
  const h = hintFor(fig('small_write', 5000, 5000 * 4096), ctx('dd'));
  assert.equal(
    h,
    'Dd (GNU coreutils) on /scratch: 5,000 writes of 4.0 KiB on average: dd moves one block of the size its command line gives per call (bs=, ibs=, obs=; 512 B when none is given): give it bs=1M or larger',
  );
  assert.doesNotMatch(h, /own block size|not your code/);
  assert.match(hintFor(fig('small_read', 5000, 5000 * 512), ctx('dd')), /give it bs=1M or larger/);
  // its other reasons stay the tool's
  assert.match(hintFor(fig('zero_seek', 1), ctx('dd')), /dd's own way of working/);
});

test("small transfers of small files by a known tool (cp -r, tar x): the files are small, not the tool's block size", () => {
  // cp -r of 500 files of 2 KiB: 500 writes of 2 KiB, 1,000 opens below the threshold (source and copy)
  const cp = hintFor(fig('small_write', 500, 500 * 2048), ctx('cp', { fewByteOpens: 1000 }));
  assert.equal(
    cp,
    'Cp (GNU coreutils) on /scratch: 500 writes of 2.0 KiB on average: the files themselves are small (1,000 opens moved less than 32 KiB each), so no block size can help: keep many small files in one (a tar or zip archive, HDF5, a database) and copy or read that',
  );
  assert.doesNotMatch(cp, /own block size/);
  // tar x of 500 small files: 584 writes
  assert.match(hintFor(fig('small_write', 584, 1048885), ctx('tar', { fewByteOpens: 500 })), /^Tar on \/scratch: 584 writes .*: the files themselves are small \(500 opens/);
  // a big file written in small pieces: the tool's own block size, and "line by line" only for text tools
  const sort = hintFor(fig('small_write', 23928, 98000000), ctx('sort', { fewByteOpens: 0 }));
  assert.match(sort, /sort reads and writes in its own block size: not your code's/);
  assert.doesNotMatch(sort, /line by line/);
  assert.match(hintFor(fig('small_read', 457, 1868894), ctx('mawk')), /mawk reads and writes in its own block size \(line by line\): not your code's/);
});

test('a tool already working in memory (tmpfs) is not told to work on a local disk or in memory', () => {
  // cp -p of 500 files on /dev/shm: 1,000 owner and time changes
  const shm = hintFor(fig('metadata_change', 1000), ctx('cp', { mount: '/dev/shm', fstype: 'tmpfs' }));
  assert.equal(
    shm,
    "Cp (GNU coreutils) on /dev/shm: 1,000 renames, deletes, mkdirs, chmods, chowns, time changes or truncates: cp's own way of working: nothing to change in your code; it already works in memory (tmpfs)",
  );
  assert.doesNotMatch(shm, /local disk/);
  assert.match(hintFor(fig('small_write', 23928, 98000000), ctx('sort', { mount: '/dev/shm', fstype: 'tmpfs' })), /own block size: not your code's; it already works in memory \(tmpfs\)$/);
  // on a parallel file system, or where the type is not known, the advice stands
  for (const over of [{ fstype: 'lustre' }, {}])
    assert.match(hintFor(fig('metadata_change', 1000), ctx('cp', over)), /let it work on a local disk or in memory \(\$TMPDIR, \/dev\/shm\) and copy the result once$/);
});

test('sort that spilled to temporary files (its deletes on the mount) is told -S and -T, not its block size', () => {
  const spilled = hintFor(fig('small_read', 1803, 1803 * 4096), ctx('sort', { deletes: 43 }));
  assert.equal(
    spilled,
    'Sort (GNU coreutils) on /scratch: 1,803 reads of 4.0 KiB on average: sort spilled what did not fit its buffer to temporary files here (43 created and deleted) and merged them back in small reads and writes: give it a larger buffer (-S 2G, or -S 50% of the memory) so that it makes fewer or none, and put them on a local disk or in memory (-T $TMPDIR or -T /dev/shm; without -T sort uses $TMPDIR, else /tmp)',
  );
  assert.match(
    hintFor(fig('metadata_change', 43), ctx('sort', { deletes: 43, mount: '/dev/shm', fstype: 'tmpfs' })),
    /-S 50% of the memory\) so that it makes fewer or none, they are already in memory \(tmpfs\)$/,
  );
  // no deletes there (its input and -o output): its own block size, as before
  assert.match(hintFor(fig('small_write', 999, 999 * 4096), ctx('sort', { deletes: 0 })), /sort reads and writes in its own block size/);
  assert.match(hintFor(fig('metadata_change', 1), ctx('sort')), /: 1 rename, delete, mkdir, chmod, chown, time change or truncate: /);
});

test("tar x's owner, mode and time changes: the options that leave them; its archive's records: -b", () => {
  // tar x of 500 files as root: a chown, a chmod and a utimensat each
  assert.equal(
    hintFor(fig('metadata_change', 1504), ctx('tar', { mount: '/dev/shm', fstype: 'tmpfs' })),
    'Tar on /dev/shm: 1,504 renames, deletes, mkdirs, chmods, chowns, time changes or truncates: tar x restores the owner (by default as root), the permissions and the times of every file it extracts, a chown, a chmod and a utimensat each (each a request to the metadata server on a parallel file system): if you do not need them, --no-same-owner, --no-same-permissions and -m (--touch: the time of extraction)',
  );
  // 21 reads of the archive for 200 small files written: the archive's records, not the small files
  assert.match(hintFor(fig('small_read', 21, 21 * 10240), ctx('tar', { fewByteOpens: 200 })), /in records of 10 KiB .*-b 2048: 1 MiB/);
  // its writes of the 200 small files are the small files'
  assert.match(hintFor(fig('small_write', 200, 692), ctx('tar', { fewByteOpens: 200 })), /the files themselves are small/);
});

test('git: what it re-reads and stats is said (the work tree, its configuration and refs), not "git\'s own files"', () => {
  assert.equal(
    hintFor(fig('stat_unused', 152), ctx('git')),
    'Git (git) on /scratch: 152 stats of paths never opened: git stats every tracked file of the work tree to see what changed, and its own configuration and refs: expected of a command on a work tree; run it once rather than per file; on a parallel file system keep the work tree on a local disk, and for status -uno (no search for untracked files) or git config core.untrackedCache true',
  );
  assert.match(hintFor(fig('failed_not_found', 44), ctx('git')), /git looks for files that may not exist \(packed-refs, .*expected, nothing to change in your code$/);
  assert.match(hintFor(fig('small_read', 12, 972), ctx('git')), /git reads its configuration, HEAD and refs again in each step of a command/);
  for (const r of ['open_few_bytes', 'metadata_change', 'open_bytes_unseen'] as const) assert.doesNotMatch(hintFor(fig(r, 3), ctx('git')), /git's own files/);
});

test('a tool that walks metadata only (du, find, ls) is not told to copy a result: run it once', () => {
  const du = hintFor(fig('stat_unused', 300), ctx('du'));
  assert.equal(
    du,
    'Du (GNU coreutils) on /scratch: 300 stats of paths never opened: du walks the metadata of a tree (a stat of every entry, a listing of every directory) and reads no file: expected for what it is asked, and there is no result to copy; run it once and keep its answer rather than again in a loop or per file; on a parallel file system each stat is a request to the metadata server',
  );
  assert.doesNotMatch(du, /copy the result/);
  assert.match(hintFor(fig('open_bytes_unseen', 21), ctx('find')), /^Find on \/scratch: 21 opens .*: find walks the metadata of a tree/);
  assert.match(hintFor(fig('stat_used', 63), ctx('ls', { mount: '/dev/shm', fstype: 'tmpfs' })), /run it once .*; it already works in memory \(tmpfs\)$/);
  // what it writes (ls -lR > listing) and its failures stay as for any tool
  assert.match(hintFor(fig('small_write', 30, 30 * 4096), ctx('ls')), /ls reads and writes in its own block size/);
  assert.match(hintFor(fig('failed_not_found', 2), ctx('du')), /du looked for files that were not there/);
});

test('one open "moved its bytes", several "moved their bytes"', () => {
  assert.match(hintFor(fig('open_bytes_unseen', 1), ctx('du')), /^Du \(GNU coreutils\) on \/scratch: 1 open moved its bytes where they are not counted: /);
  assert.match(hintFor(fig('open_bytes_unseen', 2), ctx('du')), /: 2 opens moved their bytes where they are not counted: /);
});
