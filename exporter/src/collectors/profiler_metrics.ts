// The metrics of the profiler collector (names fixed in docs/metrics.md). The per-job families read the
// metric store's sums when the scrape renders them: the store is the only copy of the values. The
// `user` element of a store key is a uid; its label is the name the update resolved, and a uid first
// seen after the update (a frame that arrived meanwhile) waits for the next scrape, as it would have
// had the update copied the store. The receiver's counts come from the socket addon: read once, at the
// update, as a handful of numbers.
import type { Labels, MetricFamily, SampleSink } from '../scrape/metric-family.js';
import { escapeLabelValue } from '../scrape/metric-family.js';
import type { MetricRegistry } from '../scrape/metric-registry.js';
import { combinedFamily } from '../scrape/combined-family.js';
import { OTHER } from '../labels/reserved.js';
import type { UserResolver } from '../labels/users.js';
import type { LabelledSums, ProfilerMetricStore } from '../profiler/metric-store.js';
import type { ProfilerReceiver } from '../profiler/receiver.js';

/** What the update read from the receiver (the addon's counters), shown until the next update. */
interface ReceiverCounts {
  readonly rejected: ReadonlyMap<string, number>;
  readonly rejectedByUser: ReadonlyMap<number, ReadonlyMap<string, number>>;
  readonly refused: ReadonlyMap<string, number>;
  readonly acceptErrors: number;
}

const NO_COUNTS: ReceiverCounts = { rejected: new Map(), rejectedByUser: new Map(), refused: new Map(), acceptErrors: 0 };

/** A family of one label-less sample, read when rendered. */
function single(name: string, help: string, type: 'counter' | 'gauge', value: () => number): MetricFamily {
  return { name, help, type, collect: (sink: SampleSink) => sink.sample({}, value()) };
}

export class ProfilerMetrics {
  /** The `user` label of each uid the last update resolved. */
  private userLabels = new Map<number, string>();
  private counts: ReceiverCounts = NO_COUNTS;

  constructor(
    registry: MetricRegistry,
    private readonly store: ProfilerMetricStore,
    private readonly receiver: () => ProfilerReceiver | undefined,
  ) {
    /** One series per key of the store's sums, the uid named; two uids of one label (system users) add up. */
    const sums = (name: string, help: string, of: LabelledSums, names: readonly string[]): MetricFamily => ({
      name,
      help,
      type: 'counter',
      collect: (sink) => {
        const values = new Map<string, number>();
        for (const { labels, value } of of.values.values()) {
          let text = '';
          let known = true;
          for (const [i, n] of names.entries()) {
            let v = labels[i] ?? '';
            if (n === 'user' && v !== OTHER) {
              const label = this.userLabels.get(Number(v));
              if (label === undefined) known = false;
              v = label ?? '';
            }
            text += `${i === 0 ? '' : ','}${n}="${escapeLabelValue(v)}"`;
          }
          if (known) values.set(text, (values.get(text) ?? 0) + value);
        }
        for (const [labelText, value] of values) sink.rendered(labelText, value);
      },
    });
    /** Counts per uid and reason (and label), the uid named; uids the update did not resolve wait. */
    const perUser = (name: string, help: string, fill: (add: (uid: number, labels: Labels, value: number) => void) => void): MetricFamily =>
      combinedFamily(name, help, 'counter', (add) =>
        fill((uid, labels, value) => {
          const user = this.userLabels.get(uid);
          if (user !== undefined) add({ user, ...labels }, value);
        }),
      );
    const callLabels = ['jobid', 'user', 'mount', 'call', 'class'];
    const sizeLabels = ['jobid', 'user', 'mount', 'size'];
    const reasonLabels = ['jobid', 'user', 'mount', 'class', 'reason', 'program', 'role'];
    const unseenLabels = ['jobid', 'user', 'kind'];
    const families = [
      sums('jobio_profiler_calls_total', 'I/O calls counted by the profiler, by call type and red/yellow/green class.', store.calls, callLabels),
      // an open is classified at its close, a stat when its path is opened or the process ends: this
      // one counts them when they were made, so its rate is the job's call rate in time
      sums('jobio_profiler_calls_made_total', 'I/O calls counted when they were made, by call type (opens and stats before their class is decided).', store.callsMade, [
        'jobid',
        'user',
        'mount',
        'call',
      ]),
      sums('jobio_profiler_read_bytes_total', 'Bytes read, by transfer size bin (small/medium/large).', store.readBytes, sizeLabels),
      sums('jobio_profiler_write_bytes_total', 'Bytes written, by transfer size bin (small/medium/large).', store.writeBytes, sizeLabels),
      sums('jobio_profiler_io_seconds_total', 'Seconds spent in I/O calls, estimated from sampled durations.', store.ioSeconds, callLabels),
      // the same time when the calls were made (an open's counts above at its close): its rate is the job's I/O time in time
      sums(
        'jobio_profiler_io_made_seconds_total',
        'Seconds spent in I/O calls, estimated from sampled durations, counted when the calls were made (opens and stats before their class is decided).',
        store.ioMadeSeconds,
        ['jobid', 'user', 'mount', 'call'],
      ),
      // what a report from the series bounds the sampled times' error with (it needs the timed fraction)
      sums('jobio_profiler_timed_calls_total', 'I/O calls whose duration was measured (the sample the seconds are estimated from), by call type.', store.timedCalls, ['jobid', 'user', 'call']),
      sums(
        'jobio_profiler_reason_calls_total',
        'Red and yellow calls by the reason for their class (a fixed set, docs/profiler.md); per class they add up to jobio_profiler_calls_total.',
        store.reasonCalls,
        reasonLabels,
      ),
      sums('jobio_profiler_reason_bytes_total', 'Bytes moved by the red and yellow calls of each reason (small_read, small_write; 0 for the others).', store.reasonBytes, reasonLabels),
      sums('jobio_profiler_reason_seconds_total', 'Seconds spent in the red and yellow calls of each reason, estimated from sampled durations.', store.reasonSeconds, reasonLabels),
      sums(
        'jobio_profiler_unseen_processes_total',
        'Processes whose I/O the profiler could not count, by kind: not_profiled (ran without it), async_io (io_uring or POSIX AIO), mmap_io (file mappings).',
        store.unseenProcesses,
        unseenLabels,
      ),
      sums('jobio_profiler_unseen_bytes_total', "Bytes known to be out of the profiler's sight, by kind (mmap_io: length of the file mappings).", store.unseenBytes, unseenLabels),
      sums('jobio_profiler_runtime_seconds_total', 'Accumulated wall-clock run time of profiled processes in seconds.', store.runtimeSeconds, ['jobid', 'user']),
      combinedFamily('jobio_profiler_records_rejected_total', 'Profiler messages rejected by the receiver, by reason.', 'counter', (add) => {
        for (const [reason, count] of this.counts.rejected) add({ reason }, count);
      }),
      // Per user: the uid's name (system uids folded into one label), so the label stays bounded.
      perUser('jobio_profiler_user_records_rejected_total', 'Profiler messages rejected or dropped, by sending user (system uids as _system) and reason.', (add) => {
        for (const [uid, counts] of this.counts.rejectedByUser) for (const [reason, count] of counts) add(uid, { reason }, count);
      }),
      combinedFamily('jobio_profiler_connections_refused_total', 'Socket connections closed as soon as they were accepted, by reason.', 'counter', (add) => {
        for (const [reason, count] of this.counts.refused) add({ reason }, count);
      }),
      single(
        'jobio_profiler_accept_errors_total',
        'Times accepting a socket connection failed for lack of file descriptors or memory (accepting then pauses for 100 ms).',
        'counter',
        () => this.counts.acceptErrors,
      ),
      single('jobio_profiler_records_dropped_total', 'Frames the profiled processes could not send (no receiver or socket full), as they reported.', 'counter', () => store.droppedFrames),
      single('jobio_profiler_processes', 'Profiled processes currently tracked by the receiver.', 'gauge', () => this.receiver()?.processes ?? 0),
      single(
        'jobio_profiler_network_folded_total',
        'Socket calls (connections, addressed datagrams) whose peer address was beyond the 16 a profiled process keeps apart, as the processes reported (jobio run --output has them in the address "*" total only; here all socket I/O is on mount="[network]").',
        'counter',
        () => store.networkFolded,
      ),
      single('jobio_profiler_mounts_folded_total', 'Mount frames whose mount was beyond its job\'s max-mounts distinct mounts and went to mount="_other".', 'counter', () => store.foldedMounts),
      single(
        'jobio_profiler_unseen_untracked_total',
        "Programs exec'd or started by profiled processes that could not be followed to see whether they ran with the profiler (more than 4096 waiting, or a quarter of that for one user): not in jobio_profiler_unseen_processes_total.",
        'counter',
        () => store.unprofiledDropped,
      ),
      single(
        'jobio_profiler_programs_folded_total',
        'Mount frames whose program was beyond its job\'s max-programs distinct programs and went to program="_other".',
        'counter',
        () => store.foldedPrograms,
      ),
      perUser(
        'jobio_profiler_user_labels_folded_total',
        'Mount frames whose mount or program label went to "_other", by sending user (system uids as _system), label (mount, program) and reason (job_limit, user_limit, node_limit).',
        (add) => {
          for (const [label, byUser] of [
            ['mount', store.foldedMountsByUser],
            ['program', store.foldedProgramsByUser],
          ] as const)
            for (const [uid, counts] of byUser) for (const [reason, count] of counts) add(uid, { label, reason }, count);
        },
      ),
      single('jobio_profiler_folded_jobs', 'Jobs without their own series (beyond max-jobs) whose load goes to jobid="_other".', 'gauge', () => store.foldedJobs),
    ];
    for (const family of families) registry.register(family);
  }

  /** The uids whose names the update resolves: every uid the families may show. */
  uids(receiver: ProfilerReceiver): number[] {
    return [...this.store.uids(), ...receiver.rejectedByUser().keys(), ...this.store.foldedMountsByUser.keys(), ...this.store.foldedProgramsByUser.keys()];
  }

  /** At the update: the receiver's counts as they are now, and the users' labels as resolved. */
  settle(receiver: ProfilerReceiver, users: UserResolver, uids: Iterable<number>): void {
    this.counts = { rejected: receiver.rejectedCounts(), rejectedByUser: receiver.rejectedByUser(), refused: receiver.refusedConnections(), acceptErrors: receiver.stats().acceptErrors };
    const labels = new Map<number, string>();
    for (const uid of [...uids, ...this.counts.rejectedByUser.keys()]) labels.set(uid, users.label(uid));
    this.userLabels = labels;
  }
}
