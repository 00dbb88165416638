// `npm run bench -- soak [--soak-minutes=N]`: the six-user soak of the exporter (soak.ts)
// for 15 minutes by default, printed as a markdown section for docs/BENCHMARKS.md.
import { runSoak } from './soak.js';

function minutes(): number {
  const flag = process.argv.find((a) => a.startsWith('--soak-minutes='));
  if (!flag) return 15;
  const n = Number(flag.slice('--soak-minutes='.length));
  if (!(n > 0)) {
    console.error(`--soak-minutes must be a positive number of minutes, not "${flag}"`);
    process.exit(2);
  }
  return n;
}

export async function run(): Promise<string> {
  const durationMs = minutes() * 60_000;
  const r = await runSoak({ durationMs, log: (line) => console.error(`soak: ${line}`) });
  const lines = [
    '## soak (two honest users, four hostile: forged frames, idle socket connections, pipelined scrapes never read, forged squeue records; growing job_stats)',
    '',
    `Duration ${(r.durationMs / 60_000).toFixed(1)} min, ${r.scrapes} scrapes (every 5 s).`,
    '',
    '| figure | value |',
    '| --- | --- |',
    `| exporter RSS before traffic / at a third of the run / end / max | ${r.rssMb.start.toFixed(0)} / ${r.rssMb.warm.toFixed(0)} / ${r.rssMb.end.toFixed(0)} / ${r.rssMb.max.toFixed(0)} MB |`,
    `| RSS from a third to the end: min / max | ${r.rssMb.lateMin.toFixed(0)} / ${r.rssMb.lateMax.toFixed(0)} MB |`,
    `| end RSS / RSS at a third (same-run baseline) | ${(r.rssMb.end / r.rssMb.warm).toFixed(2)} |`,
    ...r.honest.map((h) => `| ${h.user} (job ${h.jobid}): dd runs, writes expected / counted | ${h.runs}, ${h.expected} / ${h.counted} |`),
    `| counters seen going down | ${r.decreases.length} |`,
    `| tracked processes (max) | ${r.processesMax} |`,
    `| profiler series (max) | ${r.profilerSeriesMax} |`,
    `| fake job ids the hostile user started | ${r.fakeJobsStarted} |`,
    `| job_stats jobs at the end | ${r.lustreJobs} |`,
    `| rejected by reason | ${Object.entries(r.rejected)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')} |`,
    `| rejected or dropped by user | ${Object.entries(r.rejectedByUser)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')} |`,
    `| profiler connections refused by user (${r.hostileUsers.at(-1) ?? ''} tried ${r.held.tried}, share ${r.held.share}) | ${Object.entries(r.connectionsRefusedByUser)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')} |`,
    `| HTTP connections dropped by reason (${r.pipelineRounds} pipelining rounds of 4 connections × 100 requests) | ${Object.entries(r.webDropped)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')} |`,
    `| jobio_job_info: series as expected (running jobs of the node, whole) | ${JSON.stringify(r.jobInfo.seen) === JSON.stringify(r.jobInfo.expected) ? 'yes' : 'NO'} (${r.jobInfo.seen.length} of ${r.jobInfo.expected.length}) |`,
    '',
  ];
  if (r.decreases.length > 0) lines.push('Counters that went down:', '', ...r.decreases.slice(0, 20).map((d) => `- ${d}`), '');
  return lines.join('\n');
}
