// The full screen of `jobio top` as text: scaled units, keys, the frame cut to the terminal, folding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { byteRate, countRate, windowText } from './units.js';
import { applyKey, splitKeys, type ScreenState } from './keys.js';
import { fit, layoutScreen } from './screen.js';
import { dropIdle, filterRows, foldSystem } from './fold.js';
import { emptyRow, sortRows, type TopRow } from './table.js';
import { answerableWindow, intervalsByJob, medianGapMs } from './window.js';

test('scaled units: bytes in binary prefixes, counts in decimal ones, never four integer digits', () => {
  assert.equal(byteRate(0), '0');
  assert.equal(byteRate(512), '512 B/s');
  assert.equal(byteRate(1023), '1 KiB/s');
  assert.equal(byteRate(1.5 * 2 ** 20), '1.5 MiB/s');
  // The reported case: 9 TiB over a 10 s interval, once printed as 9437184.0 MB.
  assert.equal(byteRate((9 * 2 ** 40) / 10), '922 GiB/s');
  assert.equal(byteRate(9 * 2 ** 40), '9 TiB/s');
  assert.equal(countRate(0), '0');
  assert.equal(countRate(12.5), '12.5');
  assert.equal(countRate(1_260_000), '1.26M');
  assert.equal(countRate(125_200), '125k');
  assert.equal(windowText(10_000), '10s');
  assert.equal(windowText(120_000), '2m');
  assert.equal(windowText(90_000), '1m30s');
});

test('window: widened to 4 scrape intervals when --interval is shorter, and said', () => {
  assert.deepEqual(answerableWindow(10_000, 30_000), { ms: 120_000, scrapeMs: 30_000, note: 'widened from --interval 10s to 4 × the 30s scrape interval' });
  assert.deepEqual(answerableWindow(300_000, 30_000), { ms: 300_000, scrapeMs: 30_000 });
  assert.deepEqual(answerableWindow(10_000, undefined), { ms: 10_000 });
});

test('window: scrape intervals from a Prometheus and from a VictoriaMetrics targets answer', () => {
  // Prometheus: scrapeInterval per target; VictoriaMetrics: only the discovered __scrape_interval__.
  const prometheus = {
    status: 'success',
    data: {
      activeTargets: [
        { labels: { job: 'jobio' }, scrapeInterval: '30s' },
        { labels: { job: 'jobio' }, scrapeInterval: '15s' },
        { labels: { job: 'node' }, scrapeInterval: '1m' },
      ],
    },
  };
  assert.deepEqual(
    [...intervalsByJob(prometheus)!],
    [
      ['jobio', 30_000],
      ['node', 60_000],
    ],
  );
  const victoria = { status: 'success', data: { activeTargets: [{ labels: { job: 'jobio', instance: 'n1:9121' }, discoveredLabels: { __scrape_interval__: '1s', job: 'jobio' } }] } };
  assert.deepEqual([...intervalsByJob(victoria)!], [['jobio', 1_000]]);
  // A target without any interval, or with an unreadable one, is left out; a failed answer is none.
  assert.deepEqual([...intervalsByJob({ status: 'success', data: { activeTargets: [{ labels: { job: 'x' } }, { labels: { job: 'y' }, scrapeInterval: 'soon' }] } })!], []);
  assert.equal(intervalsByJob({ status: 'error' }), undefined);
});

test('window: the scrape interval from sample times is their median gap, however young the series', () => {
  // 41 samples 1 s apart: 1 s (a count over a 10 min probe would have said 15 s).
  assert.equal(medianGapMs(Array.from({ length: 41 }, (_, i) => 1700000000 + i)), 1_000);
  // One missed scrape and one late one do not move it.
  assert.equal(medianGapMs([0, 30, 60, 120, 151, 180, 210]), 30_000);
  assert.equal(medianGapMs([5]), undefined);
  assert.equal(medianGapMs([]), undefined);
});

const state: ScreenState = { sort: 'MDT_REQS', reversed: false, filters: {}, paused: false, fold: true, help: false };
const cols = ['JOB', 'WR_MB', 'RD_MB', 'REQS', 'MDT_REQS', 'OWNER'];

test('keys: sort by the neighbouring column, by number, inverted; pause; quit', () => {
  assert.deepEqual(splitKeys('a\x1b[C\x1b[Dq'), ['a', '\x1b[C', '\x1b[D', 'q']);
  assert.equal(applyKey(state, '<', cols).state.sort, 'REQS');
  assert.equal(applyKey(state, '\x1b[C', cols).state.sort, 'OWNER');
  assert.equal(applyKey(applyKey(state, '>', cols).state, '>', cols).state.sort, 'OWNER', 'stops at the last column');
  assert.equal(applyKey(state, '2', cols).state.sort, 'WR_MB');
  assert.equal(applyKey(state, '9', cols).state.sort, 'MDT_REQS', 'no ninth column: unchanged');
  assert.equal(applyKey(state, 'i', cols).state.reversed, true);
  assert.equal(applyKey(applyKey(state, 'i', cols).state, '2', cols).state.reversed, false, 'a new column starts in its natural order');
  assert.equal(applyKey(state, 'p', cols).state.paused, true);
  assert.equal(applyKey(state, 'q', cols).quit, true);
  assert.equal(applyKey(state, '\x03', cols).quit, true);
  assert.equal(applyKey(state, 'f', cols).state.fold, false);
});

test('keys: a filter typed in a prompt, applied by Enter, cancelled by Esc, cleared by c', () => {
  let s = state;
  for (const k of splitKeys('uali\x7fic')) s = applyKey(s, k, cols).state;
  assert.deepEqual(s.prompt, { field: 'user', text: 'alic' }, 'q and c are text inside the prompt, backspace deletes');
  s = applyKey(s, '\r', cols).state;
  assert.deepEqual(s.filters, { user: 'alic' });
  assert.equal(s.prompt, undefined);
  s = applyKey(applyKey(applyKey(s, 't', cols).state, 'M', cols).state, '\x1b', cols).state;
  assert.deepEqual(s.filters, { user: 'alic' }, 'Esc cancels');
  s = applyKey(applyKey(s, 'j', cols).state, '\x07', cols).state;
  assert.equal(s.prompt?.text, '', 'control characters never enter a filter');
  s = applyKey(applyKey(s, '\r', cols).state, 'c', cols).state;
  assert.deepEqual(s.filters, {});
});

function row(job: string, owner: string, wr: number, reqs: number, meta = 0): TopRow {
  const r = emptyRow(job);
  r.wr = wr;
  r.reqs = reqs;
  r.meta = meta;
  r.owners.add(owner);
  r.targets.add(meta > 0 ? 'fs-MDT0000' : 'fs-OST0000');
  return r;
}

test('rows: idle dropped, _system folded into one row, filters, default sort by MDT requests', () => {
  const rows = [row('101', 'alice', 9e9, 10), row('102', 'bob', 1, 1_260_000, 1_250_000), row('vi', '_system', 5, 0), row('cron', '_system', 7, 2), row('103', 'carol', 0, 0)];
  const busy = dropIdle(rows);
  assert.deepEqual(
    busy.map((r) => r.job),
    ['101', '102', 'vi', 'cron'],
  );
  const folded = foldSystem(busy);
  assert.deepEqual(
    folded.map((r) => [r.job, r.wr, r.reqs, r.entries]),
    [
      ['101', 9e9, 10, 1],
      ['102', 1, 1_260_000, 1],
      ['_system(2)', 12, 2, 2],
    ],
  );
  assert.deepEqual(
    sortRows(folded, 'meta').map((r) => r.job),
    ['102', '101', '_system(2)'],
    'the metadata storm first, then by requests',
  );
  assert.deepEqual(
    sortRows(folded, 'wr').map((r) => r.job),
    ['101', '_system(2)', '102'],
  );
  assert.deepEqual(
    sortRows(folded, 'JOB', new Map(), true).map((r) => r.job),
    ['102', '101', '_system(2)'],
  );
  assert.deepEqual(
    filterRows(folded, { user: 'ob' }).map((r) => r.job),
    ['102'],
  );
  assert.equal(foldSystem([row('vi', '_system', 5, 0)])[0]?.job, 'vi', 'one system row stays itself');
});

test('frame: fits the terminal; the blocks above and below give way before the table', () => {
  const cells = Array.from({ length: 30 }, (_, i) => [`job${i}`, `${i}`]);
  const view = {
    width: 20,
    height: 12,
    above: ['banner 1', 'banner 2'],
    title: 'jobio top — by job, a title longer than twenty columns',
    status: 'status',
    header: ['JOB', 'REQS'],
    cells,
    numeric: [false, true],
    sortIndex: 1,
    reversed: false,
    below: ['below 1', 'below 2', 'below 3'],
    footer: ['q quit'],
  };
  const tall = layoutScreen({ ...view, height: 40 });
  assert.equal(tall.lines.length, 40);
  assert.equal(tall.rowsShown, 30);
  assert.equal(tall.lines[2], 'jobio top — by job,…', 'cut to the width with …');
  assert.ok(tall.lines.every((l) => l.length <= 20));
  assert.equal(tall.lines[4], 'JOB    REQS▼');
  assert.equal(tall.lines[39], 'q quit');
  const small = layoutScreen(view);
  assert.equal(small.lines.length, 12);
  // 12 lines: 2 above, title, status, header, 3 below, footer leaves 3 rows.
  assert.equal(small.rowsShown, 3);
  const tiny = layoutScreen({ ...view, height: 7 });
  assert.deepEqual(tiny.lines, ['jobio top — by job,…', 'status', 'JOB   REQS▼', 'job0      0', 'job1      1', 'job2      2', 'q quit'], 'the blocks made room for three rows');
  assert.equal(fit('abc', 3), 'abc');
  assert.equal(fit('abcd', 3), 'ab…');
});
