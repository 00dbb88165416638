// `jobio top` full screen, in a real terminal (tmux): the "sampling…" line of the first interval,
// rates with scaled units, sorting by column keys, a user filter typed at the prompt, pause, a
// resize to a smaller window (everything cut to fit) and q, which gives the terminal back, exit 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobioBin, startExporter } from '../helpers/exporter.js';
import { startTerminal } from '../helpers/tmux.js';
import { treePaths, writeSnapshot } from './tree.js';

const rowOf = (lines: string[], job: string): string | undefined => lines.find((l) => l.startsWith(`${job} `));
const header = (lines: string[]): string => lines.find((l) => l.startsWith('JOB')) ?? '';
const firstRow = (lines: string[]): string => lines[lines.findIndex((l) => l.startsWith('JOB')) + 1] ?? '';

test('jobio top on a terminal: full screen, keys, resize, quit', async () => {
  const root = mkdtempSync(join(tmpdir(), 'jobio-top-screen-'));
  writeSnapshot(root, { jobs: {}, clients: {} });
  const exporter = await startExporter(['--collector.disable-defaults', '--collector.lustre_jobstats', ...treePaths(root)]);
  // Jobs that keep growing: 101 (alice) writes, 202 (bob) reads, so every interval has both.
  let step = 0;
  const writer = setInterval(() => {
    step += 1;
    writeSnapshot(root, { jobs: { '101:5000:n1': { wrMiB: 8 * step }, '202:5001:n3': { rdMiB: 2 * step } }, clients: {} });
  }, 200);
  const term = await startTerminal([process.execPath, jobioBin, 'top', '--exporter', exporter.url, '--interval', '2s'], { width: 100, height: 20 });
  try {
    await term.waitFor((l) => l.some((x) => x.startsWith('sampling… the first table covers the next 2s')), 20_000, 'the sampling line');
    let screen = await term.waitFor((l) => rowOf(l, '101') !== undefined && rowOf(l, '202') !== undefined, 20_000, 'both jobs');
    assert.match(screen[0] ?? '', /^jobio top — by job, 2s interval, http:\/\/127\.0\.0\.1:\d+\/metrics — \d{4}-/);
    assert.match(header(screen), /^JOB +WRITE\/s +READ\/s +REQS\/s +MDT_REQS\/s▼ +OWNER +TARGETS$/);
    assert.match(rowOf(screen, '101') ?? '', /^101 +[\d.]+ MiB\/s +0 +[\d.]+ +0 +alice +1$/, 'a write rate in MiB/s, zeros as 0');
    assert.match(rowOf(screen, '202') ?? '', /^202 +0 +[\d.]+ MiB\/s +[\d.]+ +0 +bob +1$/);
    assert.match(screen[1] ?? '', /^2 jobs/);
    assert.equal(screen[19], 'q quit · p pause · </> sort · i invert · u/j/t filter · c clear · f fold · ? help');

    // 3: sort by READ/s (bob first); i: inverted (alice first); <: the column to the left, WRITE/s.
    await term.keys(['3']);
    screen = await term.waitFor((l) => header(l).includes('READ/s▼'), 10_000, 'READ/s sorted');
    assert.match(firstRow(screen), /^202 /);
    await term.keys(['i']);
    screen = await term.waitFor((l) => header(l).includes('READ/s▲'), 10_000, 'READ/s inverted');
    assert.match(firstRow(screen), /^101 /);
    await term.keys(['<']);
    screen = await term.waitFor((l) => header(l).includes('WRITE/s▼'), 10_000, 'WRITE/s sorted');
    assert.match(firstRow(screen), /^101 /);

    // u: a user filter typed at the prompt; Enter applies it; c clears it.
    await term.keys(['u']);
    await term.waitFor((l) => (l[19] ?? '').startsWith('filter by user'), 10_000, 'the prompt');
    await term.keys(['bo'], true);
    await term.keys(['Enter']);
    screen = await term.waitFor((l) => rowOf(l, '101') === undefined && rowOf(l, '202') !== undefined, 10_000, 'only bob');
    assert.match(screen[1] ?? '', /filter user~bo \(1 hidden\)/);
    await term.keys(['c']);
    await term.waitFor((l) => rowOf(l, '101') !== undefined, 10_000, 'the filter cleared');

    // p: paused (said on the status line); p again resumes.
    await term.keys(['p']);
    await term.waitFor((l) => (l[1] ?? '').includes('PAUSED'), 10_000, 'paused');
    await term.keys(['p']);
    await term.waitFor((l) => !(l[1] ?? '').includes('PAUSED'), 10_000, 'resumed');

    // A smaller window: every line cut to 50 columns, the key hint still on the last line.
    await term.resize(50, 8);
    screen = await term.waitFor((l) => l.length === 8 && (l[7] ?? '').startsWith('q quit') && (l[0] ?? '').endsWith('…'), 10_000, 'the resized screen');
    assert.ok(
      screen.every((l) => l.length <= 50),
      screen.join('\n'),
    );
    assert.match(header(screen), /^JOB +WRITE\/s▼/);

    await term.keys(['q']);
    assert.equal(await term.exitStatus(), 0);
    screen = await term.screen();
    assert.ok(!screen.some((l) => l.startsWith('JOB')), `the normal screen is back: ${screen.join('\n')}`);
  } finally {
    clearInterval(writer);
    await term.stop();
    await exporter.stop();
    rmSync(root, { recursive: true, force: true });
  }
});
