// One Prometheus of the HA pair provisioning/victoriametrics/prometheus-replica.yml ships, as shipped
// but for what a test must change: the target list, the password file, VictoriaMetrics' URL, the
// interval and timeout, and the replica's name (which also sets its scrape offset).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/exporter.js';

export interface ReplicaSetup {
  /** Directory of file_sd target lists (`*.yml`). */
  readonly targets: string;
  /** File holding VictoriaMetrics' password. */
  readonly password: string;
  readonly vmUrl: string;
  readonly intervalS: number;
  readonly timeout: string;
}

/** The configuration text of replica `name`. */
export function replicaConfig(setup: ReplicaSetup, name: string): string {
  const shipped = readFileSync(join(repoRoot, 'provisioning/victoriametrics/prometheus-replica.yml'), 'utf8');
  return shipped
    .replace('/etc/prometheus/jobio-targets', setup.targets)
    .replace('/etc/prometheus/victoriametrics.password', setup.password)
    .replace('http://victoriametrics:8428', setup.vmUrl)
    .replace('scrape_interval: 30s', `scrape_interval: ${setup.intervalS}s`)
    .replace('scrape_timeout: 10s', `scrape_timeout: ${setup.timeout}`)
    .replace('replica: a', `replica: ${name}`);
}
