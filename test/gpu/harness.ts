// Shared pieces of the gpu tests: the fake libnvidia-ml (native/fake-nvml, built by npm run build),
// a config file for it, and the exporter with only the gpu collector (plus any extra flags).
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, startExporter, type RunningExporter } from '../helpers/exporter.js';

export const fakeLibrary = join(repoRoot, 'native/fake-nvml/build/libnvidia-ml.so.1');
export const rootfs = join(repoRoot, 'test/fixtures/cgroup/rootfs');

/** Writes a fake NVML config (`key=value` lines) and returns its path. */
export function fakeConfig(lines: readonly string[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'jobio-fake-nvml-')), 'nvml.conf');
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

/**
 * A root filesystem under `dir` with the fixture passwd and the prolog's job spool at its default
 * place (run/jobio/jobs), one root-owned file per job naming its owner (`jobid → uid`). The spool is
 * trusted only when root wrote it: the tests that use it run as root.
 */
export function rootfsWithSpool(dir: string, owners: Readonly<Record<string, number>>): string {
  const root = join(dir, 'rootfs');
  mkdirSync(join(root, 'etc'), { recursive: true });
  copyFileSync(join(rootfs, 'etc/passwd'), join(root, 'etc/passwd'));
  const spool = join(root, 'run/jobio/jobs');
  mkdirSync(spool, { recursive: true });
  chmodSync(spool, 0o755);
  for (const [jobid, uid] of Object.entries(owners)) writeFileSync(join(spool, jobid), `uid=${uid}\n`, { mode: 0o644 });
  return root;
}

export function startGpuExporter(config: string, flags: readonly string[] = [], root: string = rootfs): Promise<RunningExporter> {
  return startExporter(['--collector.disable-defaults', '--collector.gpu', `--collector.gpu.nvml-library=${fakeLibrary}`, `--path.rootfs=${root}`, ...flags], {
    env: { JOBIO_FAKE_NVML_CONFIG: config },
  });
}
