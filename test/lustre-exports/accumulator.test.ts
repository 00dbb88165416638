// Counter scenarios of the StatsAccumulator behind lustre_exports and lustre_stats: growth, reset
// (a decrease, a new start_time), a client born at 0 after the first collection (and held at 0 for a
// new-series grace), a client that leaves
// and comes back from zero, folding beyond max-clients into client="_other" with exact totals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatsAccumulator } from '../../exporter/src/lustre/stats-accumulator.js';
import { refill } from '../../exporter/src/lustre/refill.js';
import { parseLustreStats } from '../../exporter/src/parsers/lustre-stats.js';

interface Client {
  readonly wr: number;
  readonly rd?: number;
  readonly ops?: number;
  readonly start?: string;
}

function statsText(c: Client): string {
  const lines = ['snapshot_time             1700000000.000000001 secs.nsecs'];
  if (c.start) lines.push(`start_time                ${c.start} secs.nsecs`);
  if (c.rd) lines.push(`read_bytes                ${c.rd / 4096} samples [bytes] 4096 4096 ${c.rd}`);
  if (c.wr) lines.push(`write_bytes               ${c.wr / 4096} samples [bytes] 4096 4096 ${c.wr}`);
  if (c.ops) lines.push(`ping                      ${c.ops} samples [reqs]`);
  return `${lines.join('\n')}\n`;
}

/** One scrape of target `t` with the given clients; returns `metric{client}` → exported value. */
function scrape(acc: StatsAccumulator, clients: Record<string, Client>, now: number): Map<string, number> {
  acc.begin();
  for (const [nid, c] of Object.entries(clients)) acc.ingest('fs-OST0000', nid, parseLustreStats(statsText(c))[0]!);
  acc.finish(now);
  const out = new Map<string, number>();
  refill(acc, {
    clear: () => out.clear(),
    target: () => undefined,
    sample: (_t, client, field, v) => out.set(`${field.kind === 'operations' ? `op_${field.operation}` : field.kind}{${client}}`, v),
  });
  return out;
}

const W = (m: Map<string, number>, nid: string): number | undefined => m.get(`write_bytes{${nid}}`);

test('growth, reset by decrease, reset by start_time, and exact totals', () => {
  const acc = new StatsAccumulator({ maxClients: 10, expiryMs: 60_000 });
  assert.equal(W(scrape(acc, { a: { wr: 8192 } }, 0), 'a'), 8192, 'the first collection starts at the file value');
  assert.equal(W(scrape(acc, { a: { wr: 16384 } }, 1000), 'a'), 16384);
  assert.equal(W(scrape(acc, { a: { wr: 4096 } }, 2000), 'a'), 20480, 'a decrease is a reset: the new value is the increment');
  assert.equal(W(scrape(acc, { a: { wr: 8192, start: '5.0' } }, 3000), 'a'), 24576);
  assert.equal(W(scrape(acc, { a: { wr: 8192, start: '6.0' } }, 4000), 'a'), 32768, 'a new start_time is a reset even without a decrease');
});

test('a client appearing after the first collection is born at 0 and then carries its whole value', () => {
  const acc = new StatsAccumulator({ maxClients: 10, expiryMs: 60_000 });
  scrape(acc, { a: { wr: 4096 } }, 0);
  const second = scrape(acc, { a: { wr: 4096 }, b: { wr: 40960, ops: 3 } }, 1000);
  assert.equal(W(second, 'b'), 0);
  assert.equal(second.get('op_ping{b}'), 0);
  const third = scrape(acc, { a: { wr: 4096 }, b: { wr: 40960, ops: 3 } }, 2000);
  assert.equal(W(third, 'b'), 40960);
  assert.equal(third.get('op_write{b}'), 10);
  // b disconnects (its export is gone) and reconnects from zero: the series continues upward.
  scrape(acc, { a: { wr: 4096 } }, 3000);
  assert.equal(W(scrape(acc, { a: { wr: 4096 }, b: { wr: 4096 } }, 4000), 'b'), 45056);
});

test('with a new-series grace a new client stays at 0 for the grace (every scraper of an HA pair sees the 0), then carries its whole value', () => {
  const acc = new StatsAccumulator({ maxClients: 10, expiryMs: 60_000, newSeriesGraceMs: 5000 });
  scrape(acc, { a: { wr: 4096 } }, 0);
  // b appears at 1 s; reads at 2 s, 3.5 s and 5.9 s fall within its 5 s grace (two scrapers, at any offsets).
  assert.equal(W(scrape(acc, { a: { wr: 4096 }, b: { wr: 40960 } }, 1000), 'b'), 0);
  assert.equal(W(scrape(acc, { a: { wr: 4096 }, b: { wr: 45056 } }, 2000), 'b'), 0);
  assert.equal(W(scrape(acc, { a: { wr: 4096 }, b: { wr: 49152 } }, 3500), 'b'), 0);
  assert.equal(W(scrape(acc, { a: { wr: 8192 }, b: { wr: 49152 } }, 5900), 'b'), 0);
  const after = scrape(acc, { a: { wr: 8192 }, b: { wr: 53248 } }, 6000);
  assert.equal(W(after, 'b'), 53248, 'after the grace: every increment since its birth, nothing lost');
  assert.equal(W(after, 'a'), 8192, 'a client of the first collection is not held at 0');
});

test('clients beyond max-clients fold into _other; sums over clients stay exact; gone series expire', () => {
  const acc = new StatsAccumulator({ maxClients: 2, expiryMs: 10_000 });
  const first = scrape(acc, { a: { wr: 4096, ops: 1 }, b: { wr: 8192, ops: 5 }, c: { wr: 12288, ops: 9 } }, 0);
  // Slots go to the most active clients (requests): c and b; a is folded.
  assert.deepEqual([W(first, 'a'), W(first, 'b'), W(first, 'c'), W(first, '_other')], [undefined, 8192, 12288, 4096]);
  assert.equal([...acc.targetViews()][0]!.foldedClients, 1);
  const second = scrape(acc, { a: { wr: 8192, ops: 1 }, b: { wr: 8192, ops: 5 }, c: { wr: 12288, ops: 9 }, d: { wr: 4096 } }, 1000);
  assert.equal(W(second, '_other'), 4096 + 4096 + 4096, 'a grew by 4096 and new client d brings its whole 4096');
  const sum = (m: Map<string, number>): number => [...m].filter(([k]) => k.startsWith('write_bytes')).reduce((n, [, v]) => n + v, 0);
  assert.equal(sum(second), 8192 + 8192 + 12288 + 4096);
  // b goes away: its series stays until the expiry, then its slot goes to the most active waiting client.
  const third = scrape(acc, { a: { wr: 12288, ops: 2 }, c: { wr: 12288, ops: 9 }, d: { wr: 4096 } }, 5000);
  assert.equal(W(third, 'b'), 8192);
  const fourth = scrape(acc, { a: { wr: 16384, ops: 3 }, c: { wr: 12288, ops: 9 }, d: { wr: 4096 } }, 12_000);
  assert.equal(W(fourth, 'b'), undefined, 'expired');
  assert.equal(W(fourth, 'a'), 0, 'a got the free slot, born at 0');
  assert.equal(W(fourth, '_other'), 16384, '_other never decreases (it expires like any series only after the expiry without increments)');
});

test('a failed read keeps the last values; a duplicate file in one read counts as a parse error', () => {
  const acc = new StatsAccumulator({ maxClients: 10, expiryMs: 60_000 });
  scrape(acc, { a: { wr: 4096 } }, 0);
  acc.begin();
  acc.markFailed('fs-OST0000', 'a');
  acc.finish(1000);
  assert.equal(W(scrape(acc, { a: { wr: 8192 } }, 2000), 'a'), 8192, 'no increment lost or doubled across the failed read');
  acc.begin();
  const section = parseLustreStats(statsText({ wr: 12288 }))[0]!;
  acc.ingest('fs-OST0000', 'a', section);
  acc.ingest('fs-OST0000', 'a', section);
  acc.finish(3000);
  assert.equal([...acc.targetViews()][0]!.parseErrorsTotal, 1);
});

test('max-clients on the exporter clock: one scraper or three read the same series, folded clients and _other', () => {
  // max-clients 2, expiry 60 s, slot window 30 s. Clients a and b hold the slots; a disconnects at 40 s
  // and expires. Waiting: c makes 1 request/s plus a burst of 100 early in each window, d 8/s. Over a
  // window d is the more active (240 vs 130); over the 10 s after a burst, c (110 vs 80).
  const T0 = 56_666_667 * 30_000;
  const clientsAt = (ms: number): Record<string, Client> => {
    const s = Math.floor((ms - T0) / 1000);
    const bursts = Math.floor(s / 30) + (s % 30 >= 5 ? 1 : 0);
    const out: Record<string, Client> = { b: { wr: 4096 * (1 + s), ops: 1000 + 5 * s }, c: { wr: 4096, ops: 1 + s + 100 * bursts }, d: { wr: 4096 * (1 + s), ops: 1 + 8 * s } };
    return s < 40 ? { a: { wr: 4096, ops: 1000 + 5 * s }, ...out } : out;
  };
  const run = (readsPerWindow: number): string[] => {
    const acc = new StatsAccumulator({ maxClients: 2, expiryMs: 60_000, windowMs: 30_000 });
    const seen: string[] = [];
    for (let n = 0; n < 8; n += 1) {
      // Scraper A at +2 s of each window; the others at +12 s and +22 s.
      for (let r = 0; r < readsPerWindow; r += 1) {
        const now = T0 + n * 30_000 + 2_000 + r * 10_000;
        const out = scrape(acc, clientsAt(now), now);
        if (r === 0) seen.push(JSON.stringify([[...out].sort(), [...acc.targetViews()][0]!.foldedClients]));
      }
    }
    return seen;
  };
  const alone = run(1);
  assert.deepEqual(run(3), alone);
  // Not vacuous: a expired, its slot went to d (the more active over a window), c is folded.
  const [samples, folded] = JSON.parse(alone.at(-1)!) as [[string, number][], number];
  const last = new Map(samples);
  assert.equal(folded, 1);
  assert.equal(W(last, 'a'), undefined);
  assert.ok((W(last, 'd') ?? 0) > 0);
  assert.equal(W(last, 'c'), undefined);
  assert.ok((W(last, '_other') ?? 0) > 0);
});
