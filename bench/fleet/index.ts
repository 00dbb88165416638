// `npm run bench -- fleet`: 40 real exporters (32 compute nodes with profiled jobs, fake-NVML GPUs and
// the cgroup fixture; 2 MDS and 6 OSS with growing job_stats) scraped by two sharded Prometheus agents
// into VictoriaMetrics with vmalert, and by one ordinary Prometheus as the same-run baseline.
// JOBIO_BENCH_FLEET_SECONDS (default 90) sets the measured time, JOBIO_BENCH_FLEET_INTERVAL (default 5)
// the scrape interval. docs/scaling.md turns the figures into sizing advice.
import { FLEET_40, measureFleet, type FleetFigures } from '../../test/distributed/fleet.js';

const MB = 1048576;
const mb = (bytes: number): string => (bytes / MB).toFixed(0);

export function report(f: FleetFigures): string {
  const c = f.kinds.compute;
  const l = f.kinds['lustre-server'];
  const promPerSeries = (f.rss.single - f.rss.singleAtStart) / f.singleHeadSeries;
  const vmPerSeries = (f.rss.vm - f.rss.vmAtStart) / f.seriesTotal;
  const row = (name: string, k: typeof c): string =>
    `| ${name} | ${k.hosts} | ${k.seriesPerHost.toFixed(0)} | ${(k.scrapeSecondsAvg * 1000).toFixed(1)} | ${(k.scrapeSecondsMax * 1000).toFixed(1)} | ${mb(k.exporterRssAvg)} | ${mb(k.exporterRssMax)} |`;
  return [
    '## Fleet: 40 exporters, sharded scrape into VictoriaMetrics (`npm run bench -- fleet`)',
    '',
    `${f.seconds.toFixed(0)} s measured after warm-up, scrape and rule interval ${f.interval} s, all on one machine (127.0.0.1).`,
    `Compute nodes: profiler (one job per node, a snapshot every 2 s), ${FLEET_40.gpusPerNode} fake-NVML GPUs, the cgroup fixture; jobs span ${FLEET_40.nodesPerJob} nodes.`,
    `Lustre: ${FLEET_40.mds} MDS (1 MDT, ${FLEET_40.jobsPerMdt} jobs each), ${FLEET_40.oss} OSS × ${FLEET_40.ostsPerOss} OSTs (${FLEET_40.jobsPerOst} jobs each), job_stats rewritten every second.`,
    '',
    '| host kind | hosts | series/host | scrape avg ms | scrape max ms | exporter RSS avg MiB | max MiB |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    row('compute node', c),
    row('Lustre server', l),
    '',
    `Series per OST (${FLEET_40.jobsPerOst} jobs): ${f.seriesPerOst.toFixed(0)}; per MDT (${FLEET_40.jobsPerMdt} jobs): ${f.seriesPerMdt.toFixed(0)}; all series in VictoriaMetrics (with up/scrape_* and the recorded series): ${f.seriesTotal.toFixed(0)}.`,
    `Samples ingested by VictoriaMetrics: ${f.samplesPerSecond.toFixed(0)}/s (both scrapers plus vmalert's recorded series).`,
    '',
    '| component | RSS peak MiB |',
    '| --- | ---: |',
    `| VictoriaMetrics (single node) | ${mb(f.rss.vm)} (at start ${mb(f.rss.vmAtStart)}) |`,
    `| vmalert | ${mb(f.rss.vmalert)} |`,
    ...f.rss.scrapers.map((r, i) => `| Prometheus agent, scraper ${i} | ${mb(r)} |`),
    `| baseline: one Prometheus scraping all 40, with the rules | ${mb(f.rss.single)} (at start ${mb(f.rss.singleAtStart)}, ${f.singleHeadSeries} head series) |`,
    '',
    `Memory per series, growth over the run divided by series: Prometheus ${(promPerSeries / 1024).toFixed(1)} KiB, VictoriaMetrics ${(vmPerSeries / 1024).toFixed(1)} KiB. ` +
      `Ratio Prometheus agent (one scraper) / single Prometheus RSS: ${(Math.max(...f.rss.scrapers) / f.rss.single).toFixed(2)}.`,
    `Profiler snapshots sent: ${f.profilerSnapshots.ok} (failed ${f.profilerSnapshots.failed}).`,
    '',
  ].join('\n');
}

export async function run(): Promise<string> {
  const seconds = Number(process.env.JOBIO_BENCH_FLEET_SECONDS ?? 90);
  const interval = Number(process.env.JOBIO_BENCH_FLEET_INTERVAL ?? 5);
  return report(await measureFleet(FLEET_40, { interval, seconds, tickMs: 1000, profilerEveryMs: 2000 }));
}
