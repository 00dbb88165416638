// `jobio report JOBID` for the file system's view: a real Prometheus scrapes the built exporter while
// the job_stats files of one MDT and two OSTs change under it. The background load is the real
// HP Lustre 2.10.1 captures (an MDT and an OST, test/fixtures/lustre); on top of them a storm job
// (4711) and a neighbour (4712) grow between scrapes. Every total is a sum of the fixtures' counters;
// every rate is an increase from the fixtures divided by the two scrape times Prometheus stored
// around it (read back from its raw samples): nothing depends on how fast the machine is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runJobio, startExporter } from '../helpers/exporter.js';
import { startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';
import { entryLines, OST_OPS_210, type GeneratedJob } from '../lustre/generate-jobstats.js';
import { jobStatsExporterArgs, replaceJobStats, scrapedAfter } from '../lustre/replay.js';
import type { ReportJson } from '../../exporter/src/report/report-schema.js';
import { changeSpan, jobStatsSamples } from '../../exporter/src/report/file-system.js';
import { characterisationQuery, characterisationRange } from '../../exporter/src/report/characterisation.js';
import { characteriseRaw, slides, slidesQuantile, type RawMatrix } from '../helpers/characterisation-oracle.js';

const CAPTURES = join(repoRoot, 'test/fixtures/lustre');
const MDT_CAPTURE = readFileSync(join(CAPTURES, 'hp-2.10.1-mdt/proc/fs/lustre/mdt/lustrefs-MDT0000/job_stats'), 'utf8');
const OST_CAPTURE = readFileSync(join(CAPTURES, 'hp-2.10.1-ost/proc/fs/lustre/obdfilter/lustrefs-OST0000/job_stats'), 'utf8');
/** The 2.10 MDT operations, in the capture's order. */
const MDT_OPS_210 = ['open', 'close', 'mknod', 'link', 'unlink', 'mkdir', 'rmdir', 'rename', 'getattr', 'setattr', 'getxattr', 'setxattr', 'statfs', 'sync', 'samedir_rename', 'crossdir_rename'];
const MiB = 1024 * 1024;

/** Sum over a capture of every `samples:` (requests) or of the `sum:` of `*_bytes` lines. */
const captureRequests = (text: string): number => [...text.matchAll(/^ {2}(\w+):\s+\{ samples:\s+(\d+)/gm)].filter((m) => !m[1]!.endsWith('_bytes')).reduce((a, m) => a + Number(m[2]), 0);
const captureBytes = (text: string): number => [...text.matchAll(/^ {2}\w+_bytes:.*sum:\s*(\d+)/gm)].reduce((a, m) => a + Number(m[1]), 0);

const mdtJob = (id: string, samples: Record<string, number>): GeneratedJob => ({ id, samples });
const ostJob = (id: string, writes: number): GeneratedJob => ({ id, samples: { write_bytes: writes }, sums: { write_bytes: writes * MiB } });
const file = (capture: string, jobs: GeneratedJob[], ops: readonly string[]): string => [(capture || 'job_stats:\n').trimEnd(), ...jobs.flatMap((j) => entryLines(j, '2.10', ops))].join('\n') + '\n';

// The history: [MDT0000, OST0000, OST0001] per step. Job 4711: 100 getattr + 50 open, then 60,000
// more getattr while 4712 does 20,000 (4711 has 75 % of the MDT's requests then); 4 MiB on OST0000
// and 2 MiB on OST0001, then 8 MiB more on OST0000 while nobody else writes.
const steps: [string, string, string][] = [
  [file('', [], MDT_OPS_210), file('', [], OST_OPS_210), file('', [], OST_OPS_210)],
  [
    file(MDT_CAPTURE, [mdtJob('4711', { getattr: 100, open: 50 }), mdtJob('4712', { getattr: 10 })], MDT_OPS_210),
    file(OST_CAPTURE, [ostJob('4711', 4)], OST_OPS_210),
    file('', [ostJob('4711', 2)], OST_OPS_210),
  ],
  [
    file(MDT_CAPTURE, [mdtJob('4711', { getattr: 60_100, open: 50 }), mdtJob('4712', { getattr: 20_010 })], MDT_OPS_210),
    file(OST_CAPTURE, [ostJob('4711', 12)], OST_OPS_210),
    file('', [ostJob('4711', 2)], OST_OPS_210),
  ],
];

/** The two sample times around the increase of `selector` by exactly `inc` (the oracle of a rate's interval). */
async function jumpOf(prom: RunningPrometheus, selector: string, inc: number): Promise<{ from: number; to: number }> {
  const raw = (await prom.queryRaw('/api/v1/query', { query: `${selector}[10m]` })) as { result: { values: [number, string][] }[] };
  const values = raw.result[0]?.values ?? [];
  for (let i = 1; i < values.length; i++) if (Number(values[i]![1]) - Number(values[i - 1]![1]) === inc) return { from: values[i - 1]![0], to: values[i]![0] };
  throw new Error(`no increase of ${inc} in ${selector}: ${JSON.stringify(values)}`);
}

const iso = (t: number): string => new Date(t * 1000).toISOString();
const r3 = (x: number): number => Math.round(x * 1000) / 1000;

test("jobio report JOBID: the file system's view from job_stats series, and a storm that dominates the MDT", async () => {
  const root = mkdtempSync(join(tmpdir(), 'jobio-report-fs-'));
  const dirs = ['mdt/lustrefs-MDT0000', 'obdfilter/lustrefs-OST0000', 'obdfilter/lustrefs-OST0001'].map((d) => join(root, 'proc/fs/lustre', d));
  for (const d of dirs) mkdirSync(d, { recursive: true });
  const write = (texts: readonly string[]): void => texts.forEach((text, i) => replaceJobStats(dirs[i]!, text));
  write(steps[0]!);
  const exporter = await startExporter([...jobStatsExporterArgs(root, join(CAPTURES, 'rootfs')), '--collector.lustre_jobstats.jobid-format=%j']);
  let prom: RunningPrometheus | undefined;
  try {
    prom = await startPrometheus([{ job: 'lustre', address: `127.0.0.1:${exporter.port}` }], { scrapeInterval: '1s' });
    let last = await scrapedAfter(prom, 0);
    for (const step of steps.slice(1)) {
      const writtenAt = Date.now();
      write(step);
      last = await scrapedAfter(prom, writtenAt);
      // one more scrape: a series born in the last one (at 0) carries its first increase in the next
      last = await scrapedAfter(prom, last * 1000 + 10);
    }

    const report = async (jobid: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> => runJobio(['report', jobid, '--prometheus', prom!.url, ...args]);
    const r = await report('4711', '--json');
    assert.equal(r.code, 0, r.stderr);
    const storm = JSON.parse(r.stdout) as ReportJson;
    const fs = storm.file_system;
    assert.ok(fs !== undefined, 'a job with job_stats series has the file system view');
    assert.equal(storm.application.profiled, false);
    assert.equal(storm.application.calls, 0);
    assert.deepEqual(fs.mdt, { targets: 1, operations: 60_150, read_bytes: 0, write_bytes: 0 });
    assert.deepEqual(fs.metadata_operations, { getattr: 60_100, open: 50 });
    // 2.10 counts writes by the write_bytes samples: 12 on OST0000, 2 on OST0001
    assert.deepEqual(fs.ost, { targets: 2, operations: 14, read_bytes: 0, write_bytes: 14 * MiB });
    assert.equal(fs.osts_with_data, 2);
    assert.deepEqual(
      fs.targets.map((t) => [t.target, t.kind, t.operations, t.write_bytes]),
      [
        ['lustrefs-MDT0000', 'mdt', 60_150, 0],
        ['lustrefs-OST0000', 'ost', 12, 12 * MiB],
        ['lustrefs-OST0001', 'ost', 2, 2 * MiB],
      ],
    );

    // the MDT's busiest interval: 60,000 of the 80,000 requests of that interval
    const mdt = await jumpOf(prom, 'jobio_lustre_jobstats_operations_total{jobid="4711",operation="getattr"}', 60_000);
    const mdtPeak = fs.targets[0]!.peak!;
    assert.deepEqual(mdtPeak, {
      measure: 'operations',
      start: iso(mdt.from),
      end: iso(mdt.to),
      rate: r3(60_000 / (mdt.to - mdt.from)),
      target_rate: r3(80_000 / (mdt.to - mdt.from)),
      share: 0.75,
    });
    // OST0000: 4 MiB (with all the capture's bytes on the target) or 8 MiB alone, whichever interval's rate is higher
    const first = await jumpOf(prom, 'jobio_lustre_jobstats_write_bytes_total{jobid="4711",target="lustrefs-OST0000"}', 4 * MiB);
    const second = await jumpOf(prom, 'jobio_lustre_jobstats_write_bytes_total{jobid="4711",target="lustrefs-OST0000"}', 8 * MiB);
    const rateOf = (inc: number, i: { from: number; to: number }): number => inc / (i.to - i.from);
    const ostAll = captureBytes(OST_CAPTURE) + 4 * MiB;
    const expectedOst =
      rateOf(8 * MiB, second) > rateOf(4 * MiB, first)
        ? { measure: 'bytes', start: iso(second.from), end: iso(second.to), rate: r3(rateOf(8 * MiB, second)), target_rate: r3(rateOf(8 * MiB, second)), share: 1 }
        : { measure: 'bytes', start: iso(first.from), end: iso(first.to), rate: r3(rateOf(4 * MiB, first)), target_rate: r3(rateOf(ostAll, first)), share: Math.round((4 * MiB * 1e6) / ostAll) / 1e6 };
    assert.deepEqual(fs.targets[1]!.peak, expectedOst);
    assert.equal(fs.targets[2]!.peak!.share, 1, 'nobody else wrote to OST0001');

    // the finding: the MDT dominated at ≥ 5,000 ops/s is high (the interval is one scrape, 1 s, far below 12 s)
    assert.equal(storm.verdict.text, '1 finding: 1 high');
    const f = storm.findings[0]!;
    assert.equal(f.reason, 'target_load');
    assert.equal(f.severity, 'high');
    assert.equal(f.severity_from, 'target_load');
    assert.equal(f.target, 'lustrefs-MDT0000');
    assert.equal(f.mount, 'lustrefs');
    assert.equal(f.calls, 60_150);
    assert.equal(f.metadata_rate, mdtPeak.rate);
    assert.equal(f.program.label, 'your job');
    assert.match(f.seen, /^75\.0 % of all requests on lustrefs-MDT0000 /);
    assert.equal(storm.header.start, iso(Math.min(first.from, mdt.from)));
    assert.equal(storm.header.end, iso(Math.max(second.to, mdt.to)));

    // the characterisation: 14 MiB written on 2 OSTs, no reads; I, ρ, P at each c and the job's place among the jobs
    // of its range equal the second implementation on the range results the report asked for (the same range: Δt the
    // scrape interval of the job's samples, one step before its first increase)
    const ch = storm.characterisation;
    assert.ok(ch?.write);
    assert.deepEqual([ch.view, ch.read, ch.write.bytes, ch.write.servers], ['servers', null, 14 * MiB, 2]);
    const q = { url: prom.url, mode: 'job' as const, intervalMs: 0, filters: {}, timeoutMs: 10_000 };
    const samples = await jobStatsSamples(q, '4711', '30d');
    const [from = 0, to = 0] = changeSpan(samples);
    const grid = characterisationRange(
      from,
      to,
      [...samples.operations, ...samples.readBytes, ...samples.writeBytes].map((x) => x.values.map(([t]) => t)),
    );
    assert.equal(ch.step, grid.step);
    const matrix = async (family: 'read' | 'write' | 'operations'): Promise<RawMatrix> =>
      ((await prom!.queryRaw('/api/v1/query_range', { query: characterisationQuery(family), start: String(grid.start), end: String(grid.end), step: String(grid.step) })) as { result: RawMatrix })
        .result;
    const [readM, writeM, opsM] = await Promise.all([matrix('read'), matrix('write'), matrix('operations')]);
    const life = [readM, writeM, opsM];
    const jobs = [...new Set(life.flatMap((m) => m.map((x) => x.metric['jobid'] ?? '')))];
    for (const t of ch.write.thresholds) {
      const o = characteriseRaw([writeM], '4711', grid, t.threshold_bytes, life);
      const s = slides(o.bytes, t.threshold_bytes);
      const r6 = (x: number): number => Math.round(x * 1e6) / 1e6;
      assert.deepEqual([t.io_intensity, t.burstiness, t.parallel_intensity, t.busy_servers], [r6(s.I), r6(s.rho), r6(s.P), r6(o.parallel)], `c = ${t.threshold_bytes}`);
      const all = jobs.map((j) => characteriseRaw([writeM], j, grid, t.threshold_bytes, life)).filter((x) => x.servers > 0);
      const values = all.map((x) => x.intensity);
      assert.deepEqual(t.population, {
        jobs: all.length,
        quantile: 0.8,
        io_intensity: { share_at_or_below: r6(values.filter((v) => v <= o.intensity + 1e-9).length / values.length), at_quantile: r6(slidesQuantile(values, 0.8)) },
        burstiness: t.population?.burstiness,
        parallel_intensity: t.population?.parallel_intensity,
      });
    }
    // 4711 and the OST capture's jobs that wrote (each entry's write_bytes sum above 0)
    const writers = OST_CAPTURE.split(/^- job_id:/m)
      .slice(1)
      .filter((entry) => Number(/write_bytes:.*sum:\s*(\d+)/.exec(entry)?.[1] ?? 0) > 0).length;
    assert.equal(ch.write.thresholds[0]?.population?.jobs, 1 + writers);

    // a job of the capture: one setattr among the 175 requests of its interval, nothing to change
    const r43 = await report('43', '--json');
    assert.equal(r43.code, 0, r43.stderr);
    const quiet = JSON.parse(r43.stdout) as ReportJson;
    assert.equal(quiet.verdict.text, 'nothing to change');
    const mdtAll = captureRequests(MDT_CAPTURE) + 150 + 10;
    assert.equal(mdtAll, 175);
    assert.deepEqual(
      quiet.file_system?.targets.map((t) => [t.target, t.operations, t.operations_by_kind, t.write_bytes, t.peak?.share]),
      [
        ['lustrefs-MDT0000', 1, { setattr: 1 }, 0, Math.round(1e6 / mdtAll) / 1e6],
        // job 43 of the OST capture: 7,906 writes of 21,711,745,024 bytes and 1 punch
        ['lustrefs-OST0000', 7907, { write: 7906, punch: 1 }, 21_711_745_024, Math.round((21_711_745_024 * 1e6) / ostAll) / 1e6],
      ],
    );

    // text and HTML say the same
    const text = await report('4711', '--grafana-url', 'http://127.0.0.1:3000');
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^verdict: 1 finding: 1 high$/m);
    assert.match(text.stdout, /^1\. HIGH your job: target_load on lustrefs-MDT0000 \(by load on the file system\)$/m);
    assert.match(text.stdout, /^file system: {2}MDTs 1: 60,150 requests \(getattr 60,100, open 50\); OSTs 2, 2 with$/m);
    assert.match(text.stdout, /^jobio report: job 4711, \d{4}-/);
    assert.match(text.stdout, /^ {2}lustrefs-MDT0000: 60,150 requests; busiest [\d,]+ ops\/s \(75\.0 % of all\)$/m);
    assert.match(text.stdout, /^ {2}lustrefs-OST0001: written 2\.0 MiB; busiest [\d.]+ MiB\/s \(100\.0 % of all\)$/m);
    assert.match(text.stdout, /^application: {2}the job ran without the profiler: no view of its calls$/m);
    assert.match(text.stdout, /^character: {4}\d+ interval\(s\) of 1 s from the job_stats series of the job's$/m);
    assert.match(text.stdout, /^ {2}read: none$/m);
    assert.match(text.stdout, /^ {2}write: 14\.0 MiB on 2 server\(s\), busiest 8\.0 MiB\/s; \d+ job\(s\) wrote then$/m);
    assert.match(text.stdout, /^ {4}c = 1\.0 MiB {3}I \d\.\d\d \(\d+ %\) {2}ρ \d\.\d\d \(\d+ %\) {2}P \d\.\d\d \(\d+ %\)$/m);
    const link = `http://127.0.0.1:3000/d/jobio-job/jobio-job?var-jobid=4711&from=${Date.parse(storm.header.start)}&to=${Date.parse(storm.header.end)}`;
    assert.ok(text.stdout.split('\n').includes(`dashboard:    ${link}`), text.stdout);
    // every line fits 80 columns but the link (never wrapped)
    for (const line of text.stdout.split('\n')) assert.ok(line.length <= 80 || line.startsWith('dashboard:'), line);
    const html = join(root, 'r.html');
    assert.equal((await report('4711', '--html', html)).code, 0);
    assert.match(readFileSync(html, 'utf8'), /<td>lustrefs-MDT0000<\/td><td>60,150<\/td>.*<td>75\.0 %<\/td><\/tr>/);
    assert.match(readFileSync(html, 'utf8'), /<h2>I\/O character<\/h2>.*<tr><td>write<\/td><td>14\.0 MiB<\/td><td>2<\/td><td>1024 KiB<\/td><td>\d\.\d\d <small>/s);

    // a hostile job id stays one label value
    const hostile = await report('x"} or vector(1) #');
    assert.equal(hostile.code, 1);
    assert.match(hostile.stderr, /has no series of job x"\} or vector\(1\) #/);
  } finally {
    await prom?.stop();
    await exporter.stop();
    rmSync(root, { recursive: true, force: true });
  }
});
