// The one-line hint of a reason (docs/profiler.md "Reasons"): its figures, and advice addressed to
// whoever can act: the job's own code gets the advice of the reason; a known tool, shell, runtime or
// library gets what is true of it (rsync's existence checks are expected, SQLite's journal is per
// transaction, Python's import storm is the environment's placement), and a reason whose time is a
// negligible share of the run gets "nothing to gain" instead of advice.
import type { Program } from './programs.js';
import type { ReasonFigure } from './reasons.js';

const SIZE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
export function size(bytes: number): string {
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < SIZE_UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${Math.round(v)} B` : `${v.toFixed(v < 10 ? 1 : 0)} ${SIZE_UNITS[u]}`;
}
const count = (n: number): string => Math.round(n).toLocaleString('en-US');

export interface HintContext {
  readonly mount: string;
  /** the mount's file-system type, when known (a tool already in memory is not told to move there) */
  readonly fstype?: string;
  /** the small-transfer threshold, bytes */
  readonly small: number;
  readonly program: Program;
  /** share of the run time (0–1), undefined when times are not reported */
  readonly share?: number;
  /** false: nothing to gain (see diagnosis.ts) */
  readonly gain: boolean;
  /** opens of the same program and mount that moved less than the small threshold (small files) */
  readonly fewByteOpens: number;
  /**
   * successful deletes of the same program on the mount (sort's are of its temporary files: it spilled
   * there); known from `jobio run`'s counts, not from Prometheus (no per-program call types)
   */
  readonly deletes?: number;
}

/** "1 open", "2,000 opens" */
const many = (calls: number, word: string, rest = ''): string => `${count(calls)} ${word}${Math.round(calls) === 1 ? '' : 's'}${rest}`;

/** What the figures say, without advice. */
function figures(f: ReasonFigure, small: number): string {
  const n = f.calls;
  const avg = f.calls > 0 ? size(f.bytes / f.calls) : '0 B';
  switch (f.reason) {
    case 'small_read':
      return many(n, 'read', ` of ${avg} on average`);
    case 'small_write':
      return many(n, 'write', ` of ${avg} on average`);
    case 'failed_not_found':
      return many(n, 'call', ' failed with "no such file or directory"');
    case 'failed_permission':
      return many(n, 'call', ' failed with "permission denied" or "read-only file system"');
    case 'failed_call':
      return many(n, 'call', ' failed (other errors)');
    case 'open_nothing_transferred':
      return many(n, 'open', ' moved no byte');
    case 'stat_unused':
      return many(n, 'stat', ' of paths never opened');
    case 'backward_seek':
      return many(n, 'backward seek');
    case 'zero_seek':
      return many(n, 'seek', ' to the offset the file was already at');
    case 'open_few_bytes':
      return many(n, 'open', ` moved less than ${size(small)} each`);
    case 'open_bytes_unseen':
      return many(n, 'open', ` moved ${Math.round(n) === 1 ? 'its' : 'their'} bytes where they are not counted`);
    case 'stat_used':
      return many(n, 'stat', ' of files then used');
    case 'forward_seek':
      return many(n, 'forward seek', ' (skipping data)');
    case 'sync':
      return many(n, 'sync');
    case 'metadata_change':
      return Math.round(n) === 1 ? '1 rename, delete, mkdir, chmod, chown, time change or truncate' : `${count(n)} renames, deletes, mkdirs, chmods, chowns, time changes or truncates`;
    case 'unclassified':
      return many(n, 'call', ' reported by a profiler library older than this jobio');
  }
}

/** Opens of small files from which "the files themselves are small" is said. */
const SMALL_FILES_MIN = 10;

const python = (p: Program): boolean => p.family === 'interpreter' && /^(python|pypy)/.test(p.name);

/**
 * The small transfers are those of small files: a small file for every one or two small transfers (a
 * read and the read at its end), and enough of them to be a pattern. Then no block size can help,
 * whoever made the calls (the job's code, cp -r, tar x). Far fewer transfers than small files are not
 * theirs: each moved several files' bytes (tar x's 21 reads of the archive for 200 files written).
 */
const ofSmallFiles = (f: ReasonFigure, c: HintContext): boolean =>
  (f.reason === 'small_read' || f.reason === 'small_write') && c.fewByteOpens >= SMALL_FILES_MIN && c.fewByteOpens * 2 >= f.calls && f.calls * 2 >= c.fewByteOpens;

/** Advice for the job's own code (an unknown program, or an interpreter running the job's script). */
function ownAdvice(f: ReasonFigure, c: HintContext): string {
  const small = size(c.small);
  if (ofSmallFiles(f, c))
    return `the files themselves are small (${count(c.fewByteOpens)} opens moved less than ${small} each), so larger ${f.reason === 'small_read' ? 'reads' : 'writes'} cannot help: pack them into one file (HDF5, a tar or zip archive, a database) and ${f.reason === 'small_read' ? 'read' : 'write'} it in large blocks`;
  switch (f.reason) {
    case 'small_read':
      return python(c.program)
        ? `read in blocks of at least ${small} (f.read(1 << 20), or open(path, 'rb', buffering=1 << 20)), or use MPI-IO collective reads`
        : `read in blocks of at least ${small} (a larger buffer, setvbuf for stdio) or use MPI-IO collective reads`;
    case 'small_write':
      return python(c.program)
        ? `collect the output and write at least 1 MiB at a time (open(path, 'w', buffering=1 << 20)), or use MPI-IO collective writes`
        : 'buffer to at least 1 MiB before writing (a larger buffer, setvbuf for stdio) or use MPI-IO collective writes';
    case 'failed_not_found':
      return 'check the paths; probing search paths costs a metadata round trip each';
    case 'failed_permission':
      return 'check modes and where the job writes';
    case 'failed_call':
      return "check the program's error messages; strace -f shows each failing call";
    case 'open_nothing_transferred':
      return 'do not open files you do not read or write (to test for existence, stat once and remember it); directories opened to be listed (find, fts) count here too, as their listing is not counted: walk the tree once';
    case 'stat_unused':
      return 'cache the answers instead of asking the file system again';
    case 'backward_seek':
      return 'read sequentially, or read the range you need once and keep it in memory';
    case 'zero_seek':
      return "position queries (lseek(fd, 0, SEEK_CUR): Python's open(), ftell, tell()) included: remove the ones your code makes, each is a system call; fewer opens mean fewer queries";
    case 'open_few_bytes':
      return 'pack small files into one (HDF5, a tar or zip archive, a database) or keep files open';
    case 'open_bytes_unseen':
      return 'their bytes moved through mmap or asynchronous I/O, in the program the descriptor was handed to (a redirection), on the MPI-IO aggregator ranks (every rank opens a file in MPI_File_open), or they are directories listed (opendir): their volume is not in these figures';
    case 'stat_used':
      return 'usually fine; on a parallel file system each is a metadata server round trip';
    case 'forward_seek':
      return 'read contiguous ranges, or fewer larger reads at offsets (pread)';
    case 'sync':
      return 'sync once at the end or at checkpoints, not after every write';
    case 'metadata_change':
      return 'batch them; on a parallel file system each is a metadata server operation';
    case 'unclassified':
      return 'no reason recorded';
  }
}

const NOTHING_IN_YOUR_CODE = 'nothing to change in your code';
const LOCAL_COPY = 'if it costs, let it work on a local disk or in memory ($TMPDIR, /dev/shm) and copy the result once';
/** File systems held in memory: a tool's work there cannot move anywhere faster. */
const MEMORY_FS = new Set(['tmpfs', 'ramfs']);
const inMemory = (c: HintContext): boolean => c.fstype !== undefined && MEMORY_FS.has(c.fstype);
const localCopy = (c: HintContext): string => (inMemory(c) ? `it already works in memory (${c.fstype})` : LOCAL_COPY);

/**
 * Tools whose work is the metadata of a tree (a stat of every entry, a listing of every directory),
 * reading no file: nothing they make could be copied back from a local disk, and what costs is
 * asking again (du or find in a loop, ls per file).
 */
const METADATA_WALKERS = new Set(['du', 'find', 'ls', 'stat', 'df', 'realpath', 'readlink']);
function walkerAdvice(p: Program, c: HintContext): string {
  return `${p.name} walks the metadata of a tree (a stat of every entry, a listing of every directory) and reads no file: expected for what it is asked, and there is no result to copy; run it once and keep its answer rather than again in a loop or per file${inMemory(c) ? `; it already works in memory (${c.fstype})` : '; on a parallel file system each stat is a request to the metadata server'}`;
}

/**
 * sort deletes nothing of the user's (-o truncates its output, a metadata change but no delete): its
 * deletes on a mount are of the temporary files it spilled
 * there (a run of what did not fit its buffer each, merged back), which it reads and writes in small
 * blocks. Its buffer (-S) and where they go (-T, $TMPDIR) are the user's to set.
 */
function sortSpillAdvice(c: HintContext): string {
  const files = count(c.deletes ?? 0);
  const where = inMemory(c) ? `they are already in memory (${c.fstype})` : 'and put them on a local disk or in memory (-T $TMPDIR or -T /dev/shm; without -T sort uses $TMPDIR, else /tmp)';
  return `sort spilled what did not fit its buffer to temporary files here (${files} created and deleted) and merged them back in small reads and writes: give it a larger buffer (-S 2G, or -S 50% of the memory) so that it makes fewer or none, ${where}`;
}

/** Advice for a known tool, shell, runtime or library: what is expected of it, and what can be done. */
function knownAdvice(f: ReasonFigure, c: HintContext): string {
  const p = c.program;
  const r = f.reason;
  const failed = r === 'failed_not_found' || r === 'failed_permission' || r === 'failed_call';
  const stats = r === 'stat_unused' || r === 'stat_used';
  switch (p.family) {
    case 'python-imports':
      return 'Python searches sys.path for every module it imports and reads each .py/.pyc file: expected at start-up; on a parallel file system every process does it against the metadata server: install the environment in a container image, a squashfs or on a local disk, and keep sys.path short';
    case 'mpi-runtime':
      return `the MPI runtime's start-up and shutdown (its configuration, components, session files): ${NOTHING_IN_YOUR_CODE}`;
    case 'mpi-io':
      if (r === 'open_nothing_transferred' || r === 'open_bytes_unseen' || r === 'open_few_bytes')
        return 'in collective I/O every rank opens the file (and the library its lock-test and shared-file-pointer files) and only the aggregators move the data: expected on the other ranks';
      // the library passes independent requests through as they come: the code that made them can combine them
      if (r === 'small_read' || r === 'small_write')
        return `the MPI-IO library passed small requests through as they came: make them collective (MPI_File_${r === 'small_read' ? 'read' : 'write'}_all with a file view) so that the aggregators combine them into large ones`;
      return `the MPI-IO library's own work (its lock tests, shared file pointers and requests): ${NOTHING_IN_YOUR_CODE}`;
    case 'loader':
      return 'loading shared libraries at run time (dlopen): expected at start-up; on a parallel file system install the software on a local disk or in a container image';
    case 'sqlite':
      if (r === 'failed_not_found') return 'SQLite looks for a hot journal (-journal, -wal) when it opens the database and at each transaction: expected';
      if (r === 'sync') return 'SQLite syncs at every commit: make fewer, larger transactions (BEGIN … COMMIT); with WAL, PRAGMA synchronous=NORMAL syncs less';
      if (r === 'small_read' || r === 'backward_seek' || r === 'forward_seek')
        return 'SQLite reads its database page by page (PRAGMA page_size, 4 KiB by default): expected for lookups; for scans, a larger page_size or cache_size';
      return 'SQLite creates, writes and deletes its rollback journal at every transaction: make fewer, larger transactions (BEGIN … COMMIT) or use PRAGMA journal_mode=WAL; on a parallel file system keep the database on a local disk';
    case 'rsync':
      if (r === 'failed_not_found') return `rsync checks whether each file already exists at the destination: expected, ${NOTHING_IN_YOUR_CODE}`;
      if (r === 'metadata_change' || r === 'failed_permission')
        return 'rsync -a sets the owner, permissions and times of every file (each a metadata server operation on a parallel file system): keep only what you need (-rlt instead of -a, --no-perms, --no-owner, --no-group), or copy one archive (tar) of many small files';
      if (stats) return "rsync compares each file's size and time with the destination's: expected; for many small files copy one archive (tar) instead";
      return 'rsync moves each file by itself: for many small files copy one archive (tar) instead';
    case 'git':
      // what git status does on a work tree (strace): a stat of every tracked file, the changed ones
      // read to hash them, its configuration, HEAD and refs read again by each step of one command,
      // packed-refs and refs probed under several names
      if (r === 'failed_not_found')
        return `git looks for files that may not exist (packed-refs, a ref under each of its prefixes, optional configuration files, .gitignore files): expected, ${NOTHING_IN_YOUR_CODE}`;
      if (stats)
        return 'git stats every tracked file of the work tree to see what changed, and its own configuration and refs: expected of a command on a work tree; run it once rather than per file; on a parallel file system keep the work tree on a local disk, and for status -uno (no search for untracked files) or git config core.untrackedCache true';
      if (r === 'open_bytes_unseen')
        return 'git lists the directories of the work tree to find untracked files and maps its index and packs: expected; for status -uno (no search for untracked files) or git config core.untrackedCache true';
      if (r === 'metadata_change' || r === 'sync')
        return `git writes each object and ref as a file of its own and renames its lock files into place: expected, ${NOTHING_IN_YOUR_CODE}; on a parallel file system keep the repository on a local disk`;
      return 'git reads its configuration, HEAD and refs again in each step of a command (a few bytes each) and the changed files of the work tree to hash them: expected; run it once rather than per file; on a parallel file system keep the repository on a local disk';
    case 'build':
      if (failed || stats)
        return 'compilers search their include and library paths, and make checks the time of every target: expected; on a parallel file system build in a local directory ($TMPDIR) and keep -I/-L paths few';
      return 'the compiler toolchain reads sources and writes objects and temporary files in small pieces: build in a local directory and copy the results';
    case 'shell':
      if (failed || stats) return `the shell searches PATH for each command and tests files ([ -e ]): expected; ${NOTHING_IN_YOUR_CODE} (on a parallel file system, a short PATH)`;
      if (r === 'small_write') return 'the shell writes each echo/printf by itself: redirect a whole loop once ({ …; } > file) rather than each command, or let a program write the output';
      if (r === 'open_nothing_transferred' || r === 'open_few_bytes' || r === 'open_bytes_unseen')
        return `the shell opens the files of redirections (> file, < file) for the commands it runs: ${NOTHING_IN_YOUR_CODE}`;
      return `the shell's own work: ${NOTHING_IN_YOUR_CODE}`;
    case 'coreutils':
    case 'text-tool':
    case 'archiver':
      if (p.name === 'sort' && !failed && (c.deletes ?? 0) > 0) return sortSpillAdvice(c);
      if (METADATA_WALKERS.has(p.name) && (stats || r === 'open_nothing_transferred' || r === 'open_bytes_unseen' || r === 'open_few_bytes')) return walkerAdvice(p, c);
      if (ofSmallFiles(f, c))
        return `the files themselves are small (${count(c.fewByteOpens)} opens moved less than ${size(c.small)} each), so no block size can help: keep many small files in one (a tar or zip archive, HDF5, a database) and copy or read that`;
      if (p.name === 'tar') {
        // as root, tar x restores every file's owner by default, and always its mode and times: three
        // setattrs per file, which the user can turn off
        if (r === 'metadata_change')
          return 'tar x restores the owner (by default as root), the permissions and the times of every file it extracts, a chown, a chmod and a utimensat each (each a request to the metadata server on a parallel file system): if you do not need them, --no-same-owner, --no-same-permissions and -m (--touch: the time of extraction)';
        if (r === 'small_read' || r === 'small_write') return 'tar reads and writes the archive in records of 10 KiB (-b 20 blocks of 512 B by default): give it larger records (-b 2048: 1 MiB)';
      }
      // dd's block is the bs= of its command line, which the user wrote: the one tool whose small
      // transfers the user sets directly
      if ((r === 'small_read' || r === 'small_write') && p.name === 'dd')
        return 'dd moves one block of the size its command line gives per call (bs=, ibs=, obs=; 512 B when none is given): give it bs=1M or larger';
      if (r === 'small_read' || r === 'small_write') return `${p.name} reads and writes in its own block size${p.family === 'text-tool' ? ' (line by line)' : ''}: not your code's; ${localCopy(c)}`;
      if (r === 'failed_not_found') return `${p.name} looked for files that were not there (as asked, or to decide what to do): check its arguments`;
      if (failed) return `${p.name}'s calls failed: its error messages say why; check its arguments and the paths`;
      return `${p.name}'s own way of working: ${NOTHING_IN_YOUR_CODE}; ${localCopy(c)}`;
    case 'own':
    case 'interpreter':
      return '';
  }
}

const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const percent = (share: number): string => `${(share * 100).toFixed(share < 0.001 ? 2 : 1)} %`;

/** The hint: "<who> on <mount>: <figures>: <advice>", or "…: <share> of the run time, nothing to gain". */
export function hintFor(f: ReasonFigure, c: HintContext): string {
  const head = `${capital(c.program.label)} on ${c.mount}: ${figures(f, c.small)}`;
  if (!c.gain) return `${head}: ${c.share !== undefined ? `${percent(c.share)} of the run time, ` : ''}nothing to gain`;
  const own = c.program.family === 'own' || c.program.family === 'interpreter';
  return `${head}: ${own ? ownAdvice(f, c) : knownAdvice(f, c)}`;
}
