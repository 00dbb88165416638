// `jobio run --attach`: the session of a job that a Mistral-style start script began (MISTRAL_*
// variables and LD_PRELOAD, no `jobio run`). The job's first preloaded process made the listening
// socket, set JOBIO_SOCKET and the run's other variables in its environment and started this session
// detached (native/profiler/src/process/session.c), so the job is not this process's child: its end
// is the exit of the process Mistral's wait_pid names, seen in /proc; its start is the clock the
// library's frames count from (JOBIO_FRAME_ORIGIN_NS).
import { readFileSync } from 'node:fs';
import type { Counters } from '../profiler/counters.js';
import type { AggregatorSink, MountInfo, ProcessIdentity, ProcessIncrement } from '../profiler/process-table.js';
import type { MountRecord, ProcessRecord } from '../parsers/profiler-record.js';
import { UsageError } from './run-options.js';
import { chooseSampling, measureClockNs, type Sampling } from './sampling.js';

/** What the first process passes: `--attach FD,FIRST,PARENT,GROUP,PARENT-GROUP[,REFUSED-FD]`. */
export interface Attach {
  /** The inherited listening socket. */
  readonly fd: number;
  /** The job's first preloaded process, its parent, and the process group leaders of both. */
  readonly first: number;
  readonly parent: number;
  readonly group: number;
  readonly parentGroup: number;
  /** The inherited socket of refused processes (JOBIO_REFUSED_SOCKET), when the first process could make it. */
  readonly refusedFd?: number;
}

export function parseAttach(text: string): Attach {
  const parts = text.split(',').map((p) => (/^\d+$/.test(p) ? Number(p) : Number.NaN));
  const [fd, first, parent, group, parentGroup, refusedFd] = parts;
  if (
    (parts.length !== 5 && parts.length !== 6) ||
    parts.some((n) => !Number.isSafeInteger(n)) ||
    fd === undefined ||
    first === undefined ||
    parent === undefined ||
    group === undefined ||
    parentGroup === undefined
  ) {
    throw new UsageError(`--attach ${text}: expected FD,FIRST,PARENT,GROUP,PARENT-GROUP[,REFUSED-FD] (numbers; the profiler library passes it)`);
  }
  return { fd, first, parent, group, parentGroup, ...(refusedFd !== undefined ? { refusedFd } : {}) };
}

/** The process whose exit ends the session, by Mistral's wait_pid (`mistral` and `first`: the first process). */
export function waitedPid(attach: Attach, waitPid: string): number {
  if (waitPid === 'parent') return attach.parent;
  if (waitPid === 'group') return attach.group;
  if (waitPid === 'parent-group') return attach.parentGroup;
  return attach.first;
}

/** The session's start in ms: the library's frame origin, which the first process set. */
export function attachedStartMs(env: NodeJS.ProcessEnv): number {
  const ns = env['JOBIO_FRAME_ORIGIN_NS'];
  if (ns === undefined || !/^\d+$/.test(ns)) throw new UsageError('--attach: JOBIO_FRAME_ORIGIN_NS is not set (the profiler library sets it before it starts the session)');
  return Number(BigInt(ns) / 1_000_000n);
}

/** Is the process gone (or a zombie)? Its parent, not this session, reaps it. */
function exited(procfs: string, pid: number): boolean {
  try {
    const stat = readFileSync(`${procfs}/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return true;
  }
}

/** Resolves once `pid` has exited, looking every 100 ms (it is not this process's child: no wait(2)). */
export function processExit(procfs: string, pid: number): Promise<void> {
  return new Promise((resolve) => {
    const look = (): void => {
      if (exited(procfs, pid)) resolve();
      else setTimeout(look, 100);
    };
    look();
  });
}

/**
 * Sampling chosen from the clock's cost (a factor of 0): the job's first process chose it before
 * this session existed (session.c, as sampling.ts does) and the job runs with it, so the records
 * take its figures; measured here only when it did not say.
 */
export function librarySampling(given: Sampling, env: NodeJS.ProcessEnv): Sampling {
  const every = Number(env['JOBIO_SAMPLE_EVERY'] ?? '');
  if (!Number.isSafeInteger(every) || every < 1) return chooseSampling(given, measureClockNs());
  const limit = Number(env['JOBIO_SAMPLE_MAX_PER_SEC'] ?? '0');
  return { sampleEvery: every, sampleMaxPerSec: given.sampleMaxPerSec !== 0 || !Number.isSafeInteger(limit) ? given.sampleMaxPerSec : limit };
}

/** The library's defaults (jobio_protocol.h, config.c) where a variable is unset. */
const LIBRARY_DEFAULTS: Readonly<Record<string, string>> = {
  JOBIO_SMALL_THRESHOLD: '32768',
  JOBIO_LARGE_THRESHOLD: '134217728',
  JOBIO_SAMPLE_EVERY: '16',
  JOBIO_SAMPLE_MAX_PER_SEC: '0',
  JOBIO_NETWORK: '0',
};

/**
 * The library's variables the job's processes run with (this session's environment: the first
 * process's, after it set them) that differ from what the options ask: the library read them before
 * this session existed, so a setting only the configuration file gives (duration-sampling,
 * network.enabled) cannot reach it. One line each, for the error log.
 */
export function libraryMismatches(wanted: Readonly<Record<string, string>>, env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(wanted)) {
    const actual = env[name] === undefined || env[name] === '' ? LIBRARY_DEFAULTS[name] : env[name];
    if (actual !== value) {
      out.push(
        `the job's processes run with ${name}=${actual ?? '(unset)'} where the configuration asks for ${value}: the library starts before this session reads the configuration file; set ${name} in the start script, or start the job with jobio run`,
      );
    }
  }
  return out;
}

/**
 * The records' sink, noting when the waited process sent its last frame: the job's end on the
 * library's clock, not when this session (started after it, looking every 100 ms) saw it gone.
 */
export class WaitedEnd implements AggregatorSink {
  lastMs: number | undefined;

  constructor(
    private readonly sink: AggregatorSink,
    private readonly pid: number,
  ) {}

  mountDelta(id: ProcessIdentity, mount: MountInfo, increment: Counters, record: MountRecord): void {
    this.sink.mountDelta(id, mount, increment, record);
  }

  processDelta(id: ProcessIdentity, increment: ProcessIncrement, record: ProcessRecord): void {
    if (id.pid === this.pid) this.lastMs = Math.max(this.lastMs ?? 0, Number(record.header.nowNs / 1_000_000n));
    this.sink.processDelta(id, increment, record);
  }

  processEnded(id: ProcessIdentity): void {
    this.sink.processEnded?.(id);
  }

  jobOwnerKnown(jobid: string, uid: number): void {
    this.sink.jobOwnerKnown?.(jobid, uid);
  }
}
