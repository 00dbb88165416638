import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResourceSampler } from './run-resources.js';

const PID = 4242;

/** A procfs with the host's cpu line and one process of `utime` ticks (state, ppid, 9 fields, utime, stime, cutime, cstime, 4 fields, starttime, ...). */
function writeProc(procfs: string, hostUserTicks: number, utime: number, status = 'VmRSS:\t1024 kB\nVmSize:\t4096 kB\n'): void {
  writeFileSync(join(procfs, 'stat'), `cpu  ${hostUserTicks} 0 0 1000 0 0 0 0 0 0\n`);
  writeFileSync(join(procfs, String(PID), 'stat'), `${PID} (app) R 1 ${PID} ${PID} 0 -1 0 0 0 0 0 ${utime} 0 0 0 20 0 1 0 5000 10000 250\n`);
  writeFileSync(join(procfs, String(PID), 'status'), status);
}

test('a sample taken after its frame was written joins the next frame: the frames still add up', () => {
  const procfs = mkdtempSync(join(tmpdir(), 'jobio-run-resources-'));
  mkdirSync(join(procfs, String(PID)));
  writeProc(procfs, 0, 0);
  let now = 0;
  const sampler = new ResourceSampler(procfs, PID, () => now);
  const sumUser = (from: number, to: number): number => sampler.window(from, to).jobUser.reduce((a, b) => a + b, 0);

  now = 1;
  writeProc(procfs, 10, 10);
  sampler.sample(); // on time: second 0
  sampler.seal(2); // frame [0, 2) written before the next sample came
  now = 2;
  writeProc(procfs, 30, 30);
  sampler.sample(); // late: it would belong to second 1, already written
  const firstFrame = sumUser(0, 2);
  now = 3;
  writeProc(procfs, 35, 35);
  sampler.sample();
  sampler.foldTail(4);

  assert.equal(firstFrame, 10 * 10_000, 'the written frame holds what it held when written');
  assert.equal(sumUser(0, 2), firstFrame);
  assert.equal(sumUser(2, 4), 25 * 10_000, 'the late sample is in the next frame');
  assert.equal(sumUser(0, 4), 35 * 10_000);
  const host = sampler.window(2, 4).hostUser.reduce((a, b) => a + b, 0);
  assert.equal(host, 25 * 10_000);
});

test('a last slot the run ended in before its sample holds the memory of the last sample; a run without any sample, getrusage’s peak', () => {
  const procfs = mkdtempSync(join(tmpdir(), 'jobio-run-resources-'));
  mkdirSync(join(procfs, String(PID)));
  writeProc(procfs, 0, 0);
  let now = 1;
  const sampler = new ResourceSampler(procfs, PID, () => now);
  writeProc(procfs, 10, 10);
  sampler.sample(); // second 0: 1024 kB resident, 4096 kB virtual
  now = 2;
  sampler.foldTail(3);
  sampler.closeTail(3, { userUs: 150_000, systemUs: 0, maxRssBytes: 9 << 20 });
  const tail = sampler.window(2, 3);
  assert.deepEqual([tail.rssBytes, tail.vmemBytes], [[1024 * 1024], [4096 * 1024]]);
  assert.deepEqual(tail.jobUser, [50_000], 'the CPU after the sample joins the last slot');
  assert.deepEqual(sampler.window(1, 2).rssBytes, [], 'a second between them stays unmeasured');

  const short = new ResourceSampler(procfs, PID, () => 0);
  short.foldTail(1);
  short.closeTail(1, { userUs: 20_000, systemUs: 0, maxRssBytes: 9 << 20 });
  const only = short.window(0, 1);
  assert.deepEqual([only.rssBytes, only.vmemBytes], [[9 << 20], [9 << 20]]);
});

test('a sample that finds the process without an address space (exiting, or a zombie) is no memory level: the last slot holds the level before it', () => {
  const procfs = mkdtempSync(join(tmpdir(), 'jobio-run-resources-'));
  mkdirSync(join(procfs, String(PID)));
  writeProc(procfs, 0, 0);
  let now = 1;
  const sampler = new ResourceSampler(procfs, PID, () => now);
  sampler.sample(); // second 0: 1024 kB resident, 4096 kB virtual
  now = 2;
  sampler.sample(); // second 1: the same
  now = 3;
  // /proc/PID/status of a process whose memory is being torn down at its exit has no Vm lines
  writeProc(procfs, 10, 10, 'Name:\tapp\nState:\tZ (zombie)\n');
  sampler.sample(); // second 2, the last
  sampler.foldTail(3);
  sampler.closeTail(3, { userUs: 100_000, systemUs: 0, maxRssBytes: 9 << 20 });
  const last = sampler.window(2, 3);
  assert.deepEqual([last.rssBytes, last.vmemBytes], [[1024 * 1024], [4096 * 1024]], 'not 0: the level of the sample before');
  assert.deepEqual(last.jobUser, [100_000], "the exiting sample's CPU still counts");
  assert.equal(sampler.peakRssBytes, 1024 * 1024);
});
