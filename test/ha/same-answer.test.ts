// The same answer whoever scrapes (docs/scaling.md "HA pairs"): the HA pair of
// provisioning/victoriametrics/prometheus-replica.yml (two real Prometheus replicas at different scrape
// offsets, writing into the provisioned VictoriaMetrics with -dedup.minScrapeInterval) scrapes ONE
// exporter while its job_stats changes (jobs appear, grow and end, in the layout of a real 2.14
// capture) and the prolog and epilog write and remove the jobs' spool files. In all three stores:
//   - per-job increase() over the run is the same and equal to the job_stats truth (within 1 %), and no
//     counter resets, also across a restart of the exporter in the middle of the run;
//   - the rate density is the same at every evaluation (every 250 ms of a range query over the run): its
//     samples carry their window's end as timestamp, so every store holds the same sample at the same time;
//   - jobio_job_info of a job is gone in each replica's first scrape after the epilog, although the
//     cached squeue answer still lists the job.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, startExporter, type RunningExporter } from '../helpers/exporter.js';
import { startPrometheusWithConfig, type RunningPrometheus } from '../helpers/prometheus.js';
import { flushVictoriaMetrics, PromApi, startVictoriaMetrics, VM_AUTH, type Series } from '../distributed/services.js';
import { jobStatsText, type GeneratedJob } from '../lustre/generate-jobstats.js';
import { jobStatsExporterArgs, replaceJobStats, scrapedAfter } from '../lustre/replay.js';
import { replicaConfig } from './replica.js';

const OPS = ['read_bytes', 'write_bytes', 'read', 'write', 'punch'] as const;
const INTERVAL_S = 1;
/** Four scrapes a window: each replica reads the exporter inside every window, so it holds every window's density. */
const WINDOW_S = 4;
/** Over two scrape intervals: both replicas see every new counter at 0 (docs/scaling.md). */
const GRACE_S = 3;
/** Longer than a scrape interval: every snapshot is read by the exporter. */
const SNAPSHOT_MS = 2300;

const job = (id: string, writes: number): GeneratedJob => ({ id, samples: { write_bytes: writes, write: writes }, sums: { write_bytes: writes * 4096, write: writes * 10 } });

interface Step {
  readonly jobs: GeneratedJob[];
  /** Spool files the prolog writes (job id → account) before this snapshot, and those the epilog removes. */
  readonly prolog?: Record<string, string>;
  readonly epilog?: string[];
}

// Job 11 runs throughout; 12 starts and ends; 13 starts and runs on; 14 starts late and ends. The
// snapshot after step 7 only grows jobs that run on: the restart test writes it while no exporter
// runs (what a job does between two reads is known from the next read; a job that starts, or ends,
// while no exporter runs is seen by no scraper).
const steps: Step[] = [
  { jobs: [] },
  { jobs: [job('11:5000:n1', 10)], prolog: { '11': 'proj11' } },
  { jobs: [job('11:5000:n1', 40), job('12:5001:n1', 7)], prolog: { '12': 'proj12' } },
  { jobs: [job('11:5000:n1', 90), job('12:5001:n1', 300), job('13:5000:n2', 5)], prolog: { '13': 'proj13' } },
  { jobs: [job('11:5000:n1', 95), job('13:5000:n2', 600)], epilog: ['12'] },
  { jobs: [job('11:5000:n1', 170), job('13:5000:n2', 610), job('14:5001:n2', 3)], prolog: { '14': 'proj14' } },
  { jobs: [job('11:5000:n1', 200), job('13:5000:n2', 900), job('14:5001:n2', 250)] },
  { jobs: [job('11:5000:n1', 260), job('13:5000:n2', 950)], epilog: ['14'] },
  { jobs: [job('11:5000:n1', 400), job('13:5000:n2', 1400)] },
  { jobs: [job('11:5000:n1', 410), job('13:5000:n2', 2000)] },
];
const RESTART_BEFORE = 8;
const truthWrites: Record<string, number> = { '11': 410, '12': 300, '13': 2000, '14': 250 };
/** Jobs whose epilog runs in the scenario. */
const ENDED = ['12', '14'];

// A cached squeue answer that still lists the jobs after their epilog (the exporter keeps one answer
// for squeue-interval): only the spool file's removal can end them in time.
const squeueAnswer = JSON.stringify({
  jobs: ENDED.map((id) => ({ job_id: Number(id), user_id: 5001, job_state: 'RUNNING', nodes: 'n1', account: 'stale', partition: 'batch', name: `job ${id}` })),
});

/** A store's answer to an instant query as `name{labels} → value`, without the labels a store adds. */
function vectorOf(series: readonly Series[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of series) {
    const labels = Object.entries(s.metric)
      .filter(([k]) => k !== 'replica')
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    out[`{${labels}}`] = s.values[0]![1];
  }
  return out;
}

/** The scrapes `prom` stored for the exporter over the last 10 minutes before `at`: [start (s), up]. */
async function scrapesOf(prom: PromApi, at: number): Promise<ReadonlyArray<readonly [number, number]>> {
  const [up] = await prom.samples('up{job="jobio"}[10m]', at);
  return up?.values ?? [];
}

/** The scrapes `prom` stored over the last 10 minutes before `at`: start (s), up, and how long it took (s). */
async function scrapesWithDuration(prom: PromApi, at: number): Promise<Array<{ start: number; up: number; seconds: number }>> {
  const [took] = await prom.samples('scrape_duration_seconds{job="jobio"}[10m]', at);
  const seconds = new Map(took?.values ?? []);
  return (await scrapesOf(prom, at)).map(([start, up]) => ({ start, up, seconds: seconds.get(start) ?? Number.POSITIVE_INFINITY }));
}

/** The window ends (s) whose density a store holds: the timestamps of its rate_interval_seconds samples. */
async function windowEndsOf(prom: PromApi, at: number): Promise<number[]> {
  const [interval] = await prom.samples('jobio_lustre_jobstats_rate_interval_seconds[10m]', at);
  return (interval?.values ?? []).map(([t]) => t);
}

/** The offset (s) between two replicas' scrapes, within one interval (0 … interval/2). */
async function offsetBetween(a: RunningPrometheus, b: RunningPrometheus): Promise<number> {
  const at = Date.now() / 1000;
  const [ta, tb] = [(await scrapesOf(new PromApi(a.url), at)).at(-1)![0], (await scrapesOf(new PromApi(b.url), at)).at(-1)![0]];
  const d = Math.abs(ta - tb) % INTERVAL_S;
  return Math.min(d, INTERVAL_S - d);
}

/** Every evaluation of the density: a range query's step (s). */
const STEP_S = 0.25;
const DENSITY = '{__name__=~"jobio_lustre_jobstats_rate_(jobs|users|interval_seconds)"}';

/**
 * What one store answers: per job, writes and bytes over its life, and counter resets; the density
 * at every step from `from` to `end` (a range query, as a graph asks), each step's vector as text.
 */
interface Answers {
  readonly writes: Record<string, number>;
  readonly bytes: Record<string, number>;
  readonly resets: Record<string, number>;
  readonly density: Map<number, string>;
}

async function answersOf(api: PromApi, from: number, end: number): Promise<Answers> {
  const byJob = (series: readonly Series[]): Record<string, number> => Object.fromEntries(series.map((s) => [s.metric.jobid ?? '', s.values[0]![1]]));
  const writes: Record<string, number> = {};
  const bytes: Record<string, number> = {};
  // increase() is evaluated at the job's last sample: a window ending later makes Prometheus
  // extrapolate half an interval past it (a job whose series ended at the restart: 311.5 writes for 300).
  for (const s of await api.samples('jobio_lustre_jobstats_operations_total{operation="write"}[10m]', end)) {
    const jobid = s.metric.jobid!;
    const at = s.values.at(-1)![0];
    const [w] = await api.instant(`increase(jobio_lustre_jobstats_operations_total{operation="write",jobid="${jobid}"}[10m])`, at);
    const [b] = await api.instant(`increase(jobio_lustre_jobstats_write_bytes_total{jobid="${jobid}"}[10m])`, at);
    writes[jobid] = w?.values[0]?.[1] ?? NaN;
    bytes[jobid] = b?.values[0]?.[1] ?? NaN;
  }
  const resets = byJob(await api.instant('resets(jobio_lustre_jobstats_write_bytes_total[10m])', end));
  const steps = new Map<number, Record<string, number>>();
  for (let at = from; at <= end; at += STEP_S) steps.set(at, {});
  for (const s of await api.range(DENSITY, from, Math.floor(end / STEP_S) * STEP_S, STEP_S)) {
    for (const [at, v] of s.values) Object.assign(steps.get(at) ?? {}, vectorOf([{ metric: s.metric, values: [[at, v]] }]));
  }
  const density = new Map([...steps].map(([at, vector]) => [at, JSON.stringify(Object.entries(vector).sort(([x], [y]) => x.localeCompare(y)))]));
  return { writes, bytes, resets, density };
}

async function runScenario(t: TestContext, restart: boolean): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'jobio-same-answer-'));
  const services: { stop(): Promise<unknown> }[] = [];
  let exporter: RunningExporter | undefined;
  try {
    // The Lustre server's tree, the node's root (users, job spool) and a squeue with a stale answer.
    const dir = join(root, 'proc/fs/lustre/obdfilter/fs-OST0000');
    mkdirSync(dir, { recursive: true });
    const rootfs = join(root, 'rootfs');
    mkdirSync(join(rootfs, 'etc'), { recursive: true });
    copyFileSync(join(repoRoot, 'test/fixtures/lustre/rootfs/etc/passwd'), join(rootfs, 'etc/passwd'));
    const spool = join(rootfs, 'run/jobio/jobs');
    mkdirSync(spool, { recursive: true, mode: 0o755 });
    writeFileSync(join(root, 'squeue.json'), squeueAnswer);
    const squeue = join(root, 'squeue');
    writeFileSync(squeue, `#!/bin/sh\ncat '${join(root, 'squeue.json')}'\n`);
    chmodSync(squeue, 0o755);
    replaceJobStats(dir, jobStatsText(steps[0]!.jobs, '2.14', OPS));
    const args = [
      ...jobStatsExporterArgs(root, rootfs),
      `--collector.lustre_jobstats.new-series-grace=${GRACE_S}s`,
      `--collector.lustre_jobstats.density-window=${WINDOW_S}s`,
      '--collector.job_info',
      `--collector.job_info.squeue=${squeue}`,
      '--collector.job_info.squeue-interval=10m',
      '--collector.job_info.node=n1',
    ];
    exporter = await startExporter(args);
    const port = exporter.port;

    // -search.minStalenessInterval=5m: Prometheus' lookback. VictoriaMetrics otherwise looks back about
    // 3 sample intervals (3 windows here), and after a restart the next density can come later than that.
    const vm = await startVictoriaMetrics({
      'dedup.minScrapeInterval': `${INTERVAL_S}s`,
      'search.latencyOffset': '0s',
      'search.disableCache': 'true',
      'search.minStalenessInterval': '5m',
    });
    services.push(vm);
    const targets = join(root, 'targets');
    mkdirSync(targets);
    writeFileSync(join(targets, 'lustre.yml'), `- targets: ['127.0.0.1:${port}']\n`);
    const password = join(root, 'vm.password');
    writeFileSync(password, VM_AUTH.password);
    const setup = { targets, password, vmUrl: vm.url, intervalS: INTERVAL_S, timeout: '900ms' };
    // The second replica's offset follows from its name: take the first name that scrapes between
    // a fifth and four fifths of an interval after the first replica.
    const a = await startPrometheusWithConfig(replicaConfig(setup, 'a'));
    services.push(a);
    await scrapedAfter(a, 0);
    let b: RunningPrometheus | undefined;
    let offset = 0;
    const candidates = ['b', 'c', 'd', 'e', 'f', 'g'];
    for (const [k, name] of candidates.entries()) {
      b = await startPrometheusWithConfig(replicaConfig(setup, name));
      services.push(b);
      await scrapedAfter(b, 0);
      offset = await offsetBetween(a, b);
      if (offset >= INTERVAL_S / 5 || k === candidates.length - 1) break;
      await b.stop(); // VictoriaMetrics gets the samples of the HA pair only
    }
    const replicas = [a, b!];
    t.diagnostic(`replica b scrapes ${offset.toFixed(3)} s (of ${INTERVAL_S} s) away from replica a`);

    // The replay: prolog, snapshot, epilog; the exporter restarted around one snapshot.
    const start = Date.now();
    const epilogAt: Record<string, number> = {};
    /** While no exporter listened (ms): from its stop to the restarted one's listening. */
    let down: [number, number] | undefined;
    for (const [i, step] of steps.entries()) {
      if (i > 0) await new Promise((r) => setTimeout(r, SNAPSHOT_MS));
      for (const [id, account] of Object.entries(step.prolog ?? {})) {
        const uid = step.jobs.find((j) => j.id.startsWith(`${id}:`))!.id.split(':')[1]!;
        writeFileSync(join(spool, id), `uid=${uid}\naccount=${account}\n`);
      }
      if (restart && i === RESTART_BEFORE) {
        const stoppedAt = Date.now();
        await exporter.stop();
        replaceJobStats(dir, jobStatsText(step.jobs, '2.14', OPS));
        exporter = await startExporter(args, { port });
        down = [stoppedAt, Date.now()];
      } else {
        replaceJobStats(dir, jobStatsText(step.jobs, '2.14', OPS));
      }
      for (const id of step.epilog ?? []) {
        rmSync(join(spool, id));
        epilogAt[id] = Date.now();
      }
    }
    // The grace of the last job born is long past: two more windows, so the last one closes and is served.
    const done = Date.now() + 2 * WINDOW_S * 1000;
    await new Promise((r) => setTimeout(r, done - Date.now()));
    const ats: number[] = [];
    for (const r of replicas) ats.push(await scrapedAfter(r, done));
    // Nothing changes after `done`: the stores are compared up to the first moment both replicas hold.
    const end = Math.min(...ats);
    const apis = [...replicas.map((r) => new PromApi(r.url)), new PromApi(vm.url, VM_AUTH)];
    const names = ['replica a', 'replica b', 'VictoriaMetrics'];

    const scrapes = await Promise.all(replicas.map((_, i) => scrapesOf(apis[i]!, end)));
    // What each replica scraped, to tell which window's density it can hold (below).
    const scraped = await Promise.all(replicas.map((_, i) => scrapesWithDuration(apis[i]!, end)));
    const heldEnds = await Promise.all(replicas.map((_, i) => windowEndsOf(apis[i]!, end)));
    const from = Math.ceil(start / 1000);

    // jobio_job_info: present while the spool file is, gone in each replica's first scrape after the epilog.
    for (const i of replicas.keys()) {
      const times = scrapes[i]!.map(([s]) => s);
      for (const id of ENDED) {
        const e = epilogAt[id]! / 1000;
        const before = await apis[i]!.instant(`jobio_job_info{jobid="${id}"}`, e - 0.2);
        assert.equal(before[0]?.metric.account, `proj${id}`, `${names[i]}: job ${id}'s spool file is read before its epilog`);
        // A request arriving during a scrape shares its answer: the first scrape started 0.2 s after the epilog.
        const first = times.find((s) => s > e + 0.2)!;
        assert.deepEqual(await apis[i]!.instant(`jobio_job_info{jobid="${id}"}`, first), [], `${names[i]}: job ${id} ended at the epilog`);
      }
    }

    // What VictoriaMetrics holds is what the replicas sent: remote_write orders samples within a
    // series only (its shards send batches on their own), so "VictoriaMetrics has a sample after
    // `end`" of one series says nothing of another. A stopped Prometheus sends all it has queued
    // before it exits, and the flush makes every accepted sample searchable. So the replicas are read
    // first, then stopped, then VictoriaMetrics is read: it is compared with everything they scraped.
    const answers: Answers[] = [];
    for (const api of apis.slice(0, 2)) answers.push(await answersOf(api, from, end));
    for (const r of replicas) {
      await r.stop();
      assert.doesNotMatch(r.log(), /Failed to flush all samples on shutdown/, 'a replica sent VictoriaMetrics all it scraped');
    }
    await flushVictoriaMetrics(vm.url);
    answers.push(await answersOf(apis[2]!, from, end));

    // Per-job increase() over each job's life: the truth in every store, no counter reset.
    for (const [i, a] of answers.entries()) {
      assert.deepEqual(Object.keys(a.writes).sort(), Object.keys(truthWrites), `${names[i]}: every job`);
      for (const [jobid, truth] of Object.entries(truthWrites)) {
        assert.ok(Math.abs(a.writes[jobid]! - truth) <= truth * 0.01, `${names[i]}, job ${jobid}: ${a.writes[jobid]} writes, truth ${truth}`);
        assert.ok(Math.abs(a.bytes[jobid]! - truth * 4096) <= truth * 4096 * 0.01, `${names[i]}, job ${jobid}: ${a.bytes[jobid]} bytes, truth ${truth * 4096}`);
      }
      assert.deepEqual(a.resets, { '11': 0, '12': 0, '13': 0, '14': 0 }, `${names[i]}: no counter reset`);
    }
    assert.deepEqual(answers[1]!.writes, answers[0]!.writes, 'the replicas agree');
    assert.deepEqual(answers[2]!.writes, answers[0]!.writes, 'VictoriaMetrics agrees');
    t.diagnostic(`per-job writes in every store: ${JSON.stringify(answers[0]!.writes)}`);

    // The density at every step of the run (a range query every 250 ms): the same in all three stores.
    // Its samples are stamped with their window's end, so a store that scraped the window holds the
    // same sample at the same time as any other. A step may differ only where one replica holds a
    // window the other lacks, and only when the other could not have it: none of its scrapes read the
    // exporter inside that window (began at or after the end, and ended before the next one), because
    // they failed, came late on a loaded machine, or the exporter stopped or was not yet serving a
    // density after its restart. Any other difference fails.
    // The restarted exporter closes no window that ended before one whole window after it listened
    // again: a scrape of it cannot hold such a window, whichever replica the stopped one gave it to.
    const couldHold = (start: number, e: number): boolean => !(down && start >= down[0] / 1000 && e < down[1] / 1000 + WINDOW_S);
    const readInside = (r: number, e: number): boolean => scraped[r]!.some((s) => s.up === 1 && s.start >= e && s.start + s.seconds < e + WINDOW_S && couldHold(s.start, e));
    let compared = 0;
    const seen = new Set<string>();
    const skipped = new Set<string>();
    for (const [at, vector] of answers[0]!.density) {
      const held = heldEnds.map((ends) => ends.filter((e) => e <= at).at(-1) ?? 0);
      if (held[0] !== held[1]) {
        const e = Math.max(...held);
        const lacking = held.findIndex((h) => h !== e);
        assert.ok(!readInside(lacking, e), `${names[lacking]} scraped inside the window that ended at ${new Date(e * 1000).toISOString()} but lacks its density (at ${at})`);
        skipped.add(`${names[lacking]} has no scrape inside the window ended at ${new Date(e * 1000).toISOString()}`);
        continue;
      }
      const when = new Date(at * 1000).toISOString();
      assert.equal(answers[1]!.density.get(at), vector, `replica b and a at ${when}`);
      assert.equal(answers[2]!.density.get(at), vector, `VictoriaMetrics and replica a at ${when}`);
      compared += 1;
      seen.add(vector);
    }
    if (down) t.diagnostic(`the exporter stopped at ${new Date(down[0]).toISOString()} and listened again at ${new Date(down[1]).toISOString()}`);
    t.diagnostic(`density: ${compared} of ${answers[0]!.density.size} steps compared, ${seen.size} distinct; skipped: ${[...skipped].join('; ') || 'none'}`);
    assert.ok(compared >= 0.6 * answers[0]!.density.size && seen.size >= 6, `the density changes over the run: ${compared} steps compared, ${seen.size} distinct`);
  } finally {
    for (const s of services.reverse()) await s.stop().catch(() => undefined);
    await exporter?.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

test('HA pair and VictoriaMetrics on one exporter: per-job increase() the truth in all three, the same density at every evaluation, job_info ends at the epilog', async (t) => {
  await runScenario(t, false);
});

test('the same with the exporter restarted in the middle: no interval lost in the deduplicated store', async (t) => {
  await runScenario(t, true);
});
