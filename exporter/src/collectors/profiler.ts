// Collector `profiler`: I/O counts sent by the LD_PRELOAD profiler (libjobio) of the jobs on this host
// over a Unix SOCK_SEQPACKET socket (docs/architecture.md "Wire format and trust", docs/metrics.md).
//
// The socket is bound when the collector is created and re-tried at each scrape while it cannot be
// (socket directory missing, no permission, another receiver on the path): meanwhile the collector
// reports `absent` quietly, like any collector whose source is not on this host.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from '../util/logger.js';
import { defineCollector } from '../scrape/define-collector.js';
import { durationFlag, positiveIntegerFlag, textFlag, valueFlag } from '../scrape/flags.js';
import { USER_FLAGS, userResolverFor } from '../labels/users.js';
import { JobSlots } from '../profiler/job-slots.js';
import { CappedLabels, ProfilerMetricStore } from '../profiler/metric-store.js';
import { ProfilerMetrics } from './profiler_metrics.js';
import { autoOrPositive } from '../profiler/connection-budget.js';
import { DEFAULT_SOCKET_MODE, ProfilerReceiver } from '../profiler/receiver.js';
import { sysPath } from '../util/paths.js';
import { nonNegativeDuration } from '../scrape/flag-values.js';

/** The default as the flag writes it: `0666`. */
const DEFAULT_SOCKET_MODE_TEXT = `0${DEFAULT_SOCKET_MODE.toString(8)}`;

function socketMode(text: string): number {
  if (!/^0?[0-7]{3}$/.test(text.trim())) throw new Error(`"${text}" is not an octal file mode such as 0666`);
  return parseInt(text.trim(), 8);
}

/**
 * The receiver verifies each sender in <procfs>/<pid>: a --path.procfs without processes (a captured
 * Lustre tree) rejects every frame, which must not be silent.
 */
function warnIfNoProcesses(procfs: string, logger: Logger): void {
  if (existsSync(join(procfs, 'self'))) return;
  logger.warn(
    { procfs },
    `--path.procfs=${procfs} has no processes (no ${join(procfs, 'self')}): the profiler checks the processes sending frames there and will reject every frame; give captured Lustre files with --path.lustre and leave --path.procfs at the real /proc`,
  );
}

export const profilerCollector = defineCollector({
  name: 'profiler',
  help: 'I/O calls, bytes and time per job, user, mount and red/yellow/green class, from the LD_PRELOAD profiler.',
  defaultEnabled: true,
  flags: {
    socket: textFlag('socket', '/run/jobio/profiler.sock', 'Unix socket the profiler library sends to (JOBIO_SOCKET of the jobs). Its directory must exist.'),
    socketMode: valueFlag('socket-mode', DEFAULT_SOCKET_MODE_TEXT, `Permissions of the socket file (octal); ${DEFAULT_SOCKET_MODE_TEXT} lets every user's job connect.`, socketMode),
    maxJobs: positiveIntegerFlag('max-jobs', 100, 'Jobs with their own series; the load of further jobs is summed into jobid="_other".'),
    maxMounts: positiveIntegerFlag('max-mounts', 16, 'Distinct mount labels per job (mount paths come from the profiled process); further mounts are summed into mount="_other".'),
    maxMountsPerUser: positiveIntegerFlag(
      'max-mounts-per-user',
      32,
      'Distinct (job, mount) labels the processes of one uid may hold over all their jobs (the same budget bounds program labels); further ones go to mount="_other".',
    ),
    maxMountsPerNode: positiveIntegerFlag('max-mounts-per-node', 256, 'Distinct (job, mount) labels on this host (the same budget bounds program labels); further ones go to mount="_other".'),
    maxPrograms: positiveIntegerFlag(
      'max-programs',
      8,
      'Distinct program labels per job on the reason series (program names come from the profiled process); further programs are summed into program="_other".',
    ),
    maxConnections: valueFlag(
      'max-connections',
      'auto',
      "Open socket connections in all; auto: half the exporter's open-files limit, between 4096 and 65536. Further ones are closed at once and counted.",
      autoOrPositive,
    ),
    maxConnectionsPerUser: valueFlag(
      'max-connections-per-user',
      'auto',
      'Open socket connections one uid may hold; auto: a quarter of max-connections. Further ones are closed at once and counted.',
      autoOrPositive,
    ),
    maxProcessBytesPerSecond: positiveIntegerFlag(
      'max-process-bytes-per-second',
      25_000_000_000,
      "Bytes read plus written one process is credited per second of its life, on average since it started (kernel start time); frames beyond it are rejected as implausible and credited later when the process's age covers them.",
    ),
    unverifiedGraceMs: valueFlag(
      'unverified-grace',
      '10s',
      "How long the frames of a process whose job claim could not be checked (gone before its /proc was read) are held: credited if the same uid's claim on the job is proven meanwhile, else refused as unverified_job. 0s: refused at once.",
      nonNegativeDuration,
    ),
    expiryMs: durationFlag('expiry', '10m', 'A job idle for this long loses its series (and its slot); processes silent this long are forgotten.'),
    ...USER_FLAGS,
  },
  create({ registry, settings, paths, logger }) {
    const { socket: socketPath, socketMode: mode, expiryMs, maxProcessBytesPerSecond } = settings;
    // 0 (auto): the receiver sizes the connection budget by the node (connection-budget.ts).
    const { maxConnections, maxConnectionsPerUser } = settings;
    const users = userResolverFor(paths, settings);
    // Mounts and programs are named by the sender: budgets per job, per uid and per node (else one
    // user's 25 jobs could each fill max-mounts: tens of thousands of series).
    const budget = { maxPerUser: settings.maxMountsPerUser, maxTotal: settings.maxMountsPerNode };
    const store = new ProfilerMetricStore(new JobSlots(settings.maxJobs), Date.now, new CappedLabels(settings.maxMounts, budget), new CappedLabels(settings.maxPrograms, budget));
    let receiver: ProfilerReceiver | undefined;
    let lastError = '';
    // Why the socket is not bound, for the startup line: a missing directory is warned about (the
    // collector would stay off unnoticed), like another receiver on the path.
    let why: { text: string; warn: boolean } | undefined;

    warnIfNoProcesses(paths.procfs, logger);
    const tryStart = (): void => {
      try {
        receiver = new ProfilerReceiver({
          socketPath,
          mode,
          procfs: paths.procfs,
          cgroupfs: sysPath(paths, 'fs', 'cgroup'),
          sink: store,
          maxConnections,
          maxConnectionsPerUser,
          ceilings: { bytesPerSecond: maxProcessBytesPerSecond },
          unverifiedGraceMs: settings.unverifiedGraceMs,
        });
        logger.info({ socket: socketPath }, 'profiler socket listening');
      } catch (err) {
        const message = (err as Error).message;
        // Quiet: a host without the socket directory simply has no profiler source. But another
        // exporter on the path is a deployment mistake that leaves this one without profiler data.
        const inUse = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
        const dir = dirname(socketPath);
        why = existsSync(dir)
          ? { text: message, warn: inUse }
          : { text: `the socket's directory ${dir} does not exist: create it (the systemd unit's RuntimeDirectory=jobio does) or choose another with --collector.profiler.socket`, warn: true };
        if (message !== lastError) (inUse ? logger.warn.bind(logger) : logger.debug.bind(logger))({ socket: socketPath, err: message }, 'profiler socket not available');
        lastError = message;
      }
    };
    tryStart();

    // Created at the first scrape with a bound socket: an absent source exports nothing at all.
    let metrics: ProfilerMetrics | undefined;

    return {
      describe: () => ({ source: `socket ${socketPath}`, ...(receiver || !why ? {} : { why: why.text, warn: why.warn }) }),
      async update() {
        if (!receiver) tryStart();
        if (!receiver) return 'absent';
        receiver.expire(expiryMs);
        store.maintain(expiryMs);
        metrics ??= new ProfilerMetrics(registry, store, () => receiver);
        const uids = metrics.uids(receiver);
        await users.resolve(uids);
        metrics.settle(receiver, users, uids);
        return 'ok';
      },
      close() {
        receiver?.close();
        return Promise.resolve();
      },
    };
  },
});
