// Every collector on at once, on one host assembled from the fixtures: a Lustre server (jobstats,
// target stats, exports, capacity and health, LNet) that is also a Lustre client, with Slurm job cgroups (v1), two fake GPUs,
// the job spool of the prolog, and the profiler socket receiving a sender's frames. One golden
// exposition of the whole, linted by promtool: families from different collectors must not clash,
// and every collector must succeed side by side. Regenerate with JOBIO_UPDATE_GOLDEN=1, then review.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, scrape, startExporter } from '../helpers/exporter.js';
import { assertGolden, normaliseExposition } from '../helpers/golden.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { fakeConfig, fakeLibrary } from '../gpu/harness.js';
import { sendScenario } from '../profiler/frame-tool.js';
import { allCollectors } from '../../exporter/src/collectors/index.js';

const fixtures = join(repoRoot, 'test/fixtures');
const asRoot = process.getuid?.() === 0;

/** One host's roots, copied from the fixtures of each collector (copies: root-owned in a root checkout). */
function assembleHost(dir: string): { procfs: string; sysfs: string; rootfs: string; lustre: string } {
  const lustre = join(dir, 'lustre');
  for (const tree of ['hp-2.10.1-ost', 'stats-hp-2.10.1', 'client-hp-2.10.1']) cpSync(join(fixtures, 'lustre', tree, 'proc/fs'), join(lustre, 'proc/fs'), { recursive: true });
  // Capacity, health_check and recovery_status (lustre_health): osd files under sys/, recovery_status under proc/.
  cpSync(join(fixtures, 'lustre/health-es6.2.0'), lustre, { recursive: true });
  // brw_stats of two OSTs (lustre_health's histograms): one in the debugfs layout, one under obdfilter/.
  cpSync(join(fixtures, 'lustre/server-2.14.0_ddn133'), lustre, { recursive: true });
  // The mount table says where the Lustre client is mounted; the job processes' uids are the cgroup fixture's.
  const procfs = join(dir, 'proc');
  cpSync(join(fixtures, 'cgroup/proc'), procfs, { recursive: true });
  cpSync(join(fixtures, 'lustre/client-hp-2.10.1/proc/mounts'), join(procfs, 'mounts'));
  // LNet's counters (lustre_lnet): the 2.10 stats file, in the Lustre tree (--path.lustre).
  cpSync(join(fixtures, 'lustre/lnet-hp-2.10.1/proc/sys'), join(lustre, 'proc/sys'), { recursive: true });
  const rootfs = join(dir, 'rootfs');
  cpSync(join(fixtures, 'job_info/rootfs'), rootfs, { recursive: true });
  return { procfs, sysfs: join(fixtures, 'cgroup/v1/sys'), rootfs, lustre };
}

/** The golden's normalisation, plus the process collector's series count (Node's own metrics vary by version). */
function normalise(text: string): string {
  return normaliseExposition(text).replace(/^(jobio_exporter_series\{collector="process"\}) \d+$/m, '$1 <n>');
}

test(
  'all collectors on one host: every collector succeeds, one golden exposition, promtool-clean',
  { skip: asRoot ? false : 'the job spool is believed only when root-owned (a root checkout, as in CI)' },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jobio-all-'));
    const host = assembleHost(dir);
    const socket = join(dir, 'profiler.sock');
    const gpus = fakeConfig(['gpus=2', 'gpu0.pids=4123', 'gpu0.name=NVIDIA A100-SXM4-80GB', 'gpu1.name=NVIDIA A100-SXM4-80GB', 'gpu0.energy_mj=123456789']);
    const exporter = await startExporter(
      [
        ...allCollectors.map((c) => `--collector.${c.name}`),
        `--path.procfs=${host.procfs}`,
        `--path.sysfs=${host.sysfs}`,
        `--path.rootfs=${host.rootfs}`,
        `--path.lustre=${host.lustre}`,
        `--collector.profiler.socket=${socket}`,
        // refused at once, not after the grace for unverifiable claims: the golden counts them
        '--collector.profiler.unverified-grace=0s',
        `--collector.gpu.nvml-library=${fakeLibrary}`,
        '--collector.job_info.squeue=',
      ],
      { env: { JOBIO_FAKE_NVML_CONFIG: gpus } },
    );
    try {
      // A sender the fake procfs does not know: its frames are refused and counted, never credited.
      assert.equal(sendScenario(socket, 'valid', '4242', 'SLURM_JOB_ID', { SLURM_JOB_ID: '4242', FRAME_TOOL_HOLD_MS: '300' }).status, 0);
      // The receiver works asynchronously: wait until it has judged the 4 frames the scenario sends.
      let text = await scrape(`${exporter.url}/metrics`);
      for (const until = Date.now() + 10_000; !/unverified_job"\} 4$/m.test(text) && Date.now() < until;) {
        await new Promise((r) => setTimeout(r, 100));
        text = await scrape(`${exporter.url}/metrics`);
      }
      const lint = promtoolCheckMetrics(text);
      assert.ok(lint.ok, `promtool check metrics:\n${lint.output}`);
      for (const c of allCollectors) assert.match(text, new RegExp(`^jobio_scrape_collector_success\\{collector="${c.name}"\\} 1$`, 'm'), `collector ${c.name} succeeds`);
      assertGolden(normalise(text), join(repoRoot, 'test/golden/exporter/all-collectors.prom'));
    } finally {
      await exporter.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
