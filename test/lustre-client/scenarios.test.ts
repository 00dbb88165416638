// Counter scenarios of the lustre_client collector on a node tree written by the test: growth, the
// job the increments are credited to as jobs come and go (node-job.ts), a remount (a new llite
// instance under the same mount point) with a smaller and with a larger value, and a shared node.
// Each step is one update() of the real collector at a time of a mocked clock, one window of the
// exporter's clock (30 s) after the previous unless a test says when; the figures are exact.
import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MetricRegistry } from '../../exporter/src/scrape/metric-registry.js';
import { lustreClientCollector } from '../../exporter/src/collectors/lustre_client.js';
import { silentLogger } from '../../exporter/src/util/logger.js';

class Node {
  readonly root = mkdtempSync(join(tmpdir(), 'jobio-client-'));
  registry = new MetricRegistry();
  collector;
  private instance = '';
  /** The exporter's clock (Date.now), a multiple of the window plus 2 s at first. */
  now = 56_666_667 * 30_000 + 2_000;
  private readonly clock = mock.method(Date, 'now', () => this.now);

  /** `options`: the collector's flags (`max-jobs`, …). */
  constructor(private readonly options: Record<string, string | number> = {}) {
    this.collector = this.start();
    mkdirSync(join(this.root, 'proc'), { recursive: true });
    writeFileSync(join(this.root, 'proc/mounts'), 'mgs@tcp:/scratch /scratch lustre rw 0 0\n');
  }

  private start(): ReturnType<typeof lustreClientCollector.create> {
    return lustreClientCollector.create({
      registry: this.registry,
      paths: { procfs: join(this.root, 'proc'), sysfs: join(this.root, 'sys'), rootfs: this.root },
      options: this.options,
      logger: silentLogger(),
    });
  }

  /** A restart of the exporter: a new collector (and registry) on the same node. */
  restart(): void {
    this.registry = new MetricRegistry();
    this.collector = this.start();
  }

  /** The client's llite stats: a new `instance` name is a remount. */
  stats(instance: string, writeBytes: number, opens: number): void {
    if (instance !== this.instance && this.instance !== '') rmSync(join(this.root, 'proc/fs/lustre/llite', this.instance), { recursive: true });
    this.instance = instance;
    const dir = join(this.root, 'proc/fs/lustre/llite', instance);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'stats'),
      `snapshot_time 1700000000.000000001 secs.nsecs\nwrite_bytes ${writeBytes / 4096} samples [bytes] 4096 4096 ${writeBytes}\nopen ${opens} samples [usecs] 10 20 ${opens * 15}\n`,
    );
  }

  jobs(...ids: string[]): void {
    const scope = join(this.root, 'sys/fs/cgroup/system.slice/slurmstepd.scope');
    rmSync(scope, { recursive: true, force: true });
    for (const id of ids) mkdirSync(join(scope, `job_${id}`), { recursive: true });
  }

  /** One scrape at `at` (by default a window after the previous one): `metric{jobid}` → value for the write bytes and opens of /scratch, plus the llite instance. */
  async scrape(at = this.now + 30_000): Promise<Record<string, number | string>> {
    this.now = at;
    assert.equal(await this.collector.update(new AbortController().signal), 'ok');
    const out: Record<string, number | string> = {};
    for (const line of (await this.registry.metrics()).split('\n')) {
      const m =
        /^jobio_lustre_client_(write_bytes_total|operations_total|operation_seconds_total|mount_info)\{fs="scratch",mount="\/scratch"(?:,jobid="([^"]*)")?(?:,operation="open")?(?:,llite="([^"]*)")?\} (\S+)$/.exec(
          line,
        );
      if (!m) continue;
      if (m[1] === 'mount_info') out['llite'] = m[3] ?? '';
      else out[`${m[1]!.replace('_total', '')}{${m[2]}}`] = Number(m[4]);
    }
    return out;
  }

  close(): void {
    this.clock.mock.restore();
    rmSync(this.root, { recursive: true, force: true });
  }
}

test('lustre_client: growth, jobs coming and going, remounts and a shared node, with exact values', async () => {
  const node = new Node();
  try {
    node.jobs('7');
    node.stats('scratch-ffff0001', 4096 * 10, 3);
    assert.deepEqual(
      await node.scrape(),
      { 'write_bytes{7}': 40960, 'operations{7}': 3, 'operation_seconds{7}': 45e-6, llite: 'scratch-ffff0001' },
      'the first collection starts at the file values, credited to the running job',
    );

    node.stats('scratch-ffff0001', 4096 * 25, 5);
    assert.deepEqual(await node.scrape(), { 'write_bytes{7}': 102400, 'operations{7}': 5, 'operation_seconds{7}': 75e-6, llite: 'scratch-ffff0001' }, 'growth');

    // Job 7 ends before the next read: its last writes (between the reads) are still its own.
    node.jobs();
    node.stats('scratch-ffff0001', 4096 * 30, 5);
    assert.deepEqual(await node.scrape(), { 'write_bytes{7}': 122880, 'operations{7}': 5, 'operation_seconds{7}': 75e-6, llite: 'scratch-ffff0001' });

    // The idle node's own I/O goes to _none, born at 0 and carrying its increment from the next scrape.
    node.stats('scratch-ffff0001', 4096 * 32, 6);
    let s = await node.scrape();
    assert.equal(s['write_bytes{_none}'], 0);
    assert.equal(s['operations{_none}'], 0);
    assert.equal(s['write_bytes{7}'], 122880, 'the ended job keeps its figures until its series expires');
    node.stats('scratch-ffff0001', 4096 * 32, 6);
    s = await node.scrape();
    assert.equal(s['write_bytes{_none}'], 8192);
    assert.equal(s['operations{_none}'], 1);

    // Remount while job 8 starts: the new instance's counters began at zero, so its whole value is the increment.
    node.jobs('8');
    node.stats('scratch-ffff0002', 4096 * 2, 1);
    s = await node.scrape();
    assert.equal(s['llite'], 'scratch-ffff0002');
    assert.equal(s['write_bytes{8}'], 0, 'born at 0');
    node.stats('scratch-ffff0002', 4096 * 3, 1);
    s = await node.scrape();
    assert.equal(s['write_bytes{8}'], 12288, '8192 from the remount scrape + 4096');
    assert.equal(s['write_bytes{_none}'], 8192, 'the other series do not move');
    assert.equal(s['write_bytes{7}'], 122880);

    // A remount whose new counters are already above the old ones is still a reset (the instance changed).
    node.stats('scratch-ffff0003', 4096 * 1000, 2);
    s = await node.scrape();
    assert.equal(s['write_bytes{8}'], 12288 + 4096000, 'the whole new value, not 4096000 − 12288');
    assert.equal(s['operations{8}'], 1 + 2);

    // Two jobs share the node: no single job can claim the increment.
    node.jobs('8', '9');
    node.stats('scratch-ffff0003', 4096 * 1001, 2);
    s = await node.scrape();
    assert.equal(s['write_bytes{_shared}'], 0, 'born at 0');
    node.stats('scratch-ffff0003', 4096 * 1003, 2);
    s = await node.scrape();
    assert.equal(s['write_bytes{_shared}'], 4096 * 3);
    assert.equal(s['write_bytes{8}'], 12288 + 4096000, 'job 8 alone is credited nothing while it shares the node');
  } finally {
    node.close();
  }
});

/**
 * Scrapers reading `node` at `offsets` (ms) into each of `windows` 30-s windows from T0, the node set
 * by `feed` at each read's second: what the first scraper read, in order. The node is closed after.
 */
async function readsOfFirst(node: Node, T0: number, windows: number, offsets: readonly number[], feed: (node: Node, s: number) => void): Promise<Record<string, number | string>[]> {
  try {
    const first: Record<string, number | string>[] = [];
    for (let w = 0; w < windows; w += 1) {
      for (const offset of offsets) {
        const now = T0 + w * 30_000 + offset;
        feed(node, (now - T0) / 1000);
        const out = await node.scrape(now);
        if (offset === offsets[0]) first.push(out);
      }
    }
    return first;
  } finally {
    node.close();
  }
}

test('lustre_client on the exporter clock: one scraper or three read the same series, with exact totals', async () => {
  // The node over 242 s (window 30 s, the default; T0 a multiple of it): job 7, then nothing, then 8,
  // 8 and 9 sharing the node, 9 alone, nothing. The client writes a block a second, except from 60 s
  // to 75 s; at 75 s the file system is remounted (a new instance whose counters start at 0).
  const T0 = 56_666_667 * 30_000;
  const jobsAt = (s: number): string[] => (s < 40 ? ['7'] : s < 50 ? [] : s < 100 ? ['8'] : s < 130 ? ['8', '9'] : s < 170 ? ['9'] : []);
  const blocksAt = (s: number): number => (s < 60 ? 10 + s : s < 75 ? 70 : 70 + (s - 75));
  const run = (offsets: readonly number[]) =>
    readsOfFirst(new Node(), T0, 9, offsets, (node, s) => {
      node.jobs(...jobsAt(s));
      if (s < 75) node.stats('scratch-ffff0001', 4096 * blocksAt(s), 3);
      else node.stats('scratch-ffff0002', 4096 * (blocksAt(s) - 70), 1);
    });
  // Scraper A at +2 s of each window; with two more at +12 s and +22 s.
  const alone = await run([2_000]);
  assert.deepEqual(await run([2_000, 12_000, 22_000]), alone);
  // Not vacuous: each window is credited to the jobs seen where it closes (A's reads at 2, 32, … 242 s):
  // 7 ran at both ends of the first; 7 and 8 at the ends of 32–62 s, 8 and 9 of 92–152 s: `_shared`.
  const last = alone.at(-1)!;
  const KiB4 = 4096;
  assert.deepEqual(Object.fromEntries(['7', '8', '9', '_shared', '_none'].map((j) => [j, last[`write_bytes{${j}}`]])), {
    '7': 42 * KiB4,
    '8': 17 * KiB4,
    '9': 30 * KiB4,
    _shared: 88 * KiB4,
    _none: 60 * KiB4,
  });
  const total = Object.entries(last).reduce((a, [k, v]) => (k.startsWith('write_bytes{') ? a + Number(v) : a), 0);
  assert.equal(total, blocksAt(242) * KiB4, 'every byte the client wrote, once');
});

test('lustre_client on the exporter clock beyond max-jobs: what is folded into _other is the same for one scraper or three, and nothing is lost', async () => {
  // One job series per mount: job 7 (seen first) keeps it; the windows of 8 and 9 go to _other.
  const T0 = 56_666_667 * 30_000;
  const jobsAt = (s: number): string[] => (s < 30 ? ['7'] : s < 90 ? ['8'] : ['9']);
  const run = (offsets: readonly number[]) =>
    readsOfFirst(new Node({ 'max-jobs': 1 }), T0, 6, offsets, (node, s) => {
      node.jobs(...jobsAt(s));
      node.stats('scratch-ffff0001', 4096 * (10 + s), 3);
    });
  const alone = await run([2_000]);
  assert.deepEqual(await run([2_000, 12_000, 22_000]), alone);
  const last = alone.at(-1)!;
  assert.deepEqual(
    Object.fromEntries(Object.entries(last).filter(([k]) => k.startsWith('write_bytes{'))),
    { 'write_bytes{7}': 12 * 4096, 'write_bytes{_other}': 150 * 4096 },
    'every byte the client wrote by 152 s (162 blocks), once',
  );
});

test('lustre_client on the exporter clock: a restart mid-window loses none of the held increments', async () => {
  const T0 = 56_666_667 * 30_000;
  const node = new Node();
  try {
    node.jobs('7');
    const at = async (s: number): Promise<number | string | undefined> => {
      node.stats('scratch-ffff0001', 4096 * (10 + s), 3);
      return (await node.scrape(T0 + s * 1000))['write_bytes{7}'];
    };
    assert.equal(await at(2), 12 * 4096);
    assert.equal(await at(32), 42 * 4096);
    assert.equal(await at(42), 42 * 4096, 'held until the window closes');
    node.restart();
    assert.equal(await at(52), 62 * 4096, 'the restarted exporter starts at the file values: the held 10 blocks are in them');
    assert.equal(await at(62), 72 * 4096);
  } finally {
    node.close();
  }
});

test('lustre_client: a node with neither llite stats nor Lustre mounts is absent (quiet), and an unreadable mount table is not an error', async () => {
  const root = mkdtempSync(join(tmpdir(), 'jobio-client-'));
  try {
    const registry = new MetricRegistry();
    const c = lustreClientCollector.create({ registry, paths: { procfs: join(root, 'proc'), sysfs: join(root, 'sys'), rootfs: root }, options: {}, logger: silentLogger() });
    assert.equal(await c.update(new AbortController().signal), 'absent');
    assert.doesNotMatch(await registry.metrics(), /^jobio_lustre_client_\w+\{/m);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('lustre_client: bad lines are counted and skipped, an unreadable file keeps its counters (nothing lost when it comes back)', async () => {
  const node = new Node();
  try {
    node.jobs('7');
    node.stats('scratch-ffff0001', 4096 * 10, 3);
    await node.scrape();
    const statsFile = join(node.root, 'proc/fs/lustre/llite/scratch-ffff0001/stats');
    writeFileSync(statsFile, 'snapshot_time 1700000000.000000001 secs.nsecs\nwrite_bytes 11 samples [bytes] 4096 4096 45056\nthis is not a counter\nopen 3 samples [usecs] 10 20 45\n');
    let s = await node.scrape();
    const text = await node.registry.metrics();
    assert.equal(s['write_bytes{7}'], 45056);
    assert.match(text, /^jobio_lustre_client_parse_errors_total\{fs="scratch",mount="\/scratch"\} 1$/m);
    // The file cannot be read (here: a directory in its place); the counters stay, the mount stays listed.
    rmSync(statsFile);
    mkdirSync(statsFile);
    s = await node.scrape();
    assert.equal(s['write_bytes{7}'], 45056);
    rmSync(statsFile, { recursive: true });
    node.stats('scratch-ffff0001', 4096 * 20, 4);
    s = await node.scrape();
    assert.equal(s['write_bytes{7}'], 81920, 'the increment over the unreadable scrape is not lost');
    assert.equal(s['operations{7}'], 4);
  } finally {
    node.close();
  }
});
