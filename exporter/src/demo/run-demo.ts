// `jobio demo`: a live cluster on any Linux box, without root, Lustre, Slurm or a GPU. It starts, in
// a private temporary directory:
//   1. the replay of a growing job_stats tree (jobstats-replay.ts, from real captures, scenario.ts);
//   2. the real `jobio exporter` on it, its profiler socket in that directory;
//   3. real programs under the profiler as jobs (profiled-jobs.ts);
//   4. a private Prometheus with jobio's rules, if installed;
//   5. the `jobio top` table, refreshed in the terminal;
// and on Ctrl-C, SIGTERM or after --duration stops all of it and removes the directory.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join, relative, sep } from 'node:path';
import { findProfilerLibrary, missingLibraryMessage } from '../profiler/library-path.js';
import { findRepoFile } from '../profiler/repo-file.js';
import type { TopOutput } from '../top/settings.js';
import { runTop } from '../top/top-loop.js';
import { ChildGroup } from './child-group.js';
import { loadCapturedTargets } from './captured-targets.js';
import { JobStatsReplay, replayTargets } from './jobstats-replay.js';
import { PROFILED_JOBS, startProfiledJobs } from './profiled-jobs.js';
import { DEMO_JOBS, DEMO_USERS, OSTS } from './scenario.js';
import { exporterFlags, startExporter } from './exporter-child.js';
import { startPrometheus } from './private-prometheus.js';
import { findProgram } from '../util/find-program.js';
import { alertsPage, statusLines } from './demo-status.js';

export interface DemoSettings {
  /** Stop by itself after this long; undefined: until Ctrl-C / SIGTERM. */
  readonly durationMs?: number;
  /** Show the refreshing `jobio top` table. */
  readonly top: boolean;
  /** The Prometheus program to run, or false for none. */
  readonly prometheus: string | false;
  readonly intervalMs: number;
}

type Output = TopOutput;
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** <rootfs>/etc/passwd: the demo's users, and the user running the demo (the profiled jobs' owner). */
function writePasswd(rootfs: string): void {
  mkdirSync(join(rootfs, 'etc'), { recursive: true });
  const me = userInfo();
  const lines = DEMO_USERS.map((u) => `${u.name}:x:${u.uid}:${u.uid}:jobio demo user:/home/${u.name}:/bin/sh`);
  if (!DEMO_USERS.some((u) => u.uid === me.uid)) lines.push(`${me.username}:x:${me.uid}:${me.gid}::${me.homedir}:${me.shell ?? '/bin/sh'}`);
  writeFileSync(join(rootfs, 'etc', 'passwd'), lines.join('\n') + '\n');
}

export async function runDemo(settings: DemoSettings, out: Output = process.stdout, err: Output = process.stderr): Promise<number> {
  const jobioBin = findRepoFile('bin/jobio.js');
  const library = findProfilerLibrary();
  const rulesDir = findRepoFile('provisioning/prometheus/rules');
  if (!library) {
    err.write(missingLibraryMessage('jobio demo'));
    return 1;
  }
  if (!jobioBin || !rulesDir) {
    err.write('jobio demo: bin/jobio.js or provisioning/prometheus/rules is missing: run the demo from a jobio checkout\n');
    return 1;
  }

  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  for (const sig of STOP_SIGNALS) process.on(sig, onSignal);
  const dir = mkdtempSync(join(tmpdir(), 'jobio-demo-'));
  const group = new ChildGroup();
  // If the demo dies of an error it did not catch, it still takes what it started with it.
  const onExit = (): void => {
    group.killNow();
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', onExit);
  // A closed stdout (`jobio demo | head`) ends the demo like Ctrl-C instead of crashing it.
  const onOutputError = (): void => stop.abort();
  process.stdout.on('error', onOutputError);
  let replayTimer: NodeJS.Timeout | undefined;
  let failure: string | undefined;
  try {
    const sysfs = join(dir, 'sys');
    const rootfs = join(dir, 'root');
    const socket = join(dir, 'run', 'profiler.sock');
    mkdirSync(join(dir, 'run'), { mode: 0o700 });
    writePasswd(rootfs);

    const replay = new JobStatsReplay(sysfs, replayTargets(loadCapturedTargets(), OSTS), DEMO_JOBS, Date.now());
    replay.write(Date.now());
    replayTimer = setInterval(() => replay.write(Date.now()), 1000);

    const flags = exporterFlags({ sysfs, rootfs, socket });
    const exporter = await startExporter(group, jobioBin, flags);
    startProfiledJobs(group, { library, socket, workDir: join(dir, 'work') });

    let prometheusUrl: string | undefined;
    let alertsUrl: string | undefined;
    let prometheusNote = '';
    if (settings.prometheus !== false) {
      const binary = findProgram(settings.prometheus);
      if (!binary) {
        prometheusNote = `not started: ${settings.prometheus} is not installed. Install it to see jobio's recording rules and alerts (Debian/Ubuntu: sudo apt-get install prometheus; elsewhere a release from https://prometheus.io/download/), then run the demo again`;
      } else {
        try {
          const rules = readdirSync(rulesDir)
            .filter((f) => f.endsWith('.yml'))
            .sort()
            .map((f) => join(rulesDir, f));
          const promDir = join(dir, 'prometheus');
          mkdirSync(promDir);
          prometheusUrl = (await startPrometheus(group, { binary, dir: promDir, exporterAddress: new URL(exporter.url).host, ruleFiles: rules })).url;
          alertsUrl = await alertsPage(prometheusUrl);
        } catch (e) {
          prometheusNote = `not started: ${(e as Error).message.trim()}`;
        }
      }
    } else prometheusNote = 'not started (--no-prometheus)';

    const facts = { settings, dir, exporterUrl: exporter.url, flags, prometheusUrl, alertsUrl, prometheusNote };
    const banner = bannerText(facts);
    out.write(banner);
    if (existsSync('/proc/fs/lustre')) err.write('jobio demo: this host has /proc/fs/lustre: the exporter also shows its real Lustre targets\n');

    exporter.started.child.once('exit', (code, signal) => {
      if (stop.signal.aborted) return;
      failure = `the exporter stopped (${signal ?? `exit status ${code}`}):\n${exporter.started.output()}`;
      stop.abort();
    });
    if (settings.durationMs !== undefined) setTimeout(() => stop.abort(), settings.durationMs).unref();

    if (settings.top) {
      // The full screen (on a terminal) keeps a short banner above the table; the line mode has
      // printed the whole one. Under the table, the profiled programs and the alerts.
      const below = (): Promise<string[]> => statusLines({ prometheusUrl, metricsUrl: `${exporter.url}/metrics`, noPrometheus: prometheusNote });
      const code = await runTop(
        { mode: 'job', exporters: [`${exporter.url}/metrics`], intervalMs: settings.intervalMs, timeoutMs: 10_000, once: false, sort: 'meta', limit: 20, filters: {}, stop: stop.signal },
        out,
        { above: screenBanner(facts), below },
      );
      // jobio top has said why on stderr; the rest of the demo keeps running. A table that ended
      // well was quit (q on the full screen): the demo ends with it.
      if (code !== 0 && !stop.signal.aborted) err.write('jobio demo: the table stopped; everything else runs on until Ctrl-C\n');
      else stop.abort();
    }
    if (!stop.signal.aborted) await new Promise((resolve) => stop.signal.addEventListener('abort', resolve));
  } catch (e) {
    failure = (e as Error).message;
  } finally {
    clearInterval(replayTimer);
    await group.stopAll();
    rmSync(dir, { recursive: true, force: true });
    for (const sig of STOP_SIGNALS) process.off(sig, onSignal);
    process.off('exit', onExit);
    // The stdout 'error' listener stays: the last line below may meet the same closed pipe.
  }
  if (failure !== undefined) {
    err.write(`jobio demo: ${failure.trim()}\n`);
    return 1;
  }
  out.write(`jobio demo: stopped ${group.pids.length} processes and removed ${dir}\n`);
  return 0;
}

interface BannerFacts {
  readonly settings: DemoSettings;
  readonly dir: string;
  readonly exporterUrl: string;
  readonly flags: readonly string[];
  readonly prometheusUrl?: string;
  readonly alertsUrl?: string;
  readonly prometheusNote: string;
}

/** A path under the current directory as a relative one: screenshots and logs carry no checkout path. */
function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep) ? rel : path;
}

/** Words joined into lines of at most `width` characters (a longer word gets a line of its own). */
function wrapWords(words: readonly string[], width: number): string[] {
  const lines: string[] = [];
  for (const word of words) {
    const last = lines[lines.length - 1];
    if (last !== undefined && last.length + 1 + word.length <= width) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(lines.length === 0 ? word : `  ${word}`);
  }
  return lines;
}

function bannerText(f: BannerFacts): string {
  const grafana = shownPath(findRepoFile('provisioning/grafana') ?? 'provisioning/grafana');
  const dashboards = shownPath(findRepoFile('dashboards') ?? 'dashboards');
  const until = f.settings.durationMs !== undefined ? `for ${f.settings.durationMs / 1000} s or until Ctrl-C` : 'until Ctrl-C';
  const me = userInfo().username;
  const lines = [
    `jobio demo: running ${until}, in ${f.dir} (removed on exit)`,
    '  lustre      job_stats of 2 MDTs and 4 OSTs, replayed from captures of a Lustre 2.14 server, with:',
    ...DEMO_JOBS.map((j) => `              job ${j.jobid} ${j.user.name.padEnd(6)} ${j.what}`),
    '  profiler    real programs under libjobio.so (LD_PRELOAD), sending to the exporter:',
    ...PROFILED_JOBS.map((j) => `              job ${j.jobid} ${me.padEnd(6)} ${j.what}`),
    `  exporter    ${f.exporterUrl}/metrics`,
    ...wrapWords(['jobio', 'exporter', ...f.flags], 100).map((line) => `              ${line}`),
    f.prometheusUrl ? `  prometheus  ${f.prometheusUrl} with jobio's rules; alerts at ${f.alertsUrl ?? `${f.prometheusUrl}/alerts`}` : `  prometheus  ${f.prometheusNote}`,
  ];
  if (f.prometheusUrl) lines.push(`  grafana     provisioning ${grafana}/ with JOBIO_PROMETHEUS_URL=${f.prometheusUrl}`, `              and JOBIO_DASHBOARDS=${dashboards} (docs/grafana.md)`);
  return lines.join('\n') + '\n';
}

/** The banner's few lines kept above the table on the full screen. */
function screenBanner(f: BannerFacts): string[] {
  const until = f.settings.durationMs !== undefined ? `for ${f.settings.durationMs / 1000} s` : 'until q or Ctrl-C';
  return [
    `jobio demo, ${until}: replayed Lustre jobs 4201-4205, profiled programs ${PROFILED_JOBS.map((j) => j.jobid).join(' ')}; in ${f.dir}`,
    `  exporter ${f.exporterUrl}/metrics · ${f.prometheusUrl ? `prometheus ${f.prometheusUrl} · alerts ${f.alertsUrl ?? `${f.prometheusUrl}/alerts`}` : `prometheus ${f.prometheusNote}`}`,
    '',
  ];
}
