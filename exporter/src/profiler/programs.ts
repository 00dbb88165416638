// Who made the calls behind a reason: the program (executable) of the processes, and whether that is
// the job's own code or a known runtime, library, tool or shell, so that a hint is addressed to whoever
// can act on it (docs/profiler.md "Reasons": "Who the hint is for"). The catalogue is by executable
// base name (what every process reports); a component names I/O a known library or runtime made from
// inside the job's own process (Python's import system, the MPI-IO library, SQLite's journal), which
// the library tells apart by the files it concerns.
import type { ProgramRef, ProgramRole } from './diagnosis-schema.js';

/** Known families of programs: the keys of the program-aware hints (hints.ts). */
export type ProgramFamily = 'own' | 'interpreter' | 'shell' | 'coreutils' | 'text-tool' | 'archiver' | 'build' | 'rsync' | 'git' | 'sqlite' | 'python-imports' | 'mpi-runtime' | 'mpi-io' | 'loader';

export interface Program extends ProgramRef {
  readonly family: ProgramFamily;
}

/** Components: I/O of a known library or runtime inside a process, told apart by the library (wire). */
export const COMPONENTS = ['python-imports', 'mpi-runtime', 'mpi-io', 'sqlite-journal', 'shared-libraries'] as const;
export type Component = (typeof COMPONENTS)[number];

interface Family {
  readonly family: ProgramFamily;
  readonly role: ProgramRole;
  /** The human label, given the executable's base name. */
  readonly label: (name: string) => string;
  readonly names: readonly (string | RegExp)[];
}

const FAMILIES: readonly Family[] = [
  { family: 'shell', role: 'shell', label: (n) => `the shell (${n})`, names: ['sh', 'bash', 'dash', 'zsh', 'ksh', 'ksh93', 'mksh', 'tcsh', 'csh', 'fish', 'busybox'] },
  {
    family: 'mpi-runtime',
    role: 'runtime',
    label: (n) => `the MPI runtime (${n})`,
    names: ['mpirun', 'mpiexec', 'orterun', 'prterun', 'prte', 'prted', 'orted', 'hydra_pmi_proxy', 'pmi_proxy', 'mpiexec.hydra', 'mpiexec.openmpi', 'mpirun.openmpi', 'mpiexec.mpich', 'srun', 'flux'],
  },
  { family: 'sqlite', role: 'tool', label: () => 'the SQLite shell (sqlite3)', names: ['sqlite3'] },
  { family: 'rsync', role: 'tool', label: () => 'rsync', names: ['rsync'] },
  { family: 'git', role: 'tool', label: (n) => `git (${n})`, names: ['git', /^git-[a-z-]+$/, 'git-remote-http', 'git-remote-https'] },
  {
    family: 'build',
    role: 'tool',
    label: (n) => (n === 'make' || n === 'gmake' || n === 'ninja' || n === 'cmake' ? `the build tool (${n})` : `the compiler toolchain (${n})`),
    names: [
      'make',
      'gmake',
      'ninja',
      'cmake',
      'cc',
      'c++',
      'gcc',
      'g++',
      /^(gcc|g\+\+|gfortran|cpp)-\d+$/,
      // Debian's target-prefixed names, which /proc/self/exe reports (`ld` is x86_64-linux-gnu-ld.bfd)
      /^[a-z0-9_]+-linux-gnu-(gcc|g\+\+|gfortran|cpp|as|ld|ld\.bfd|ld\.gold)(-\d+)?$/,
      'cpp',
      'cc1',
      'cc1plus',
      'f951',
      'collect2',
      'lto-wrapper',
      'lto1',
      'as',
      'ld',
      'ld.bfd',
      'ld.gold',
      'ld.lld',
      'gold',
      'clang',
      'clang++',
      /^clang(\+\+)?-\d+$/,
      'gfortran',
      'ifort',
      'ifx',
      'icc',
      'icx',
      'nvcc',
      'ar',
      'ranlib',
      'mpicc',
      'mpicxx',
      'mpif90',
      'mpifort',
      'opal_wrapper',
    ],
  },
  {
    family: 'archiver',
    role: 'tool',
    label: (n) => n,
    names: ['tar', 'gzip', 'gunzip', 'zcat', 'pigz', 'bzip2', 'bunzip2', 'xz', 'unxz', 'xzcat', 'zstd', 'unzstd', 'zstdcat', 'lz4', 'zip', 'unzip', 'cpio', '7z', 'pbzip2'],
  },
  {
    family: 'text-tool',
    role: 'tool',
    label: (n) => n,
    names: ['sed', 'awk', 'mawk', 'gawk', 'nawk', 'grep', 'egrep', 'fgrep', 'find', 'xargs', 'diff', 'cmp', 'patch', 'less', 'more', 'file', 'ssh', 'scp', 'sftp', 'curl', 'wget'],
  },
  {
    family: 'coreutils',
    role: 'tool',
    label: (n) => `${n} (GNU coreutils)`,
    names: [
      'cat',
      'cp',
      'mv',
      'rm',
      'ln',
      'ls',
      'dd',
      'wc',
      'head',
      'tail',
      'sort',
      'uniq',
      'cut',
      'paste',
      'join',
      'tr',
      'tee',
      'tac',
      'nl',
      'od',
      'split',
      'csplit',
      'touch',
      'mkdir',
      'rmdir',
      'chmod',
      'chown',
      'chgrp',
      'install',
      'stat',
      'du',
      'df',
      'env',
      'readlink',
      'realpath',
      'basename',
      'dirname',
      'date',
      'sleep',
      'true',
      'false',
      'echo',
      'printf',
      'test',
      '[',
      'seq',
      'yes',
      'shuf',
      'truncate',
      'sync',
      'shred',
      'md5sum',
      'sha1sum',
      'sha256sum',
      'sha512sum',
      'b2sum',
      'cksum',
      'base64',
      'fmt',
      'fold',
      'expand',
      'unexpand',
      'comm',
      'tsort',
      'pr',
      'id',
      'whoami',
      'uname',
      'hostname',
      'nproc',
      'mktemp',
      'timeout',
      'nice',
      'nohup',
      'stdbuf',
      'time',
    ],
  },
  // Interpreters run the job's own code: their I/O is the job's (imports aside, a component).
  {
    family: 'interpreter',
    role: 'job',
    label: (n) => `your ${interpreterLanguage(n)} code (${n})`,
    names: [/^python(\d+(\.\d+)?)?$/, /^pypy3?$/, 'perl', /^perl5[.\d]*$/, 'R', 'Rscript', /^julia$/, 'ruby', 'node', 'java', 'octave', 'octave-cli', 'matlab', 'lua', 'tclsh', 'php'],
  },
];

function interpreterLanguage(name: string): string {
  if (/^(python|pypy)/.test(name)) return 'Python';
  if (name.startsWith('perl')) return 'Perl';
  if (name === 'R' || name === 'Rscript') return 'R';
  if (name === 'julia') return 'Julia';
  if (name === 'ruby') return 'Ruby';
  if (name === 'node') return 'JavaScript';
  if (name === 'java') return 'Java';
  if (name.startsWith('octave') || name === 'matlab') return 'MATLAB/Octave';
  return name;
}

const COMPONENT_PROGRAMS: Record<Component, { family: ProgramFamily; role: ProgramRole; label: string }> = {
  'python-imports': { family: 'python-imports', role: 'runtime', label: "Python's import system" },
  'mpi-runtime': { family: 'mpi-runtime', role: 'runtime', label: "the MPI library's start-up and shutdown (MPI_Init, MPI_Finalize)" },
  'mpi-io': { family: 'mpi-io', role: 'library', label: 'the MPI-IO library (ROMIO/OMPIO)' },
  'sqlite-journal': { family: 'sqlite', role: 'library', label: "SQLite's journal" },
  'shared-libraries': { family: 'loader', role: 'library', label: 'shared libraries loaded at run time (dlopen)' },
};

const matches = (f: Family, name: string): boolean => f.names.some((n) => (typeof n === 'string' ? n === name : n.test(name)));

/** Longest base name kept (the wire's field is 64 bytes; anything longer is cut). */
const MAX_NAME = 63;

/**
 * The program of a process's calls. `name`: the executable's base name as the process reported it;
 * `path`: its absolute path when the receiver could read it ('' otherwise); `component`: the library
 * or runtime inside the process that made them, when the library told it apart.
 */
export function programOf(name: string, path = '', component?: Component): Program {
  const base = (name || '(unknown)').slice(0, MAX_NAME);
  if (component !== undefined) {
    const c = COMPONENT_PROGRAMS[component];
    return { name: base, path, role: c.role, label: c.label, family: c.family, component };
  }
  const f = FAMILIES.find((x) => matches(x, base));
  if (f) return { name: base, path, role: f.role, label: f.label(base), family: f.family };
  return { name: base, path, role: 'job', label: `your program (${base})`, family: 'own' };
}

/** The identity of a program in maps: name, path and component (a label may change with the catalogue). */
export const programKey = (p: ProgramRef): string => `${p.name}\0${p.path}\0${p.component ?? ''}`;
