// The collector's update() on a temp tree, through prom-client: absent without Lustre, series kept on
// a failed read, the registry reset and refilled each scrape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MetricRegistry } from '../scrape/metric-registry.js';
import { lustreJobStatsCollector } from './lustre_jobstats.js';
import { collectorOnRoot } from '../../../test/helpers/collector-on-root.js';

const ENTRY = (bytes: number): string => `job_stats:\n- job_id:          9:5000:n1\n  write_bytes:     { samples:           1, unit: bytes, min: 1, max: 1, sum: ${bytes} }\n`;

function setup(options: Record<string, string | number | boolean> = {}): { root: string; registry: MetricRegistry; update: () => Promise<string> } {
  const root = mkdtempSync(join(tmpdir(), 'jobio-lustre-collector-'));
  const { registry, collector: c } = collectorOnRoot(lustreJobStatsCollector, root, { getent: false, ...options });
  return { root, registry, update: () => c.update(new AbortController().signal) };
}

test('lustre_jobstats collector: absent and empty without Lustre', async () => {
  const { registry, update } = setup();
  assert.equal(await update(), 'absent');
  assert.doesNotMatch(await registry.metrics(), /^jobio_lustre_jobstats_\w+\{/m);
});

test('lustre_jobstats collector: a read error keeps the series and counts the error', async () => {
  const { root, registry, update } = setup();
  const dir = join(root, 'proc/fs/lustre/obdfilter/fs-OST0000');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'job_stats'), ENTRY(100));
  assert.equal(await update(), 'ok');
  assert.match(await registry.metrics(), /^jobio_lustre_jobstats_write_bytes_total\{target="fs-OST0000",jobid="9",user="uid:5000"\} 100$/m);
  rmSync(join(dir, 'job_stats'));
  mkdirSync(join(dir, 'job_stats')); // exists, but reading it fails
  assert.equal(await update(), 'ok');
  const text = await registry.metrics();
  assert.match(text, /^jobio_lustre_jobstats_write_bytes_total\{target="fs-OST0000",jobid="9",user="uid:5000"\} 100$/m);
  assert.match(text, /^jobio_lustre_jobstats_read_errors_total\{target="fs-OST0000",reason="not_regular_file"\} 1$/m, 'a directory is not a file');
  assert.match(text, /^jobio_lustre_jobstats_read_errors_total\{target="fs-OST0000",reason="unreadable"\} 0$/m);
  assert.doesNotMatch(text, /^jobio_lustre_jobstats_entries\{/m, 'no entry counts for a target not read');
  rmSync(join(dir, 'job_stats'), { recursive: true });
  writeFileSync(join(dir, 'job_stats'), ENTRY(150));
  await update();
  assert.match(await registry.metrics(), /^jobio_lustre_jobstats_write_bytes_total\{target="fs-OST0000",jobid="9",user="uid:5000"\} 150$/m);
});

test('lustre_jobstats collector: a number beyond any u64 (or double) in one target leaves every target served', async () => {
  const { root, registry, update } = setup();
  const bad = join(root, 'proc/fs/lustre/obdfilter/fs-OST0000');
  const good = join(root, 'proc/fs/lustre/obdfilter/fs-OST0001');
  mkdirSync(bad, { recursive: true });
  mkdirSync(good, { recursive: true });
  writeFileSync(join(bad, 'job_stats'), ENTRY(100));
  writeFileSync(join(good, 'job_stats'), ENTRY(5));
  assert.equal(await update(), 'ok');
  writeFileSync(join(bad, 'job_stats'), ENTRY(100).replace('sum: 100', `sum: ${'9'.repeat(400)}`));
  writeFileSync(join(good, 'job_stats'), ENTRY(7));
  assert.equal(await update(), 'ok');
  let text = await registry.metrics();
  assert.match(text, /^jobio_lustre_jobstats_write_bytes_total\{target="fs-OST0000",jobid="9",user="uid:5000"\} 100$/m);
  assert.match(text, /^jobio_lustre_jobstats_write_bytes_total\{target="fs-OST0001",jobid="9",user="uid:5000"\} 7$/m);
  assert.match(text, /^jobio_lustre_jobstats_entries\{target="fs-OST0000",quality="malformed",uid_class="none"\} 1$/m);
  assert.match(text, /^jobio_lustre_jobstats_parse_errors_total\{target="fs-OST0000",reason="value_out_of_range"\} 1$/m, 'the rejected entry is counted');
  assert.match(text, /^jobio_lustre_jobstats_parse_errors_total\{target="fs-OST0001",reason="value_out_of_range"\} 0$/m);
  writeFileSync(join(bad, 'job_stats'), ENTRY(130));
  assert.equal(await update(), 'ok');
  text = await registry.metrics();
  assert.match(text, /^jobio_lustre_jobstats_write_bytes_total\{target="fs-OST0000",jobid="9",user="uid:5000"\} 130$/m);
});

/** `count` entries `<first..>:5000:n1`, each with `bytes` written. */
function entries(first: number, count: number, bytes: number): string {
  let text = '';
  for (let i = first; i < first + count; i += 1) text += `- job_id:          ${i}:5000:n1\n  write_bytes:     { samples:           1, unit: bytes, min: 1, max: 1, sum: ${bytes} }\n`;
  return text;
}

// The guard only turns a hang (the bug) into a failure instead of a stuck suite; nothing is timed.
test('lustre_jobstats collector: FIFOs named job_stats are refused (read error), the other targets served', { timeout: 60_000 }, async () => {
  const { root, registry, update } = setup();
  for (let i = 1; i <= 4; i += 1) {
    const dir = join(root, `proc/fs/lustre/obdfilter/fs-OST000${i}`);
    mkdirSync(dir, { recursive: true });
    assert.equal(spawnSync('mkfifo', [join(dir, 'job_stats')]).status, 0);
  }
  const good = join(root, 'proc/fs/lustre/obdfilter/fs-OST0000');
  mkdirSync(good, { recursive: true });
  writeFileSync(join(good, 'job_stats'), ENTRY(100));
  assert.equal(await update(), 'ok');
  writeFileSync(join(good, 'job_stats'), ENTRY(120));
  assert.equal(await update(), 'ok', 'and again: nothing is left blocked');
  const text = await registry.metrics();
  assert.match(text, /^jobio_lustre_jobstats_write_bytes_total\{target="fs-OST0000",jobid="9",user="uid:5000"\} 120$/m);
  for (let i = 1; i <= 4; i += 1) assert.match(text, new RegExp(`^jobio_lustre_jobstats_read_errors_total\\{target="fs-OST000${i}",reason="not_regular_file"\\} 2$`, 'm'));
});

test('lustre_jobstats collector: a file beyond max-file-bytes is read up to the bound, counted, nothing counted twice', async () => {
  const { root, registry, update } = setup({ 'max-file-bytes': 4096 });
  const big = join(root, 'proc/fs/lustre/obdfilter/fs-OST0000');
  const small = join(root, 'proc/fs/lustre/obdfilter/fs-OST0001');
  mkdirSync(big, { recursive: true });
  mkdirSync(small, { recursive: true });
  // 100 entries of 2 lines (~120 bytes each): the first ~30 fit in 4096 bytes.
  writeFileSync(join(big, 'job_stats'), `job_stats:\n${entries(1000, 100, 10)}`);
  writeFileSync(join(small, 'job_stats'), ENTRY(5));
  assert.equal(await update(), 'ok');
  writeFileSync(join(big, 'job_stats'), `job_stats:\n${entries(1000, 100, 11)}`);
  writeFileSync(join(small, 'job_stats'), ENTRY(6));
  assert.equal(await update(), 'ok');
  let text = await registry.metrics();
  assert.match(text, /^jobio_lustre_jobstats_truncated_reads_total\{target="fs-OST0000",reason="max_file_bytes"\} 2$/m);
  assert.doesNotMatch(text, /^jobio_lustre_jobstats_truncated_reads_total\{target="fs-OST0001",reason="max_file_bytes"\} [1-9]/m);
  assert.match(text, /^jobio_lustre_jobstats_write_bytes_total\{target="fs-OST0001",jobid="9",user="uid:5000"\} 6$/m);
  const seen = Number(/^jobio_lustre_jobstats_entries\{target="fs-OST0000",quality="correct",uid_class="non_system"\} (\d+)$/m.exec(text)?.[1]);
  assert.ok(seen > 10 && seen < 40, `entries read within 4096 bytes: ${seen}`);
  // Every entry read moved 10 -> 11: the increments of the first scrape's starting values are exact.
  assert.match(text, /^jobio_lustre_jobstats_write_bytes_total\{target="fs-OST0000",jobid="1000",user="uid:5000"\} 11$/m);
  // The file shrinks under the bound: the entries beyond the old cut are new (born at 0), the others continue.
  writeFileSync(join(big, 'job_stats'), `job_stats:\n${entries(1000, 3, 12)}`);
  assert.equal(await update(), 'ok');
  text = await registry.metrics();
  assert.match(text, /^jobio_lustre_jobstats_write_bytes_total\{target="fs-OST0000",jobid="1000",user="uid:5000"\} 12$/m);
  assert.match(text, /^jobio_lustre_jobstats_truncated_reads_total\{target="fs-OST0000",reason="max_file_bytes"\} 2$/m);
});

test('lustre_jobstats collector: beyond max-entries new entries are dropped and counted, the known ones keep counting', async () => {
  const { root, registry, update } = setup({ 'max-entries': 5 });
  const dir = join(root, 'proc/fs/lustre/obdfilter/fs-OST0000');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'job_stats'), `job_stats:\n${entries(2000, 8, 10)}`);
  assert.equal(await update(), 'ok');
  writeFileSync(join(dir, 'job_stats'), `job_stats:\n${entries(2000, 8, 15)}`);
  assert.equal(await update(), 'ok');
  const text = await registry.metrics();
  assert.match(text, /^jobio_lustre_jobstats_dropped_entries_total\{target="fs-OST0000"\} 6$/m, '3 dropped per read');
  assert.match(text, /^jobio_lustre_jobstats_entries\{target="fs-OST0000",quality="correct",uid_class="non_system"\} 5$/m);
  assert.match(text, /^jobio_lustre_jobstats_write_bytes_total\{target="fs-OST0000",jobid="2004",user="uid:5000"\} 15$/m);
  assert.doesNotMatch(text, /jobid="2005"/);
});

test('lustre_jobstats collector: beyond max-targets the further targets are not read, and the metric says how many', async () => {
  const { root, registry, update } = setup({ 'max-targets': 2 });
  for (const name of ['fs-OST0003', 'fs-OST0001', 'fs-OST0002', 'fs-OST0000']) {
    mkdirSync(join(root, 'proc/fs/lustre/obdfilter', name), { recursive: true });
    writeFileSync(join(root, 'proc/fs/lustre/obdfilter', name, 'job_stats'), ENTRY(10));
  }
  assert.equal(await update(), 'ok');
  const text = await registry.metrics();
  assert.match(text, /^jobio_lustre_jobstats_targets_dropped 2$/m);
  assert.match(text, /^jobio_lustre_jobstats_max_targets 2$/m);
  assert.deepEqual(
    [...text.matchAll(/^jobio_lustre_jobstats_entries\{target="([^"]+)",quality="correct",uid_class="non_system"\} 1$/gm)].map((m) => m[1]),
    ['fs-OST0000', 'fs-OST0001'],
    'the first targets in name order',
  );
});

test('lustre_jobstats collector: a job id or executable whose escapes decode to control characters is malformed, never a label', async () => {
  const { root, registry, update } = setup({ 'jobid-format': '%j:%u:%H,%e.%u' });
  const dir = join(root, 'proc/fs/lustre/obdfilter/fs-OST0000');
  mkdirSync(dir, { recursive: true });
  // Lustre 2.15.2+ quotes such ids and writes each byte as \xHH: OSC 52 (clipboard write), a window
  // title, clear-screen, and a C1 CSI (U+009B, two bytes in UTF-8).
  const ids = ['"\\x1B]52;c;aGk=\\x07:5000:n1"', '"\\x1B]0;pwned\\x07.5000"', '"7\\x1B[2J:5000:n1"', '"8\\xC2\\x9B2J:5000:n1"'];
  const file = (bytes: number): string =>
    `job_stats:\n${['9:5000:n1', ...ids].map((id) => `- job_id:          ${id}\n  write_bytes:     { samples:           1, unit: bytes, min: 1, max: 1, sum: ${bytes} }\n`).join('')}`;
  writeFileSync(join(dir, 'job_stats'), file(10));
  assert.equal(await update(), 'ok');
  writeFileSync(join(dir, 'job_stats'), file(25));
  assert.equal(await update(), 'ok');
  const text = await registry.metrics();
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, 'no control character in the exposition');
  assert.match(text, /^jobio_lustre_jobstats_entries\{target="fs-OST0000",quality="malformed",uid_class="none"\} 4$/m);
  assert.match(text, /^jobio_lustre_jobstats_write_bytes_total\{target="fs-OST0000",jobid="9",user="uid:5000"\} 25$/m);
  // Their load still counts, in _other: 4 entries × 25 bytes, as job 9's 25.
  assert.match(text, /^jobio_lustre_jobstats_write_bytes_total\{target="fs-OST0000",jobid="_other",user="_other"\} 100$/m);
});

test('lustre_jobstats collector: entry counts split by system and non-system uid (up to system-uid-max, default 999)', async () => {
  const ids = ['1:0:n1', ':0:n1', 'cp.989', '3:999:n1', '4:1000:n1', '2:5000:n1', ':5000:n1', ':5001:n1', 'dd.1000', 'wget.', ':1317854:17627127:r01c01'];
  const file = `job_stats:\n${ids.map((id) => `- job_id:          ${id}\n  write_bytes:     { samples:           1, unit: bytes, min: 1, max: 1, sum: 7 }\n`).join('')}`;
  const counts = async (options: Record<string, string | number | boolean>) => {
    const { root, registry, update } = setup({ 'jobid-format': '%j:%u:%H,%e.%u', ...options });
    const dir = join(root, 'proc/fs/lustre/obdfilter/fs-OST0000');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'job_stats'), file);
    assert.equal(await update(), 'ok');
    const text = await registry.metrics();
    return [...text.matchAll(/^jobio_lustre_jobstats_entries\{target="fs-OST0000",quality="([^"]+)",uid_class="([^"]+)"\} (\d+)$/gm)].map((m) => `${m[1]}/${m[2]} ${m[3]}`);
  };
  // uid 0, 989, 999: system; 1000, 5000, 5001: non-system; the two malformed ids carry no uid.
  assert.deepEqual(await counts({}), [
    'correct/system 3',
    'correct/non_system 3',
    'correct/none 0',
    'missing_jobid/system 1',
    'missing_jobid/non_system 2',
    'missing_jobid/none 0',
    'malformed/none 2',
  ]);
  // The bound is the one of the user="_system" label: at 0 only root is a system user.
  assert.deepEqual((await counts({ 'system-uid-max': '0' })).slice(0, 5), ['correct/system 1', 'correct/non_system 5', 'correct/none 0', 'missing_jobid/system 1', 'missing_jobid/non_system 2']);
  // A format without %u: no uid, so every entry is `none`.
  assert.deepEqual(await counts({ 'jobid-format': '%j' }), [
    'correct/system 0',
    'correct/non_system 0',
    'correct/none 11',
    'missing_jobid/system 0',
    'missing_jobid/non_system 0',
    'missing_jobid/none 0',
    'malformed/none 0',
  ]);
});

test('lustre_jobstats collector: a file that grows past the whole-read bound and shrinks back is counted exactly on either path', async () => {
  const { root, registry, update } = setup();
  const dir = (target: string): string => join(root, 'proc/fs/lustre/obdfilter', target);
  for (const target of ['fs-OST0000', 'fs-OST0001']) mkdirSync(dir(target), { recursive: true });
  writeFileSync(join(dir('fs-OST0001'), 'job_stats'), ENTRY(5));
  // 700 more entries: ~80 KB, over the 64 KiB read whole on the worker thread (then streamed).
  const filler = Array.from({ length: 700 }, (_, i) => `- job_id:          ${1000 + i}:5000:n1\n  write_bytes:     { samples:           1, unit: bytes, min: 1, max: 1, sum: 1 }\n`).join('');
  const sizes = [ENTRY(100), ENTRY(150) + filler, ENTRY(150) + filler, ENTRY(170), ENTRY(200), ENTRY(200)];
  const texts: string[] = [];
  for (const text of sizes) {
    writeFileSync(join(dir('fs-OST0000'), 'job_stats'), text);
    assert.equal(await update(), 'ok');
    texts.push(await registry.metrics());
  }
  const value = (text: string | undefined, target: string): string | undefined =>
    new RegExp(`^jobio_lustre_jobstats_write_bytes_total\\{target="${target}",jobid="9",user="uid:5000"\\} (\\d+)$`, 'm').exec(text ?? '')?.[1];
  assert.deepEqual(
    texts.map((t) => [value(t, 'fs-OST0000'), value(t, 'fs-OST0001')]),
    [
      ['100', '5'],
      ['150', '5'],
      ['150', '5'],
      ['170', '5'],
      ['200', '5'],
      ['200', '5'],
    ],
  );
  // The grown file was read whole: its 701 entries are counted.
  assert.match(texts[1] ?? '', /^jobio_lustre_jobstats_entries\{target="fs-OST0000",quality="correct",uid_class="non_system"\} 701$/m);
  // Nothing changed: the same exposition, streamed (big) or read whole (small).
  assert.equal(texts[2], texts[1]);
  assert.equal(texts[5], texts[4]);
  for (const t of texts) assert.doesNotMatch(t, /^jobio_lustre_jobstats_(read_errors|truncated_reads)_total\{[^}]*\} [1-9]/m);
});
