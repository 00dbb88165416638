// `jobio run [options] -- CMD ARGS`: runs CMD with the profiler preloaded (children included) and a
// private receiver socket, passes CMD's exit status through (a signal n gives 128+n), prints the
// red/yellow/green summary to stderr and, with --output, writes Mistral-compatible JSON lines.
import { spawn } from 'node:child_process';
import { accessSync, closeSync, constants as fsConstants, existsSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { hostname, tmpdir, constants as osConstants } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { emptyCounters, addInto } from '../profiler/counters.js';
import { JOBID_VARIABLES } from '../profiler/job-verifier.js';
import { loadSeqpacketAddon } from '../profiler/native.js';
import { ProfilerReceiver } from '../profiler/receiver.js';
import { RunTotals } from '../profiler/run-totals.js';
import { diagnose } from '../profiler/diagnosis.js';
import { whyUnprofiled } from '../profiler/why-unprofiled.js';
import { classFigures, type RecordContext } from '../profiler/mistral-records.js';
import { findProfilerLibrary, missingLibraryMessage } from '../profiler/library-path.js';
import { libraryEnvironment, readConfigFile, resolveRunOptions, UsageError, type RawRunOptions, type RunOptions } from '../run/run-options.js';
import { isNetwork, NETWORK_FSTYPE, RunOutput } from '../run/run-output.js';
import { attributeName, RUN_OPTIONS } from '../run/option-table.js';
import { chooseSampling, measureClockNs } from '../run/sampling.js';
import { ResourceSampler } from '../run/run-resources.js';
import { GpuSampler } from '../run/run-gpu.js';
import { formatSummary } from '../run/run-summary.js';
import { expandOutputPath } from '../run/output-path.js';
import { openRunOutput } from '../run/output-file.js';
import { formatCoverage } from '../run/run-coverage.js';
import { Wakeup } from '../run/run-wakeup.js';
import { clientDeltas, readClientBytes } from '../lustre/client-bytes.js';
import { keyedValues } from '../profiler/mistral-io.js';
import { parseMistralConfig, type MistralSettings, type PluginSettings } from '../run/mistral-config.js';
import { readMistralEnvironment, type MistralEnvironment } from '../run/mistral-env.js';
import { terminalText } from '../labels/control-chars.js';
import { fullHostname } from '../run/fqdn.js';
import { PluginFeed, pluginArguments, pluginExitTimeoutMs } from '../run/run-plugin.js';

/** How long to wait after CMD exits for its processes' last frames (lingering daemons keep theirs open). */
const DRAIN_TIMEOUT_MS = 3000;
/** Signals forwarded to CMD. SIGINT and SIGQUIT are ignored instead, as time(1) does: the terminal sends them to CMD too. */
const FORWARDED = ['SIGTERM', 'SIGHUP', 'SIGUSR1', 'SIGUSR2'] as const;
const IGNORED = ['SIGINT', 'SIGQUIT'] as const;

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

export function runCommand(run: (action: () => Promise<number>) => void): Command {
  const command = new Command('run')
    .description('Run CMD under the I/O profiler (children included), print its red/yellow/green I/O summary to stderr and pass its exit status through.')
    .usage('[options] -- CMD [ARGS...]')
    .argument('<command...>', 'the command to profile, and its arguments (after --)')
    .passThroughOptions();
  for (const option of tableOptions()) command.addOption(option);
  command
    .addOption(new Option('--config <file>', 'YAML file with any of the options above as keys (flags win).'))
    .addOption(
      new Option('--mistral-config <file>', "A site's mistral_config.yaml: every key of Mistral's configuration table is read by its Mistral name (--config and flags win; docs/jobio-run.md)."),
    )
    .addOption(new Option('--path.procfs <path>', 'Where the Lustre client stats (fs/lustre/llite) and the mount table are read, for the profiler coverage line.').default('/proc'))
    .addOption(new Option('--path.sysfs <path>', 'Where the Lustre client stats of 2.12+ (kernel/debug/lustre/llite, fs/lustre/llite) are read.').default('/sys'));
  command.action((argv: string[]) => run(() => runProfiled(argv, command.opts<Record<string, unknown>>(), flagsToRaw(command))));
  return command;
}

/** The flags of the option table: `--name <arg>`, and for yes/no options both `--name` and `--no-name` (the one against the default shown). */
function tableOptions(): Option[] {
  const out: Option[] = [];
  for (const spec of RUN_OPTIONS) {
    const dflt =
      (spec.default !== undefined ? ` Default ${spec.default}${spec.mistralDefault !== undefined ? ` (${spec.mistralDefault} with a Mistral configuration)` : ''}.` : '') +
      (spec.mistralEnv !== undefined ? ` Also $${spec.mistralEnv}.` : '');
    if (spec.kind.type === 'bool') {
      const on = spec.default === 'yes';
      const yes = new Option(`--${spec.name}`, `${spec.doc}${dflt}`);
      const no = new Option(`--no-${spec.name}`, `Do not: ${spec.doc.charAt(0).toLowerCase()}${spec.doc.slice(1)}${dflt}`);
      // both shown where a Mistral configuration's default is the other one
      out.push(on && spec.mistralDefault === undefined ? yes.hideHelp() : yes, on ? no : no.hideHelp());
      continue;
    }
    const option = new Option(`${spec.short !== undefined ? `${spec.short}, ` : ''}--${spec.name} ${spec.arg ?? '<value>'}`, `${spec.doc}${dflt}`);
    out.push(spec.kind.type === 'list' ? option.argParser(collect) : option);
  }
  return out;
}

/** The table's options given on the command line (commander's defaults are not flags: the files may set them). */
function flagsToRaw(command: Command): RawRunOptions {
  const opts = command.opts<Record<string, unknown>>();
  const raw: RawRunOptions = {};
  for (const spec of RUN_OPTIONS) {
    const attribute = attributeName(spec.name);
    if (command.getOptionValueSource(attribute) === 'cli') raw[spec.name] = opts[attribute];
  }
  return raw;
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
async function drain(receiver: ProfilerReceiver, handled: Wakeup): Promise<boolean> {
  const until = Date.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    if (receiver.drained()) return true;
    if (Date.now() > until) return false;
    await handled.next(20);
  }
}

/** The Mistral configuration file: `--mistral-config`, else $MISTRAL_CONFIG. */
function readMistralConfig(flag: unknown, fromEnv: string | undefined): (MistralSettings & { file: string }) | undefined {
  const path = typeof flag === 'string' ? flag : fromEnv;
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`${typeof flag === 'string' ? '--mistral-config ' : 'MISTRAL_CONFIG='}${path}: ${(err as Error).message}`);
  }
  return { ...parseMistralConfig(text, path), file: path };
}

async function runProfiled(argv: readonly string[], flags: Record<string, unknown>, fromFlags: RawRunOptions): Promise<number> {
  let options: RunOptions;
  let mistral: (MistralSettings & { file: string }) | undefined;
  let mistralEnv: MistralEnvironment;
  let plugin: { settings: PluginSettings; program: string; exitTimeoutMs: number } | undefined;
  try {
    mistralEnv = readMistralEnvironment(process.env);
    for (const w of mistralEnv.warnings) process.stderr.write(`jobio run: warning: ${w}\n`);
    const volumes = mistralEnv.library['JOBIO_VOLUMES'];
    // the library reads it in every process, where it can only log: say it here, before anything runs
    if (volumes !== undefined) readableFile(volumes, 'MISTRAL_VOLUMES');
    mistral = readMistralConfig(flags['mistralConfig'], mistralEnv.configFile);
    for (const w of mistral?.warnings ?? []) process.stderr.write(`jobio run: warning: ${w}\n`);
    if (mistral?.plugin) {
      const program = resolve(dirname(mistral.file), mistral.plugin.path);
      if (existsSync(program)) plugin = { settings: mistral.plugin, program, exitTimeoutMs: pluginExitTimeoutMs(process.env) };
      else process.stderr.write(`jobio run: warning: ${mistral.plugin.where}: the plug-in ${program} does not exist; the records go to the log file (output)\n`);
    }
    // Mistral's precedence: its variables over its file; jobio's --config and flags over both
    const fromFile = { ...mistral?.raw, ...mistralEnv.raw, ...(typeof flags['config'] === 'string' ? readConfigFile(flags['config']) : {}) };
    options = resolveRunOptions(fromFile, fromFlags);
    if (options.sampleEvery === 0) options = { ...options, ...chooseSampling(options, measureClockNs()) };
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`jobio run: ${err.message}\n(run \`jobio run --help\` for usage)\n`);
    return 2;
  }
  const [file, ...args] = argv;
  if (file === undefined || file === '') {
    process.stderr.write('jobio run: no command given: jobio run [options] -- CMD [ARGS...]\n');
    return 2;
  }
  const library = findProfilerLibrary();
  if (!library) {
    process.stderr.write(missingLibraryMessage('jobio run'));
    return 1;
  }
  let addon;
  try {
    addon = loadSeqpacketAddon();
  } catch (err) {
    process.stderr.write(`jobio run: ${(err as Error).message}\n`);
    return 1;
  }
  const context = recordContext(options);
  let fd: number | undefined;
  let logPath: string | undefined;
  if (options.output !== undefined) {
    try {
      logPath = expandOutputPath(options.output, { host: hostname(), jobid: context.jobid, pid: process.pid });
    } catch (err) {
      process.stderr.write(`jobio run: ${(err as Error).message}\n`);
      return 2;
    }
  }
  const openLog = (path: string): number => {
    const opened = openRunOutput(path, addon.lockFile);
    if (opened.joined) process.stderr.write(`jobio run: note: another jobio run is writing --output ${path}; this run appends its records to it (put %p in the name for a file per run)\n`);
    return opened.fd;
  };
  // With an output plug-in the log file is written only with `file-output: yes` or after the plug-in failed.
  if (logPath !== undefined && (plugin === undefined || plugin.settings.fileOutput)) {
    try {
      fd = openLog(logPath);
    } catch (err) {
      process.stderr.write(`jobio run: cannot write --output ${logPath}: ${(err as Error).message}\n`);
      return 1;
    }
  }
  // A private directory (0700) holds the socket: only this user's processes can reach it.
  let dir: string;
  try {
    dir = mkdtempSync(join(mistralEnv.workDirectory ?? tmpdir(), 'jobio-run-'));
  } catch (err) {
    const where = mistralEnv.workDirectory !== undefined ? `MISTRAL_OUTPUT_DIRECTORY=${mistralEnv.workDirectory}` : tmpdir();
    process.stderr.write(`jobio run: cannot make a working directory in ${where}: ${(err as Error).message}\n`);
    if (fd !== undefined) closeSync(fd);
    return 1;
  }
  const socketPath = join(dir, 'profiler.sock');
  const startMs = Date.now();
  const totals = new RunTotals(startMs);
  let receiver: ProfilerReceiver | undefined;
  let feed: PluginFeed | undefined;
  const handled = new Wakeup();
  const handlers = new Map<string, () => void>();
  try {
    // No job id verification: only this user's processes can reach the private socket, and what they
    // claim goes to this user's own report; a short child could otherwise exit before /proc is read.
    receiver = new ProfilerReceiver({ socketPath, mode: 0o600, procfs: '/proc', sink: totals, verifyJobs: false, onHandled: () => handled.signal() });
    const procfs = flags['path.procfs'];
    const sysfs = flags['path.sysfs'];
    const lustrePaths = { procfs: typeof procfs === 'string' ? procfs : '/proc', sysfs: typeof sysfs === 'string' ? sysfs : '/sys', rootfs: '/' };
    const clientBefore = readClientBytes(lustrePaths);
    // The host's full name for the records (only with a log), asked before CMD starts: the helper it
    // runs is reaped before the CPU figures of the command's children are first read.
    const named = fd !== undefined || plugin !== undefined ? { ...context, hostname: await fullHostname() } : context;
    if (plugin !== undefined) {
      const path = logPath;
      feed = new PluginFeed({
        program: plugin.program,
        args: pluginArguments(plugin.settings.options, plugin.settings.switches),
        intervalSec: plugin.settings.intervalSec,
        fileOutput: plugin.settings.fileOutput,
        logName: path,
        openLog: () => {
          if (fd !== undefined || path === undefined) return fd;
          try {
            return (fd = openLog(path));
          } catch (err) {
            process.stderr.write(`jobio run: cannot write --output ${path}: ${(err as Error).message}\n`);
            return undefined;
          }
        },
        exitTimeoutMs: plugin.exitTimeoutMs,
        say: (line) => process.stderr.write(`jobio run: ${terminalText(line)}\n`),
      });
    }
    const before = addon.childrenUsage();
    const preload = [library, process.env['LD_PRELOAD']].filter((p) => p !== undefined && p !== '').join(':');
    const child = spawn(file, args, {
      stdio: 'inherit',
      env: { ...process.env, ...mistral?.library, ...mistralEnv.library, ...libraryEnvironment(options, socketPath, startMs), LD_PRELOAD: preload },
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: NodeJS.ErrnoException }>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      child.once('error', (error: NodeJS.ErrnoException) => resolve({ code: null, signal: null, error }));
    });
    for (const sig of FORWARDED) handlers.set(sig, () => child.kill(sig));
    for (const sig of IGNORED) handlers.set(sig, () => undefined);
    for (const [sig, h] of handlers) process.on(sig, h);

    const sampler = child.pid !== undefined ? new ResourceSampler('/proc', child.pid, () => totals.second()) : undefined;
    sampler?.start();
    const gpu = options.nvmlLibrary === 'none' ? undefined : await GpuSampler.open(options.nvmlLibrary, () => Date.now() - startMs);
    gpu?.start();
    // Without --output or a plug-in there is no log: no records are built. One write(2) per record on
    // a descriptor opened O_APPEND (output-file.ts): another run appending to the same file never splits a record.
    const logFd = fd;
    const sink = feed?.record ?? (logFd !== undefined ? (line: string) => void writeSync(logFd, line) : undefined);
    const selection = { totals: options.totals, cpuMemory: options.cpuMemory, diagnosis: options.diagnosis };
    const output = sink !== undefined ? new RunOutput(sink, named, totals, sampler, options.network, gpu, selection) : undefined;
    const frameMs = options.timeframeSec * 1000;
    let nextFrame = 0;
    let frameTimer: NodeJS.Timeout | undefined;
    const scheduleFrame = (out: RunOutput): void => {
      // A little after the frame's end, so the library's last flush of that second has arrived.
      frameTimer = setTimeout(
        () => {
          out.frame(nextFrame * options.timeframeSec, (nextFrame + 1) * options.timeframeSec, startMs + (nextFrame + 1) * frameMs, false);
          nextFrame++;
          totals.seal(nextFrame * options.timeframeSec);
          scheduleFrame(out);
        },
        Math.max(0, startMs + (nextFrame + 1) * frameMs + 250 - Date.now()),
      );
      frameTimer.unref();
    };
    if (output && options.timeframeSec > 0) scheduleFrame(output); // timeframe `no`: the one frame is written at the end

    const result = await exited;
    const endMs = Date.now();
    clearTimeout(frameTimer);
    sampler?.stop();
    await gpu?.stop();
    if (result.error) {
      const notFound = result.error.code === 'ENOENT';
      process.stderr.write(`jobio run: cannot run ${file}: ${notFound ? 'command not found' : result.error.message}\n`);
      return notFound ? 127 : 126;
    }
    const status = exitStatus(result.code, result.signal);
    const complete = await drain(receiver, handled);
    const clientAfter = readClientBytes(lustrePaths);
    const rejected = [...receiver.rejectedCounts().values()].reduce((a, b) => a + b, 0);
    receiver.close();
    const after = addon.childrenUsage();
    // The run's length in whole seconds (at least 1); the last partial second joins the one before, so
    // every frame's timeframe is its real length. A run that outlived the frames already written gets
    // at least one more second: what arrived after the last written frame (a run ending less than half
    // a second past it) has no written frame to join.
    const written = nextFrame * options.timeframeSec;
    const runS = (endMs - startMs) / 1000;
    const slots = Math.max(1, Math.round(runS), written > 0 && runS > written ? written + 1 : written);
    totals.foldTail(slots);
    sampler?.foldTail(slots);
    sampler?.closeTail(slots, { userUs: after.userMicros - before.userMicros, systemUs: after.systemMicros - before.systemMicros, maxRssBytes: after.maxRssBytes });
    gpu?.foldTail(slots);
    // Every frame is stamped at its end on the log's clock, start + its last slot: the last (short)
    // frame too, so its timestamp follows the one before by its timeframe (the real end, endMs, can
    // fall in the same second as the previous frame's end); the job-total records share that stamp.
    const frameEndMs = startMs + slots * 1000;
    if (slots > written) output?.frame(written, slots, frameEndMs, false);
    const times = { startMs, endMs, frameEndMs };
    const files = [...totals.mounts.values()].filter((m) => !isNetwork(m));
    const fileTotal = emptyCounters();
    for (const m of files) addInto(fileTotal, m.total);
    const sampled = classFigures(fileTotal).sampled;
    const diagnosis = diagnose({
      programs: [...totals.byProgram.values()].filter((p) => p.info.fstype !== NETWORK_FSTYPE),
      unseen: totals.unseen(),
      unprofiledExecs: totals.unprofiledExecs(),
      ...(child.pid !== undefined && !totals.sawPid(child.pid) ? { commandUnprofiled: withWhy(basename(file), whyUnprofiled(file)) } : {}),
      smallThreshold: options.smallThreshold,
      runtimeNs: totals.runtimeNs,
      timed: sampled > 0 && sampled >= options.minSampled,
    });
    output?.finish(times, slots, after.maxRssBytes, diagnosis);
    await feed?.finish();
    const total = fileTotal;
    // Mount paths and program names are the processes' own words: no control character reaches the terminal.
    process.stderr.write(
      terminalText(
        formatSummary({
          command: argv.join(' '),
          exitCode: status,
          realTimeUs: (endMs - startMs) * 1000,
          accumulatedRuntimeUs: totals.runtimeNs / 1000,
          processes: totals.processes.size,
          mounts: files,
          total,
          io: options.io,
          droppedFrames: totals.droppedFrames,
          rejected,
          networkFolded: totals.networkFolded,
          diagnosis,
        }),
      ),
    );
    const profilerBytes = new Map(
      files.map((m) => {
        const kv = keyedValues(m.total, options.io);
        return [m.info.path, (kv.get('read_all')?.bytes ?? 0) + (kv.get('write_all')?.bytes ?? 0)] as const;
      }),
    );
    process.stderr.write(terminalText(formatCoverage(clientDeltas(clientBefore, clientAfter), profilerBytes)));
    if (!complete) process.stderr.write('jobio run: some processes of the command were still connected after it ended; their last figures may be missing\n');
    return status;
  } finally {
    for (const [sig, h] of handlers) process.off(sig, h);
    feed?.abandon();
    receiver?.close();
    if (fd !== undefined) closeSync(fd);
    // receiver.close() removed the socket: the directory is empty unless something else got in.
    try {
      rmdirSync(dir);
    } catch {
      rmSync(dir, { recursive: true, force: true });
    }
  }
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
