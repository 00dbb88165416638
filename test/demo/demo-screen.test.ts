// `jobio demo` on a terminal (tmux), as a new user sees it: the short banner with the addresses, the
// Lustre table (carol's metadata storm first, the replayed system accounts' entries folded into one
// row), and under it the second half: the profiled programs' verdicts with their top reasons and
// the alerts from the demo's Prometheus, JobioMetadataStorm pending. The alerts link answers (Debian's
// Prometheus serves only /classic/alerts). q ends the demo, which cleans up and says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jobioBin } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';
import { startTerminal } from '../helpers/tmux.js';

test('jobio demo in a terminal: both halves and the pending storm alert, then q', async () => {
  requireBinary('prometheus');
  const term = await startTerminal([process.execPath, jobioBin, 'demo', '--duration', '120s'], { width: 132, height: 40 });
  try {
    const screen = await term.waitFor((l) => l.some((x) => /^ {2}PENDING +JobioMetadataStorm +job 4203 user carol on es01a-MDT0000 for \d+s$/.test(x)), 90_000, 'the pending storm alert');
    const text = screen.join('\n');
    const header = screen.findIndex((l) => l.startsWith('JOB '));
    assert.match(screen[header] ?? '', /^JOB +WRITE\/s +READ\/s +REQS\/s +MDT_REQS\/s▼ +OWNER +TARGETS$/);
    assert.match(screen[header + 1] ?? '', /^4203 +.* carol +2$/, `the storm first:\n${text}`);
    const system = screen.filter((l) => l.startsWith('_system('));
    assert.equal(system.length, 1, `the replayed system accounts in one row:\n${text}`);
    assert.ok(!screen.some((l) => /^\S+ .* _system +\d+$/.test(l) && !l.startsWith('_system(')), text);
    // The second half: verdicts and reasons of the real programs under the profiler.
    assert.match(text, /^ {2}5101 +dd bs=4M +GREEN /m);
    assert.match(text, /^ {2}5102 +dd bs=512 +RED +red +\d+% of .* calls +top reasons: small_write \d+%/m);
    assert.match(text, /^ {2}5103 +ls -lR +RED +red +\d+% of .* calls +top reasons: stat_unused \d+%/m);
    // The alerts page the banner names answers.
    const link = /alerts (http:\/\/127\.0\.0\.1:\d+\/\S*alerts)/.exec(text)?.[1];
    assert.ok(link, text);
    assert.equal((await fetch(link)).status, 200, link);
    assert.ok(
      screen.every((l) => l.length <= 132),
      text,
    );

    await term.keys(['q']);
    assert.equal(await term.exitStatus(30_000), 0);
    const after = (await term.screen()).join('\n');
    assert.match(after, /^jobio demo: stopped \d+ processes and removed \S+$/m);
  } finally {
    await term.stop();
  }
});
