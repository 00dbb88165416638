// Pure pieces of `jobio top`: the exposition parser, PromQL escaping, Slurm host lists, the maps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseExposition } from '../../exporter/src/top/exposition.js';
import { promString, selector } from '../../exporter/src/top/promql.js';
import { measureOf } from '../../exporter/src/top/increments.js';
import { buildQuery } from '../../exporter/src/top/prometheus-source.js';
import { expandHostList } from '../../exporter/src/parsers/slurm-hostlist.js';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientMapper, parseJobMap, parseNidMap } from '../../exporter/src/top/client-map.js';

test('exposition parser: escapes, comments, special values, bad lines', () => {
  const text = [
    '# HELP x y',
    '# TYPE m counter',
    'm{jobid="a\\"b\\\\c\\nd",user="u"} 12',
    'm 3 1700000000000',
    'm{a="1",} +Inf',
    'n{a="1"} NaN',
    'm{a="unterminated} 1',
    'm{a="1"}',
    '{bad} 1',
    '',
  ].join('\n');
  const parsed = parseExposition(text, (name) => name === 'm');
  assert.deepEqual(parsed.samples, [
    { name: 'm', labels: { jobid: 'a"b\\c\nd', user: 'u' }, value: 12 },
    { name: 'm', labels: {}, value: 3 },
    { name: 'm', labels: { a: '1' }, value: Number.POSITIVE_INFINITY },
  ]);
  assert.equal(parsed.badLines, 3);
});

test('exposition parser: CRLF and padded lines, escapes at the ends of values, a value cut at the line end', () => {
  const text = '  m{a="x\\\\",b="\\"q\\""} 1.5e3 \r\nm{a="tail\\\nm 7\n\tm{ a = "no" } 2\nm{a="1"}9';
  const parsed = parseExposition(text);
  assert.deepEqual(parsed.samples, [
    { name: 'm', labels: { a: 'x\\', b: '"q"' }, value: 1500 },
    { name: 'm', labels: {}, value: 7 },
    { name: 'm', labels: { a: '1' }, value: 9 },
  ]);
  assert.equal(parsed.badLines, 2, 'the value cut by a backslash at the line end, and `a = "no"` (no space allowed before =" here)');
});

test('PromQL escaping keeps any label value one string literal', () => {
  assert.equal(promString('x"}) or vector(1) #'), '"x\\"}) or vector(1) #"');
  assert.equal(promString('a\\"b\n'), '"a\\\\\\"b\\n"');
  assert.equal(selector({ jobid: '1"2', target: undefined }), '{jobid="1\\"2"}');
  assert.equal(selector({}), '');
  assert.equal(buildQuery('job', 'write', 10_000, { jobid: 'j"' }), 'sum by (jobid, user, target) (increase(jobio_lustre_jobstats_write_bytes_total{jobid="j\\""}[10s]))');
  // Per client, REQS leaves out the keep-alive pings, as lltop does.
  assert.equal(buildQuery('client', 'reqs', 1500, {}), 'sum by (client, target) (increase(jobio_lustre_export_operations_total{operation!="ping"}[1500ms]))');
  assert.equal(buildQuery('client', 'reqs', 10_000, { target: 'OST"0' }), 'sum by (client, target) (increase(jobio_lustre_export_operations_total{target="OST\\"0",operation!="ping"}[10s]))');
  assert.equal(buildQuery('job', 'reqs', 10_000, {}), 'sum by (jobid, user, target) (increase(jobio_lustre_jobstats_operations_total[10s]))');
});

test('Slurm host lists', () => {
  assert.deepEqual(expandHostList('n[01-03,07],gpu[1-2]-ib,login1'), ['n01', 'n02', 'n03', 'n07', 'gpu1-ib', 'gpu2-ib', 'login1']);
  assert.deepEqual(expandHostList('r[1-2]n[1-2]'), ['r1n1', 'r1n2', 'r2n1', 'r2n2']);
  assert.deepEqual(expandHostList('bad[3-1],odd[x]'), ['bad[3-1]', 'odd[x]']);
  assert.deepEqual(expandHostList(''), []);
});

test('NID and job maps', () => {
  assert.deepEqual([...parseNidMap('# c\n10.0.0.1@o2ib n1 # comment\n\nbroken\n')], [['10.0.0.1@o2ib', 'n1']]);
  const jobs = parseJobMap('12 alice n[1-2]\n13 n2\n\n14\n');
  assert.deepEqual(jobs.get('n1'), [{ job: '12', owner: 'alice' }]);
  assert.deepEqual(jobs.get('n2'), [
    { job: '12', owner: 'alice' },
    { job: '13', owner: '-' },
  ]);
  assert.equal(jobs.size, 2);
});

test('--nid-command runs once per NID (cached); a failing lookup leaves the NID as its own host', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-nidcmd-'));
  try {
    const script = join(dir, 'nid2host');
    writeFileSync(script, `#!/bin/sh\necho "$1" >> ${join(dir, 'calls')}\ncase "$1" in 10.0.0.1@tcp) echo n1.example.org;; *) exit 3;; esac\n`);
    chmodSync(script, 0o755);
    writeFileSync(join(dir, 'jobs'), '55 carol n1\n');
    const mapper = new ClientMapper({ nidCommand: script, jobMapFile: join(dir, 'jobs') });
    await mapper.refresh();
    assert.equal(await mapper.host('10.0.0.1@tcp'), 'n1.example.org');
    assert.equal(await mapper.host('10.0.0.1@tcp'), 'n1.example.org');
    assert.equal(await mapper.host('10.0.0.7@tcp'), '10.0.0.7@tcp');
    assert.equal(await mapper.host('10.0.0.7@tcp'), '10.0.0.7@tcp');
    assert.equal(readFileSync(join(dir, 'calls'), 'utf8'), '10.0.0.1@tcp\n10.0.0.7@tcp\n');
    assert.deepEqual(mapper.job('n1.example.org'), { job: '55', owner: 'carol' }, 'the FQDN matches the short name squeue prints');
    assert.deepEqual(mapper.job('10.0.0.7@tcp'), { job: '10.0.0.7@tcp', owner: '-' }, 'a host with no job is its own job');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('REQS per client leaves out pings (lltop); per job every operation counts', () => {
  const client = 'jobio_lustre_export_operations_total';
  assert.equal(measureOf('client', client, { operation: 'ping' }), undefined);
  assert.equal(measureOf('client', client, { operation: 'write' }), 'reqs');
  assert.equal(measureOf('client', 'jobio_lustre_export_write_bytes_total', {}), 'write');
  assert.equal(measureOf('job', 'jobio_lustre_jobstats_operations_total', { operation: 'ping' }), 'reqs');
});
