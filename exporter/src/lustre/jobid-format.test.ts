// Identifier classification by the site's jobid_name formats, with the production shapes from the
// Puhti study (docs/architecture.md "Lustre: counters the exporter owns"), and the decoding of quoted/escaped ids.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyJobId, compileJobIdFormats, type JobIdentity, type JobIdQuality } from './jobid-format.js';
import { decodeJobId } from '../parsers/lustre-jobid.js';

const defaults = compileJobIdFormats('%j:%u:%H,%e.%u');

const cases: readonly [string, string, JobIdentity][] = [
  ['%j:%u:%H,%e.%u', '11317854:17627127:r01c01', { quality: 'correct', jobid: '11317854', uid: 17627127 }],
  ['%j:%u:%H,%e.%u', ':17627127:r01c01', { quality: 'missing_jobid', uid: 17627127 }],
  // Flux's UTF-8 spelling of a job id is labelled in the ASCII one the cgroup and profiler series use.
  ['%j:%u:%H,%e.%u', 'ƒiFkbMhFM:1000:r01c01', { quality: 'correct', jobid: 'fiFkbMhFM', uid: 1000 }],
  ['%j:%u:%H,%e.%u', '11317854:17627127:r01c01.bullx', { quality: 'malformed' }],
  ['%j:%u:%H,%e.%u', 'wget.', { quality: 'malformed' }],
  ['%j:%u:%H,%e.%u', '11317854', { quality: 'malformed' }],
  // Login and utility nodes use a format without %j: their entries are well formed, with no job by nature.
  ['%j:%u:%H,%e.%u', 'cp.0', { quality: 'correct', uid: 0, process: 'cp' }],
  ['%j:%u:%H,%e.%u', 'python3.9.1000', { quality: 'correct', uid: 1000, process: 'python3.9' }],
  ['%j:%u:%H,%e.%u', 'SLURM_JOB10:0:es18kxe-co-client', { quality: 'correct', jobid: 'SLURM_JOB10', uid: 0 }],
  ['%j:%u:%H,%e.%u', 'node_exporter:989:es-2-virt3-co', { quality: 'correct', jobid: 'node_exporter', uid: 989 }],
  ['%j:%u:%H,%e.%u', '', { quality: 'malformed' }],
  ['%j:%u:%H,%j:%u:%h', '11317854:17627127:r01c01.bullx', { quality: 'correct', jobid: '11317854', uid: 17627127 }],
  ['%j', '24', { quality: 'correct', jobid: '24' }],
  ['%j', 'cluster-testjob1', { quality: 'correct', jobid: 'cluster-testjob1' }],
  ['%e.%u', 'dd.0', { quality: 'correct', uid: 0, process: 'dd' }],
  ['%j.%e', '.dd', { quality: 'missing_jobid', process: 'dd' }],
  ['%j.%g.%p', '77.100.4242', { quality: 'correct', jobid: '77' }],
  ['%j:%u', '5:99999999999999999999', { quality: 'malformed' }],
];

for (const [formats, id, expected] of cases) {
  test(`jobid format ${formats}: "${id}" is ${expected.quality}`, () => {
    assert.deepEqual(classifyJobId(id, compileJobIdFormats(formats)), expected);
  });
}

// The Puhti study's table of observed identifiers (Tollander de Balsch, Aalto 2023, Table 8), under the
// formats it set (login nodes `%e.%u`, compute and utility nodes `%j:%u:%H`), with the class it gives each.
const puhtiTable: readonly [string, JobIdQuality][] = [
  ['wget.11317854', 'correct'],
  ['11317854:17627127:r01c01', 'correct'],
  [':17627127:r01c01', 'missing_jobid'],
  ['wget', 'malformed'],
  ['wget.', 'malformed'],
  ['11317854', 'malformed'],
  ['11317854:', 'malformed'],
  ['113178544', 'malformed'],
  ['11317854:17627127', 'malformed'],
  ['11317854:17627127:', 'malformed'],
  ['11317854:17627127:r01c01.bullx', 'malformed'],
  [':17627127:r01c01.bullx', 'malformed'],
  // A job id holding the separator it was split on would be job ":1317854" of uid 17627127.
  [':1317854:17627127:r01c01', 'malformed'],
];

test('jobid format: the Puhti identifier table, all 13 classed as the study classes them', () => {
  const puhti = compileJobIdFormats('%e.%u,%j:%u:%H');
  const got = puhtiTable.map(([id]) => [id, classifyJobId(id, puhti).quality]);
  assert.deepEqual(got, puhtiTable);
  assert.equal(puhtiTable.length, 13);
});

test('jobid format: a job id may not contain the literal separators beside %j, only those', () => {
  const cases: readonly [string, string, JobIdentity][] = [
    ['%j:%u', 'a:b:5', { quality: 'malformed' }],
    ['%j:%u', 'a.b:5', { quality: 'correct', jobid: 'a.b', uid: 5 }],
    ['%u.%j', '5.a.b', { quality: 'malformed' }],
    ['%u.%j', '5.a:b', { quality: 'correct', jobid: 'a:b', uid: 5 }],
    // %% is a literal percent sign, a separator like any other.
    ['%j%%%u', '7%%9', { quality: 'malformed' }],
    ['%j%%%u', '7%9', { quality: 'correct', jobid: '7', uid: 9 }],
    // Regex-special separators are taken literally.
    ['%j]%u', 'a]b]1', { quality: 'malformed' }],
    ['%j-%u', 'a-b-1', { quality: 'malformed' }],
    ['%j^%u', 'x^1', { quality: 'correct', jobid: 'x', uid: 1 }],
  ];
  for (const [formats, id, expected] of cases) assert.deepEqual(classifyJobId(id, compileJobIdFormats(formats)), expected, `${formats} on ${id}`);
});

test('jobid format: unknown codes and empty lists are flag errors', () => {
  assert.throws(() => compileJobIdFormats('%j:%x'), /unknown jobid_name code "%x"/);
  assert.throws(() => compileJobIdFormats(' , '), /no jobid format/);
  assert.throws(() => compileJobIdFormats('plain'), /no % code/);
  assert.equal(compileJobIdFormats('%j%%').formats.length, 1);
});

test('jobid format: ids longer than any Lustre id are malformed without matching', () => {
  assert.equal(classifyJobId(`${'9'.repeat(300)}:1:h`, defaults).quality, 'malformed');
});

test('decodeJobId: quotes and \\xHH escapes (2.15.2+), raw ids unchanged', () => {
  assert.equal(decodeJobId('"kworker\\x2F86\\x3A1.0"'), 'kworker/86:1.0');
  assert.equal(decodeJobId('"123\\x3A1000\\x3Anode1"'), '123:1000:node1');
  assert.equal(decodeJobId('"SLURM_JOB10:0:es18kxe-co-client"'), 'SLURM_JOB10:0:es18kxe-co-client');
  assert.equal(decodeJobId('SLURM_JOB10'), 'SLURM_JOB10');
  assert.equal(decodeJobId('"caf\\xC3\\xA9"'), 'café');
  assert.equal(decodeJobId('"bad\\xZZ"'), 'bad\\xZZ');
  assert.equal(decodeJobId('"'), '"');
  // An unquoted id is not unescaped (before 2.15.2 a backslash was printed as itself).
  assert.equal(decodeJobId('a\\x3Ab'), 'a\\x3Ab');
  // Raw UTF-8 bytes (read as latin1) decode as UTF-8.
  assert.equal(decodeJobId(Buffer.from('jöb', 'utf8').toString('latin1')), 'jöb');
});
