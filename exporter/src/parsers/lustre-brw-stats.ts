// Parser of a Lustre server target's `brw_stats` (osd-{ldiskfs,zfs}/<target>/brw_stats; obdfilter/<target>/
// before 2.12): histograms of the bulk read/write RPCs and the disk I/Os they became, in sections of
//
//                              read      |     write
//   pages per bulk r/w     rpcs  % cum % |  rpcs        % cum %
//   1:                 8747797  12  12   | 4054463   7   7
//   256:              54694710  76 100   | 44513574  87 100
//
// after a `snapshot_time:` line (and `start_time:`/`elapsed_time:` on newer versions), sections apart
// by blank lines. A row is one bucket: Lustre prints the rows from the first to the last non-empty
// bucket, the count then the percentages of each direction. Bucket labels are the bucket's value, with
// K, M or G for ×1024ⁿ (`4K:`, `1M:`): for the log2 histograms (pages, I/O size, I/O time) the largest
// value the bucket holds (`lprocfs_oh_tally_log2()`: values in (2ⁿ⁻¹, 2ⁿ]), for the linear ones
// (discontiguous pages and blocks, fragments, I/Os in flight) the value itself, the last bucket (31)
// holding every larger one. Sections of other titles (`block maps msec`, later additions) are skipped.
// Never throws: a line of no known shape is counted in `badLines`.

/** The histograms read, by the title Lustre prints. */
export const BRW_HISTOGRAM_TITLES = {
  'pages per bulk r/w': 'rpc_pages',
  'discontiguous pages': 'discontiguous_pages',
  'discontiguous blocks': 'discontiguous_blocks',
  'disk fragmented I/Os': 'disk_fragments',
  'disk I/Os in flight': 'disk_ios_in_flight',
  'I/O time (1/1000s)': 'disk_io_time',
  'disk I/O size': 'disk_io_size',
} as const;

export type BrwHistogramKind = (typeof BRW_HISTOGRAM_TITLES)[keyof typeof BRW_HISTOGRAM_TITLES];

/** One row: the bucket's value (as labelled, K/M/G expanded) and its count in each direction. */
export interface BrwRow {
  readonly value: number;
  readonly read: number;
  readonly write: number;
}

/** Read/write histogram tables of one file, by kind (a histogram with no row is present and empty). */
export interface RwHistograms<K extends string> {
  readonly histograms: ReadonlyMap<K, readonly BrwRow[]>;
  readonly badLines: number;
}

export type BrwStats = RwHistograms<BrwHistogramKind>;

const SECTION_TITLE = /^(\S.*?)\s{2,}\w+\s+%\s+cum\s+%\s+\|\s+\w+\s+%\s+cum\s+%$/;
// `read | write` above brw_stats tables, `read<tabs>write` above osc rpc_stats ones.
const DIRECTIONS = /^read\s+(?:\|\s+)?write$/;
const ROW = /^(\d{1,10})([KMG]?):\s+(\d{1,20})\s+\d+\s+\d+\s+\|\s+(\d{1,20})\s+\d+\s+\d+$/;
const HEADER = /^(?:snapshot_time|start_time|elapsed_time):\s/;
const SCALE: Readonly<Record<string, number>> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 };

export function parseBrwStats(text: string): BrwStats {
  return parseRwHistograms(text, BRW_HISTOGRAM_TITLES, () => false);
}

/**
 * The read/write histogram tables of a file in brw_stats' layout (brw_stats, osc rpc_stats): the
 * tables whose title is in `titles`, by its kind; rows of other tables skipped; lines `isOther`
 * accepts (a file's own scalar lines) left to the caller; any other line counted in `badLines`.
 */
export function parseRwHistograms<K extends string>(text: string, titles: Readonly<Record<string, K>>, isOther: (line: string) => boolean): RwHistograms<K> {
  const isKnownTitle = (title: string): boolean => Object.hasOwn(titles, title);
  const histograms = new Map<K, BrwRow[]>();
  let current: BrwRow[] | undefined;
  let inOtherSection = false;
  let badLines = 0;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || DIRECTIONS.test(line) || HEADER.test(line) || isOther(line)) continue;
    const title = SECTION_TITLE.exec(line)?.[1];
    if (title !== undefined) {
      // A histogram printed twice in one file keeps its first rows (never seen; counted as malformed).
      const kind = isKnownTitle(title) ? titles[title] : undefined;
      if (kind !== undefined && !histograms.has(kind)) {
        current = [];
        histograms.set(kind, current);
        inOtherSection = false;
      } else {
        if (kind !== undefined) badLines += 1;
        current = undefined;
        inOtherSection = true;
      }
      continue;
    }
    const row = ROW.exec(line);
    if (row?.[1] !== undefined && row[3] !== undefined && row[4] !== undefined && current) {
      current.push({ value: Number(row[1]) * (SCALE[row[2] ?? ''] ?? 1), read: Number(row[3]), write: Number(row[4]) });
    } else if (!(row && inOtherSection)) badLines += 1;
  }
  return { histograms, badLines };
}
