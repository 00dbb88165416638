// The sharded path a large site takes, started from the provisioning examples on 127.0.0.1:
//   N Prometheus scrapers in agent mode (provisioning/victoriametrics/prometheus-scraper.yml, hashmod
//   sharding) --remote_write--> VictoriaMetrics <--query/remote_write-- vmalert (jobio's rules)
// and, for comparison, one ordinary Prometheus scraping every exporter with the same rules.
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { repoRoot } from '../helpers/exporter.js';
import { startPrometheusWithConfig, type RunningPrometheus } from '../helpers/prometheus.js';
import { startVictoriaMetrics, startVmalert, VM_AUTH, type Service } from './services.js';

type Yaml = Record<string, unknown>;
type ScrapeConfig = { relabel_configs?: Array<Record<string, unknown>>; file_sd_configs?: Array<{ files: string[] }>; [k: string]: unknown };

export const RULE_FILES = ['jobio-recording.yml', 'jobio-alerts.yml', 'jobio-latency.yml'];

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/**
 * jobio's rule files with every duration divided by `factor` (`[5m]`, `offset 1d`, `for: 10m`), so a
 * test sees in seconds what a site sees in minutes. Names, expressions and thresholds are unchanged.
 */
export function scaledRules(factor: number): Record<string, string> {
  const scale = (d: string): string => {
    const m = /^(\d+)([smhdw])$/.exec(d);
    if (!m) throw new Error(`unexpected duration ${d}`);
    return `${Math.max(1, Math.round((Number(m[1]) * (UNIT_SECONDS[m[2] ?? 's'] ?? 1)) / factor))}s`;
  };
  const out: Record<string, string> = {};
  for (const file of RULE_FILES) {
    const text = readFileSync(join(repoRoot, 'provisioning/prometheus/rules', file), 'utf8');
    out[file] = text
      .replace(/\[(\d+[smhdw])\]/g, (_, d: string) => `[${scale(d)}]`)
      .replace(/offset (\d+[smhdw])/g, (_, d: string) => `offset ${scale(d)}`)
      .replace(/for: (\d+[smhdw])/g, (_, d: string) => `for: ${scale(d)}`);
  }
  return out;
}

function scraperTemplate(): Yaml {
  return parse(readFileSync(join(repoRoot, 'provisioning/victoriametrics/prometheus-scraper.yml'), 'utf8')) as Yaml;
}

function jobioScrape(config: Yaml): ScrapeConfig {
  const scrape = (config.scrape_configs as ScrapeConfig[] | undefined)?.find((s) => s.job_name === 'jobio');
  if (!scrape) throw new Error('prometheus-scraper.yml: no jobio scrape config');
  return scrape;
}

/** Scraper `member` of `members`: the provisioned file with only the shard, paths and interval set. */
export function scraperConfig(member: number, members: number, interval: string, vmUrl: string): string {
  const config = scraperTemplate();
  (config.global as Yaml).scrape_interval = interval;
  (config.global as Yaml).scrape_timeout = interval;
  const scrape = jobioScrape(config);
  scrape.file_sd_configs = [{ files: ['targets.yml'] }];
  const [hashmod, keep] = scrape.relabel_configs ?? [];
  if (hashmod?.action !== 'hashmod' || keep?.action !== 'keep') throw new Error('prometheus-scraper.yml: expected hashmod then keep');
  hashmod.modulus = members;
  keep.regex = String(member);
  const [rw] = config.remote_write as Array<{ url: string; queue_config?: Yaml; basic_auth?: { username?: string; password_file?: string } }>;
  rw!.url = `${vmUrl}/api/v1/write`;
  // The provisioned user, and its password file beside the configuration (written by startSharded).
  if (rw!.basic_auth?.username !== VM_AUTH.username || !rw!.basic_auth.password_file) throw new Error('prometheus-scraper.yml: expected basic_auth with a password_file');
  rw!.basic_auth.password_file = 'victoriametrics.password';
  rw!.queue_config = { ...rw!.queue_config, batch_send_deadline: '500ms' };
  return stringify(config);
}

/**
 * The single Prometheus of a small site: the same scrape job, every target, the rules evaluated
 * locally. It keeps the hashmod step (without the keep) so that its target labels, hence the moment
 * in each interval at which it scrapes a target, are the scrapers' own: both see the same samples.
 */
export function singleConfig(interval: string): string {
  const config = scraperTemplate();
  config.global = { scrape_interval: interval, scrape_timeout: interval, evaluation_interval: interval };
  const scrape = jobioScrape(config);
  scrape.file_sd_configs = [{ files: ['targets.yml'] }];
  scrape.relabel_configs = (scrape.relabel_configs ?? []).filter((r) => r.action !== 'keep');
  delete config.remote_write;
  config.rule_files = RULE_FILES;
  return stringify(config);
}

export interface ShardedSetup {
  readonly vm: Service;
  readonly vmalert: Service;
  readonly scrapers: ReadonlyArray<RunningPrometheus & { readonly pid: number }>;
  readonly single?: RunningPrometheus & { readonly pid: number };
  stop(): Promise<void>;
}

/** Starts VictoriaMetrics, vmalert, `members` scrapers and (if `withSingle`) the single Prometheus. */
export async function startSharded(opts: { targetsYaml: string; interval: string; members: number; ruleScale: number; withSingle: boolean; evalInterval?: string }): Promise<ShardedSetup> {
  const started: Array<{ stop(): Promise<void> }> = [];
  const ruleDir = mkdtempSync(join(tmpdir(), 'jobio-rules-'));
  const rules = scaledRules(opts.ruleScale);
  for (const [name, text] of Object.entries(rules)) writeFileSync(join(ruleDir, name), text);
  try {
    const vm = await startVictoriaMetrics({ 'search.latencyOffset': '0s', 'search.disableCache': 'true' });
    started.push(vm);
    const scrapers = await Promise.all(
      Array.from({ length: opts.members }, (_, k) =>
        startPrometheusWithConfig(scraperConfig(k, opts.members, opts.interval, vm.url), { agent: true, files: { 'targets.yml': opts.targetsYaml, 'victoriametrics.password': VM_AUTH.password } }),
      ),
    );
    started.push(...scrapers);
    const single = opts.withSingle ? await startPrometheusWithConfig(singleConfig(opts.interval), { files: { 'targets.yml': opts.targetsYaml, ...rules } }) : undefined;
    if (single) started.push(single);
    const vmalert = await startVmalert(
      vm.url,
      RULE_FILES.map((f) => join(ruleDir, f)),
      { evaluationInterval: opts.evalInterval ?? opts.interval },
    );
    started.push(vmalert);
    return {
      vm,
      vmalert,
      scrapers,
      ...(single ? { single } : {}),
      async stop() {
        // Writers first, VictoriaMetrics last: a scraper whose remote_write target is gone waits
        // for its flush deadline (a minute) before it exits.
        await Promise.all([...scrapers, vmalert, ...(single ? [single] : [])].map((s) => s.stop()));
        await vm.stop();
        rmSync(ruleDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    for (const s of started.reverse()) await s.stop();
    rmSync(ruleDir, { recursive: true, force: true });
    throw err;
  }
}
