// The built exporter's lustre_lnet collector on every capture of LNet's counters: the 2.10 stats file
// (a pseudo-file tree), and `lnetctl stats show` with `lnetctl net show -v 4` (through a fake lnetctl),
// plus malformed ones and a host without LNet: a golden exposition per case, linted by promtool, and
// every value checked against a reading of the capture written here (columns and indented lines, not
// the exporter's parsers nor a YAML library). Regenerate with JOBIO_UPDATE_GOLDEN=1, then review.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startExporter, scrape, repoRoot } from '../helpers/exporter.js';
import { assertGolden, normaliseExposition } from '../helpers/golden.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { parseExposition, sample } from '../profiler/exposition.js';

const fixtures = join(repoRoot, 'test/fixtures/lustre');

/** lnetctl's counter names → the exported names; the stats file prints the first 11 in this order. */
const NAMES: readonly [string, string][] = [
  ['msgs_alloc', 'jobio_lnet_messages_allocated'],
  ['msgs_max', 'jobio_lnet_messages_allocated_max'],
  ['errors', 'jobio_lnet_errors_total'],
  ['send_count', 'jobio_lnet_sent_messages_total'],
  ['recv_count', 'jobio_lnet_received_messages_total'],
  ['route_count', 'jobio_lnet_routed_messages_total'],
  ['drop_count', 'jobio_lnet_dropped_messages_total'],
  ['send_length', 'jobio_lnet_sent_bytes_total'],
  ['recv_length', 'jobio_lnet_received_bytes_total'],
  ['route_length', 'jobio_lnet_routed_bytes_total'],
  ['drop_length', 'jobio_lnet_dropped_bytes_total'],
  ['resend_count', 'jobio_lnet_resent_messages_total'],
  ['response_timeout_count', 'jobio_lnet_response_timeouts_total'],
];

interface Case {
  readonly name: string;
  readonly tree?: string;
  readonly lnetctl?: { readonly stats: string; readonly net: string };
}

const cases: readonly Case[] = [
  { name: 'hp-2.10.1-stats-file', tree: 'lnet-hp-2.10.1' },
  { name: 'whamcloud-lnetctl', lnetctl: { stats: 'lnetctl/stats_show.yaml', net: 'lnetctl/net_show_v4.yaml' } },
  { name: 'malformed-stats-file', tree: 'lnet-malformed' },
  { name: 'malformed-lnetctl', lnetctl: { stats: 'lnetctl/malformed_stats_show.yaml', net: 'lnetctl/malformed_net_show_v4.yaml' } },
  { name: 'no-lustre', tree: 'no-lustre' },
];

async function scrapeCase(c: Case): Promise<string> {
  const tree = join(fixtures, c.tree ?? 'no-lustre');
  const args = ['--collector.disable-defaults', '--collector.lustre_lnet', `--path.procfs=${join(tree, 'proc')}`, `--path.sysfs=${join(tree, 'sys')}`];
  const env: Record<string, string> = {};
  if (c.lnetctl) {
    args.push('--collector.lustre_lnet.lnetctl', `--collector.lustre_lnet.lnetctl-path=${join(fixtures, 'bin/fake-lnetctl')}`);
    env.JOBIO_FAKE_LNETCTL_STATS = join(fixtures, c.lnetctl.stats);
    env.JOBIO_FAKE_LNETCTL_NET = join(fixtures, c.lnetctl.net);
  }
  const exporter = await startExporter(args, { env });
  try {
    return await scrape(`${exporter.url}/metrics`);
  } finally {
    await exporter.stop();
  }
}

/** `key: digits` lines indented under `statistics:` of `lnetctl stats show`. */
function lnetctlCounters(text: string): Map<string, number> {
  return new Map([...text.matchAll(/^ {4}(\w+): (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
}

interface Ni {
  net: string;
  nid: string;
  status?: string;
  statistics: Map<string, number>;
  health: Map<string, number>;
}

/** The NIs of `lnetctl net show -v 4`, walking its lines: `- net type:`, `- nid:`, then the sections by their key line. */
function lnetctlNis(text: string): Ni[] {
  const nis: Ni[] = [];
  let net = '';
  let section = '';
  for (const line of text.split('\n')) {
    const type = /^ {4}- net type: (\S+)$/.exec(line);
    if (type) net = type[1]!;
    const nid = /^ {8}- nid: (\S+)$/.exec(line);
    if (nid) nis.push({ net, nid: nid[1]!, statistics: new Map(), health: new Map() });
    const ni = nis.at(-1);
    const status = /^ {10}status: (\S+)$/.exec(line);
    if (status && ni) ni.status = status[1]!;
    const key = /^ {10}([\w ]+):$/.exec(line);
    if (key) section = key[1]!;
    const value = /^ {14}([\w ]+): (\d+)$/.exec(line);
    if (value && ni && section === 'statistics') ni.statistics.set(value[1]!, Number(value[2]));
    if (value && ni && section === 'health stats') ni.health.set(value[1]!, Number(value[2]));
  }
  return nis;
}

for (const c of cases) {
  test(`lustre_lnet golden: ${c.name}`, async () => {
    const text = await scrapeCase(c);
    const lint = promtoolCheckMetrics(text);
    assert.ok(lint.ok, `promtool check metrics:\n${lint.output}`);
    assertGolden(normaliseExposition(text), join(repoRoot, `test/golden/lustre_lnet/${c.name}.prom`));
    const samples = parseExposition(text);
    if (c.name === 'no-lustre') {
      assert.doesNotMatch(text, /^jobio_lnet_/m, 'a host without LNet exports no series');
      assert.match(text, /^jobio_scrape_collector_success\{collector="lustre_lnet"\} 0$/m);
      return;
    }
    if (c.name.startsWith('malformed')) return; // checked by hand below
    const expected = c.tree
      ? new Map(
          readFileSync(join(fixtures, c.tree, 'proc/sys/lnet/stats'), 'latin1')
            .trim()
            .split(' ')
            .map((v, i) => [NAMES[i]![0], Number(v)]),
        )
      : lnetctlCounters(readFileSync(join(fixtures, c.lnetctl!.stats), 'latin1'));
    let checked = 0;
    for (const [key, name] of NAMES) {
      assert.equal(sample(samples, name, {}), expected.get(key), `${name} = ${key}`);
      if (expected.has(key)) checked += 1;
    }
    assert.equal(checked, c.tree ? 11 : 13);
    if (!c.lnetctl) {
      assert.equal(samples.filter((s) => s.name.startsWith('jobio_lnet_ni_') || s.name === 'jobio_lnet_send_failures_total').length, 0, 'the stats file has no NI or failure counts');
      return;
    }
    const stats = lnetctlCounters(readFileSync(join(fixtures, c.lnetctl.stats), 'latin1'));
    for (const [key, value] of stats) {
      const m = /^(local|remote|network)_(\w+)_count$/.exec(key);
      if (m) assert.equal(sample(samples, 'jobio_lnet_send_failures_total', { origin: m[1]!, reason: m[2]! }), value, key);
    }
    const nis = lnetctlNis(readFileSync(join(fixtures, c.lnetctl.net), 'latin1'));
    assert.equal(nis.length, 3);
    assert.equal(samples.filter((s) => s.name === 'jobio_lnet_ni_up').length, nis.length, 'one series per NI');
    for (const ni of nis) {
      const labels = { net: ni.net, nid: ni.nid };
      assert.equal(sample(samples, 'jobio_lnet_ni_up', labels), ni.status === 'up' ? 1 : 0);
      assert.equal(sample(samples, 'jobio_lnet_ni_sent_messages_total', labels), ni.statistics.get('send_count'));
      assert.equal(sample(samples, 'jobio_lnet_ni_received_messages_total', labels), ni.statistics.get('recv_count'));
      assert.equal(sample(samples, 'jobio_lnet_ni_dropped_messages_total', labels), ni.statistics.get('drop_count'));
      assert.equal(sample(samples, 'jobio_lnet_ni_health_value', labels), ni.health.get('health value'));
      for (const [key, reason] of [
        ['interrupts', 'interrupt'],
        ['dropped', 'dropped'],
        ['aborted', 'aborted'],
        ['no route', 'no_route'],
        ['timeouts', 'timeout'],
        ['error', 'error'],
      ] as const)
        assert.equal(sample(samples, 'jobio_lnet_ni_send_failures_total', { ...labels, reason }), ni.health.get(key), `${ni.nid} ${key}`);
    }
  });
}

test('lustre_lnet: the capture values, by hand; malformed values counted, never exported', async () => {
  const hp = parseExposition(await scrapeCase(cases[0]!));
  // 2.10.1: "0 28 0 101719323 101719291 0 0 21201322992 53029565353720 0 0"
  assert.equal(sample(hp, 'jobio_lnet_sent_messages_total', {}), 101719323);
  assert.equal(sample(hp, 'jobio_lnet_received_bytes_total', {}), 53029565353720);
  assert.equal(sample(hp, 'jobio_lnet_messages_allocated_max', {}), 28);
  const wc = parseExposition(await scrapeCase(cases[1]!));
  assert.equal(sample(wc, 'jobio_lnet_dropped_messages_total', {}), 11);
  assert.equal(sample(wc, 'jobio_lnet_dropped_bytes_total', {}), 4832);
  assert.equal(sample(wc, 'jobio_lnet_ni_dropped_messages_total', { net: 'tcp', nid: '172.16.0.25@tcp' }), 3);

  const badFile = parseExposition(await scrapeCase(cases[2]!));
  assert.equal(sample(badFile, 'jobio_lnet_scrape_errors_total', { reason: 'parse' }), 1, '8 integers instead of 11');
  assert.equal(badFile.filter((s) => s.name.startsWith('jobio_lnet_') && s.name !== 'jobio_lnet_scrape_errors_total').length, 0);

  const bad = parseExposition(await scrapeCase(cases[3]!));
  // stats: errors "lots", drop_count -3; net: status "sideways", recv_count "many", an NI without nid, a net without NIs.
  assert.equal(sample(bad, 'jobio_lnet_scrape_errors_total', { reason: 'parse' }), 6);
  assert.deepEqual(
    ['jobio_lnet_messages_allocated_max', 'jobio_lnet_sent_messages_total', 'jobio_lnet_errors_total', 'jobio_lnet_dropped_messages_total'].map((n) => sample(bad, n, {})),
    [39, 1110532, undefined, undefined],
  );
  const ni = { net: 'tcp', nid: '172.16.0.24@tcp' };
  assert.deepEqual(
    ['jobio_lnet_ni_up', 'jobio_lnet_ni_sent_messages_total', 'jobio_lnet_ni_received_messages_total', 'jobio_lnet_ni_dropped_messages_total', 'jobio_lnet_ni_health_value'].map((n) =>
      sample(bad, n, ni),
    ),
    [undefined, 464970, undefined, 4, 1000],
  );
  assert.equal(sample(bad, 'jobio_lnet_ni_send_failures_total', { ...ni, reason: 'timeout' }), 2);
  assert.equal(bad.filter((s) => s.name === 'jobio_lnet_ni_health_value').length, 1, 'only the NI with a nid');
});
