// Collector options on the command line: a bad value of any kind of flag (integer, duration, uid
// limit, octal mode, checked text, library name) stops the exporter before it starts, exit 2, with
// the flag named and what is wrong with the value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runJobio } from '../helpers/exporter.js';

test('a bad collector option value exits 2 naming the flag and the problem', async () => {
  const cases: Array<[string, string]> = [
    ['--collector.lustre_jobstats.max-jobs=0', 'invalid value for --collector.lustre_jobstats.max-jobs: "0" is not a positive integer'],
    [
      '--collector.lustre_jobstats.expiry=soon',
      'invalid value for --collector.lustre_jobstats.expiry: invalid duration "soon": expected a number and a unit (ms, s, m, h, d, w, y), e.g. 30s or 1h30m',
    ],
    ['--collector.lustre_jobstats.jobid-format=%q', 'invalid value for --collector.lustre_jobstats.jobid-format: unknown jobid_name code "%q" in "%q" (known: %e %g %h %H %j %p %u)'],
    ['--collector.profiler.socket-mode=999', 'invalid value for --collector.profiler.socket-mode: "999" is not an octal file mode such as 0666'],
    ['--collector.gpu.system-uid-max=-2', 'invalid value for --collector.gpu.system-uid-max: "-2" is not an integer >= -1'],
    ['--collector.gpu.nvml-library=', 'invalid value for --collector.gpu.nvml-library: a library name or path is needed'],
    ['--collector.cgroup.sample-interval=0s', 'invalid value for --collector.cgroup.sample-interval: "0s" must be a positive duration'],
    ['--collector.lustre_stats.max-targets=x', 'invalid value for --collector.lustre_stats.max-targets: "x" is not a positive integer'],
    [
      '--collector.lustre_client.lctl-timeout=-1s',
      'invalid value for --collector.lustre_client.lctl-timeout: invalid duration "-1s": expected a number and a unit (ms, s, m, h, d, w, y), e.g. 30s or 1h30m',
    ],
    ['--collector.job_info.label-max-length=1.5', 'invalid value for --collector.job_info.label-max-length: "1.5" is not a positive integer'],
  ];
  for (const [flag, message] of cases) {
    // The flags are checked before any collector is created or any port bound.
    const r = await runJobio(['exporter', '--web.listen-address=127.0.0.1:0', '--collector.disable-defaults', flag]);
    assert.equal(r.code, 2, `${flag} exits 2 (stderr: ${r.stderr})`);
    assert.equal(r.stderr, `jobio exporter: ${message}\n`);
  }
});
