// Table tests of the brw_stats parser: the section layout of 2.14 (values from the ddn133 capture), the
// K/M suffixes, empty histograms, skipped sections, and malformed lines counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBrwStats } from './lustre-brw-stats.js';

const SECTION = (title: string, unit: string, rows: string) => `\n                           read      |     write\n${title.padEnd(22)} ${unit}  % cum % |  ${unit}        % cum %\n${rows}`;

test('brw_stats: rows of each section, suffixes expanded, read and write apart', () => {
  const text = [
    'snapshot_time:            1709305846.695197922 secs.nsecs',
    SECTION('pages per bulk r/w', 'rpcs', '1:                 8747797  12  12   | 4054463   7   7\n256:              54694710  76 100   | 44513574  87 100\n'),
    SECTION('disk I/O size', 'ios', '4K:              152547869  73  73   | 30342047  40  40\n1M:               54694371  26 100   | 44513345  59 100\n'),
    SECTION('I/O time (1/1000s)', 'ios', '512:                     0   0 100   |    3   0 100\n'),
  ].join('\n');
  const { histograms, badLines } = parseBrwStats(text);
  assert.equal(badLines, 0);
  assert.deepEqual(histograms.get('rpc_pages'), [
    { value: 1, read: 8747797, write: 4054463 },
    { value: 256, read: 54694710, write: 44513574 },
  ]);
  assert.deepEqual(histograms.get('disk_io_size'), [
    { value: 4096, read: 152547869, write: 30342047 },
    { value: 1048576, read: 54694371, write: 44513345 },
  ]);
  assert.deepEqual(histograms.get('disk_io_time'), [{ value: 512, read: 0, write: 3 }]);
  assert.equal(histograms.has('discontiguous_pages'), false, 'a section not printed is absent');
});

test('brw_stats: empty sections present and empty; 2.15 headers and unknown sections skipped without error', () => {
  const text = [
    'snapshot_time:         1702058707.803090953 (secs.nsecs)',
    'start_time:            1702000000.000000000 (secs.nsecs)',
    'elapsed_time:          58707.803090953 (secs.nsecs)',
    SECTION('discontiguous pages', 'rpcs', ''),
    SECTION('block maps msec', 'maps', '1:               280993577  99  99   | 1304947  98  98\n'),
  ].join('\n');
  const { histograms, badLines } = parseBrwStats(text);
  assert.equal(badLines, 0);
  assert.deepEqual([...histograms], [['discontiguous_pages', []]]);
});

test('brw_stats: malformed lines counted, one each, never turned into rows', () => {
  const text = [
    '4:        1   0   0   | 1   0   0', // a row before any section
    SECTION('discontiguous blocks', 'rpcs', '0:   5  50  50   | 2  100 100\n1:   5x  50 100   | 0   0 100\n2:   5  50 100\nnot a row\n'),
    SECTION('discontiguous blocks', 'rpcs', '3:   1  0 0 | 1 0 0\n'), // printed twice: the second is refused
  ].join('\n');
  const { histograms, badLines } = parseBrwStats(text);
  assert.deepEqual(histograms.get('discontiguous_blocks'), [{ value: 0, read: 5, write: 2 }]);
  assert.equal(badLines, 5);
});
