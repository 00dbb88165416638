// A fleet of real exporters (site.ts) scraped by the sharded setup (sharded.ts), measured: series per
// host kind, samples/s ingested by VictoriaMetrics, scrape durations, and the resident memory of every
// component, with one ordinary Prometheus scraping the same fleet as the same-run baseline.
// `npm run bench -- fleet` runs 40 hosts; test/distributed/fleet.test.ts a short, small version.
import type { ComputeNodeSpec, LustreServerSpec, SiteSpec, TargetSpec } from './site.js';
import { startSite, fileSdTargets } from './site.js';
import { startSharded } from './sharded.js';
import { authHeader, PromApi, rssBytes, VM_AUTH } from './services.js';
import { parseExposition } from '../profiler/exposition.js';

/** Series families whose membership changes from one scrape to the next by design. */
// The densities' buckets, per class and per operation (jobio_lustre_jobstats_rate_*,
// jobio_lustre_jobstats_operation_rate_*): the same pattern in PromQL and on the served lines.
const VOLATILE = 'jobio_lustre_jobstats_(operation_)?rate_';
const VOLATILE_LINE = new RegExp(`^${VOLATILE}`);

export interface FleetShape {
  readonly computeNodes: number;
  readonly nodesPerJob: number;
  readonly mds: number;
  readonly oss: number;
  readonly ostsPerOss: number;
  /** Jobs with a job_stats entry on each OST and on each MDT (the whole cluster's, not only ours). */
  readonly jobsPerOst: number;
  readonly jobsPerMdt: number;
  readonly gpusPerNode: number;
}

export const FLEET_40: FleetShape = { computeNodes: 32, nodesPerJob: 2, mds: 2, oss: 6, ostsPerOss: 4, jobsPerOst: 30, jobsPerMdt: 60, gpusPerNode: 4 };

const jobId = (j: number, host: string): string => `${5000 + j}:${5000 + (j % 2)}:${host}`;

/** Deterministic varied load: job j on target t. */
function ostTarget(name: string, t: number, jobs: number): TargetSpec {
  return {
    name,
    jobs: Array.from({ length: jobs }, (_, i) => {
      const j = (i * 7 + t * 3) % (jobs * 3);
      return { id: jobId(j, `c${j % 97}`), readBytes: ((j % 5) + 1) * 2e6, writeBytes: ((j % 3) + 1) * 3e6, ops: { getattr: (j % 4) + 1, setattr: j % 2, punch: j % 3, sync: 1 } };
    }),
  };
}

function mdtTarget(name: string, t: number, jobs: number): TargetSpec {
  return {
    name,
    jobs: Array.from({ length: jobs }, (_, i) => {
      const j = (i * 5 + t) % (jobs * 3);
      return { id: jobId(j, `c${j % 97}`), ops: { open: (j % 20) + 5, close: (j % 20) + 5, getattr: (j % 30) + 10, setattr: j % 3, unlink: j % 2, mkdir: j % 2, statfs: 1 } };
    }),
  };
}

export function fleetSpec(shape: FleetShape): SiteSpec {
  const lustre: LustreServerSpec[] = [];
  for (let m = 0; m < shape.mds; m += 1) lustre.push({ host: `mds${m + 1}`, targets: [mdtTarget(`fs-MDT${m.toString(16).padStart(4, '0')}`, m, shape.jobsPerMdt)] });
  for (let s = 0; s < shape.oss; s += 1) {
    const targets = Array.from({ length: shape.ostsPerOss }, (_, k) => {
      const index = s * shape.ostsPerOss + k;
      return ostTarget(`fs-OST${index.toString(16).padStart(4, '0')}`, index, shape.jobsPerOst);
    });
    lustre.push({ host: `oss${s + 1}`, targets });
  }
  const compute: ComputeNodeSpec[] = Array.from({ length: shape.computeNodes }, (_, n) => ({
    host: `node${String(n + 1).padStart(3, '0')}`,
    jobs: [String(5000 + Math.floor(n / shape.nodesPerJob))],
    gpus: shape.gpusPerNode,
  }));
  return { lustre, compute };
}

export interface KindFigures {
  readonly hosts: number;
  /** Series of the kind in VictoriaMetrics, per host. */
  readonly seriesPerHost: number;
  /** The same, counted in the exporters' own /metrics at the end of the run. */
  readonly exportedSeriesPerHost: number;
  readonly scrapeSecondsAvg: number;
  readonly scrapeSecondsMax: number;
  readonly exporterRssAvg: number;
  readonly exporterRssMax: number;
}

export interface FleetFigures {
  readonly seconds: number;
  readonly interval: number;
  readonly kinds: Record<'lustre-server' | 'compute', KindFigures>;
  readonly seriesPerOst: number;
  readonly seriesPerMdt: number;
  readonly seriesTotal: number;
  readonly samplesPerSecond: number;
  readonly rss: { readonly vm: number; readonly vmalert: number; readonly scrapers: readonly number[]; readonly single: number; readonly singleAtStart: number; readonly vmAtStart: number };
  readonly singleHeadSeries: number;
  readonly profilerSnapshots: { readonly ok: number; readonly failed: number };
}

async function metricValue(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: authHeader(VM_AUTH) } })).text();
  return parseExposition(text)
    .filter((s) => s.name === name)
    .reduce((sum, s) => sum + s.value, 0);
}

const one = async (api: PromApi, expr: string, at: number): Promise<number> => (await api.instant(expr, at))[0]?.values[0]?.[1] ?? Number.NaN;

/** Runs the fleet for `seconds` after a warm-up and measures it. */
export async function measureFleet(shape: FleetShape, opts: { interval: number; seconds: number; tickMs: number; profilerEveryMs: number }): Promise<FleetFigures> {
  const spec = { ...fleetSpec(shape), tickMs: opts.tickMs, profilerEveryMs: opts.profilerEveryMs };
  const site = await startSite(spec);
  try {
    const setup = await startSharded({ targetsYaml: fileSdTargets(site.hosts), interval: `${opts.interval}s`, members: 2, ruleScale: 1, withSingle: true });
    try {
      const singleAtStart = rssBytes(setup.single!.pid);
      const vmAtStart = rssBytes(setup.vm.pid);
      const vm = new PromApi(setup.vm.url, VM_AUTH);
      // Warm-up: every exporter's series have reached VictoriaMetrics (first scrapes, first
      // remote_write batches, new series indexed), then two more intervals.
      const until = Date.now() + 120_000;
      while ((await one(vm, 'count(count by (instance) ({__name__=~"jobio_.+"}))', Date.now() / 1000)) !== site.hosts.length) {
        if (Date.now() > until) throw new Error('the fleet did not reach VictoriaMetrics within 2 minutes');
        await new Promise((r) => setTimeout(r, 500));
      }
      await new Promise((r) => setTimeout(r, opts.interval * 2000));
      const rows0 = await metricValue(setup.vm.url, 'vm_rows_inserted_total');
      const t0 = Date.now();
      const peak = new Map<number, number>();
      const pids = [setup.vm.pid, setup.vmalert.pid, setup.single!.pid, ...setup.scrapers.map((s) => s.pid), ...site.hosts.map((h) => h.exporter.child.pid ?? 0)];
      const sampleRss = (): void => {
        for (const pid of pids) peak.set(pid, Math.max(peak.get(pid) ?? 0, rssBytes(pid)));
      };
      while (Date.now() - t0 < opts.seconds * 1000) {
        sampleRss();
        await new Promise((r) => setTimeout(r, 2000));
      }
      sampleRss();
      const rows1 = await metricValue(setup.vm.url, 'vm_rows_inserted_total');
      const elapsed = (Date.now() - t0) / 1000;
      const at = Math.floor(Date.now() / 1000) - 2;
      const window = `${Math.floor(elapsed)}s`;
      const kinds = {} as Record<'lustre-server' | 'compute', KindFigures>;
      for (const kind of ['lustre-server', 'compute'] as const) {
        const hosts = site.hosts.filter((h) => h.kind === kind);
        const rss = hosts.map((h) => peak.get(h.exporter.child.pid ?? 0) ?? 0);
        let exported = 0;
        // The rate densities' buckets come and go as jobs change decade
        // between scrapes, so they are left out of this exact comparison of stored and served series.
        const stable = (line: string): boolean => line.startsWith('jobio_') && !VOLATILE_LINE.test(line);
        for (const h of hosts) exported += (await (await fetch(`${h.exporter.url}/metrics`)).text()).split('\n').filter(stable).length;
        kinds[kind] = {
          hosts: hosts.length,
          exportedSeriesPerHost: exported / hosts.length,
          seriesPerHost: (await one(vm, `count({role="${kind}", __name__=~"jobio_.+", __name__!~"${VOLATILE}.+"})`, at)) / hosts.length,
          scrapeSecondsAvg: await one(vm, `avg(avg_over_time(scrape_duration_seconds{role="${kind}"}[${window}]))`, at),
          scrapeSecondsMax: await one(vm, `max(max_over_time(scrape_duration_seconds{role="${kind}"}[${window}]))`, at),
          exporterRssAvg: rss.reduce((a, b) => a + b, 0) / rss.length,
          exporterRssMax: Math.max(...rss),
        };
      }
      const osts = shape.oss * shape.ostsPerOss;
      return {
        seconds: elapsed,
        interval: opts.interval,
        kinds,
        seriesPerOst: (await one(vm, 'count({__name__=~"jobio_lustre_.+", target=~".+-OST.+"})', at)) / osts,
        seriesPerMdt: (await one(vm, 'count({__name__=~"jobio_lustre_.+", target=~".+-MDT.+"})', at)) / shape.mds,
        seriesTotal: await one(vm, 'count({__name__=~".+"})', at),
        samplesPerSecond: (rows1 - rows0) / elapsed,
        rss: {
          vm: peak.get(setup.vm.pid) ?? 0,
          vmalert: peak.get(setup.vmalert.pid) ?? 0,
          scrapers: setup.scrapers.map((s) => peak.get(s.pid) ?? 0),
          single: peak.get(setup.single!.pid) ?? 0,
          singleAtStart,
          vmAtStart,
        },
        singleHeadSeries: await metricValue(setup.single!.url, 'prometheus_tsdb_head_series'),
        profilerSnapshots: site.sent(),
      };
    } finally {
      await setup.stop();
    }
  } finally {
    await site.stop();
  }
}
