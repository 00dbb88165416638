// `jobio report --grafana-url` / JOBIO_GRAFANA_URL: the link to the job's dashboard, over the job's
// time range, printed in the text, the JSON and the HTML page; from a real `jobio run` log of a job.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runJobio } from '../helpers/exporter.js';
import type { ReportJson } from '../../exporter/src/report/report-schema.js';

test('jobio report --grafana-url: the job dashboard link with the job id and time range, escaped; JOBIO_GRAFANA_URL as default', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-report-grafana-'));
  try {
    const log = join(dir, 'run.jsonl');
    const jobid = '77&var-x=1';
    const run = await runJobio(['run', '-o', log, '--', 'true'], { env: { SLURM_JOB_ID: jobid } });
    assert.equal(run.code, 0, run.stderr);
    const plain = JSON.parse((await runJobio(['report', log, '--json'], { env: { JOBIO_GRAFANA_URL: '' } })).stdout) as ReportJson;
    assert.equal(plain.dashboard, undefined, 'no Grafana configured: no link');
    assert.equal(plain.header.jobid, jobid);
    const from = Date.parse(plain.header.start);
    const to = Date.parse(plain.header.end);
    const expected = `https://grafana.example.org/sub/d/jobio-job/jobio-job?var-jobid=77%26var-x%3D1&from=${Math.floor(from)}&to=${Math.ceil(to)}`;

    const json = JSON.parse((await runJobio(['report', log, '--json', '--grafana-url', 'https://grafana.example.org/sub/'])).stdout) as ReportJson;
    assert.equal(json.dashboard, expected);
    const text = await runJobio(['report', log], { env: { JOBIO_GRAFANA_URL: 'https://user:pw@grafana.example.org/sub' } });
    assert.equal(text.code, 0, text.stderr);
    assert.ok(text.stdout.split('\n').includes(`dashboard:    ${expected}`), text.stdout);
    assert.ok(!text.stdout.includes('pw'), 'credentials stay out of the link');
    const html = join(dir, 'r.html');
    assert.equal((await runJobio(['report', log, '--html', html, '--grafana-url', 'https://grafana.example.org/sub'])).code, 0);
    assert.ok(readFileSync(html, 'utf8').includes(`<a href="${expected.replace(/&/g, '&amp;')}">`));

    const bad = await runJobio(['report', log], { env: { JOBIO_GRAFANA_URL: 'ftp://grafana' } });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^jobio report: JOBIO_GRAFANA_URL: /);
    const badFlag = await runJobio(['report', log, '--grafana-url', 'ftp://grafana']);
    assert.equal(badFlag.code, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
