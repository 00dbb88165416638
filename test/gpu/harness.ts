// Shared pieces of the gpu tests: the fake libnvidia-ml (native/fake-nvml, built by npm run build),
// a config file for it, and the exporter with only the gpu collector (plus any extra flags).
import { mkdtempSync, writeFileSync } from 'node:fs';
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

export function startGpuExporter(config: string, flags: readonly string[] = []): Promise<RunningExporter> {
  return startExporter(['--collector.disable-defaults', '--collector.gpu', `--collector.gpu.nvml-library=${fakeLibrary}`, `--path.rootfs=${rootfs}`, ...flags], {
    env: { JOBIO_FAKE_NVML_CONFIG: config },
  });
}
