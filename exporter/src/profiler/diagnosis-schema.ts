// The `diagnosis` record of the `jobio run` log, as JSON: the one definition of its shape, which
// `jobio report` and outside tools read (documented in docs/jobio-run.md "Records" and
// docs/profiler.md "Reasons"). Field names are snake_case like the rest of the log; times are in
// microseconds like the Mistral records.

/** Who made the calls of a reason, so its hint is addressed to whoever can act. */
export const PROGRAM_ROLES = ['job', 'runtime', 'library', 'tool', 'shell'] as const;
/**
 * - `job`: the job's own code (an unknown executable, or an interpreter running the job's script);
 * - `runtime`: a runtime working for the job (the MPI launcher and daemons, Python's import system);
 * - `library`: a known library inside the job's process (MPI-IO, SQLite's journal, dlopen'ed libraries);
 * - `tool`: a known tool the job runs (coreutils, text tools, archivers, compilers and make, rsync, git, sqlite3);
 * - `shell`: a shell (its redirections, PATH searches and tests).
 */
export type ProgramRole = (typeof PROGRAM_ROLES)[number];

export interface ProgramRef {
  /** The executable's base name as the process reported it (`python3.11`, `app`, `bash`). */
  readonly name: string;
  /** Its absolute path (the target of /proc/<pid>/exe when the receiver could read it), '' if unknown. */
  readonly path: string;
  readonly role: ProgramRole;
  /** For people: "your program (app)", "Python's import system", "the shell (bash)". */
  readonly label: string;
  /** A known library or runtime inside the process that made the calls (`python-imports`, `mpi-io`, `sqlite-journal`, `shared-libraries`); absent for the program's own calls. */
  readonly component?: string;
}

/** One reason of the `reasons` list. */
export interface DiagnosisReasonJson {
  readonly class: 'red' | 'yellow';
  /** docs/profiler.md "Reasons" */
  readonly reason: string;
  readonly mount: string;
  readonly program: ProgramRef;
  readonly calls: number;
  readonly bytes: number;
  /** Estimated time in the calls, µs (sampled durations scaled up). */
  readonly time: number;
  /**
   * Half-width of the time's 95 % interval from sampling, µs (0 when every call was timed), assuming
   * durations within a reason vary by at most their mean; waits for the CPU on an overloaded node can
   * exceed it.
   */
  readonly time_error: number;
  /**
   * time / the record's `runtime` (0–1); null when times are not reported (too few timed calls), or
   * when this reason's estimate rests on too few of its calls timed (`time_error` above half of `time`).
   */
  readonly share: number | null;
  /**
   * False when even the upper end of the time's interval is below `gain_threshold` of the run time:
   * "nothing to gain" (the hint says so and gives no advice). True otherwise, also when there is no share.
   */
  readonly gain: boolean;
  readonly hint: string;
}

export interface DiagnosisUnseenJson {
  readonly kind: string;
  readonly processes: number;
  /** Bytes known to be out of sight (`mmap_io`: the length of the file mappings), 0 when unknown. */
  readonly bytes: number;
  readonly detail: string;
}

/** The fields of the `diagnosis` record beyond the Mistral ones every record has (`type`, `hostname`, `jobid`, times …). */
export interface DiagnosisJson {
  /**
   * Reasons per (program, mount, class, reason): those with gain first, then by calls, bytes, reason,
   * program and mount (an order that noise in the sampled times cannot change). Per class their
   * calls add up to the `jobsummary` class counts.
   */
  readonly reasons: readonly DiagnosisReasonJson[];
  /** The run time shares are of: the processes' accumulated run time, µs. */
  readonly runtime: number;
  /** The share below which a reason has nothing to gain (0.01: 1 % of the run time). */
  readonly gain_threshold: number;
  readonly unseen: readonly DiagnosisUnseenJson[];
}
