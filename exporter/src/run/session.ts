// One `jobio run`: a session whose phases run once each, in this order, each handing the next what it
// made (runSession below is the whole walk):
//   configure  the options: Mistral's variables and file, --config, the flags (option-table.ts)
//   prepare    what must exist before CMD starts: the profiler library, the socket addon, the log file,
//              the private working directory
//   start      the receiver, the output plug-in, CMD with the library preloaded, the samplers, the frames
//   wait       CMD's exit (its status, 128+n for a signal n)
//   settle     the last frames drained, the tail folded, the diagnosis, the closing records
//   summarise  the red/yellow/green summary and the coverage line on stderr
//   close      whatever the run opened, however it ended
import { spawn } from 'node:child_process';
import { accessSync, chmodSync, closeSync, constants as fsConstants, existsSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { hostname, tmpdir, constants as osConstants } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { emptyCounters, addInto, type Counters } from '../profiler/counters.js';
import { JOBID_VARIABLES } from '../profiler/job-verifier.js';
import { loadSeqpacketAddon } from '../profiler/native.js';
import { ProfilerReceiver } from '../profiler/receiver.js';
import { RunTotals, type MountSeries } from '../profiler/run-totals.js';
import { RefusedProcesses } from '../profiler/refused-processes.js';
import { diagnose, type Diagnosis } from '../profiler/diagnosis.js';
import { whyUnprofiled } from '../profiler/why-unprofiled.js';
import { classFigures, type RecordContext } from '../profiler/mistral-records.js';
import { findProfilerLibrary, missingLibraryMessage } from '../profiler/library-path.js';
import { keyedValues } from '../profiler/mistral-io.js';
import { clientDeltas, readClientBytes, type ClientBytes } from '../lustre/client-bytes.js';
import { terminalText } from '../labels/control-chars.js';
import type { Paths } from '../util/paths.js';
import { libraryEnvironment, readConfigFile, resolveRunOptions, UsageError, type RawRunOptions, type RunOptions } from './run-options.js';
import { isNetwork, NETWORK_FSTYPE, RunOutput } from './run-output.js';
import { chooseSampling, measureClockNs } from './sampling.js';
import { ResourceSampler } from './run-resources.js';
import { GpuSampler } from './run-gpu.js';
import { formatSummary } from './run-summary.js';
import { expandOutputPath } from './output-path.js';
import { openRunOutput } from './output-file.js';
import { formatCoverage } from './run-coverage.js';
import { Wakeup } from './run-wakeup.js';
import { parseMistralConfig, type MistralSettings, type PluginSettings } from './mistral-config.js';
import { readMistralEnvironment, type MistralEnvironment } from './mistral-env.js';
import { fullHostname } from './fqdn.js';
import { PluginFeed, pluginArguments, pluginExitTimeoutMs } from './run-plugin.js';
import { attachedStartMs, libraryMismatches, librarySampling, processExit, WaitedEnd, waitedPid, type Attach } from './attached-job.js';

/** How long to wait after CMD exits for its processes' last frames (lingering daemons keep theirs open). */
const DRAIN_TIMEOUT_MS = 3000;
/** How long to wait for the last word of refused processes (any user can hold that socket open). */
const REFUSED_DRAIN_MS = 500;
/** Signals forwarded to CMD. SIGINT and SIGQUIT are ignored instead, as time(1) does: the terminal sends them to CMD too. */
const FORWARDED = ['SIGTERM', 'SIGHUP', 'SIGUSR1', 'SIGUSR2'] as const;
const IGNORED = ['SIGINT', 'SIGQUIT'] as const;

/** What the command line gives a session besides the option table's flags. */
export interface SessionFlags {
  /** --config: a YAML file of the table's options. */
  readonly config?: string;
  /** --mistral-config: a site's Mistral configuration file. */
  readonly mistralConfig?: string;
  /** --path.procfs and --path.sysfs: where the Lustre client's stats are read for the coverage line. */
  readonly lustrePaths: Paths;
  /** --attach (hidden): a job a Mistral-style start script began; its first process started this session (attached-job.ts). */
  readonly attach?: Attach;
}

type ChildrenUsage = ReturnType<ReturnType<typeof loadSeqpacketAddon>['childrenUsage']>;
type Exited = { code: number | null; signal: NodeJS.Signals | null; error?: NodeJS.ErrnoException };

/** The whole walk of `jobio run`: its exit status (CMD's, or 1, 2, 126, 127 for jobio run's own failures). */
export async function runSession(argv: readonly string[], flags: SessionFlags, fromFlags: RawRunOptions): Promise<number> {
  const session = new RunSession(argv, flags);
  const refused = session.configure(fromFlags) ?? session.prepare();
  if (refused !== undefined) return refused;
  try {
    const started = await session.start();
    const status = await session.wait(started);
    if (status.failed) return status.code;
    const settled = await session.settle(started);
    // attached, no terminal waits for the summary: stderr is the error log
    if (flags.attach === undefined) session.summarise(status.code, settled);
    return status.code;
  } finally {
    session.close();
  }
}

/** What start() leaves for the later phases. */
interface Started {
  readonly receiver: ProfilerReceiver;
  /** Processes of another user that the private socket refused (undefined when their socket could not be made). */
  readonly refused: RefusedProcesses | undefined;
  /** CMD, or with --attach the process whose exit ends the job. */
  readonly pid: number | undefined;
  /** With --attach: when that process sent its last frame. */
  readonly waitedEnd: WaitedEnd | undefined;
  readonly exited: Promise<Exited>;
  readonly clientBefore: ReadonlyMap<string, ClientBytes>;
  readonly childrenBefore: ChildrenUsage;
  readonly sampler: ResourceSampler | undefined;
  readonly gpu: GpuSampler | undefined;
  readonly output: RunOutput | undefined;
}

/** What settle() leaves for the summary. */
interface Settled {
  readonly endMs: number;
  readonly complete: boolean;
  readonly files: MountSeries[];
  readonly total: Counters;
  readonly rejected: number;
  readonly clientAfter: ReadonlyMap<string, ClientBytes>;
  readonly clientBefore: ReadonlyMap<string, ClientBytes>;
  readonly diagnosis: Diagnosis;
}

export class RunSession {
  private options!: RunOptions;
  private mistral: (MistralSettings & { file: string }) | undefined;
  private mistralEnv!: MistralEnvironment;
  private plugin: { settings: PluginSettings; program: string; exitTimeoutMs: number } | undefined;
  private library!: string;
  private addon!: ReturnType<typeof loadSeqpacketAddon>;
  private context!: RecordContext;
  private fd: number | undefined;
  private logPath: string | undefined;
  private dir: string | undefined;
  /** A directory any user may traverse (0711), for the socket of refused processes. */
  private refusedDir: string | undefined;
  /** That socket (JOBIO_REFUSED_SOCKET). */
  private refusedPath: string | undefined;
  private refused: RefusedProcesses | undefined;
  private startMs = 0;
  private endMs = 0;
  private totals!: RunTotals;
  private receiver: ProfilerReceiver | undefined;
  private feed: PluginFeed | undefined;
  private readonly handled = new Wakeup();
  private readonly handlers = new Map<string, () => void>();
  private nextFrame = 0;
  private frameTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly argv: readonly string[],
    private readonly flags: SessionFlags,
  ) {}

  /** The options, from Mistral's variables and file, --config and the flags; a usage error gives 2. */
  configure(fromFlags: RawRunOptions): number | undefined {
    try {
      this.mistralEnv = readMistralEnvironment(process.env);
      for (const w of this.mistralEnv.warnings) process.stderr.write(`jobio run: warning: ${w}\n`);
      const volumes = this.mistralEnv.library['JOBIO_VOLUMES'];
      // the library reads it in every process, where it can only log: say it here, before anything runs
      if (volumes !== undefined) readableFile(volumes, 'MISTRAL_VOLUMES');
      const mistral = readMistralConfig(this.flags.mistralConfig, this.mistralEnv.configFile);
      this.mistral = mistral;
      for (const w of mistral?.warnings ?? []) process.stderr.write(`jobio run: warning: ${w}\n`);
      if (mistral?.plugin) {
        const program = resolve(dirname(mistral.file), mistral.plugin.path);
        if (existsSync(program)) this.plugin = { settings: mistral.plugin, program, exitTimeoutMs: pluginExitTimeoutMs(process.env) };
        else process.stderr.write(`jobio run: warning: ${mistral.plugin.where}: the plug-in ${program} does not exist; the records go to the log file (output)\n`);
      }
      // Mistral's precedence: its variables over its file; jobio's --config and flags over both
      const fromFile = { ...mistral?.raw, ...this.mistralEnv.raw, ...(this.flags.config !== undefined ? readConfigFile(this.flags.config) : {}) };
      let options = resolveRunOptions(fromFile, fromFlags);
      if (options.sampleEvery === 0) options = { ...options, ...(this.flags.attach !== undefined ? librarySampling(options, process.env) : chooseSampling(options, measureClockNs())) };
      this.options = options;
      return undefined;
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      process.stderr.write(`jobio run: ${err.message}\n(run \`jobio run --help\` for usage)\n`);
      return 2;
    }
  }

  /** The command, the profiler library, the socket addon, the log file and the working directory. */
  prepare(): number | undefined {
    const [file] = this.argv;
    if (file === undefined || file === '') {
      process.stderr.write('jobio run: no command given: jobio run [options] -- CMD [ARGS...]\n');
      return 2;
    }
    const library = this.flags.attach !== undefined ? '' : findProfilerLibrary();
    if (library === undefined) {
      process.stderr.write(missingLibraryMessage('jobio run'));
      return 1;
    }
    this.library = library;
    try {
      this.addon = loadSeqpacketAddon();
    } catch (err) {
      process.stderr.write(`jobio run: ${(err as Error).message}\n`);
      return 1;
    }
    this.context = recordContext(this.options);
    if (this.options.output !== undefined) {
      try {
        this.logPath = expandOutputPath(this.options.output, { host: hostname(), jobid: this.context.jobid, pid: process.pid });
      } catch (err) {
        process.stderr.write(`jobio run: ${(err as Error).message}\n`);
        return 2;
      }
    }
    // With an output plug-in the log file is written only with `file-output: yes` or after the plug-in failed.
    if (this.logPath !== undefined && (this.plugin === undefined || this.plugin.settings.fileOutput)) {
      try {
        this.fd = this.openLog(this.logPath);
      } catch (err) {
        process.stderr.write(`jobio run: cannot write --output ${this.logPath}: ${(err as Error).message}\n`);
        return 1;
      }
    }
    // A private directory (0700) holds the socket: only this user's processes can reach it. Attached,
    // the job's first process made it, and the one of refused processes beside it, and the session
    // removes them at the end as its own.
    const inherited = process.env['JOBIO_SOCKET'];
    if (this.flags.attach !== undefined && inherited !== undefined) {
      this.dir = dirname(inherited);
      this.adoptRefused(this.flags.attach);
      return undefined;
    }
    try {
      this.dir = mkdtempSync(join(this.mistralEnv.workDirectory ?? tmpdir(), 'jobio-run-'));
    } catch (err) {
      const where = this.mistralEnv.workDirectory !== undefined ? `MISTRAL_OUTPUT_DIRECTORY=${this.mistralEnv.workDirectory}` : tmpdir();
      process.stderr.write(`jobio run: cannot make a working directory in ${where}: ${(err as Error).message}\n`);
      if (this.fd !== undefined) closeSync(this.fd);
      this.fd = undefined;
      return 1;
    }
    // Beside it, one any user may enter (not list): where a process the private socket refuses (it
    // runs as another user) says so. Without it such processes are only not counted.
    if (this.flags.attach !== undefined) return undefined; // the job runs already, without its variable
    try {
      this.refusedDir = mkdtempSync(join(dirname(this.dir), 'jobio-refused-'));
      chmodSync(this.refusedDir, 0o711);
      this.refusedPath = join(this.refusedDir, 'refused.sock');
    } catch (err) {
      process.stderr.write(`jobio run: warning: processes of another user will not be counted: ${(err as Error).message}\n`);
    }
    return undefined;
  }

  /** The receiver, the plug-in, CMD with the library preloaded, the samplers and the periodic frames. */
  async start(): Promise<Started> {
    const [file = '', ...args] = this.argv;
    const { options, addon } = this;
    const { attach } = this.flags;
    const socketPath = join(this.dir ?? '', 'profiler.sock');
    const startMs = (this.startMs = attach !== undefined ? attachedStartMs(process.env) : Date.now());
    const totals = (this.totals = new RunTotals(startMs));
    const waited = attach !== undefined ? waitedPid(attach, options.waitPid) : undefined;
    const waitedEnd = waited !== undefined ? new WaitedEnd(totals, waited) : undefined;
    // No job id verification: only this user's processes can reach the private socket, and what they
    // claim goes to this user's own report; a short child could otherwise exit before /proc is read.
    const receiver = (this.receiver = new ProfilerReceiver({
      socketPath,
      mode: 0o600,
      procfs: '/proc',
      sink: waitedEnd ?? totals,
      verifyJobs: false,
      onHandled: () => this.handled.signal(),
      ...(attach !== undefined ? { listenFd: attach.fd } : {}),
    }));
    const { refusedPath } = this;
    const refused = (this.refused = refusedPath !== undefined ? this.listenRefused(refusedPath, attach?.refusedFd) : undefined);
    const clientBefore = readClientBytes(this.flags.lustrePaths);
    // The host's full name for the records (only with a log), asked before CMD starts: the helper it
    // runs is reaped before the CPU figures of the command's children are first read.
    const named = this.fd !== undefined || this.plugin !== undefined ? { ...this.context, hostname: await fullHostname() } : this.context;
    if (this.plugin !== undefined) {
      const plugin = this.plugin;
      const path = this.logPath;
      this.feed = new PluginFeed({
        program: plugin.program,
        args: pluginArguments(plugin.settings.options, plugin.settings.switches),
        intervalSec: plugin.settings.intervalSec,
        fileOutput: plugin.settings.fileOutput,
        logName: path,
        openLog: () => {
          if (this.fd !== undefined || path === undefined) return this.fd;
          try {
            return (this.fd = this.openLog(path));
          } catch (err) {
            process.stderr.write(`jobio run: cannot write --output ${path}: ${(err as Error).message}\n`);
            return undefined;
          }
        },
        exitTimeoutMs: plugin.exitTimeoutMs,
        say: (line) => process.stderr.write(`jobio run: ${terminalText(line)}\n`),
      });
    }
    const childrenBefore = addon.childrenUsage();
    const libraryEnv = {
      ...this.mistral?.library,
      ...this.mistralEnv.library,
      ...libraryEnvironment(options, socketPath, startMs),
      ...(refused !== undefined && refusedPath !== undefined ? { JOBIO_REFUSED_SOCKET: refusedPath } : {}),
    };
    let pid: number | undefined;
    let exited: Promise<Exited>;
    if (waited !== undefined) {
      // the job runs already, with the variables its first process gave it: say where they differ
      for (const w of libraryMismatches(libraryEnv, process.env)) process.stderr.write(`jobio run: warning: ${w}\n`);
      pid = waited;
      exited = processExit('/proc', waited).then(() => ({ code: 0, signal: null }));
    } else {
      const preload = [this.library, process.env['LD_PRELOAD']].filter((p) => p !== undefined && p !== '').join(':');
      const child = spawn(file, args, { stdio: 'inherit', env: { ...process.env, ...libraryEnv, LD_PRELOAD: preload } });
      pid = child.pid;
      exited = new Promise<Exited>((resolve) => {
        child.once('exit', (code, signal) => resolve({ code, signal }));
        child.once('error', (error: NodeJS.ErrnoException) => resolve({ code: null, signal: null, error }));
      });
      for (const sig of FORWARDED) this.handlers.set(sig, () => child.kill(sig));
      for (const sig of IGNORED) this.handlers.set(sig, () => undefined);
      for (const [sig, h] of this.handlers) process.on(sig, h);
    }

    const sampler = pid !== undefined ? new ResourceSampler('/proc', pid, () => totals.second()) : undefined;
    sampler?.start();
    const gpu = options.nvmlLibrary === 'none' ? undefined : await GpuSampler.open(options.nvmlLibrary, () => Date.now() - startMs);
    gpu?.start();
    // Without --output or a plug-in there is no log: no records are built. One write(2) per record on
    // a descriptor opened O_APPEND (output-file.ts): another run appending to the same file never splits a record.
    const logFd = this.fd;
    const sink = this.feed?.record ?? (logFd !== undefined ? (line: string) => void writeSync(logFd, line) : undefined);
    const selection = { totals: options.totals, cpuMemory: options.cpuMemory, diagnosis: options.diagnosis };
    const output = sink !== undefined ? new RunOutput(sink, named, totals, sampler, options.network, gpu, selection) : undefined;
    if (output && options.timeframeSec > 0) this.scheduleFrame(output); // timeframe `no`: the one frame is written at the end
    return { receiver, refused, pid, waitedEnd, exited, clientBefore, childrenBefore, sampler, gpu, output };
  }

  /**
   * Attached: the socket of refused processes that the job's first process made beside the private
   * one and named in the job's environment (JOBIO_REFUSED_SOCKET), inherited on attach.refusedFd.
   */
  private adoptRefused(attach: Attach): void {
    const path = process.env['JOBIO_REFUSED_SOCKET'];
    if (attach.refusedFd === undefined || path === undefined || path === '') {
      process.stderr.write("jobio run: warning: processes of another user will not be counted: the job's first process could not make their socket\n");
      return;
    }
    this.refusedDir = dirname(path);
    this.refusedPath = path;
  }

  /** The socket of refused processes (adopted from `listenFd` when attached), or undefined (said on stderr) when it cannot be made. */
  private listenRefused(path: string, listenFd: number | undefined): RefusedProcesses | undefined {
    try {
      return new RefusedProcesses(path, process.getuid?.() ?? -1, '/proc', () => this.handled.signal(), listenFd);
    } catch (err) {
      process.stderr.write(`jobio run: warning: processes of another user will not be counted: ${(err as Error).message}\n`);
      return undefined;
    }
  }

  /** CMD's exit: its status, or (failed) 127 when it was not found and 126 when it could not run. */
  async wait(started: Started): Promise<{ code: number; failed: boolean }> {
    const result = await started.exited;
    this.endMs = Date.now();
    clearTimeout(this.frameTimer);
    started.sampler?.stop();
    await started.gpu?.stop();
    if (result.error) {
      const notFound = result.error.code === 'ENOENT';
      process.stderr.write(`jobio run: cannot run ${this.argv[0] ?? ''}: ${notFound ? 'command not found' : result.error.message}\n`);
      return { code: notFound ? 127 : 126, failed: true };
    }
    return { code: exitStatus(result.code, result.signal), failed: false };
  }

  /** The last frames drained, the tail folded into whole seconds, the diagnosis and the closing records. */
  async settle(started: Started): Promise<Settled> {
    const { receiver, pid, sampler, gpu, output } = started;
    const complete = await drain(receiver, this.handled);
    if (started.refused !== undefined) await drain(started.refused, this.handled, REFUSED_DRAIN_MS);
    // attached: the job ended when its waited process sent its last frame (this session saw it later)
    if (started.waitedEnd?.lastMs !== undefined) this.endMs = Math.min(this.endMs, Math.max(this.startMs, started.waitedEnd.lastMs));
    const { options, totals, startMs, endMs } = this;
    const clientAfter = readClientBytes(this.flags.lustrePaths);
    const rejected = [...receiver.rejectedCounts().values()].reduce((a, b) => a + b, 0);
    receiver.close();
    // the CPU time of the reaped command and its descendants; attached, the job is not this session's child
    const after = this.flags.attach === undefined ? this.addon.childrenUsage() : undefined;
    const before = started.childrenBefore;
    // The run's length in whole seconds (at least 1); the last partial second joins the one before, so
    // every frame's timeframe is its real length. A run that outlived the frames already written gets
    // at least one more second: what arrived after the last written frame (a run ending less than half
    // a second past it) has no written frame to join.
    const written = this.nextFrame * options.timeframeSec;
    const runS = (endMs - startMs) / 1000;
    const slots = Math.max(1, Math.round(runS), written > 0 && runS > written ? written + 1 : written);
    totals.foldTail(slots);
    sampler?.foldTail(slots);
    sampler?.closeTail(slots, after && { userUs: after.userMicros - before.userMicros, systemUs: after.systemMicros - before.systemMicros, maxRssBytes: after.maxRssBytes });
    gpu?.foldTail(slots);
    // Every frame is stamped at its end on the log's clock, start + its last slot: the last (short)
    // frame too, so its timestamp follows the one before by its timeframe (the real end, endMs, can
    // fall in the same second as the previous frame's end); the job-total records share that stamp.
    const frameEndMs = startMs + slots * 1000;
    if (slots > written) output?.frame(written, slots, frameEndMs, false);
    const times = { startMs, endMs, frameEndMs };
    const files = [...totals.mounts.values()].filter((m) => !isNetwork(m));
    const total = emptyCounters();
    for (const m of files) addInto(total, m.total);
    const sampled = classFigures(total).sampled;
    const file = this.argv[0] ?? '';
    // the program started (attached: the first process, whatever wait_pid waits for)
    const commandPid = this.flags.attach?.first ?? pid;
    const diagnosis = diagnose({
      programs: [...totals.byProgram.values()].filter((p) => p.info.fstype !== NETWORK_FSTYPE),
      unseen: totals.unseen(),
      unprofiledExecs: totals.unprofiledExecs(started.refused?.refused()),
      unprofiledUnnamed: started.refused?.refused().more ?? 0,
      ...(commandPid !== undefined && !totals.sawPid(commandPid) ? { commandUnprofiled: withWhy(basename(file), whyUnprofiled(file)) } : {}),
      smallThreshold: options.smallThreshold,
      runtimeNs: totals.runtimeNs,
      timed: sampled > 0 && sampled >= options.minSampled,
    });
    output?.finish(times, slots, after?.maxRssBytes, diagnosis);
    await this.feed?.finish();
    return { endMs, complete, files, total, rejected, clientBefore: started.clientBefore, clientAfter, diagnosis };
  }

  /** The summary and the coverage line on stderr. */
  summarise(status: number, settled: Settled): void {
    const { options, totals, startMs } = this;
    const { files, total, endMs } = settled;
    // Mount paths and program names are the processes' own words: no control character reaches the terminal.
    process.stderr.write(
      terminalText(
        formatSummary({
          command: this.argv.join(' '),
          exitCode: status,
          realTimeUs: (endMs - startMs) * 1000,
          accumulatedRuntimeUs: totals.runtimeNs / 1000,
          processes: totals.processes.size,
          mounts: files,
          total,
          io: options.io,
          droppedFrames: totals.droppedFrames,
          rejected: settled.rejected,
          networkFolded: totals.networkFolded,
          diagnosis: settled.diagnosis,
        }),
      ),
    );
    const profilerBytes = new Map(
      files.map((m) => {
        const kv = keyedValues(m.total, options.io);
        return [m.info.path, (kv.get('read_all')?.bytes ?? 0) + (kv.get('write_all')?.bytes ?? 0)] as const;
      }),
    );
    process.stderr.write(terminalText(formatCoverage(clientDeltas(settled.clientBefore, settled.clientAfter), profilerBytes)));
    if (!settled.complete) process.stderr.write('jobio run: some processes of the command were still connected after it ended; their last figures may be missing\n');
  }

  /** Signal handlers off, the plug-in abandoned if it was not finished, the receiver, the log and the working directory closed. */
  close(): void {
    for (const [sig, h] of this.handlers) process.off(sig, h);
    this.feed?.abandon();
    this.receiver?.close();
    this.refused?.close();
    if (this.refusedDir !== undefined) rmSync(this.refusedDir, { recursive: true, force: true });
    if (this.fd !== undefined) closeSync(this.fd);
    if (this.dir === undefined) return;
    // receiver.close() removed the socket: the directory is empty unless something else got in.
    try {
      rmdirSync(this.dir);
    } catch {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }

  private openLog(path: string): number {
    const opened = openRunOutput(path, this.addon.lockFile);
    if (opened.joined) process.stderr.write(`jobio run: note: another jobio run is writing --output ${path}; this run appends its records to it (put %p in the name for a file per run)\n`);
    return opened.fd;
  }

  private scheduleFrame(out: RunOutput): void {
    const { timeframeSec } = this.options;
    const frameMs = timeframeSec * 1000;
    // A little after the frame's end, so the library's last flush of that second has arrived.
    this.frameTimer = setTimeout(
      () => {
        out.frame(this.nextFrame * timeframeSec, (this.nextFrame + 1) * timeframeSec, this.startMs + (this.nextFrame + 1) * frameMs, false);
        this.nextFrame++;
        this.totals.seal(this.nextFrame * timeframeSec);
        this.scheduleFrame(out);
      },
      Math.max(0, this.startMs + (this.nextFrame + 1) * frameMs + 250 - Date.now()),
    );
    this.frameTimer.unref();
  }
}

function recordContext(options: RunOptions): RecordContext {
  const env = process.env;
  const jobid = JOBID_VARIABLES.map((v) => env[v]).find((v) => v !== undefined && v !== '') ?? '';
  return {
    hostname: hostname(),
    jobid,
    jobgroupid: env['SLURM_ARRAY_JOB_ID'] ?? env['PBS_ARRAY_ID'] ?? env['LSB_BATCHID'] ?? '',
    ...(options.env.length > 0 ? { environment: Object.fromEntries(options.env.map((v) => [v, env[v] ?? ''])) } : {}),
    timeframeSec: options.timeframeSec,
    io: options.io,
  };
}

/** 128 + signal number, as shells report a command killed by a signal. */
export function exitStatus(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const n = signal ? osConstants.signals[signal] : undefined;
  return 128 + (n ?? 0);
}

/**
 * Waits until every connection has been read to its end, or DRAIN_TIMEOUT_MS. It looks again after
 * each event the receiver handles (a goodbye usually arrives just after CMD's exit, so no fixed
 * sleep), and every 20 ms in case a connection ends with no event of its own.
 */
async function drain(receiver: { drained(): boolean }, handled: Wakeup, timeoutMs = DRAIN_TIMEOUT_MS): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (receiver.drained()) return true;
    if (Date.now() > until) return false;
    await handled.next(20);
  }
}

/** The Mistral configuration file: `--mistral-config`, else $MISTRAL_CONFIG. */
function readMistralConfig(flag: string | undefined, fromEnv: string | undefined): (MistralSettings & { file: string }) | undefined {
  const path = flag ?? fromEnv;
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag !== undefined ? '--mistral-config ' : 'MISTRAL_CONFIG='}${path}: ${(err as Error).message}`);
  }
  return { ...parseMistralConfig(text, path), file: path };
}

/** A file the run needs to read, else a usage error naming the variable that gave it. */
function readableFile(path: string, variable: string): void {
  try {
    accessSync(path, fsConstants.R_OK);
  } catch (err) {
    throw new UsageError(`${variable}=${path}: ${(err as Error).message}`);
  }
}

/** The command's name, with why it ran without the profiler when its file tells. */
function withWhy(name: string, why: string | undefined): string {
  return why === undefined ? name : `${name} (${why})`;
}
