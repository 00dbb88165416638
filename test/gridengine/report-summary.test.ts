// The summary stored at a job's end, on a real Grid Engine with a real Prometheus: the shipped epilog
// (provisioning/gridengine/jobio-epilog.sh, with jobio-report-summary.sh beside it) stores `jobio
// report JOBID --summary` for a profiled job, in the background after the epilog has let the job go;
// after the job's series are gone (a fresh Prometheus that never had them) `jobio report JOBID`
// answers from the summary with the very report Prometheus gave at the summary's time. Run under
// `flock /tmp/jobio-scheduler.lock` beside the other scheduler tests.
// The scenario is shared with the Slurm test (test/report/stored-summary-scenario.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/exporter.js';
import { startGridEngine } from '../helpers/gridengine.js';
import { ensureUser } from '../helpers/slurm.js';
import { assertSameReport, makeGate, startSummaryScenario, storedSummary } from '../report/stored-summary-scenario.js';

test("a finished Grid Engine job's report still works after its series are gone from Prometheus, from the summary the epilog stored", async (t) => {
  const scenario = await startSummaryScenario('jobio-ge-report-summary-', (hooks) => ['--collector.job_info', `--collector.job_info.spool-dir=${join(hooks, 'jobs')}`, '--collector.job_info.squeue=']);
  const spool = join(scenario.hooks, 'jobs');
  // The prolog and epilog as a site installs them; execd gives hooks a fixed environment, so wrappers name the settings.
  const wrapper = (name: string, env: string): string => {
    const path = join(scenario.hooks, `${name}.sh`);
    writeFileSync(path, `#!/bin/sh\n${env} exec ${join(repoRoot, `provisioning/gridengine/jobio-${name}.sh`)} "$@"\n`, { mode: 0o755 });
    return path;
  };
  const started = await startGridEngine({
    queue: {
      prolog: `root@${wrapper('prolog', `JOBIO_SPOOL=${spool}`)}`,
      epilog: `root@${wrapper('epilog', `JOBIO_SPOOL=${spool} JOBIO_REPORT_SUMMARY_CONF=${scenario.conf}`)}`,
    },
  });
  try {
    if (started.skip !== undefined) {
      t.skip(started.skip);
      return;
    }
    const ge = started.cluster;
    const alice = ensureUser('jobiotest');
    const gate = makeGate(ge.work);
    const job = ge.submit({ user: alice, script: scenario.jobScript(gate, 'JOB_ID') });
    await ge.waitRunning(job);
    await scenario.release(gate, job, true);
    const ended = await ge.waitEnded(job);
    assert.deepEqual([ended.exitStatus, ended.failed], [0, '0'], readFileSync(ge.output(job), 'utf8'));
    // qacct has the job only after the epilog exited: the summary, 13 s later, is the background's
    assert.equal(existsSync(join(scenario.reports, `${job}.json`)), false, 'the epilog did not wait for the summary');

    const { file, stored } = await storedSummary(t, scenario, job);
    // the prolog's job_info: the owner and the queue
    assert.deepEqual([stored.header.user, stored.header.partition], [alice.name, 'all.q']);
    await assertSameReport(scenario, job, file, stored, { args: ['--summary-dir', scenario.reports] });
  } finally {
    await started.cluster?.stop();
    await scenario.stop();
  }
});
