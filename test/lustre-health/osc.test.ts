// The lustre_health collector on a Lustre client's OSCs (osc.*.rpc_stats and osc.*.state): the
// whamcloud 2.16 client capture through the fake lctl, and the same sections split into a debugfs
// file tree at test time. A golden exposition, promtool-clean, and every value equal to a column
// reading of the capture written here (rows summed over the file system's OSCs, buckets cumulated).
// Regenerate the golden with JOBIO_UPDATE_GOLDEN=1, then review the diff.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startExporter, scrape, repoRoot } from '../helpers/exporter.js';
import { assertGolden, normaliseExposition } from '../helpers/golden.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { parseExposition, sample } from '../profiler/exposition.js';

const fixtures = join(repoRoot, 'test/fixtures/lustre');
const DUMP = join(fixtures, 'lctl/2.16.0_ddn56b_client_osc.lctl.txt');

/** `osc.<device>.<file>=` sections of the dump: device, file, text. */
function sections(text: string): { device: string; file: string; text: string }[] {
  const out: { device: string; file: string; text: string }[] = [];
  for (const part of text.split(/^(?=osc\.)/m)) {
    const head = /^osc\.(\S+)\.(rpc_stats|state)=\n/.exec(part);
    if (head?.[1] && head[2]) out.push({ device: head[1], file: head[2], text: part.slice(head[0].length) });
  }
  return out;
}

/** Column reading of one table: the rows after the line starting with `title`, up to a blank line, as [value, read, write]. */
function table(text: string, title: string): [number, number, number][] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(title));
  const rows: [number, number, number][] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') break;
    const cols = line.replace('|', ' ').trim().split(/\s+/);
    rows.push([parseInt(cols[0] ?? '', 10), Number(cols[1]), Number(cols[4])]);
  }
  return rows;
}

const PAGE_BOUNDS = Array.from({ length: 13 }, (_, i) => 2 ** i);
const FLIGHT_BOUNDS = [0, 1, 2, 4, 8, 16, 30];

function assertCapture(text: string): number {
  const samples = parseExposition(text);
  const all = sections(readFileSync(DUMP, 'latin1'));
  const rpc = all.filter((s) => s.file === 'rpc_stats');
  assert.equal(rpc.length, 4, 'four OSCs in the capture');
  let checked = 0;
  for (const [metric, title, bounds] of [
    ['jobio_lustre_osc_rpc_pages', 'pages per rpc', PAGE_BOUNDS],
    ['jobio_lustre_osc_rpcs_in_flight', 'rpcs in flight', FLIGHT_BOUNDS],
  ] as const) {
    for (const [col, operation] of [
      [1, 'read'],
      [2, 'write'],
    ] as const) {
      const rows = rpc.flatMap((s) => table(s.text, title));
      const labels = { fs: 'a361000', operation };
      for (const le of bounds) {
        assert.equal(
          sample(samples, `${metric}_bucket`, { ...labels, le: String(le) }),
          rows.filter((r) => r[0] <= le).reduce((n, r) => n + r[col], 0),
          `${metric} ${operation} le=${le}`,
        );
        checked += 1;
      }
      const total = rows.reduce((n, r) => n + r[col], 0);
      assert.equal(sample(samples, `${metric}_bucket`, { ...labels, le: '+Inf' }), total);
      assert.equal(sample(samples, `${metric}_count`, labels), total);
    }
  }
  for (const operation of ['read', 'write']) {
    const active = rpc.reduce((n, s) => n + Number(new RegExp(`^${operation} RPCs in flight:\\s+(\\d+)$`, 'm').exec(s.text)?.[1]), 0);
    const pending = rpc.reduce((n, s) => n + Number(new RegExp(`^pending ${operation} pages:\\s+(\\d+)$`, 'm').exec(s.text)?.[1]), 0);
    assert.equal(sample(samples, 'jobio_lustre_osc_active_rpcs', { fs: 'a361000', operation }), active);
    assert.equal(sample(samples, 'jobio_lustre_osc_pending_pages', { fs: 'a361000', operation }), pending);
  }
  const states = all.filter((s) => s.file === 'state').map((s) => /^current_state: (\S+)$/m.exec(s.text)?.[1]);
  assert.equal(states.length, 4);
  assert.equal(sample(samples, 'jobio_lustre_osc_imports', { fs: 'a361000', state: 'FULL' }), states.filter((s) => s === 'FULL').length);
  assert.equal(samples.filter((s) => s.name === 'jobio_lustre_osc_imports').length, 11, 'every import state of the file system, 0 for those no OSC is in');
  assert.equal(sample(samples, 'jobio_lustre_osc_imports', { fs: 'a361000', state: 'DISCONN' }), 0);
  assert.equal(sample(samples, 'jobio_lustre_health_errors_total', { reason: 'parse' }), 0);
  return checked;
}

async function scrapeWith(args: string[], env: Record<string, string>): Promise<string> {
  const exporter = await startExporter(['--collector.disable-defaults', '--collector.lustre_health', ...args], { env });
  try {
    return await scrape(`${exporter.url}/metrics`);
  } finally {
    await exporter.stop();
  }
}

test('lustre_health golden: whamcloud-2.16.0_ddn56b-client-osc-lctl (osc rpc_stats and state through lctl)', async () => {
  const none = join(fixtures, 'no-lustre');
  const text = await scrapeWith(
    [`--path.procfs=${join(none, 'proc')}`, `--path.sysfs=${join(none, 'sys')}`, '--collector.lustre_health.lctl', `--collector.lustre_health.lctl-path=${join(fixtures, 'bin/fake-lctl')}`],
    { JOBIO_FAKE_LCTL_FILE: DUMP },
  );
  const lint = promtoolCheckMetrics(text);
  assert.ok(lint.ok, `promtool check metrics:\n${lint.output}`);
  assertGolden(normaliseExposition(text), join(repoRoot, 'test/golden/lustre_health/whamcloud-2.16.0_ddn56b-client-osc-lctl.prom'));
  assert.equal(assertCapture(text), 2 * (13 + 7));
  // By hand, from the capture: single-page write RPCs of the four OSCs, and reads sent with 2 or fewer in flight.
  const samples = parseExposition(text);
  assert.equal(sample(samples, 'jobio_lustre_osc_rpc_pages_bucket', { fs: 'a361000', operation: 'write', le: '1' }), 320551 + 320375 + 321014 + 320802);
  assert.equal(sample(samples, 'jobio_lustre_osc_rpcs_in_flight_bucket', { fs: 'a361000', operation: 'read', le: '2' }), 110932 + 621 + 111354 + 622 + 110692 + 608 + 111064 + 618);
  // OST0002's 1024-page row of its offset table is not a pages row: the pages histogram tops at 64.
  assert.equal(
    sample(samples, 'jobio_lustre_osc_rpc_pages_bucket', { fs: 'a361000', operation: 'write', le: '32' }),
    sample(samples, 'jobio_lustre_osc_rpc_pages_count', { fs: 'a361000', operation: 'write' })! - (6268 + 5673 + 6011 + 5935),
  );
});

test('lustre_health: the same OSCs from a debugfs tree (osc/<device>/{rpc_stats,state}) give the same values', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-osc-'));
  try {
    for (const s of sections(readFileSync(DUMP, 'latin1'))) {
      const oscDir = join(dir, 'sys/kernel/debug/lustre/osc', s.device);
      mkdirSync(oscDir, { recursive: true });
      writeFileSync(join(oscDir, s.file), s.text);
    }
    mkdirSync(join(dir, 'proc'), { recursive: true });
    const text = await scrapeWith([`--path.procfs=${join(dir, 'proc')}`, `--path.sysfs=${join(dir, 'sys')}`], {});
    assert.ok(promtoolCheckMetrics(text).ok);
    assertCapture(text);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('lustre_health golden: whamcloud-osc-states-lctl (an MDS whose OSC to OST0000 is DISCONN)', async () => {
  const none = join(fixtures, 'no-lustre');
  const dump = join(fixtures, 'lctl/osc_states.lctl.txt');
  const text = await scrapeWith(
    [`--path.procfs=${join(none, 'proc')}`, `--path.sysfs=${join(none, 'sys')}`, '--collector.lustre_health.lctl', `--collector.lustre_health.lctl-path=${join(fixtures, 'bin/fake-lctl')}`],
    { JOBIO_FAKE_LCTL_FILE: dump },
  );
  assert.ok(promtoolCheckMetrics(text).ok);
  assertGolden(normaliseExposition(text), join(repoRoot, 'test/golden/lustre_health/whamcloud-osc-states-lctl.prom'));
  const samples = parseExposition(text);
  // Read apart: each section's current_state line.
  const states = [...readFileSync(dump, 'latin1').matchAll(/^current_state: (\S+)$/gm)].map((m) => m[1]);
  assert.equal(states.length, 8);
  for (const state of ['DISCONN', 'FULL', 'IDLE', 'EVICTED']) assert.equal(sample(samples, 'jobio_lustre_osc_imports', { fs: 'tesfs', state }), states.filter((s) => s === state).length, state);
  assert.equal(sample(samples, 'jobio_lustre_osc_imports', { fs: 'tesfs', state: 'DISCONN' }), 1);
  assert.equal(samples.filter((s) => s.name.startsWith('jobio_lustre_osc_rpc')).length, 0, 'no rpc_stats, no histogram');
});
