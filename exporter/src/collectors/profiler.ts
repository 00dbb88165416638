// Collector `profiler`: I/O counts sent by the LD_PRELOAD profiler (libjobio) of the jobs on this host
// over a Unix SOCK_SEQPACKET socket (docs/architecture.md "Wire format and trust", docs/metrics.md).
//
// The socket is bound when the collector is created and re-tried at each scrape while it cannot be
// (socket directory missing, no permission, another receiver on the path): meanwhile the collector
// reports `absent` quietly, like any collector whose source is not on this host.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Counter } from 'prom-client';
import type { Logger } from '../util/logger.js';
import { defineCollector } from '../scrape/define-collector.js';
import { durationFlag, positiveIntegerFlag, textFlag, valueFlag } from '../scrape/flags.js';
import { OTHER } from '../labels/reserved.js';
import { USER_FLAGS, userResolverFor } from '../labels/users.js';
import { JobSlots } from '../profiler/job-slots.js';
import { CappedLabels, ProfilerMetricStore, type LabelledSums } from '../profiler/metric-store.js';
import { autoOrPositive } from '../profiler/connection-budget.js';
import { DEFAULT_SOCKET_MODE, ProfilerReceiver } from '../profiler/receiver.js';
import { metricsIn } from '../scrape/metric-factory.js';
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

    const jobLabels = ['jobid', 'user'] as const;
    const callLabels = ['jobid', 'user', 'mount', 'call', 'class'] as const;
    const timedLabels = ['jobid', 'user', 'call'] as const;
    const sizeLabels = ['jobid', 'user', 'mount', 'size'] as const;
    const reasonLabels = ['jobid', 'user', 'mount', 'class', 'reason', 'program', 'role'] as const;
    const unseenLabels = ['jobid', 'user', 'kind'] as const;
    // Created at the first scrape with a bound socket: an absent source exports nothing at all.
    const { counter, gauge } = metricsIn(registry);
    const makeMetrics = () => ({
      calls: counter('jobio_profiler_calls_total', 'I/O calls counted by the profiler, by call type and red/yellow/green class.', callLabels),
      readBytes: counter('jobio_profiler_read_bytes_total', 'Bytes read, by transfer size bin (small/medium/large).', sizeLabels),
      writeBytes: counter('jobio_profiler_write_bytes_total', 'Bytes written, by transfer size bin (small/medium/large).', sizeLabels),
      ioSeconds: counter('jobio_profiler_io_seconds_total', 'Seconds spent in I/O calls, estimated from sampled durations.', callLabels),
      // what a report from the series bounds the sampled times' error with (it needs the timed fraction)
      timedCalls: counter('jobio_profiler_timed_calls_total', 'I/O calls whose duration was measured (the sample the seconds are estimated from), by call type.', timedLabels),
      reasonCalls: counter(
        'jobio_profiler_reason_calls_total',
        'Red and yellow calls by the reason for their class (a fixed set, docs/profiler.md); per class they add up to jobio_profiler_calls_total.',
        reasonLabels,
      ),
      reasonBytes: counter('jobio_profiler_reason_bytes_total', 'Bytes moved by the red and yellow calls of each reason (small_read, small_write; 0 for the others).', reasonLabels),
      reasonSeconds: counter('jobio_profiler_reason_seconds_total', 'Seconds spent in the red and yellow calls of each reason, estimated from sampled durations.', reasonLabels),
      unseenProcesses: counter(
        'jobio_profiler_unseen_processes_total',
        'Processes whose I/O the profiler could not count, by kind: not_profiled (ran without it), async_io (io_uring or POSIX AIO), mmap_io (file mappings).',
        unseenLabels,
      ),
      unseenBytes: counter('jobio_profiler_unseen_bytes_total', "Bytes known to be out of the profiler's sight, by kind (mmap_io: length of the file mappings).", unseenLabels),
      runtime: counter('jobio_profiler_runtime_seconds_total', 'Accumulated wall-clock run time of profiled processes in seconds.', jobLabels),
      rejected: counter('jobio_profiler_records_rejected_total', 'Profiler messages rejected by the receiver, by reason.', ['reason'] as const),
      userRejected: counter('jobio_profiler_user_records_rejected_total', 'Profiler messages rejected or dropped, by sending user (system uids as _system) and reason.', ['user', 'reason']),
      refusedConnections: counter('jobio_profiler_connections_refused_total', 'Socket connections closed as soon as they were accepted, by reason.', ['reason'] as const),
      acceptErrors: counter('jobio_profiler_accept_errors_total', 'Times accepting a socket connection failed for lack of file descriptors or memory (accepting then pauses for 100 ms).'),
      dropped: counter('jobio_profiler_records_dropped_total', 'Frames the profiled processes could not send (no receiver or socket full), as they reported.'),
      processes: gauge('jobio_profiler_processes', 'Profiled processes currently tracked by the receiver.'),
      networkFolded: counter(
        'jobio_profiler_network_folded_total',
        'Socket calls (connections, addressed datagrams) whose peer address was beyond the 16 a profiled process keeps apart, as the processes reported (jobio run --output has them in the address "*" total only; here all socket I/O is on mount="[network]").',
      ),
      foldedMounts: counter('jobio_profiler_mounts_folded_total', 'Mount frames whose mount was beyond its job\'s max-mounts distinct mounts and went to mount="_other".'),
      unseenUntracked: counter(
        'jobio_profiler_unseen_untracked_total',
        "Programs exec'd or started by profiled processes that could not be followed to see whether they ran with the profiler (more than 4096 waiting, or a quarter of that for one user): not in jobio_profiler_unseen_processes_total.",
      ),
      foldedPrograms: counter('jobio_profiler_programs_folded_total', 'Mount frames whose program was beyond its job\'s max-programs distinct programs and went to program="_other".'),
      userFoldedLabels: counter(
        'jobio_profiler_user_labels_folded_total',
        'Mount frames whose mount or program label went to "_other", by sending user (system uids as _system), label (mount, program) and reason (job_limit, user_limit, node_limit).',
        ['user', 'label', 'reason'] as const,
      ),
      foldedJobs: gauge('jobio_profiler_folded_jobs', 'Jobs without their own series (beyond max-jobs) whose load goes to jobid="_other".'),
    });
    let metrics: ReturnType<typeof makeMetrics> | undefined;

    const fill = <L extends string>(counter: Counter<L>, sums: LabelledSums, names: readonly L[]): void => {
      counter.reset();
      for (const { labels, value } of sums.values.values()) {
        const set = {} as Record<L, string>;
        names.forEach((n, i) => {
          const value = labels[i] ?? '';
          // The store keys users by uid; the label is the resolver's, as in every collector.
          set[n] = n === 'user' && value !== OTHER ? users.label(Number(value)) : value;
        });
        counter.inc(set, value);
      }
    };

    return {
      describe: () => ({ source: `socket ${socketPath}`, ...(receiver || !why ? {} : { why: why.text, warn: why.warn }) }),
      async update() {
        if (!receiver) tryStart();
        if (!receiver) return 'absent';
        receiver.expire(expiryMs);
        store.maintain(expiryMs);
        await users.resolve([...store.uids(), ...receiver.rejectedByUser().keys(), ...store.foldedMountsByUser.keys(), ...store.foldedProgramsByUser.keys()]);
        const rejected = receiver.rejectedCounts();
        const refused = receiver.refusedConnections();
        const acceptErrors = receiver.stats().acceptErrors;
        metrics ??= makeMetrics();
        // Snapshot built; now reset and refill synchronously (no collect() hooks: the registry is never read half-filled).
        fill(metrics.calls, store.calls, callLabels);
        fill(metrics.ioSeconds, store.ioSeconds, callLabels);
        fill(metrics.timedCalls, store.timedCalls, timedLabels);
        fill(metrics.readBytes, store.readBytes, sizeLabels);
        fill(metrics.writeBytes, store.writeBytes, sizeLabels);
        fill(metrics.runtime, store.runtimeSeconds, jobLabels);
        fill(metrics.reasonCalls, store.reasonCalls, reasonLabels);
        fill(metrics.reasonBytes, store.reasonBytes, reasonLabels);
        fill(metrics.reasonSeconds, store.reasonSeconds, reasonLabels);
        fill(metrics.unseenProcesses, store.unseenProcesses, unseenLabels);
        fill(metrics.unseenBytes, store.unseenBytes, unseenLabels);
        metrics.rejected.reset();
        for (const [reason, count] of rejected) metrics.rejected.inc({ reason }, count);
        // Per user: the uid's name (system uids folded into one label), so the label stays bounded.
        metrics.userRejected.reset();
        for (const [uid, counts] of receiver.rejectedByUser()) for (const [reason, count] of counts) metrics.userRejected.inc({ user: users.label(uid), reason }, count);
        metrics.refusedConnections.reset();
        for (const [reason, count] of refused) metrics.refusedConnections.inc({ reason }, count);
        metrics.acceptErrors.reset();
        metrics.acceptErrors.inc(acceptErrors);
        metrics.dropped.reset();
        metrics.dropped.inc(store.droppedFrames);
        metrics.networkFolded.reset();
        metrics.networkFolded.inc(store.networkFolded);
        metrics.processes.set(receiver.processes);
        metrics.foldedJobs.set(store.foldedJobs);
        metrics.foldedMounts.reset();
        metrics.foldedMounts.inc(store.foldedMounts);
        metrics.unseenUntracked.reset();
        metrics.unseenUntracked.inc(store.unprofiledDropped);
        metrics.foldedPrograms.reset();
        metrics.foldedPrograms.inc(store.foldedPrograms);
        metrics.userFoldedLabels.reset();
        for (const [label, byUser] of [
          ['mount', store.foldedMountsByUser],
          ['program', store.foldedProgramsByUser],
        ] as const)
          for (const [uid, counts] of byUser) for (const [reason, count] of counts) metrics.userFoldedLabels.inc({ user: users.label(uid), label, reason }, count);
        return 'ok';
      },
      close() {
        receiver?.close();
        return Promise.resolve();
      },
    };
  },
});
