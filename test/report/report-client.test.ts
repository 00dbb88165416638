// `jobio report JOBID` with the client's view: one exporter receives the profiler's frames of job 4242
// (the frame tool, on /data) and reads the llite stats of a fake node root whose Lustre file system
// `scratch` is mounted on /data and whose cgroups hold job 4242; a real Prometheus scrapes it. The
// client moves what the profiled process read and wrote plus writes of a program the profiler did not
// see, so the true coverage is known: 0.4. The report's client section gives the client's bytes and
// operations on the mount and exactly that coverage, in the JSON, the text and the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runJobio } from '../helpers/exporter.js';
import { startPrometheus } from '../helpers/prometheus.js';
import { llite, profiledRead, profiledWrite, sendAsJob, startClientNode } from '../lustre-client/job-frames.js';
import type { ReportJson } from '../../exporter/src/report/report-schema.js';

const TRUE_COVERAGE = 0.4;
const profiled = profiledRead + profiledWrite;
// the client's bytes: the profiled ones and writes nobody profiled, 1.5 times as many
const unseenWrite = profiled / TRUE_COVERAGE - profiled;

test('jobio report JOBID: the client (llite) view of the job and the profiler coverage of its bytes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-report-client-'));
  const { exporter, procfs, socket, llitePath } = await startClientNode(dir, 0, 0);
  const prometheus = await startPrometheus([{ job: 'jobio', address: new URL(exporter.url).host }]);
  try {
    await sendAsJob(procfs, socket, dir);
    writeFileSync(llitePath, llite(profiledRead, profiledWrite + unseenWrite));
    // Prometheus has both views once the client's bytes of the job are all there
    await prometheus.waitFor(
      'sum(jobio_lustre_client_read_bytes_total{jobid="4242"}) + sum(jobio_lustre_client_write_bytes_total{jobid="4242"}) + sum(jobio_profiler_read_bytes_total{jobid="4242",mount="/data"}) + sum(jobio_profiler_write_bytes_total{jobid="4242",mount="/data"})',
      (s) => s[0]?.value === profiled / TRUE_COVERAGE + profiled,
      30_000,
    );
    const r = await runJobio(['report', '4242', '--json', '--prometheus', prometheus.url]);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as ReportJson;
    assert.deepEqual(report.client, {
      read_bytes: profiledRead,
      write_bytes: profiledWrite + unseenWrite,
      profiler_bytes: profiled,
      coverage: TRUE_COVERAGE,
      mounts: [
        {
          fs: 'scratch',
          mount: '/data',
          read_bytes: profiledRead,
          write_bytes: profiledWrite + unseenWrite,
          operations: 9 + (profiledRead + profiledWrite + unseenWrite) / 4096,
          operations_by_kind: { write: (profiledWrite + unseenWrite) / 4096, read: profiledRead / 4096, open: 9 },
          profiler_bytes: profiled,
          coverage: TRUE_COVERAGE,
        },
      ],
    });

    // the text (80 columns) and the page say it
    const text = await runJobio(['report', '4242', '--prometheus', prometheus.url]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^client: {7}read 72\.0 KiB, written 1\.2 MiB; profiler coverage 40\.0 %$/m);
    // (the mount's line wraps: its continuation joined)
    assert.match(text.stdout.replace(/\n {4}/g, ' '), /^ {2}\/data \(scratch\): read 72\.0 KiB, written 1\.2 MiB, 324 operations \(write 297, read 18, open 9\); profiler 40\.0 %$/m);
    for (const line of text.stdout.split('\n')) assert.ok(line.length <= 80, line);
    const page = join(dir, 'report.html');
    assert.equal((await runJobio(['report', '4242', '--prometheus', prometheus.url, '--html', page])).code, 0);
    assert.match(readFileSync(page, 'utf8'), /<h2>Client \(Lustre llite\)<\/h2>.*\(40\.0 % coverage\)/);
  } finally {
    await prometheus.stop();
    await exporter.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
