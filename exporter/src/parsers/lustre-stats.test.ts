// Table tests of the plain stats parser: literal malformed cases and the real captures copied under
// test/fixtures/lustre (origins in its SOURCES.md), with exact values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseLustreStats, parseStatsParam, type StatsSection } from './lustre-stats.js';

const fixture = (path: string): string => readFileSync(new URL(`../../../test/fixtures/lustre/${path}`, import.meta.url), 'latin1');
const counter = (s: StatsSection, name: string) => s.counters.find((c) => c.name === name);

test('2.10 obdfilter stats: duplicate statfs keeps the first and counts the second', () => {
  const [s, ...rest] = parseLustreStats(fixture('stats-hp-2.10.1/proc/fs/lustre/obdfilter/lustrefs-OST0000/stats'));
  assert.equal(rest.length, 0);
  assert.equal(s!.param, undefined);
  assert.equal(s!.snapshotUnit, 'secs.nsecs');
  assert.equal(s!.snapshotTime, 1510782606.789181); // the double nearest the printed 1510782606.789180921
  assert.equal(s!.badLines, 0);
  assert.equal(s!.duplicates, 1);
  assert.deepEqual(counter(s!, 'statfs'), { name: 'statfs', samples: 35359, unit: 'reqs' });
  assert.deepEqual(counter(s!, 'write_bytes'), { name: 'write_bytes', samples: 4298711, unit: 'bytes', min: 4096n, max: 4194304n, sum: 16552048697344n });
  assert.deepEqual(
    s!.counters.map((c) => c.name),
    ['write_bytes', 'punch', 'create', 'statfs', 'connect', 'reconnect', 'preprw', 'commitrw', 'ping'],
  );
});

test('secs.usecs snapshot and 2.12 export stats values up to 7.8e13', () => {
  const [s] = parseLustreStats(fixture('stats-mixed-layouts/proc/fs/lustre/obdfilter/OST0001/exports/10.2.4.27@o2ib1/stats'));
  assert.equal(s!.snapshotUnit, 'secs.usecs');
  assert.equal(s!.snapshotTime, 1438693064.430544);
  assert.equal(counter(s!, 'read_bytes')!.sum, 78026117632000n);
  assert.equal(counter(s!, 'get_info')!.samples, 1182008495);
  assert.equal(s!.counters.length, 17);
});

test('md_stats with reqs min/max/sum and samples beyond 2^32', () => {
  const [s] = parseLustreStats(fixture('stats-mixed-layouts/sys/kernel/debug/lustre/mdt/public1-MDT0000/md_stats'));
  assert.equal(counter(s!, 'open')!.samples, 47592297965);
  assert.deepEqual(counter(s!, 'close'), { name: 'close', samples: 17987924787, unit: 'reqs', min: 1n, max: 1n, sum: 17987924787n });
  assert.equal(s!.badLines, 0);
});

test('the [regs] typo is a unit like any other', () => {
  const [s] = parseLustreStats(readFileSync('/dev/null', 'latin1') + 'snapshot_time 1 secs.nsecs\nopen                      8 samples [regs]\n');
  assert.deepEqual(s!.counters, [{ name: 'open', samples: 8, unit: 'regs' }]);
});

test('lctl dump 2.14.0_ddn133: 63 export stats, a sumsq above 2^63, other parameters ignored', () => {
  const sections = parseLustreStats(fixture('lctl/2.14.0_ddn133_exports.lctl.txt'));
  const exports = sections.filter((s) => s.param !== undefined && parseStatsParam(s.param)?.nid !== undefined);
  assert.equal(exports.length, 63);
  assert.equal(exports.filter((s) => s.param!.startsWith('mdt.')).length, 21);
  const ost1 = sections.find((s) => s.param === 'obdfilter.ai400x2-OST0001.stats')!;
  const rb = counter(ost1, 'read_bytes')!;
  assert.equal(rb.samples, 94574861);
  assert.equal(rb.sum, 70989294964736n);
  assert.equal(rb.sumsq, 18386454136297095168n);
  assert.ok(rb.sumsq > 1n << 63n);
  assert.equal(ost1.badLines, 0);
  const md = sections.find((s) => s.param === 'mdt.ai400x2-MDT0000.md_stats');
  assert.ok(md && md.counters.length > 0 && md.badLines === 0);
  for (const s of exports) assert.equal(s.badLines, 0, s.param);
});

test('lctl dump 2.14.0_ddn145: start_time and elapsed_time headers', () => {
  const s = parseLustreStats(fixture('lctl/2.14.0_ddn145_stats.lctl.txt')).find((x) => x.param === 'obdfilter.fs-OST0000.stats')!;
  assert.equal(s.startTime, '1715712428.324534805');
  assert.equal(s.elapsedTime, 583308.963434542);
  assert.deepEqual(counter(s, 'get_info'), { name: 'get_info', samples: 2, unit: 'usecs', min: 1217n, max: 13065n, sum: 14282n, sumsq: 172175314n });
});

test('ziyht 674 MDT export stats reassembled as lctl output', () => {
  const sections = parseLustreStats(fixture('lctl/ziyht-2.12.5-mdt.exports.all.stats.lctl.txt'));
  assert.equal(sections.length, 674);
  assert.equal(
    sections.reduce((n, s) => n + s.badLines, 0),
    0,
  );
  assert.deepEqual(parseStatsParam(sections[1]!.param!), { kind: 'mdt', target: 'public1-MDT0000', nid: '10.10.58.3@o2ib', file: 'stats' });
  assert.equal(sections[1]!.counters.length, 0, 'a client with only zero counters prints just snapshot_time');
});

test('malformed input never throws and is counted', () => {
  const cases: [string, number, number][] = [
    ['', 0, 0],
    ['snapshot_time', 0, 1],
    ['open 12 samples', 0, 1],
    ['open 12 samples [reqs] 1 2', 0, 1],
    ['open -3 samples [reqs]', 0, 1],
    ['open 99999999999999999999999 samples [reqs]', 0, 1],
    ['sync 1 samples [reqs] 1 1 1 99999999999999999999999', 0, 1],
    ['open 5 samples [reqs]\r\nclose 4 samples [reqs]\n\u0000\u00ff garbage', 2, 1],
    ['sum 1 samples [bytes] -5 10 -99', 1, 0],
    ['big 18446744073709551615 samples [reqs]', 1, 0],
  ];
  for (const [text, counters, bad] of cases) {
    const sections = parseLustreStats(text);
    assert.equal(
      sections.reduce((n, s) => n + s.counters.length, 0),
      counters,
      JSON.stringify(text),
    );
    assert.equal(
      sections.reduce((n, s) => n + s.badLines, 0),
      bad,
      JSON.stringify(text),
    );
  }
  assert.equal(parseLustreStats('big 18446744073709551615 samples [reqs]')[0]!.counters[0]!.samples, 18446744073709551615n);
});

test('lctl framing: inline values, lines before any header, param names', () => {
  const sections = parseLustreStats('stray 1 samples [reqs]\nobdfilter.fs-OST0000.num_exports=2\nobdfilter.fs-OST0000.stats=\nsnapshot_time 5.5 secs.nsecs\nping 3 samples [reqs]\n');
  assert.deepEqual(
    sections.map((s) => [s.param, s.counters.length, s.badLines]),
    [
      [undefined, 1, 0],
      ['obdfilter.fs-OST0000.num_exports', 0, 1],
      ['obdfilter.fs-OST0000.stats', 1, 0],
    ],
  );
  assert.equal(parseStatsParam('obdfilter.fs-OST0000.exports.172.20.20.4@o2ib.stats')?.nid, '172.20.20.4@o2ib');
  assert.deepEqual(parseStatsParam('mdt.fs-MDT0000.md_stats'), { kind: 'mdt', target: 'fs-MDT0000', file: 'md_stats' });
  assert.equal(parseStatsParam('mgs.MGS.mgs.stats'), undefined);
  assert.equal(parseStatsParam('osd-ldiskfs.fs-OST0001.quota_slave.acct_project'), undefined);
});
