// Idle exporter memory on a compute node without Lustre: resident set size of `jobio exporter` with
// its default collectors after a few scrapes, against a bare node:http server in the same run (the
// floor any Node exporter shares). Two more rows say where the difference is: the exporter with no
// collector at all (`--collector.disable-defaults`: the web framework, prom-client, the logger and the
// CLI), and a bare node:http server that has only imported those libraries. Each process is started
// alone, scraped 3 times, left 1 s, then its VmRSS read; the rounds alternate the four processes and
// the ratio is the median of the per-round ratios.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startExporter } from '../../test/helpers/exporter.js';

const ROUNDS = Number(process.env.JOBIO_BENCH_IDLE_ROUNDS ?? 5);

/** A bare node:http server on 127.0.0.1, optionally after importing `modules`; prints its port. */
function bareServerSource(modules: readonly string[]): string {
  return `${modules.map((m) => `await import(${JSON.stringify(m)});`).join('')}
const { createServer } = await import('node:http');
const server = createServer((_req, res) => res.end('ok\\n')).listen(0, '127.0.0.1', () => console.log(server.address().port));`;
}

async function startBare(modules: readonly string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', bareServerSource(modules)], { stdio: ['ignore', 'pipe', 'inherit'], cwd: process.cwd() });
  const [chunk] = (await once(child.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  return { url: `http://127.0.0.1:${Number(chunk.toString().trim())}/metrics`, child };
}

function rssKiB(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]);
}

async function idleRss(url: string, pid: number): Promise<number> {
  for (let i = 0; i < 3; i++) {
    await (await fetch(url)).text();
    await new Promise((r) => setTimeout(r, 200));
  }
  await new Promise((r) => setTimeout(r, 1000));
  return rssKiB(pid);
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

export async function run(): Promise<string> {
  // An empty Lustre root: the host has no Lustre whatever this machine has.
  const noLustre = mkdtempSync(join(tmpdir(), 'jobio-bench-idle-'));
  const libraries = ['express', 'prom-client', 'pino', 'commander'];
  const kinds = ['bare', 'libraries', 'framework', 'exporter'] as const;
  const rss: Record<(typeof kinds)[number], number[]> = { bare: [], libraries: [], framework: [], exporter: [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of kinds) {
        if (kind === 'bare' || kind === 'libraries') {
          const bare = await startBare(kind === 'bare' ? [] : libraries);
          try {
            rss[kind].push(await idleRss(bare.url, bare.child.pid as number));
          } finally {
            bare.child.kill('SIGTERM');
            await once(bare.child, 'exit');
          }
        } else {
          const exporter = await startExporter(kind === 'framework' ? ['--collector.disable-defaults'] : [`--path.lustre=${noLustre}`]);
          try {
            rss[kind].push(await idleRss(`${exporter.url}/metrics`, exporter.child.pid as number));
          } finally {
            await exporter.stop();
          }
        }
      }
    }
  } finally {
    rmSync(noLustre, { recursive: true, force: true });
  }
  const mb = (kib: number): string => (kib / 1024).toFixed(1);
  const ratio = (kind: (typeof kinds)[number]): string => median(rss[kind].map((v, i) => v / (rss.bare[i] as number))).toFixed(2);
  const row = (name: string, kind: (typeof kinds)[number]): string => `| ${name} | ${mb(median(rss[kind]))} | ${mb(Math.min(...rss[kind]))}–${mb(Math.max(...rss[kind]))} | ${ratio(kind)}× |`;
  return [
    '## Idle exporter without Lustre (RSS)',
    '',
    `Resident set size after 3 scrapes and 1 s idle, ${ROUNDS} alternating rounds; ratio = median of the per-round ratios to the bare server. Load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}.`,
    '',
    '| process | median RSS MB | range MB | ÷ bare node:http |',
    '| --- | ---: | ---: | ---: |',
    row('baseline: bare node:http server', 'bare'),
    row(`bare node:http server after importing ${libraries.join(', ')}`, 'libraries'),
    row('jobio exporter, no collector (`--collector.disable-defaults`)', 'framework'),
    row('jobio exporter, default collectors, no Lustre', 'exporter'),
    '',
  ].join('\n');
}
