// Collector `lustre_lnet`: the counters of LNet, the network layer every Lustre client, server and
// router runs: messages and bytes sent, received, routed and dropped, and its errors, from
// /proc/sys/lnet/stats (up to 2.10) or /sys/kernel/debug/lnet/stats. With --collector.lustre_lnet.lnetctl
// it runs `lnetctl stats show` instead (the same counters plus why sends failed, 2.12+) and
// `lnetctl net show -v 4` (each local network interface: up or down, its messages, its health). One
// small file or two short commands per scrape, so on by default; quiet on hosts without LNet.
// Metrics: docs/metrics.md; guide: docs/lustre.md.
import { join } from 'node:path';
import { defineCollector } from '../scrape/define-collector.js';
import { durationFlag, switchFlag, textFlag } from '../scrape/flags.js';
import { parseLnetctlNets, parseLnetctlStats, parseLnetStatsFile, type LnetNi, type LnetStats } from '../parsers/lustre-lnet.js';
import { runLctl } from '../sources/lustre-lctl.js';
import { readPseudoFile } from '../util/pseudo-files.js';
import { procPath, sysPath, type Paths } from '../util/paths.js';
import { LustreLnetMetrics } from './lustre_lnet_metrics.js';

/** Where the stats file is, newest layout last; the first that exists is read. */
function statsFiles(paths: Paths): string[] {
  if (paths.lustre !== undefined) return [join(paths.lustre, 'proc/sys/lnet/stats'), join(paths.lustre, 'sys/kernel/debug/lnet/stats')];
  return [procPath(paths, 'sys', 'lnet', 'stats'), sysPath(paths, 'kernel', 'debug', 'lnet', 'stats')];
}

export const lustreLnetCollector = defineCollector({
  name: 'lustre_lnet',
  help: 'LNet counters (messages and bytes sent, received, routed, dropped; errors), and with lnetctl the send failures and each local network interface (quiet where there is no LNet).',
  defaultEnabled: true,
  flags: {
    lnetctl: switchFlag(
      'lnetctl',
      false,
      'Run `lnetctl stats show` and `lnetctl net show -v 4` instead of reading the stats file: adds the send failures (2.12+) and the series of each local network interface.',
    ),
    lnetctlPath: textFlag('lnetctl-path', 'lnetctl', 'The lnetctl program for --collector.lustre_lnet.lnetctl.'),
    lnetctlTimeoutMs: durationFlag('lnetctl-timeout', '10s', 'Deadline of one lnetctl run.'),
  },
  create({ paths, settings, logger, registry }) {
    const metrics = new LustreLnetMetrics(registry);
    return {
      async update(signal) {
        let stats: LnetStats | undefined;
        let nis: LnetNi[] = [];
        let bad = 0;
        if (settings.lnetctl) {
          const run = (args: string[]) => runLctl(settings.lnetctlPath, settings.lnetctlTimeoutMs, signal, args);
          const shown = await run(['stats', 'show']);
          if (shown.absent) {
            metrics.clear();
            return 'absent';
          }
          stats = parseLnetctlStats(shown.stdout.toString('utf8'));
          const nets = parseLnetctlNets((await run(['net', 'show', '-v', '4'])).stdout.toString('utf8'));
          bad += (stats ? stats.bad : 1) + (nets ? nets.bad : 1);
          nis = nets?.nis ?? [];
        } else {
          let text: string | undefined;
          for (const path of statsFiles(paths)) {
            try {
              text = (await readPseudoFile(path, { signal, maxBytes: 1 << 12 })).toString('latin1');
              break;
            } catch (err) {
              const code = (err as NodeJS.ErrnoException).code;
              if (code === 'ENOENT' || code === 'ENOTDIR') continue;
              if (signal.aborted) throw err;
              logger.warn({ path, err: (err as Error).message }, 'cannot read LNet stats');
              metrics.count('read');
              text = '';
              break;
            }
          }
          if (text === undefined) {
            metrics.clear();
            return 'absent';
          }
          stats = text === '' ? undefined : parseLnetStatsFile(text);
          if (stats === undefined && text !== '') bad += 1;
        }
        metrics.count('parse', bad);
        metrics.begin();
        if (stats) metrics.stats(stats);
        for (const ni of nis) metrics.ni(ni);
        return 'ok';
      },
      describe: () => ({
        source: settings.lnetctl ? `${settings.lnetctlPath} stats show; ${settings.lnetctlPath} net show -v 4` : `the first of ${statsFiles(paths).join(', ')}`,
      }),
    };
  },
});
