// Every job exported through the HTTP server: the 20,000-entry 2.10 OST job_stats with every operation
// of every entry non-zero (280,000 series, the file kind of the HP lustre_exporter comparison,
// docs/BENCHMARKS.md "Every job exported"), `max-jobs` above the entry count, Node's default heap,
// scraped back to back as Prometheus asks (gzip), text and OpenMetrics in turn. Peak RSS is the exporter
// process's own high-water mark (VmHWM); the scrape's CPU time comes from /proc/<pid>/stat, so a loaded
// machine does not inflate it. JOBIO_BENCH_EVERY_JOB_SECONDS sets the length (30 s by default; 300 is the
// five minutes of the goal).
import { get } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startJobStatsExporter } from '../../test/helpers/exporter.js';
import { writeJobStats } from '../lustre/index.js';

const ACCEPT = {
  text: 'text/plain;version=0.0.4',
  openmetrics: 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
} as const;

/** Peak RSS measured earlier for the HP exporter (Go) on the same file kind and machine kind. */
const HP_PEAK_MB = 692;

/** user + system CPU of a process, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function statusMb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1]) / 1024;
}

/** One scrape, gzip asked for as Prometheus does; the compressed size. */
function scrapeOnce(url: string, accept: string): Promise<{ bytes: number; status: number }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { Accept: accept, 'Accept-Encoding': 'gzip' } }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ bytes, status: res.statusCode ?? 0 }));
    }).on('error', reject);
  });
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

export async function everyJobOverHttp(seconds = Number(process.env.JOBIO_BENCH_EVERY_JOB_SECONDS ?? 30)): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-bench-every-job-'));
  try {
    const target = join(dir, 'proc/fs/lustre/obdfilter/bench-OST0000');
    mkdirSync(target, { recursive: true });
    writeJobStats(join(target, 'job_stats'), 20_000, '2.10', 1, true);
    const exporter = await startJobStatsExporter(dir, ['--scrape.timeout=60s']);
    const pid = exporter.child.pid!;
    const url = `${exporter.url}/metrics`;
    const per = { text: { wall: [] as number[], cpu: [] as number[], bytes: 0 }, openmetrics: { wall: [] as number[], cpu: [] as number[], bytes: 0 } };
    let maxRss = 0;
    try {
      const end = Date.now() + seconds * 1000;
      for (let i = 0; Date.now() < end || i < 2; i++) {
        const format = i % 2 === 0 ? 'text' : 'openmetrics';
        const [started, cpu] = [performance.now(), cpuMs(pid)];
        const { bytes, status } = await scrapeOnce(url, ACCEPT[format]);
        if (status !== 200) throw new Error(`scrape answered ${status}`);
        per[format].wall.push(performance.now() - started);
        per[format].cpu.push(cpuMs(pid) - cpu);
        per[format].bytes = bytes;
        maxRss = Math.max(maxRss, statusMb(pid, 'VmRSS'));
      }
      const peak = statusMb(pid, 'VmHWM');
      const row = (f: 'text' | 'openmetrics'): string =>
        `| ${f} | ${per[f].wall.length} | ${median(per[f].wall).toFixed(0)} | ${Math.max(...per[f].wall).toFixed(0)} | ${median(per[f].cpu).toFixed(0)} | ${(per[f].bytes / 1e6).toFixed(1)} |`;
      return [
        `### Every job exported over HTTP, scraped back to back for ${seconds} s (20,000-entry 2.10 OST file, max-jobs 100,000, Node's default heap)`,
        '',
        'Text and OpenMetrics in turn, gzip asked for (as Prometheus does), one scraper, no pause. Peak RSS is the exporter process\'s VmHWM over the whole run; "CPU" is the exporter\'s own CPU time per scrape.',
        '',
        '| format | scrapes | median ms | worst ms | median CPU ms | gzip body MB |',
        '| --- | ---: | ---: | ---: | ---: | ---: |',
        row('text'),
        row('openmetrics'),
        '',
        `Peak RSS ${peak.toFixed(0)} MB (highest RSS seen after a scrape ${maxRss.toFixed(0)} MB): ${(peak / HP_PEAK_MB).toFixed(2)}× the ${HP_PEAK_MB} MB the HP lustre_exporter reached on the same file kind (measured earlier, not in this run). Goal ≤ 0.5×.`,
        '',
      ].join('\n');
    } finally {
      await exporter.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
