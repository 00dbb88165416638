// `npm run bench -- lustre-health`: what the server health collectors (lustre_health: capacity,
// health_check, recovery_status, ldlm, brw_stats, service queues; lustre_lnet) add to a Lustre server's
// scrape. One host assembled from the captures in test/fixtures/lustre: the largest job_stats captures
// in pseudo-file form (2.10.1 OST, 35 jobs, and MDT, 15 jobs), the health files split from the es6.2.0
// server capture (4 osd targets × 5 capacity files, health_check, ldlm, 3 recovery_status files), the
// brw_stats and service files split from the 2.14.0_ddn133 capture (2 OSTs, 3 services) and the 2.10.1
// LNet stats file; and, through a fake lctl, the whole 2.14.0_ddn133 dump (the largest capture holding
// these files). Same-run ratio: each mode against the jobstats-only scrape, interleaved run by run in
// one process on the built exporter (worker.mjs).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const worker = fileURLToPath(new URL('./worker.mjs', import.meta.url));
const fixtures = join(repo, 'test/fixtures/lustre');
const RUNS = 40;

const best = (runs: readonly number[]): number => Math.min(...runs);
function median(runs: readonly number[]): number {
  const s = [...runs].sort((x, y) => x - y);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
const fmt = (ms: number): string => (ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));

export function run(): Promise<string> {
  if (!existsSync(join(repo, 'dist/collectors/lustre_health.js'))) execFileSync('npm', ['run', 'build:ts'], { cwd: repo, stdio: 'ignore' });
  const root = mkdtempSync(join(tmpdir(), 'jobio-bench-health-'));
  try {
    for (const tree of ['hp-2.10.1-ost', 'hp-2.10.1-mdt', 'health-es6.2.0', 'server-2.14.0_ddn133', 'lnet-hp-2.10.1']) cpSync(join(fixtures, tree), root, { recursive: true });
    const out = execFileSync(process.execPath, [worker, root, join(fixtures, 'rootfs'), String(RUNS), join(fixtures, 'bin/fake-lctl')], {
      cwd: repo,
      encoding: 'utf8',
      env: { ...process.env, JOBIO_FAKE_LCTL_FILE: join(fixtures, 'lctl/2.14.0_ddn133_exports.lctl.txt') },
    });
    const { times, series } = JSON.parse(out.trim().split('\n').pop() ?? '{}') as {
      times: Record<'jobstats' | 'both' | 'health' | 'lnet' | 'lctl', number[]>;
      series: Record<'jobstats' | 'health' | 'lnet' | 'lctl', number>;
    };
    const row = (name: string, t: number[], s: number): string => {
      const ratio = `${(best(t) / best(times.jobstats)).toFixed(2)}× / ${(median(t) / median(times.jobstats)).toFixed(2)}×`;
      return `| ${name} | ${fmt(best(t))} / ${fmt(median(t))} | ${ratio} | ${s} |`;
    };
    return Promise.resolve(
      [
        '## Lustre server health (lustre_health, lustre_lnet)',
        '',
        `${RUNS} scrapes per mode after one warm-up, interleaved; times in ms as best / median; ratio to the jobstats-only scrape of the same run.`,
        '',
        '| scrape | ms | ratio | series |',
        '| --- | ---: | ---: | ---: |',
        row('lustre_jobstats alone (baseline: 2 targets, 50 jobs)', times.jobstats, series.jobstats),
        row('lustre_jobstats + lustre_health + lustre_lnet', times.both, series.jobstats + series.health + series.lnet),
        row('lustre_health alone (files: 4 osd targets, health_check, ldlm, 3 recovery_status, 2 brw_stats, 3 services)', times.health, series.health),
        row('lustre_lnet alone (the stats file)', times.lnet, series.lnet),
        row('lustre_health through lctl on the whole 2.14.0_ddn133 dump (92 KB)', times.lctl, series.lctl),
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
