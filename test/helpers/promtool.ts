// `promtool check metrics` on an exposition text: the linter Prometheus itself ships.
import { spawnSync } from 'node:child_process';
import { requireBinary } from './binaries.js';

export function promtoolCheckMetrics(exposition: string): { ok: boolean; output: string } {
  const promtool = requireBinary('promtool', 'prometheus');
  const result = spawnSync(promtool, ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
}
