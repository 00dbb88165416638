// A flood of wrong passwords: the bcrypt work is bounded (a limited queue of checks on worker
// threads, beyond it 429 at once, counted) and a scraper whose credentials were already verified
// keeps getting its metrics from the cache of successful checks, without paying bcrypt again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import bcrypt from 'bcryptjs';
import { startExporter, type RunningExporter } from '../helpers/exporter.js';

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** An exporter whose one user `prometheus` has the password `s3cret` (bcrypt cost 10). The per-peer
 * connection cap (64) is raised so that these tests see the bound on password checks alone. */
function startPasswordExporter(): Promise<RunningExporter> {
  const file = join(mkdtempSync(join(tmpdir(), 'jobio-auth-')), 'web.yml');
  writeFileSync(file, `basic_auth_users:\n  prometheus: '${bcrypt.hashSync('s3cret', 10)}'\n`);
  return startExporter(['--collector.disable-defaults', `--web.config.file=${file}`, '--web.max-connections-per-peer=200']);
}

test('100 parallel wrong passwords: bounded checks, 429 beyond the queue, counted; the real scraper still gets 200', async () => {
  const exporter = await startPasswordExporter();
  try {
    const url = `${exporter.url}/metrics`;
    const good = { headers: { Authorization: basic('prometheus', 's3cret') } };
    assert.equal((await fetch(url, good)).status, 200, 'first scrape verifies and caches the credentials');

    const attempts = Array.from({ length: 100 }, (_, i) =>
      fetch(url, { headers: { Authorization: basic(i % 2 ? 'prometheus' : 'mallory', `guess${i}`) } }).then(async (r) => (await r.text(), r.status)),
    );
    const scrapesDuringFlood = Array.from({ length: 5 }, () => fetch(url, good).then((r) => r.status));
    const [statuses, scrapes] = await Promise.all([Promise.all(attempts), Promise.all(scrapesDuringFlood)]);

    assert.deepEqual(scrapes, [200, 200, 200, 200, 200]);
    const unauthorized = statuses.filter((s) => s === 401).length;
    const busy = statuses.filter((s) => s === 429).length;
    assert.equal(unauthorized + busy, 100, `only 401 and 429: ${statuses.join(',')}`);
    assert.ok(busy > 0, 'the queue of password checks is bounded');

    const text = await (await fetch(url, good)).text();
    assert.match(text, new RegExp(`^jobio_web_auth_failures_total\\{reason="busy"\\} ${busy}$`, 'm'));
    assert.match(text, new RegExp(`^jobio_web_auth_failures_total\\{reason="bad_credentials"\\} ${unauthorized}$`, 'm'));
  } finally {
    await exporter.stop();
  }
});

/** GET from a chosen loopback source address (127.0.0.2 is another peer than 127.0.0.1): the status. */
function getFrom(localAddress: string, url: string, authorization: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress, headers: { Authorization: authorization }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

test('right after a restart (nothing cached), a flood of wrong passwords from one address leaves the real scraper its turn', async () => {
  const exporter = await startPasswordExporter();
  try {
    const url = `${exporter.url}/metrics`;
    // 100 wrong passwords at once from 127.0.0.2, then the scraper's first scrape from 127.0.0.1 while
    // they are being answered: its credentials are not verified yet, so it needs a bcrypt check too.
    const flood = Promise.all(Array.from({ length: 100 }, (_, i) => getFrom('127.0.0.2', url, basic('prometheus', `guess${i}`))));
    const scrapes: number[] = [];
    for (let i = 0; i < 3; i += 1) scrapes.push(await getFrom('127.0.0.1', url, basic('prometheus', 's3cret')));
    const statuses = await flood;
    assert.deepEqual(scrapes, [200, 200, 200], 'no 429 for the real scraper (before: 13-15 in a row)');
    const busy = statuses.filter((s) => s === 429).length;
    assert.equal(statuses.filter((s) => s === 401).length + busy, 100);
    assert.ok(busy > 0, 'the flooding address is refused beyond its share of the queue');
  } finally {
    await exporter.stop();
  }
});
