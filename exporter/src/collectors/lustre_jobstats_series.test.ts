// The per-job counters rendered straight from the series book (lustre_jobstats_series.ts) give the
// very text prom-client's own Counters give for the same values (its rendering is the oracle here),
// jobio_exporter_series counts them exactly, and the rate density counts every job, folded or not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Counter, Registry } from 'prom-client';
import { jobStatsText, OST_OPS_214, syntheticJobs, type GeneratedJob } from '../../../test/lustre/generate-jobstats.js';
import { lustreJobStatsCollector } from './lustre_jobstats.js';
import { countSeries } from '../scrape/series-count.js';
import { JobStatsAccumulator } from '../lustre/jobstats-accumulator.js';
import { compileJobIdFormats } from '../lustre/jobid-format.js';
import { refill } from '../lustre/refill.js';
import { collectorOnRoot } from '../../../test/helpers/collector-on-root.js';
import { promtoolCheckMetrics } from '../../../test/helpers/promtool.js';

const FAMILIES = ['read_bytes_total', 'write_bytes_total', 'operations_total', 'operation_seconds_total'].map((f) => `jobio_lustre_jobstats_${f}`);

/** The text of one family in an exposition (HELP, TYPE and samples). */
function family(text: string, name: string): string {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith(`# HELP ${name} `))
    .join('\n\n');
}

/** What prom-client's Counters render for the accumulator's series (the code this file replaced). */
async function promClientText(acc: JobStatsAccumulator): Promise<string> {
  const registry = new Registry();
  const registers = [registry];
  const job = ['target', 'jobid', 'user', 'process'] as const;
  const op = [...job, 'operation'] as const;
  const counters = {
    read_bytes: new Counter({ name: FAMILIES[0]!, help: 'h', labelNames: job, registers }),
    write_bytes: new Counter({ name: FAMILIES[1]!, help: 'h', labelNames: job, registers }),
    operations: new Counter({ name: FAMILIES[2]!, help: 'h', labelNames: op, registers }),
    operation_seconds: new Counter({ name: FAMILIES[3]!, help: 'h', labelNames: op, registers }),
  };
  refill(acc, {
    clear: () => undefined,
    target: () => undefined,
    sample(t, series, field, v) {
      const labels = series.process === undefined ? { target: t.name, jobid: series.jobid, user: series.user } : { target: t.name, jobid: series.jobid, user: series.user, process: series.process };
      if (field.kind === 'read_bytes' || field.kind === 'write_bytes') counters[field.kind].inc(labels, v);
      else counters[field.kind].inc({ ...labels, operation: field.operation }, field.kind === 'operation_seconds' ? v / 1e6 : v);
    },
  });
  return registry.metrics();
}

/** Jobs of the generator plus ids that need escaping and entries without a job id (process label). */
function jobs(count: number, scale: number): GeneratedJob[] {
  const list: GeneratedJob[] = syntheticJobs(count, '2.14', scale);
  list.push({ id: '77:5000:n1', samples: { open: 3 * scale }, sums: { open: 40 * scale } });
  list.push({ id: '78:5000:n"1\\x', samples: { open: 2 * scale }, sums: { open: 30 * scale } }); // malformed: _other, no job
  list.push({ id: 'dd.5001', samples: { write: 2 * scale, write_bytes: 2 * scale }, sums: { write: 9 * scale, write_bytes: 8192 * scale } });
  list.push({ id: 'bad"proc\\.5002', samples: { punch: scale }, sums: { punch: 3 * scale } });
  return list;
}

function tree(root: string, scale: number, extra: GeneratedJob[] = []): void {
  for (const target of ['fs-OST0000', 'fs-OST0001']) {
    const dir = join(root, 'proc/fs/lustre/obdfilter', target);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'job_stats'), jobStatsText([...jobs(target.endsWith('0') ? 1500 : 700, scale), ...extra], '2.14', [...OST_OPS_214, 'open']));
  }
}

test('per-job counters: same exposition as prom-client Counters over three scrapes (every job exported, escapes, born-at-0 fields), series counted exactly', async () => {
  const root = mkdtempSync(join(tmpdir(), 'jobio-lustre-series-'));
  const { registry, collector: c } = collectorOnRoot(lustreJobStatsCollector, root, { getent: false, 'max-jobs': 100_000 });
  // The oracle follows the same files with its own accumulator.
  const acc = new JobStatsAccumulator({ maxJobs: 100_000, expiryMs: 30 * 60_000, formats: compileJobIdFormats('%j:%u:%H,%e.%u') });
  const signal = new AbortController().signal;
  const newcomer: GeneratedJob = { id: '999:5003:n9', samples: { read: 5, read_bytes: 5 }, sums: { read: 50, read_bytes: 4096 } };
  const steps: [number, GeneratedJob[]][] = [
    [1, []],
    [2, [newcomer]],
    [3, [newcomer]],
  ];
  for (const [scale, extra] of steps) {
    tree(root, scale, extra);
    assert.equal(await c.update(signal), 'ok');
    acc.begin();
    for (const target of ['fs-OST0000', 'fs-OST0001'])
      acc.ingest(jobStatsText([...jobs(target.endsWith('0') ? 1500 : 700, scale), ...extra], '2.14', [...OST_OPS_214, 'open']), { kind: 'obdfilter', name: target });
    acc.finish(Date.now(), (uid) => `uid:${uid}`);
    const ours = await registry.metrics();
    const oracle = await promClientText(acc);
    let samples = 0;
    for (const name of FAMILIES) {
      const mine = family(ours, name)
        .split('\n')
        .slice(2)
        .filter((l) => l !== '');
      const theirs = family(oracle, name)
        .split('\n')
        .slice(2)
        .filter((l) => l !== '');
      assert.ok(theirs.length > 0, name);
      assert.deepEqual(mine, theirs, `${name} at scale ${scale}`);
      samples += mine.length;
    }
    assert.match(ours, /jobid="77",user="uid:5000",operation="open"/);
    assert.match(ours, /jobid="_none",user="uid:5002",process="bad\\"proc\\\\",operation="punch"/);
    const other = (ours.match(/^jobio_lustre_jobstats_(?!read_bytes_total|write_bytes_total|operations_total|operation_seconds_total)\w+(\{[^}]*\})? /gm) ?? []).length;
    assert.equal(await countSeries(registry), samples + other);
    assert.ok(samples > 10_000);
  }
});

test('rate density through the collector: with max-jobs 3 every job and user is still counted; every bucket stamped with the window end', async () => {
  const root = mkdtempSync(join(tmpdir(), 'jobio-lustre-density-'));
  // A window of 5 ms on the exporter's clock: the second read, 10 ms later at least, ends one.
  const { registry, collector: c } = collectorOnRoot(lustreJobStatsCollector, root, { getent: false, 'max-jobs': 3, 'density-window': '5ms' });
  const signal = new AbortController().signal;
  tree(root, 1);
  await c.update(signal);
  assert.doesNotMatch(await registry.metrics(), /^jobio_lustre_jobstats_rate_jobs\{/m, 'no interval at the first collection');
  tree(root, 2);
  await new Promise((r) => setTimeout(r, 10));
  const before = Date.now();
  await c.update(signal);
  const text = await registry.metrics();
  // Every density sample carries the end (ms) of the window the second read closed: a multiple of 5 ms, at most that read's time.
  const stamps = new Set([...text.matchAll(/^jobio_lustre_jobstats_(?:operation_)?rate_\w+\{[^}]*\} [\d.e-]+ (\d+)$/gm)].map((m) => Number(m[1])));
  assert.equal(stamps.size, 1, [...stamps].join(' '));
  const [stamp] = [...stamps] as [number];
  assert.ok(stamp % 5 === 0 && stamp <= Date.now() && stamp > before - 15, `stamp ${stamp}, read from ${before}`);
  // Every bucket, zeros included (a timestamped sample gets no staleness marker: a bucket must not vanish).
  for (const target of ['fs-OST0000', 'fs-OST0001']) {
    const lines = (family: string): number => (text.match(new RegExp(`^jobio_lustre_jobstats_${family}\\{target="${target}"[,}]`, 'gm')) ?? []).length;
    assert.deepEqual([lines('rate_jobs'), lines('rate_users'), lines('operation_rate_jobs'), lines('rate_interval_seconds')], [4 * 17, 4 * 17, 17 * 17, 1], target);
  }
  assert.match(text, /^jobio_lustre_jobstats_rate_users\{target="fs-OST0000",class="read_bytes",decade="12"\} 0 \d+$/m);
  const lint = promtoolCheckMetrics(text);
  assert.ok(lint.ok, lint.output);
  const sum = (metric: string, target: string, cls: string): number => {
    let n = 0;
    for (const m of text.matchAll(new RegExp(`^${metric}\\{target="${target}",class="${cls}",decade="([-\\w]+)"\\} (\\d+) ${stamp}$`, 'gm'))) n += Number(m[2]);
    return n;
  };
  // 1,500 generated jobs + 3 extra identities (the malformed id is no job); their uids are 1000..1499 plus 5000, 5001, 5002.
  for (const cls of ['operations', 'metadata', 'read_bytes', 'write_bytes']) {
    assert.equal(sum('jobio_lustre_jobstats_rate_jobs', 'fs-OST0000', cls), 1503, cls);
    assert.equal(sum('jobio_lustre_jobstats_rate_users', 'fs-OST0000', cls), 503, cls);
    assert.equal(sum('jobio_lustre_jobstats_rate_jobs', 'fs-OST0001', cls), 703, cls);
  }
  // Per operation of the fixed set: every job again, in its own decades (jobs only, no users).
  const perOperation = (target: string, operation: string): number => {
    let n = 0;
    for (const m of text.matchAll(new RegExp(`^jobio_lustre_jobstats_operation_rate_jobs\\{target="${target}",operation="${operation}",decade="([-\\w]+)"\\} (\\d+) ${stamp}$`, 'gm')))
      n += Number(m[2]);
    return n;
  };
  for (const operation of ['open', 'punch', 'write', 'setattr']) assert.equal(perOperation('fs-OST0000', operation), 1503, operation);
  assert.doesNotMatch(
    text,
    /^jobio_lustre_jobstats_operation_rate_jobs\{[^}]*operation="(?!open|close|mknod|unlink|getattr|setattr|getxattr|setxattr|mkdir|rmdir|rename|link|statfs|sync|read|write|punch")/m,
  );
  assert.doesNotMatch(text, /^jobio_lustre_jobstats_operation_rate_users/m);
  assert.match(text, /^jobio_lustre_jobstats_exported_jobs\{target="fs-OST0000"\} 3$/m);
  assert.match(text, new RegExp(`^jobio_lustre_jobstats_rate_interval_seconds\\{target="fs-OST0000"\\} [\\d.e-]+ ${stamp}$`, 'm'));
});
