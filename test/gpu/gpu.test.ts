// The built exporter with the gpu collector on the fake libnvidia-ml: golden exposition for 2 GPUs
// with a real job process, PCIe integration over time, absent without a library, NVML error codes,
// and a hanging NVML call (the scrape is still served, other collectors too, the loop stays free).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { repoRoot, scrape, startExporter } from '../helpers/exporter.js';
import { assertGolden, normaliseExposition } from '../helpers/golden.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { fakeProc } from '../helpers/fake-proc.js';
import { fakeConfig, rootfsWithSpool, startGpuExporter } from './harness.js';

const success = (text: string, collector: string): string | undefined => new RegExp(`^jobio_scrape_collector_success\\{collector="${collector}"\\} (\\d)$`, 'm').exec(text)?.[1];
const value = (text: string, series: string): number => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);

/** A real process of job 4242 (as uid 1000 = alice in the fixture passwd when we may switch uid). */
async function jobProcess(): Promise<ChildProcess> {
  const asAlice = process.getuid?.() === 0 ? { uid: 1000, gid: 1000 } : {};
  const child = spawn('sleep', ['60'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SLURM_JOB_ID: '4242' }, stdio: 'ignore', ...asAlice });
  await once(child, 'spawn');
  return child;
}

test('gpu: 2 fake GPUs, a job process on GPU 0 → golden exposition, promtool-clean; PCIe bytes integrate over time', async () => {
  const child = await jobProcess();
  // Job 4242 has no job cgroup here: its process names it in its environment, which counts because
  // the prolog's root-owned spool gives job 4242 to the process's uid (only root can write that spool).
  const work = mkdtempSync(join(tmpdir(), 'jobio-gpu-'));
  const root = rootfsWithSpool(work, { 4242: process.getuid?.() === 0 ? 1000 : (process.getuid?.() ?? 0) });
  // GPU 1 runs this test's own process, which is in no job: no jobio_gpu_job_info for it.
  const config = fakeConfig(['gpus=2', `gpu0.pids=${child.pid}`, `gpu1.pids=${process.pid}`, 'gpu0.name=NVIDIA A100-SXM4-80GB', 'gpu1.name=NVIDIA A100-SXM4-80GB', 'gpu0.energy_mj=123456789']);
  const exporter = await startGpuExporter(config, [], root);
  try {
    // The integration window lies between the two scrapes' samples: within [t0, end of the second scrape].
    const t0 = performance.now();
    const text = await scrape(`${exporter.url}/metrics`);
    const lint = promtoolCheckMetrics(text);
    assert.ok(lint.ok, `promtool check metrics:\n${lint.output}`);
    assert.equal(success(text, 'gpu'), '1');
    // Not as root, the spool is not trusted: the environment alone attributes nothing.
    if (process.getuid?.() === 0) assert.match(text, /^jobio_gpu_job_info\{gpu="0",jobid="4242",user="alice"\} 1$/m);
    else assert.match(text, /^jobio_gpu_unverified_processes 1$/m);
    const user = process.getuid?.() === 0 ? 'alice' : '_system';
    assert.doesNotMatch(text, /^jobio_gpu_job_info\{gpu="1"/m);
    if (user === 'alice') assertGolden(normaliseExposition(text), join(repoRoot, 'test/golden/gpu/two-gpus.prom'));
    // The first sample only starts the clock; the next one integrates 2048 KB/s (rx) and 1024 KB/s (tx).
    await new Promise((r) => setTimeout(r, 300));
    const later = await scrape(`${exporter.url}/metrics`);
    const elapsed = (performance.now() - t0) / 1000;
    const rx = value(later, 'jobio_gpu_pcie_receive_bytes_total{gpu="0"}');
    const tx = value(later, 'jobio_gpu_pcie_transmit_bytes_total{gpu="0"}');
    assert.ok(rx > 2048 * 1024 * 0.2 && rx < 2048 * 1024 * (elapsed + 0.5), `rx ${rx} after ${elapsed}s`);
    assert.ok(Math.abs(tx * 2 - rx) < 1e-6 * rx, 'tx integrates half the rate of rx');
  } finally {
    child.kill();
    await exporter.stop();
    rmSync(work, { recursive: true, force: true });
  }
});

// The profiler's evidence rule: the kernel (job cgroup, root-owned step daemon) decides; the
// environment, which any process sets itself, counts only for a job the root-written spool gives to
// the process's own uid. Spool: job 1 is alice's (1000). Bob (1001), outside any job, names job 1 and
// job 99999; alice, outside a job cgroup, names her job 1; bob's process under job 77's root-owned
// step daemon says SLURM_JOB_ID=5.
test(
  'gpu: the environment never decides an owner: SLURM_JOB_ID=1 outside any job joins nobody, SLURM_JOB_ID=99999 invents no job',
  { skip: process.getuid?.() === 0 ? false : 'writes a root-owned job spool' },
  async () => {
    const work = mkdtempSync(join(tmpdir(), 'jobio-gpu-'));
    const root = rootfsWithSpool(work, { 1: 1000 });
    const outside = '0::/user.slice/user-1001.slice/session-3.scope\n';
    const procfs = fakeProc({
      1: { ppid: 0, cmdline: '/sbin/init', uid: 0 },
      601: { uid: 1001, cgroup: outside, environ: 'SLURM_JOB_ID=1\0', ppid: 1 },
      602: { uid: 1001, cgroup: outside, environ: 'SLURM_JOB_ID=99999\0', ppid: 1 },
      603: { uid: 1000, cgroup: '0::/user.slice/user-1000.slice/session-4.scope\n', environ: 'SLURM_JOB_ID=1\0', ppid: 1 },
      610: { uid: 0, ppid: 1, cmdline: 'slurmstepd: [77.0]' },
      611: { uid: 1001, cgroup: outside, environ: 'SLURM_JOB_ID=5\0', ppid: 610 },
      620: { uid: 1001, ppid: 1, cmdline: 'slurmstepd: [600.0]' }, // bob's imitation of a step daemon
      621: { uid: 1001, cgroup: outside, environ: 'SLURM_JOB_ID=600\0', ppid: 620 },
    });
    const exporter = await startGpuExporter(fakeConfig(['gpus=3', 'gpu0.pids=601,602,621', 'gpu1.pids=603', 'gpu2.pids=611']), [`--path.procfs=${procfs}`], root);
    try {
      for (let i = 0; i < 2; i++) {
        const text = await scrape(`${exporter.url}/metrics`);
        assert.equal(success(text, 'gpu'), '1');
        assert.deepEqual(text.match(/^jobio_gpu_job_info\{.*$/gm), ['jobio_gpu_job_info{gpu="1",jobid="1",user="alice"} 1', 'jobio_gpu_job_info{gpu="2",jobid="77",user="bob"} 1']);
        assert.match(text, /^jobio_gpu_unverified_processes 3$/m, '601, 602 and 621: named by their environment only');
      }
    } finally {
      await exporter.stop();
      rmSync(work, { recursive: true, force: true });
      rmSync(procfs, { recursive: true, force: true });
    }
  },
);

// The kernel outranks the environment: a process that Slurm put in job 888's cgroup but that set
// SLURM_JOB_ID=999 itself is job 888's (the same resolver as the profiler's claim checks).
test('gpu: process → job follows the cgroup, not a contradicting SLURM_JOB_ID; the owner is its real uid', async () => {
  const procfs = mkdtempSync(join(tmpdir(), 'jobio-gpu-proc-'));
  const pid = 888001;
  mkdirSync(join(procfs, String(pid)));
  writeFileSync(join(procfs, String(pid), 'status'), 'Name:\tsim\nUid:\t1001\t1001\t1001\t1001\n');
  writeFileSync(join(procfs, String(pid), 'cgroup'), '0::/system.slice/slurmstepd.scope/job_888/step_0/user/task_0\n');
  writeFileSync(join(procfs, String(pid), 'environ'), 'PATH=/bin\0SLURM_JOB_ID=999\0');
  const exporter = await startGpuExporter(fakeConfig(['gpus=1', `gpu0.pids=${pid}`]), [`--path.procfs=${procfs}`]);
  try {
    const text = await scrape(`${exporter.url}/metrics`);
    assert.equal(success(text, 'gpu'), '1');
    assert.match(text, /^jobio_gpu_job_info\{gpu="0",jobid="888",user="bob"\} 1$/m);
    assert.doesNotMatch(text, /jobid="999"/);
  } finally {
    await exporter.stop();
    rmSync(procfs, { recursive: true, force: true });
  }
});

// max-jobs bounds jobio_gpu_job_info: three jobs on one GPU with max-jobs=2 give two series, the third
// is counted as folded, and the next scrape keeps the same two (membership is sticky).
test('gpu: beyond max-jobs, GPU-job pairs are folded and counted; the exported ones stay', async () => {
  const procfs = mkdtempSync(join(tmpdir(), 'jobio-gpu-proc-'));
  const pids = [777001, 777002, 777003];
  pids.forEach((pid, i) => {
    mkdirSync(join(procfs, String(pid)));
    writeFileSync(join(procfs, String(pid), 'status'), 'Name:\tsim\nUid:\t1000\t1000\t1000\t1000\n');
    writeFileSync(join(procfs, String(pid), 'cgroup'), `0::/system.slice/slurmstepd.scope/job_70${i}/step_0/user/task_0\n`);
  });
  const exporter = await startGpuExporter(fakeConfig(['gpus=1', `gpu0.pids=${pids.join(',')}`]), [`--path.procfs=${procfs}`, '--collector.gpu.max-jobs=2']);
  try {
    const jobsOf = (text: string): string[] => [...text.matchAll(/^jobio_gpu_job_info\{gpu="0",jobid="(\d+)",user="alice"\} 1$/gm)].map((m) => m[1] ?? '');
    const first = await scrape(`${exporter.url}/metrics`);
    assert.equal(success(first, 'gpu'), '1');
    assert.deepEqual(jobsOf(first), ['700', '701']);
    assert.equal(value(first, 'jobio_gpu_jobs_folded'), 1);
    const second = await scrape(`${exporter.url}/metrics`);
    assert.deepEqual(jobsOf(second), ['700', '701']);
    assert.equal(value(second, 'jobio_gpu_jobs_folded'), 1);
  } finally {
    await exporter.stop();
    rmSync(procfs, { recursive: true, force: true });
  }
});

// LSF and Flux jobs too: GPU 0 runs a process in LSF job 31337's cgroup that says LSB_JOBID=1;
// GPU 1 runs a process in Flux job ƒiFkbMhFM's sdexec unit (Flux's manager is uid 500) whose
// FLUX_JOB_ID is another job's, in the decimal spelling. Both follow their cgroup.
test('gpu: LSF and Flux processes → the job their cgroup names (Flux id in its ASCII F58 spelling)', async () => {
  const procfs = mkdtempSync(join(tmpdir(), 'jobio-gpu-proc-'));
  const processes = [
    { pid: 313371, uid: 1000, cgroup: '6:memory:/lsf/cluster1/job.31337.0.1763990000\n3:cpu,cpuacct:/lsf/cluster1/job.31337.0.1763990000\n', environ: 'LSB_JOBID=1\0' },
    { pid: 710001, uid: 1001, cgroup: '0::/user.slice/user-500.slice/user@500.service/imp-shell-0-fiFkbMhFM.service\n', environ: 'FLUX_JOB_ID=91150983626752\0' },
  ];
  for (const p of processes) {
    mkdirSync(join(procfs, String(p.pid)));
    writeFileSync(join(procfs, String(p.pid), 'status'), `Name:\tsim\nUid:\t${p.uid}\t${p.uid}\t${p.uid}\t${p.uid}\n`);
    writeFileSync(join(procfs, String(p.pid), 'cgroup'), p.cgroup);
    writeFileSync(join(procfs, String(p.pid), 'environ'), p.environ);
  }
  const exporter = await startGpuExporter(fakeConfig(['gpus=2', 'gpu0.pids=313371', 'gpu1.pids=710001']), [`--path.procfs=${procfs}`]);
  try {
    const text = await scrape(`${exporter.url}/metrics`);
    assert.equal(success(text, 'gpu'), '1');
    assert.deepEqual(text.match(/^jobio_gpu_job_info\{.*$/gm), ['jobio_gpu_job_info{gpu="0",jobid="31337",user="alice"} 1', 'jobio_gpu_job_info{gpu="1",jobid="fiFkbMhFM",user="bob"} 1']);
  } finally {
    await exporter.stop();
    rmSync(procfs, { recursive: true, force: true });
  }
});

test('gpu: no NVML library → absent quietly (success 0, no gpu series, no warning)', async () => {
  const exporter = await startExporter(['--collector.disable-defaults', '--collector.gpu', '--collector.gpu.nvml-library=/nonexistent/libnvidia-ml.so.1']);
  try {
    const text = await scrape(`${exporter.url}/metrics`);
    assert.ok(promtoolCheckMetrics(text).ok);
    assert.equal(success(text, 'gpu'), '0');
    assert.doesNotMatch(text, /^jobio_gpu_/m);
    assert.doesNotMatch(exporter.log(), /"level":"(warn|error|fatal)"/);
    assertGolden(normaliseExposition(text), join(repoRoot, 'test/golden/gpu/no-library.prom'));
  } finally {
    await exporter.stop();
  }
});

// A CPU-only node with the NVIDIA library but no driver (nvmlInit_v2 → DRIVER_NOT_LOADED) has no GPU:
// as quiet as a node without the library, and it does not fail the collector at every scrape.
test('gpu: library without a driver (nvmlInit_v2 DRIVER_NOT_LOADED) → absent quietly, retried', async () => {
  const exporter = await startGpuExporter(fakeConfig(['gpus=1', 'init_error=9']));
  try {
    for (let i = 0; i < 2; i += 1) {
      const text = await scrape(`${exporter.url}/metrics`);
      assert.equal(success(text, 'gpu'), '0');
      assert.doesNotMatch(text, /^jobio_gpu_/m);
    }
    assert.doesNotMatch(exporter.log(), /"level":"(warn|error|fatal)"/);
  } finally {
    await exporter.stop();
  }
});

const errorCases: ReadonlyArray<{ name: string; lines: string[]; log: RegExp }> = [
  { name: 'nvmlInit_v2 NO_PERMISSION', lines: ['gpus=1', 'init_error=4'], log: /NVML nvmlInit_v2 failed: .*\(code 4\)/ },
  { name: 'GetPowerUsage UNKNOWN', lines: ['gpus=2', 'error=nvmlDeviceGetPowerUsage:999'], log: /NVML nvmlDeviceGetPowerUsage failed on GPU 0: Unknown Error \(code 999\)/ },
  { name: 'GPU_IS_LOST', lines: ['gpus=1', 'error=nvmlDeviceGetHandleByIndex_v2:15'], log: /NVML nvmlDeviceGetHandleByIndex_v2 failed on GPU 0: GPU is lost \(code 15\)/ },
];
for (const c of errorCases) {
  test(`gpu: NVML error ${c.name} → success 0 with a clear log`, async () => {
    const exporter = await startGpuExporter(fakeConfig(c.lines));
    try {
      const text = await scrape(`${exporter.url}/metrics`);
      assert.ok(promtoolCheckMetrics(text).ok);
      assert.equal(success(text, 'gpu'), '0');
      assert.doesNotMatch(text, /^jobio_gpu_/m);
      assert.match(exporter.log(), c.log);
    } finally {
      await exporter.stop();
    }
  });
}

test('gpu: NOT_SUPPORTED (energy on a pre-Volta GPU) leaves that metric out, quietly', async () => {
  const exporter = await startGpuExporter(fakeConfig(['gpus=1', 'error=nvmlDeviceGetTotalEnergyConsumption:3']));
  try {
    const text = await scrape(`${exporter.url}/metrics`);
    assert.equal(success(text, 'gpu'), '1');
    assert.doesNotMatch(text, /^jobio_gpu_energy_joules_total\{/m);
    assert.match(text, /^jobio_gpu_power_watts\{gpu="0"\} 100$/m);
    assert.doesNotMatch(exporter.log(), /"level":"(warn|error|fatal)"/);
  } finally {
    await exporter.stop();
  }
});

test('gpu: a hanging NVML call times out; the scrape, the other collectors and the event loop are unaffected', async () => {
  const config = fakeConfig(['gpus=1', 'hang=nvmlDeviceGetTemperature', 'hang_ms=4000']);
  const cgroupTree = join(repoRoot, 'test/fixtures/cgroup/v1/sys');
  const exporter = await startGpuExporter(config, ['--collector.gpu.timeout=500ms', '--collector.cgroup', `--path.sysfs=${cgroupTree}`]);
  try {
    const started = performance.now();
    const scraping = scrape(`${exporter.url}/metrics`);
    // While the NVML call is wedged on a pool thread, the exporter still answers at once.
    await new Promise((r) => setTimeout(r, 100));
    const healthStart = performance.now();
    assert.equal(await scrape(`${exporter.url}/healthz`), 'ok\n');
    assert.ok(performance.now() - healthStart < 300, 'healthz answered while NVML hangs');
    const text = await scraping;
    assert.ok(performance.now() - started < 3000, 'the scrape did not wait for the hung call');
    assert.equal(success(text, 'gpu'), '0');
    assert.equal(success(text, 'cgroup'), '1');
    assert.match(text, /^jobio_job_cpu_user_seconds_total\{jobid="123",user="alice"\} /m);
    assert.match(exporter.log(), /NVML device queries did not return within 500 ms/);
    // The call is still wedged: the next scrape fails fast instead of stacking a second call.
    const again = performance.now();
    const second = await scrape(`${exporter.url}/metrics`);
    assert.ok(performance.now() - again < 400, 'second scrape fails fast');
    assert.equal(success(second, 'gpu'), '0');
    assert.equal(success(second, 'cgroup'), '1');
    assert.match(exporter.log(), /earlier scrape has not returned/);
  } finally {
    await exporter.stop();
  }
});
