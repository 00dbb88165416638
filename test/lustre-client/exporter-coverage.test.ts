// Profiler coverage end to end on one exporter: the profiler collector receives real frames (the frame
// tool, claiming Slurm job 4242 on /data) while the lustre_client collector reads llite stats of a fake
// node root whose mount table has the Lustre file system on /data and whose cgroups hold job 4242. The
// client counters move by what the profiled process read and wrote plus what a static program wrote
// unseen, so the true coverage is known: 0.4. The two series join on (jobid, mount); the exposition of
// two scrapes, fed to promtool with the real coverage rules, must record exactly that ratio.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, scrape } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';
import { parseExposition, sample, type Sample } from '../profiler/exposition.js';
import { llite, profiledRead, profiledWrite, sendAsJob, startClientNode } from './job-frames.js';

const KiB4 = 4096;
const TRUE_COVERAGE = 0.4;
const unseenWrite = (profiledRead + profiledWrite) / TRUE_COVERAGE - (profiledRead + profiledWrite);

async function scrapeUntil(url: string, ok: (s: Sample[]) => boolean): Promise<Sample[]> {
  const until = Date.now() + 10_000;
  for (;;) {
    const s = parseExposition(await scrape(url));
    if (ok(s) || Date.now() > until) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const bytes = (s: Sample[], prefix: string): number =>
  s.filter((x) => (x.name === `${prefix}_read_bytes_total` || x.name === `${prefix}_write_bytes_total`) && x.labels.jobid === '4242' && x.labels.mount === '/data').reduce((a, x) => a + x.value, 0);

test('coverage: profiler frames and llite counters of one job on one exporter give the true ratio, and the rules record it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-coverage-'));
  let read = 1_000 * KiB4;
  let write = 50_000 * KiB4;
  const { exporter, procfs, socket, llitePath } = await startClientNode(dir, read, write);
  try {
    const url = `${exporter.url}/metrics`;
    // The job's first process; the client moves what it did plus a static program's unseen writes.
    await sendAsJob(procfs, socket, dir);
    read += profiledRead;
    write += profiledWrite + unseenWrite;
    writeFileSync(llitePath, llite(read, write));
    const first = await scrapeUntil(url, (s) => bytes(s, 'jobio_profiler') === profiledRead + profiledWrite && bytes(s, 'jobio_lustre_client') === read + write);
    assert.equal(bytes(first, 'jobio_profiler'), profiledRead + profiledWrite, 'the profiler counted its frames');
    assert.equal(sample(first, 'jobio_scrape_collector_success', { collector: 'lustre_client' }), 1);
    // A second process of the job, the same pattern.
    await sendAsJob(procfs, socket, dir);
    read += profiledRead;
    write += profiledWrite + unseenWrite;
    writeFileSync(llitePath, llite(read, write));
    const second = await scrapeUntil(url, (s) => bytes(s, 'jobio_profiler') === 2 * (profiledRead + profiledWrite) && bytes(s, 'jobio_lustre_client') === read + write);
    const profiler = bytes(second, 'jobio_profiler') - bytes(first, 'jobio_profiler');
    const client = bytes(second, 'jobio_lustre_client') - bytes(first, 'jobio_lustre_client');
    assert.equal(client, (profiledRead + profiledWrite) / TRUE_COVERAGE, 'the client saw everything');
    assert.equal(profiler / client, TRUE_COVERAGE);

    // The same two scrapes through the real rules: one minute apart, the second held for five.
    const series = new Map<string, number[]>();
    for (const [i, s] of [first, second].entries()) {
      for (const x of s) {
        if (!/^jobio_(profiler|lustre_client)_(read|write)_bytes_total$/.test(x.name)) continue;
        const labels = Object.entries({ ...x.labels, instance: 'node1' })
          .map(([k, v]) => `${k}="${v}"`)
          .join(',');
        const key = `${x.name}{${labels}}`;
        const values = series.get(key) ?? [Number.NaN, Number.NaN];
        values[i] = x.value;
        series.set(key, values);
      }
    }
    const input = [...series].map(([key, [a, b]]) => `      - series: '${key}'\n        values: '${Number.isNaN(a) ? '_' : a} ${b}x5'`).join('\n');
    const testFile = join(dir, 'coverage.test.yml');
    writeFileSync(
      testFile,
      `rule_files:\n  - ${join(repoRoot, 'provisioning/prometheus/rules/jobio-client-coverage.yml')}\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n    input_series:\n${input}\n    promql_expr_test:\n      - expr: round(instance_fs_mount_jobid:jobio_profiler_coverage:ratio, 0.0001)\n        eval_time: 3m\n        exp_samples:\n          - labels: '{instance="node1",fs="scratch",mount="/data",jobid="4242"}'\n            value: ${TRUE_COVERAGE}\n`,
    );
    const r = spawnSync(requireBinary('promtool', 'prometheus'), ['test', 'rules', testFile], { encoding: 'utf8' });
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  } finally {
    await exporter.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
