// The receiver (ProfilerReceiver: addon + decoder + process table) against real sockets and frames
// written by the C frame tool: job claims of processes gone before JavaScript reads their frames.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { requireBinary } from '../helpers/binaries.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProfilerReceiver } from '../../exporter/src/profiler/receiver.js';
import type { AggregatorSink } from '../../exporter/src/profiler/process-table.js';
import { dumpFrames, frameTool } from './frame-tool.js';

const dir = mkdtempSync(join(tmpdir(), 'jobio-guards-'));

function receiver(name: string, procfs = '/proc') {
  const jobs = new Map<string, number>();
  const sink: AggregatorSink = {
    mountDelta(id) {
      jobs.set(id.jobid, (jobs.get(id.jobid) ?? 0) + 1);
    },
    processDelta() {},
  };
  const r = new ProfilerReceiver({ socketPath: join(dir, name), procfs, sink });
  return { r, jobs, path: join(dir, name) };
}

async function drained(r: ProfilerReceiver): Promise<void> {
  const end = Date.now() + 5000;
  while (Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (r.drained()) return;
  }
  throw new Error('receiver did not drain');
}

test('a process that exits before JavaScript reads its frames is judged on what /proc said when they arrived', async () => {
  const { r, jobs, path } = receiver('evidence.sock');
  try {
    // spawnSync blocks this thread: the tool sends, exits and is reaped before JavaScript handles any
    // frame. It lingers 500 ms after sending so the addon's receiving thread (which reads /proc when a
    // connection's first frame arrives) finds it alive even on a loaded machine: without the linger
    // this raced, and failed 3 runs in 8 under load.
    const linger = { FRAME_TOOL_HOLD_MS: '500' };
    const honest = spawnSync(frameTool(), ['send', path, 'valid', '4242', 'SLURM_JOB_ID'], { env: { ...process.env, ...linger, SLURM_JOB_ID: '4242' } });
    assert.equal(honest.status, 0);
    const liar = spawnSync(frameTool(), ['send', path, 'valid', '4343', 'SLURM_JOB_ID'], { env: { ...process.env, ...linger, SLURM_JOB_ID: '4242' } });
    assert.equal(liar.status, 0);
    const { SLURM_JOB_ID: _drop, ...clean } = process.env;
    const nothing = spawnSync(frameTool(), ['send', path, 'valid', '4444', 'SLURM_JOB_ID'], { env: { ...clean, ...linger } });
    assert.equal(nothing.status, 0);
    await drained(r);
    assert.equal(jobs.get('4242'), 2, 'two snapshots credited to the job its environment names');
    assert.equal(jobs.get('4343'), undefined);
    assert.equal(jobs.get('4444'), undefined);
    const rejected = r.rejectedCounts();
    assert.equal(rejected.get('job_mismatch'), 8, 'the liar (environment says 4242) and the tool without SLURM_JOB_ID: 4 frames each');
    assert.equal(rejected.get('unverified_job'), 0);
  } finally {
    r.close();
  }
});

test('connections beyond maxConnectionsPerUser are refused and counted by reason; the accepted one is served', async () => {
  const path = join(dir, 'per-user.sock');
  const jobs = new Map<string, number>();
  const sink: AggregatorSink = { mountDelta: (id) => void jobs.set(id.jobid, (jobs.get(id.jobid) ?? 0) + 1), processDelta() {} };
  // Claims not verified: this test is about connections, not about the frame tool outliving its frames.
  const r = new ProfilerReceiver({ socketPath: path, procfs: '/proc', sink, maxConnectionsPerUser: 1, verifyJobs: false });
  try {
    // One connection held open by a Python child while the frame tool (same uid) sends on a second one.
    const holder = spawn(
      requireBinary('python3'),
      ['-c', `import socket, sys\nc = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)\nc.connect(${JSON.stringify(path)})\nprint('open', flush=True)\nsys.stdin.readline()`],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    const end = Date.now() + 5000;
    while (r.stats().accepted < 1 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
    spawnSync(frameTool(), ['send', path, 'valid', '4242', 'SLURM_JOB_ID'], { env: { ...process.env, SLURM_JOB_ID: '4242' } });
    holder.stdin.end();
    await new Promise((resolve) => holder.once('exit', resolve));
    await drained(r);
    assert.deepEqual(
      [...r.refusedConnections()],
      [
        ['per_user_limit', 1],
        ['max_connections', 0],
        ['unverified_limit', 0],
      ],
    );
    assert.equal(
      r
        .rejectedByUser()
        .get(process.getuid?.() ?? -1)
        ?.get('connection_refused'),
      1,
      'the refusal is counted for its uid',
    );
    assert.equal(jobs.get('4242'), undefined, "the refused connection's frames were not read");
    spawnSync(frameTool(), ['send', path, 'valid', '4242', 'SLURM_JOB_ID'], { env: { ...process.env, SLURM_JOB_ID: '4242' } });
    await drained(r);
    assert.equal(jobs.get('4242'), 2, 'once the slot is free the same uid is served again');
  } finally {
    r.close();
  }
});

test('a 300-process single-node job: every process holds its own connection at once and every one is counted (the budget is sized by the node)', async () => {
  const path = join(dir, 'many.sock');
  const pids = new Set<number>();
  const sink: AggregatorSink = { mountDelta: (id) => void pids.add(id.pid), processDelta() {} };
  // Default budget: no maxConnections/maxConnectionsPerUser given (at least 4096 in all, 1024 per uid).
  const r = new ProfilerReceiver({ socketPath: path, procfs: '/proc', sink, verifyJobs: false });
  try {
    // One snapshot (process frame + its mount frame) per process; 300 children of one uid connect,
    // wait until all 300 are connected, then send and exit. A fixed 256 per uid refused 44 of them.
    const [processFrame, mountFrame] = dumpFrames();
    assert.ok(processFrame && mountFrame);
    const script = [
      'import os, socket, sys',
      `frames = [bytes.fromhex("${processFrame.toString('hex')}"), bytes.fromhex("${mountFrame.toString('hex')}")]`,
      'ready_r, ready_w = os.pipe(); go_r, go_w = os.pipe(); kids = []',
      'for i in range(300):',
      '    pid = os.fork()',
      '    if pid == 0:',
      '        os.close(go_w); c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)',
      `        c.connect(${JSON.stringify(path)}); os.write(ready_w, b"r"); os.read(go_r, 1)`,
      '        for f in frames: c.send(f)',
      '        c.close(); os._exit(0)',
      '    kids.append(pid)',
      'got = 0',
      'while got < 300: got += len(os.read(ready_r, 300 - got))',
      'os.close(go_w)',
      'bad = sum(1 for k in kids if os.waitpid(k, 0)[1] != 0)',
      'print(bad)',
    ].join('\n');
    const run = spawnSync(requireBinary('python3'), ['-c', script], { encoding: 'utf8' });
    assert.equal(run.stdout.trim(), '0', `every child connected and sent (${run.stderr})`);
    await drained(r);
    assert.equal(r.stats().accepted, 300);
    assert.deepEqual(
      [...r.refusedConnections()],
      [
        ['per_user_limit', 0],
        ['max_connections', 0],
        ['unverified_limit', 0],
      ],
    );
    assert.equal(pids.size, 300, "every process's snapshot was credited");
  } finally {
    r.close();
  }
});
