import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expandOutputPath, withHostInserted } from './output-path.js';
import { UsageError } from './run-options.js';

const v = { host: 'node017.cluster.example', jobid: '4242', pid: 31337 };

test('%h is the short host name, %j the job id, %p the pid, %% a percent sign', () => {
  assert.equal(expandOutputPath('io-%j-%h-%p.jsonl', v), 'io-4242-node017-31337.jsonl');
  assert.equal(expandOutputPath('/logs/%h/%%h.jsonl', v), '/logs/node017/%h.jsonl');
  assert.equal(expandOutputPath('plain.jsonl', v), 'plain.jsonl');
  assert.equal(expandOutputPath('%j.jsonl', { ...v, jobid: '' }), '.jsonl');
});

test('an unknown or dangling % is a usage error naming it', () => {
  assert.throws(
    () => expandOutputPath('io-%x.jsonl', v),
    (e: unknown) => e instanceof UsageError && /"%x"/.test(e.message) && /%h short host name/.test(e.message),
  );
  assert.throws(
    () => expandOutputPath('io-%', v),
    (e: unknown) => e instanceof UsageError && /at its end/.test(e.message),
  );
});

test('a %h, %j or %p that would leave the directory is a usage error (a job id "../x", a "/" in it)', () => {
  for (const jobid of ['../../victim', 'a/b', '..', '.']) {
    assert.throws(
      () => expandOutputPath('logs/%j.jsonl', { ...v, jobid }),
      (e: unknown) => e instanceof UsageError && /%j/.test(e.message) && e.message.includes(JSON.stringify(jobid)),
      jobid,
    );
  }
  assert.throws(() => expandOutputPath('logs/%h.jsonl', { ...v, host: 'a/b.example' }), UsageError);
  // A job id with dots is fine: only whole "." and ".." name a directory.
  assert.equal(expandOutputPath('logs/%j.jsonl', { ...v, jobid: '4242.pbs01' }), 'logs/4242.pbs01.jsonl');
});

test("a log path from Mistral's settings always names the host: %h inserted before a final .log, or at the end", () => {
  assert.equal(withHostInserted('/scratch/io.log'), '/scratch/io-%h.log');
  assert.equal(withHostInserted('/scratch/io.jsonl'), '/scratch/io.jsonl-%h');
  assert.equal(withHostInserted('/scratch/%h/io.log'), '/scratch/%h/io.log');
  assert.equal(withHostInserted('/scratch/100%%h.log'), '/scratch/100%%h-%h.log', '%%h is a literal "%h", not the host');
  assert.equal(expandOutputPath(withHostInserted('/tmp/mistral.log'), v), '/tmp/mistral-node017.log');
});
