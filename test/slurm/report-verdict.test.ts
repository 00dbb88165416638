// The verdict printed into the job's own output at its end, on a real Slurm with a real Prometheus:
// the shipped TaskEpilog (provisioning/slurm/jobio-taskepilog.sh) waits for Prometheus' scrape after
// the batch script ended and prints `jobio report JOBID --brief` to its standard error, which
// slurmstepd writes into the job's output file (its standard output goes nowhere). The job is the
// stored-summary scenario's: dd's 3,000 writes of 512 B, red small writes by dd. Run under
// `flock /tmp/jobio-scheduler.lock` beside the other scheduler tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, runJobio } from '../helpers/exporter.js';
import { onSlurm } from '../helpers/slurm.js';
import { makeGate, startSummaryScenario } from '../report/stored-summary-scenario.js';
import { CAUSE_TEXT, type ReportJson } from '../../exporter/src/report/report-schema.js';

test("the TaskEpilog prints the job's verdict, with its last counts, into the job's output file, once, after the batch script", async (t) => {
  const scenario = await startSummaryScenario('jobio-report-verdict-');
  appendFileSync(scenario.conf, 'verdict_wait=30\n');
  // slurmstepd gives the TaskEpilog the job's environment: a wrapper names the settings; no TaskProlog
  // settings file means the default rule, every partition profiled
  const epilog = join(scenario.hooks, 'taskepilog.sh');
  writeFileSync(
    epilog,
    `#!/bin/sh\nJOBIO_REPORT_SUMMARY_CONF=${scenario.conf} JOBIO_TASKPROLOG_CONF=${join(scenario.hooks, 'none.conf')} exec ${join(repoRoot, 'provisioning/slurm/jobio-taskepilog.sh')}\n`,
    { mode: 0o755 },
  );
  try {
    await onSlurm(t, { extraConf: [`TaskEpilog=${epilog}`] }, async (s, alice) => {
      const gate = makeGate(s.work);
      // an srun step first: its task's epilog must not print the verdict (the job has not ended)
      const script = scenario.jobScript(gate, 'SLURM_JOB_ID').replace('#!/bin/sh\n', '#!/bin/sh\nsrun -n1 true\n');
      const job = s.submit({ user: alice, script: script.replace(/\nexit 0\n$/, '\necho job-script-done\nexit 0\n') });
      await s.waitState(job, ['RUNNING']);
      await scenario.release(gate, job, false);
      assert.equal(await s.waitEnded(job, 120_000), 'COMPLETED', readFileSync(s.output(job), 'utf8'));

      const output = readFileSync(s.output(job), 'utf8');
      t.diagnostic(output);
      const verdict = output.split('\n').filter((l) => l.startsWith('jobio:'));
      // what Prometheus says of the job now, after its last scrape
      const now = await runJobio(['report', job, '--prometheus', scenario.prometheus.url, '--json']);
      assert.equal(now.code, 0, now.stderr);
      const report = JSON.parse(now.stdout) as ReportJson;
      const small = report.application.reasons.find((r) => r.reason === 'small_write');
      assert.deepEqual([small?.calls, small?.program.name], [3000, 'dd']);
      const first = report.findings[0];
      assert.ok(first !== undefined && first.reason === 'small_write' && first.program.name === 'dd', JSON.stringify(report.findings));
      assert.deepEqual(verdict, [
        `jobio: I/O of job ${job}: ${report.verdict.text}`,
        ...report.findings.slice(0, 3).map((f, i) => `jobio:   ${i + 1}. ${f.severity.toUpperCase()} ${f.program.label}: ${f.reason} on ${f.mount} (by ${CAUSE_TEXT[f.severity_from]})`),
        ...(report.findings.length > 3 ? [`jobio:   and ${report.findings.length - 3} more`] : []),
        `jobio: the whole report: jobio report ${job}`,
      ]);
      // after the batch script's own last line, and once: not after the srun step's task
      assert.ok(output.indexOf('job-script-done') < output.indexOf('jobio: I/O of job'), output);
      for (const line of verdict) assert.ok(line.length <= 80, line);
    });
  } finally {
    await scenario.stop();
  }
});
