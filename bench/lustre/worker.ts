// One benchmark case in its own process, so its peak RSS is its own. Prints one JSON line.
//   baseline FILE          read the file and split it into lines (the floor any parser pays)
//   collector DIR A B      the real lustre_jobstats collector on DIR/proc/.../job_stats: first scrape
//                          of A in a cold process; then, as in a running exporter (code compiled by
//                          earlier scrapes), a new collector's first scrape of A (every entry new),
//                          B (every entry grown), B again (idle)
import { readFile, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import { lustreJobStatsCollector } from '../../exporter/src/collectors/lustre_jobstats.js';
import { createLogger } from '../../exporter/src/util/logger.js';

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const value = await fn();
  return [performance.now() - started, value];
}

async function baseline(file: string): Promise<Record<string, number>> {
  const runs: number[] = [];
  let lines = 0;
  for (let i = 0; i < 3; i += 1) {
    const [ms, n] = await timed(async () => (await readFile(file, 'utf8')).split('\n').length);
    runs.push(ms);
    lines = n;
  }
  return { ms: Math.min(...runs), lines };
}

async function collector(dir: string, first: string, grown: string): Promise<Record<string, number>> {
  const link = join(dir, 'proc/fs/lustre/obdfilter/bench-OST0000/job_stats');
  const point = async (target: string): Promise<void> => {
    await rm(link, { force: true });
    await symlink(target, link);
  };
  const signal = new AbortController().signal;
  const instance = (): { scrape: () => Promise<number>; registry: Registry } => {
    const registry = new Registry();
    const c = lustreJobStatsCollector.create({
      registry,
      paths: { procfs: join(dir, 'proc'), sysfs: join(dir, 'sys'), rootfs: dir },
      options: { getent: false },
      logger: createLogger('error', 'json'),
    });
    // One scrape as the exporter serves it: update(), then the registry rendered as text.
    const scrape = async (): Promise<number> => (await timed(async () => (await c.update(signal), await registry.metrics())))[0];
    return { scrape, registry };
  };
  await point(first);
  const coldProcessMs = await instance().scrape();
  await point(grown);
  const fresh = instance();
  await point(first);
  const firstMs = await fresh.scrape();
  await point(grown);
  const grownMs = await fresh.scrape();
  const idleMs = await fresh.scrape();
  const series = (await fresh.registry.getMetricsAsJSON()).reduce((n, m) => n + ((m as unknown as { values: unknown[] }).values?.length ?? 0), 0);
  return { coldProcessMs, firstMs, grownMs, idleMs, series };
}

const [mode, ...args] = process.argv.slice(2);
const result = mode === 'baseline' ? await baseline(args[0]!) : await collector(args[0]!, args[1]!, args[2]!);
process.stdout.write(`${JSON.stringify({ ...result, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
