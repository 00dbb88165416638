// The built exporter's lustre_health collector on every capture that holds capacity or health_check
// files (the `lctl get_param` dumps, through the fake lctl) and on pseudo-file trees (one split from a
// capture, plus recovery_status, and one of malformed values): a golden exposition per case, linted by
// promtool, and every value checked against an independent reading of the fixture written here.
// Regenerate the goldens with JOBIO_UPDATE_GOLDEN=1, then review the diff.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { startExporter, scrape, repoRoot } from '../helpers/exporter.js';
import { assertGolden, normaliseExposition } from '../helpers/golden.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { parseExposition, sample } from '../profiler/exposition.js';

const fixtures = join(repoRoot, 'test/fixtures/lustre');

const METRIC_OF: Readonly<Record<string, [string, number]>> = {
  kbytestotal: ['jobio_lustre_target_size_bytes', 1024],
  kbytesfree: ['jobio_lustre_target_free_bytes', 1024],
  kbytesavail: ['jobio_lustre_target_avail_bytes', 1024],
  filestotal: ['jobio_lustre_target_files', 1],
  filesfree: ['jobio_lustre_target_files_free', 1],
  lock_count: ['jobio_lustre_target_ldlm_locks', 1],
  resource_count: ['jobio_lustre_target_ldlm_resources', 1],
  lock_timeouts: ['jobio_lustre_target_ldlm_lock_timeouts_total', 1],
};

/** What the fixture says, read without the exporter's parsers: `target file value` triples (capacity, ldlm) and the health text. */
interface Expected {
  readonly capacity: { target: string; file: string; value: number }[];
  readonly health: string | undefined;
  /** brw_stats text of each target (the first one a dump prints). */
  readonly brw: Map<string, string>;
  /** stats text of each service (`ost_io`, `mgs`, …) and its threads_* values. */
  readonly services: Map<string, string>;
  readonly threads: { service: string; file: string; value: number }[];
}

/** A service's stats read by columns: `name samples "samples" [unit] min max sum sumsq`. */
function serviceFigures(text: string): Record<string, number> {
  const out: Record<string, number> = { requests: 0, wait: 0, qdepth: 0, active: 0 };
  for (const line of text.split('\n')) {
    const cols = line.trim().split(/\s+/);
    if (cols[0] === 'req_waittime') [out.requests, out.wait] = [Number(cols[1]), Number(cols[6]) / 1e6];
    if (cols[0] === 'req_qdepth') out.qdepth = Number(cols[6]);
    if (cols[0] === 'req_active') out.active = Number(cols[6]);
  }
  return out;
}

function assertServices(samples: ReturnType<typeof parseExposition>, expected: Expected): void {
  assert.equal(samples.filter((s) => s.name === 'jobio_lustre_service_requests_total').length, expected.services.size, 'one series per service stats file');
  for (const [service, text] of expected.services) {
    const want = serviceFigures(text);
    const got = (name: string) => sample(samples, name, { service });
    assert.deepEqual(
      [
        got('jobio_lustre_service_requests_total'),
        got('jobio_lustre_service_request_wait_seconds_total'),
        got('jobio_lustre_service_request_queue_depth_total'),
        got('jobio_lustre_service_request_active_total'),
      ],
      [want.requests, want.wait, want.qdepth, want.active],
      `service ${service}`,
    );
  }
  const names: Record<string, string> = { threads_started: 'jobio_lustre_service_threads', threads_max: 'jobio_lustre_service_threads_max', threads_min: 'jobio_lustre_service_threads_min' };
  assert.equal(samples.filter((s) => Object.values(names).includes(s.name)).length, expected.threads.length, 'one series per threads_* value');
  for (const t of expected.threads) assert.equal(sample(samples, names[t.file]!, { service: t.service }), t.value, `${t.file} of ${t.service}`);
}

/** The brw_stats histograms by Lustre's title: metric, the documented `le` bounds, and Lustre's unit in the exported one. */
const BRW: Readonly<Record<string, [string, number[], number]>> = {
  'pages per bulk r/w': ['jobio_lustre_target_brw_rpc_pages', [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096], 1],
  'discontiguous pages': ['jobio_lustre_target_brw_discontiguous_pages', [0, 1, 2, 4, 8, 16, 30], 1],
  'discontiguous blocks': ['jobio_lustre_target_brw_discontiguous_blocks', [0, 1, 2, 4, 8, 16, 30], 1],
  'disk fragmented I/Os': ['jobio_lustre_target_brw_disk_fragments', [1, 2, 4, 8, 16, 30], 1],
  'disk I/Os in flight': ['jobio_lustre_target_brw_disk_ios_in_flight', [1, 2, 4, 8, 16, 30], 1],
  'I/O time (1/1000s)': ['jobio_lustre_target_brw_disk_io_seconds', [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384].map((ms) => ms / 1000), 1 / 1000],
  'disk I/O size': ['jobio_lustre_target_brw_disk_io_size_bytes', [12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24].map((p) => 2 ** p), 1],
};

/** One brw_stats text as blocks between blank lines: each block's title (before two spaces) and its `n[KMG]:` rows, columns split at `|`. */
function brwRows(text: string): Map<string, { value: number; read: number; write: number }[]> {
  const out = new Map<string, { value: number; read: number; write: number }[]>();
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n');
    const titleLine = lines.find((l) => l.includes('% cum %'));
    if (!titleLine) continue;
    const rows = lines
      .filter((l) => /^\d+[KMG]?:/.test(l))
      .map((l) => {
        const [left = '', right = ''] = l.split('|');
        const [label = '', read = ''] = left.trim().split(/\s+/);
        const unit = { K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[label.at(-2) ?? ''] ?? 1;
        return { value: parseInt(label, 10) * unit, read: Number(read), write: Number(right.trim().split(/\s+/)[0]) };
      });
    out.set(titleLine.split(/ {2,}/)[0]!.trim(), rows);
  }
  return out;
}

/** Every brw_stats bucket of the exposition equals the rows of the fixture at or under its bound, for each known title. */
function assertBrw(samples: ReturnType<typeof parseExposition>, brw: Map<string, string>): number {
  let checked = 0;
  for (const [target, text] of brw) {
    const fs = /^(.+)-(OST|MDT)[0-9a-f]{4}$/i.exec(target)?.[1] ?? '';
    for (const [title, rows] of brwRows(text)) {
      const known = BRW[title];
      if (!known) continue;
      const [name, bounds, scale] = known;
      for (const operation of ['read', 'write'] as const) {
        const labels = { fs, target, operation };
        const total = rows.reduce((n, r) => n + r[operation], 0);
        const exported = samples.filter((s) => s.name === `${name}_bucket` && s.labels.target === target && s.labels.operation === operation).map((s) => s.labels.le);
        assert.deepEqual(exported, [...bounds.map(String), '+Inf'], `${name}{target="${target}"} has the documented buckets`);
        for (const le of bounds) {
          const want = rows.filter((r) => r.value * scale <= le + 1e-9).reduce((n, r) => n + r[operation], 0);
          assert.equal(sample(samples, `${name}_bucket`, { ...labels, le: String(le) }), want, `${name}{target="${target}",operation="${operation}",le="${le}"}`);
          checked += 1;
        }
        assert.equal(sample(samples, `${name}_bucket`, { ...labels, le: '+Inf' }), total);
        assert.equal(sample(samples, `${name}_count`, labels), total);
      }
    }
  }
  return checked;
}

function expectedFromDump(path: string): Expected {
  const text = readFileSync(path, 'latin1');
  const capacity = [
    ...text.matchAll(/^osd-\w+\.([\w-]+)\.(kbytestotal|kbytesfree|kbytesavail|filestotal|filesfree)=(\d+)$/gm),
    ...text.matchAll(/^ldlm\.namespaces\.(?:mdt|filter)-([\w-]+)_UUID\.(lock_count|resource_count|lock_timeouts)=(\d+)$/gm),
  ].map((m) => ({ target: m[1]!, file: m[2]!, value: Number(m[3]) }));
  const brw = new Map<string, string>();
  for (const m of text.matchAll(/^(?:osd-\w+|obdfilter)\.([\w-]+)\.brw_stats=\n((?:(?![\w.@-]+=).*\n?)*)/gm)) if (!brw.has(m[1]!)) brw.set(m[1]!, m[2]!);
  const services = new Map<string, string>();
  for (const m of text.matchAll(/^(?:ost\.OSS|mds\.MDS|mgs\.MGS|ldlm\.services)\.(\w+)\.stats=(.*)\n((?:(?![\w.@-]+=).*\n?)*)/gm)) services.set(m[1]!, `${m[2]!}\n${m[3]!}`);
  const threads = [...text.matchAll(/^(?:ost\.OSS|mds\.MDS|mgs\.MGS|ldlm\.services)\.(\w+)\.(threads_started|threads_max|threads_min)=(\d+)$/gm)].map((m) => ({
    service: m[1]!,
    file: m[2]!,
    value: Number(m[3]),
  }));
  return { capacity, health: /^health_check=(.*)$/m.exec(text)?.[1], brw, services, threads };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));
}

function expectedFromTree(tree: string): Expected {
  const capacity: Expected['capacity'] = [];
  const brw = new Map<string, string>();
  const services = new Map<string, string>();
  const threads: Expected['threads'] = [];
  let health: string | undefined;
  for (const path of filesUnder(tree)) {
    const parts = relative(tree, path).split('/');
    const content = readFileSync(path, 'latin1').trim();
    if (parts.at(-1) === 'brw_stats') {
      brw.set(parts.at(-2)!, content);
      continue;
    }
    if (['OSS', 'MDS', 'MGS', 'services'].includes(parts.at(-3) ?? '')) {
      if (parts.at(-1) === 'stats') services.set(parts.at(-2)!, content);
      else threads.push({ service: parts.at(-2)!, file: parts.at(-1)!, value: Number(content) });
      continue;
    }
    if (parts.at(-1) === 'health_check') health = content;
    const osd = parts.at(-3);
    if (osd?.startsWith('osd-') && /^\d+$/.test(content)) capacity.push({ target: parts.at(-2)!, file: parts.at(-1)!, value: Number(content) });
    // Server namespaces only (a client's, `<target>-osc-<instance>`, is not read).
    const ns = /^(?:mdt|filter)-(.+)_UUID$/.exec(parts.at(-2) ?? '');
    if (parts.at(-3) === 'namespaces' && ns?.[1]) capacity.push({ target: ns[1], file: parts.at(-1)!, value: Number(content) });
  }
  return { capacity, health, brw, services, threads };
}

interface Case {
  readonly name: string;
  readonly tree?: string;
  readonly lctlFile?: string;
}

const cases: readonly Case[] = [
  { name: 'whamcloud-2.14.0_ddn133-lctl', lctlFile: 'lctl/2.14.0_ddn133_exports.lctl.txt' },
  { name: 'whamcloud-2.14.0_ddn145-lctl', lctlFile: 'lctl/2.14.0_ddn145_stats.lctl.txt' },
  { name: 'whamcloud-es6.2.0-r9-lctl', lctlFile: 'lctl/params-6.2.0-r9.lctl.txt' },
  { name: 'whamcloud-2.14-client-lctl', lctlFile: 'lctl/llite_client.lctl.txt' },
  { name: 'es6.2.0-tree-recovery', tree: 'health-es6.2.0' },
  { name: 'ddn133-tree-server', tree: 'server-2.14.0_ddn133' },
  { name: 'malformed', tree: 'health-malformed' },
  { name: 'no-lustre', tree: 'no-lustre' },
];

function caseNamed(name: string): Case {
  const c = cases.find((k) => k.name === name);
  assert.ok(c, name);
  return c;
}

function argsFor(c: Case): string[] {
  const tree = join(fixtures, c.tree ?? 'no-lustre');
  const args = ['--collector.disable-defaults', '--collector.lustre_health', `--path.procfs=${join(tree, 'proc')}`, `--path.sysfs=${join(tree, 'sys')}`];
  if (c.lctlFile) args.push('--collector.lustre_health.lctl', `--collector.lustre_health.lctl-path=${join(fixtures, 'bin/fake-lctl')}`);
  return args;
}

async function scrapeCase(c: Case): Promise<{ text: string; log: string }> {
  const exporter = await startExporter(argsFor(c), { env: c.lctlFile ? { JOBIO_FAKE_LCTL_FILE: join(fixtures, c.lctlFile) } : {} });
  try {
    return { text: await scrape(`${exporter.url}/metrics`), log: exporter.log() };
  } finally {
    await exporter.stop();
  }
}

for (const c of cases) {
  test(`lustre_health golden: ${c.name}`, async () => {
    const { text, log } = await scrapeCase(c);
    const lint = promtoolCheckMetrics(text);
    assert.ok(lint.ok, `promtool check metrics:\n${lint.output}`);
    assertGolden(normaliseExposition(text), join(repoRoot, `test/golden/lustre_health/${c.name}.prom`));
    if (c.name === 'no-lustre') {
      assert.doesNotMatch(text, /^jobio_lustre_(target|health)_/m, 'a host without Lustre exports no series');
      assert.doesNotMatch(log, /"level":"(warn|error)"/, 'and logs no warning or error');
      return;
    }
    assert.match(text, /^jobio_scrape_collector_success\{collector="lustre_health"\} 1$/m);
    const samples = parseExposition(text);
    const expected = c.lctlFile ? expectedFromDump(join(fixtures, c.lctlFile)) : expectedFromTree(join(fixtures, c.tree!));
    const exported = samples.filter((s) => Object.values(METRIC_OF).some(([name]) => name === s.name));
    assert.equal(exported.length, expected.capacity.length, 'one series per capacity and ldlm value of the fixture');
    for (const { target, file, value } of expected.capacity) {
      const [name, scale] = METRIC_OF[file]!;
      const fs = /^(.+)-(OST|MDT)[0-9a-f]{4}$/i.exec(target)?.[1] ?? '';
      assert.equal(sample(samples, name, { fs, target }), value * scale, `${name}{target="${target}"}`);
    }
    const healthy = sample(samples, 'jobio_lustre_health_check_healthy', {});
    assert.equal(healthy, expected.health === 'healthy' ? 1 : expected.health === 'NOT HEALTHY' ? 0 : undefined);
    if (c.name === 'malformed') return; // its brw_stats and service files are checked by hand below
    assertServices(samples, expected);
    const brwSeries = samples.filter((s) => s.name.startsWith('jobio_lustre_target_brw_') && s.name.endsWith('_count'));
    assert.equal(
      brwSeries.length,
      [...expected.brw.values()].reduce((n, text) => n + 2 * [...brwRows(text).keys()].filter((t) => BRW[t]).length, 0),
      'one histogram per target, histogram printed and direction',
    );
    const checked = assertBrw(samples, expected.brw);
    assert.equal(checked > 0, expected.brw.size > 0, 'every case holding brw_stats has its buckets checked');
    assert.equal(sample(samples, 'jobio_lustre_health_errors_total', { reason: 'parse' }), 0);
  });
}

test('lustre_health: the capture values, by hand', async () => {
  // Spot checks written from reading the captures, so the independent reader above is checked too.
  const es = parseExposition((await scrapeCase(caseNamed('whamcloud-es6.2.0-r9-lctl'))).text);
  assert.equal(sample(es, 'jobio_lustre_target_size_bytes', { fs: 'fs', target: 'fs-OST0000' }), 4108388 * 1024);
  assert.equal(sample(es, 'jobio_lustre_target_files_free', { fs: 'fs', target: 'fs-MDT0000' }), 1885250);
  assert.equal(sample(es, 'jobio_lustre_target_avail_bytes', { fs: '', target: 'MGS' }), 463060 * 1024);
  assert.equal(sample(es, 'jobio_lustre_health_check_healthy', {}), 0, 'es6.2.0 says NOT HEALTHY');
  assert.equal(sample(es, 'jobio_lustre_target_ldlm_locks', { fs: 'fs', target: 'fs-MDT0000' }), 99);
  assert.equal(sample(es, 'jobio_lustre_target_ldlm_resources', { fs: 'fs', target: 'fs-MDT0000' }), 8);
  const ddn = parseExposition((await scrapeCase(caseNamed('whamcloud-2.14.0_ddn133-lctl'))).text);
  assert.equal(sample(ddn, 'jobio_lustre_target_size_bytes', { fs: 'ai400x2', target: 'ai400x2-OST0001' }), 35016088872 * 1024);
  assert.equal(sample(ddn, 'jobio_lustre_health_check_healthy', {}), 1);
  assert.equal(sample(ddn, 'jobio_lustre_target_ldlm_locks', { fs: 'ai400x2', target: 'ai400x2-OST0001' }), 476);
  const ost0 = { fs: 'ai400x2', target: 'ai400x2-OST0000' };
  // The nine "pages per bulk r/w" read rows, 1 to 256 pages, summed by hand; 4096 pages holds no more.
  assert.equal(sample(ddn, 'jobio_lustre_target_brw_rpc_pages_bucket', { ...ost0, operation: 'read', le: '256' }), 71107897);
  assert.equal(sample(ddn, 'jobio_lustre_target_brw_rpc_pages_bucket', { ...ost0, operation: 'read', le: '4096' }), 71107897);
  assert.equal(sample(ddn, 'jobio_lustre_target_brw_disk_io_seconds_bucket', { ...ost0, operation: 'write', le: '0.001' }), 31941783);
  // "disk I/Os in flight" 31: 139854158 reads is Lustre's ≥ 31 bucket: only in +Inf.
  const inFlight = (le: string) => sample(ddn, 'jobio_lustre_target_brw_disk_ios_in_flight_bucket', { ...ost0, operation: 'read', le });
  assert.equal(inFlight('+Inf')! - inFlight('30')!, 139854158);
  assert.equal(sample(ddn, 'jobio_lustre_target_brw_disk_io_size_bytes_bucket', { ...ost0, operation: 'read', le: '4096' }), 152547869);
  // ost_io of ddn133: 276,900,681 requests waited 679,087.701802 s in all (2.45 ms each), found 2,957,475 queued.
  assert.equal(sample(ddn, 'jobio_lustre_service_requests_total', { service: 'ost_io' }), 276900681);
  assert.equal(sample(ddn, 'jobio_lustre_service_request_wait_seconds_total', { service: 'ost_io' }), 679087.701802);
  assert.equal(sample(ddn, 'jobio_lustre_service_request_queue_depth_total', { service: 'ost_io' }), 2957475);
  assert.equal(sample(ddn, 'jobio_lustre_service_requests_total', { service: 'ost_seq' }), 0, 'snapshot_time alone: no request yet');
  assert.equal(sample(ddn, 'jobio_lustre_service_threads_max', { service: 'mgs' }), 32);
  assert.equal(sample(es, 'jobio_lustre_service_request_wait_seconds_total', { service: 'ost' }), 0.187249, 'es6.2.0 prints [usec]');
  // es6.2.0 prints every histogram empty: zero buckets, not absent ones.
  assert.equal(sample(es, 'jobio_lustre_target_brw_rpc_pages_count', { fs: 'fs', target: 'fs-OST0000', operation: 'write' }), 0);
});

test('lustre_health: recovery_status of each state, and malformed values counted, never exported', async () => {
  const tree = parseExposition((await scrapeCase(caseNamed('es6.2.0-tree-recovery'))).text);
  const status = (target: string, s: string) => sample(tree, 'jobio_lustre_target_recovery_status', { fs: 'fs', target, status: s });
  assert.deepEqual([status('fs-MDT0000', 'COMPLETE'), status('fs-MDT0000', 'RECOVERING'), status('fs-OST0000', 'RECOVERING'), status('fs-OST0001', 'WAITING_FOR_CLIENTS')], [1, 0, 1, 1]);
  const labels = { fs: 'fs', target: 'fs-OST0000' };
  assert.equal(sample(tree, 'jobio_lustre_target_recovery_time_remaining_seconds', labels), 214);
  assert.equal(sample(tree, 'jobio_lustre_target_recovery_completed_clients', labels), 4);
  assert.equal(sample(tree, 'jobio_lustre_target_recovery_clients', labels), 8);
  assert.equal(sample(tree, 'jobio_lustre_target_recovery_clients', { fs: 'fs', target: 'fs-MDT0000' }), 8);
  assert.equal(sample(tree, 'jobio_lustre_health_errors_total', { reason: 'parse' }), 0);

  const bad = parseExposition((await scrapeCase(caseNamed('malformed'))).text);
  // kbytestotal "12x", an empty filesfree, health_check "maybe", status SLEEPING: 4 values skipped;
  // brw_stats: a row before any section, a count "5x", a line of text: 3 lines skipped.
  // mdt stats: req_waittime in [secs], a line of text; threads_started "x": 3 more.
  assert.equal(sample(bad, 'jobio_lustre_health_errors_total', { reason: 'parse' }), 10);
  assert.deepEqual(
    ['requests_total', 'request_wait_seconds_total', 'request_queue_depth_total', 'request_active_total'].map((n) => sample(bad, `jobio_lustre_service_${n}`, { service: 'mdt' })),
    [0, 0, 7, 8],
    'the wait of an unknown unit dropped, the good counters kept',
  );
  assert.equal(sample(bad, 'jobio_lustre_service_threads', { service: 'mdt' }), undefined);
  const badOst = { fs: 'bad', target: 'bad-OST0000' };
  assert.deepEqual(
    ['1', '128', '256', '+Inf'].map((le) => sample(bad, 'jobio_lustre_target_brw_rpc_pages_bucket', { ...badOst, operation: 'read', le })),
    [5, 5, 10, 10],
    'the good rows of the section kept, the "5x" row dropped',
  );
  assert.equal(sample(bad, 'jobio_lustre_target_brw_disk_io_size_bytes_bucket', { ...badOst, operation: 'write', le: '1048576' }), 7);
  assert.equal(bad.filter((s) => s.name.startsWith('jobio_lustre_target_brw_') && s.name.endsWith('_count')).length, 4, '"block maps msec" is not exported');
  assert.equal(sample(bad, 'jobio_lustre_target_free_bytes', { fs: 'bad', target: 'bad-OST0000' }), 104857600 * 1024);
  assert.equal(sample(bad, 'jobio_lustre_target_size_bytes', { fs: 'bad', target: 'bad-OST0000' }), undefined);
  assert.equal(sample(bad, 'jobio_lustre_health_check_healthy', {}), undefined);
  assert.equal(sample(bad, 'jobio_lustre_target_ldlm_locks', { fs: 'bad', target: 'bad-OST0000' }), undefined, "a client's namespace is not read");
});
