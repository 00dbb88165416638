// Authenticated scrape latency while 50 clients keep sending wrong passwords (bcrypt cost 10), against
// the same exporter's latency without the flood in the same run. The password checks run on worker
// threads with a bounded queue, so the flood should cost the scraper little (before, the checks ran
// on the event loop: 50 bad logins took an authenticated scrape from 20 ms to 5.1 s).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import bcrypt from 'bcryptjs';
import { startExporter } from '../../test/helpers/exporter.js';

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

async function scrapeLatencies(url: string, auth: string, count: number): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers: { Authorization: auth } });
    await res.text();
    if (res.status !== 200) throw new Error(`authenticated scrape got ${res.status}`);
    ms.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 100)); // paced like a (fast) scraper, so the run spans seconds of flood
  }
  return ms.sort((a, b) => a - b);
}

/** Waves of 50 parallel wrong-password logins, each wave sent when the previous one is answered. */
const WAVES = `
const url = process.argv[1];
const auth = (i) => 'Basic ' + Buffer.from('prometheus:wrong-' + i).toString('base64');
for (let wave = 0; ; wave++) {
  await Promise.all(Array.from({ length: 50 }, (_, i) => fetch(url, { headers: { Authorization: auth(wave * 50 + i) } }).then((r) => r.text()).catch(() => undefined)));
}
`;

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

export async function runAuthFlood(scrapes = 40): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-bench-auth-'));
  const file = join(dir, 'web.yml');
  writeFileSync(file, `basic_auth_users:\n  prometheus: '${bcrypt.hashSync('s3cret', 10)}'\n`);
  const exporter = await startExporter(['--collector.disable-defaults', `--web.config.file=${file}`]);
  const url = `${exporter.url}/metrics`;
  const good = basic('prometheus', 's3cret');
  try {
    await scrapeLatencies(url, good, 10); // warm-up, and the credentials are cached
    const quiet = await scrapeLatencies(url, good, scrapes);
    // The attacker runs in its own process, so its requests do not share the measuring event loop.
    const attacker = spawn(process.execPath, ['--input-type=module', '-e', WAVES, url], { stdio: ['ignore', 'pipe', 'inherit'] });
    let report = '';
    attacker.stdout.on('data', (c: Buffer) => (report += c.toString('utf8')));
    await new Promise((r) => setTimeout(r, 500));
    const flood = await scrapeLatencies(url, good, scrapes);
    attacker.kill('SIGTERM');
    await once(attacker, 'exit');
    const self = await (await fetch(url, { headers: { Authorization: good } })).text();
    const failures = [...self.matchAll(/^jobio_web_auth_failures_total\{reason="(\w+)"\} (\d+)$/gm)].map((m) => `${m[1]}=${m[2]}`).join(', ');
    const row = (name: string, l: number[]): string => `| ${name} | ${pct(l, 0.5).toFixed(1)} | ${pct(l, 0.99).toFixed(1)} |`;
    return [
      '## Basic auth under a wrong-password flood',
      '',
      `${scrapes} authenticated scrapes of \`--collector.disable-defaults\`, one every 100 ms, bcrypt cost 10, 127.0.0.1; the flood (another process) sends waves of 50 parallel wrong-password logins, each wave as soon as the previous one is answered.`,
      '',
      '| condition | p50 ms | p99 ms |',
      '| --- | ---: | ---: |',
      row('baseline: no flood', quiet),
      row('waves of 50 parallel wrong passwords', flood),
      '',
      `Ratio flood / baseline p50: ${(pct(flood, 0.5) / pct(quiet, 0.5)).toFixed(2)}. Refused logins counted by the exporter (jobio_web_auth_failures_total): ${failures}.`,
      '',
    ].join('\n');
  } finally {
    await exporter.stop();
  }
}
