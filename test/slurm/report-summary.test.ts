// The summary stored at a job's end, on a real Slurm with a real Prometheus: the shipped
// EpilogSlurmctld (provisioning/slurm/jobio-epilog-slurmctld.sh) stores `jobio report JOBID
// --summary` for a profiled job, and after the job's series are gone (a fresh Prometheus that never
// had them) `jobio report JOBID` answers from the summary with the very report Prometheus gave at
// the summary's time. Run under `flock /tmp/jobio-scheduler.lock` beside the other scheduler tests.
// The scenario is shared with the Grid Engine test (test/report/stored-summary-scenario.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, runJobio } from '../helpers/exporter.js';
import { onSlurm } from '../helpers/slurm.js';
import { assertSameReport, makeGate, startSummaryScenario, storedSummary } from '../report/stored-summary-scenario.js';

test("a finished job's report still works after its series are gone from Prometheus, from the summary the EpilogSlurmctld stored", async (t) => {
  const scenario = await startSummaryScenario('jobio-report-summary-');
  // The epilog as a site installs it; slurmctld gives its scripts a fixed environment, so a wrapper names the settings.
  const epilog = join(scenario.hooks, 'epilog-slurmctld.sh');
  writeFileSync(epilog, `#!/bin/sh\nJOBIO_REPORT_SUMMARY_CONF=${scenario.conf} exec ${join(repoRoot, 'provisioning/slurm/jobio-epilog-slurmctld.sh')}\n`, { mode: 0o755 });
  try {
    await onSlurm(t, { extraConf: [`EpilogSlurmctld=${epilog}`] }, async (s, alice) => {
      const gate = makeGate(s.work);
      const job = s.submit({ user: alice, script: scenario.jobScript(gate, 'SLURM_JOB_ID') });
      await s.waitState(job, ['RUNNING']);
      await scenario.release(gate, job, false);
      assert.equal(await s.waitEnded(job, 60_000), 'COMPLETED', readFileSync(s.output(job), 'utf8'));

      const { file, stored } = await storedSummary(t, scenario, job);
      await assertSameReport(scenario, job, file, stored, { env: { JOBIO_SUMMARY_DIR: scenario.reports } });
      const shown = await runJobio(['report', job, '--prometheus', scenario.fresh.url, '--summary-dir', scenario.reports]);
      assert.equal(shown.code, 0, shown.stderr);
      assert.equal(shown.stdout.split('\n')[0], `jobio report: job ${job}, host ${stored.header.hostname}, ${stored.header.start.slice(0, 19).replace('T', ' ')} UTC`);
      assert.match(shown.stdout.replace(/\n {14}/g, ' '), new RegExp(`^from: {9}the summary stored at the job's end, ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(from Prometheus `, 'm'));
      for (const line of shown.stdout.split('\n')) assert.ok(line.length <= 80, line);
      t.diagnostic(
        shown.stdout
          .split('\n')
          .filter((l) => /^(from:| {14}\S)/.test(l))
          .join('\n'),
      );
      // without a summary the answer is Prometheus' own
      const none = await runJobio(['report', job, '--prometheus', scenario.fresh.url], { env: { JOBIO_SUMMARY_DIR: join(scenario.hooks, 'none') } });
      assert.equal(none.code, 1);
      assert.match(none.stderr, new RegExp(`has no series of job ${job} in the last 30d`));
    });
  } finally {
    await scenario.stop();
  }
});
