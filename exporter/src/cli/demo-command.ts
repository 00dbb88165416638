// `jobio demo`: a replayed Lustre cluster, profiled programs, the exporter, a private Prometheus and
// the `jobio top` table, all in a temporary directory removed on exit (exporter/src/demo/).
// Exit codes: 0 stopped normally (Ctrl-C, SIGTERM, --duration), 1 something failed, 2 usage error.
import { Command, Option } from 'commander';
import { duration, durationDefault } from './top-command.js';
import { runDemo } from '../demo/run-demo.js';

export function demoCommand(run: (action: () => Promise<number>) => void): Command {
  const command = new Command('demo')
    .description(
      'Show jobio on any Linux box: a replayed Lustre cluster with a metadata storm and tiny writes, real programs under the profiler, the exporter, a private Prometheus with the jobio rules (if installed) and a live `jobio top` table. No root needed; everything lives in a temporary directory removed on exit.',
    )
    .addOption(new Option('--duration <duration>', 'Stop by itself after this long (e.g. 60s, 5m); default: until Ctrl-C.').argParser(duration))
    .addOption(new Option('--no-top', 'Do not show the refreshing table (for scripts): print the addresses and wait.'))
    .addOption(new Option('--interval <duration>', 'Refresh period of the table.').default(...durationDefault('2s')).argParser(duration))
    .addOption(new Option('--prometheus <program>', 'The Prometheus program to start.').default('prometheus'))
    .addOption(new Option('--no-prometheus', 'Do not start Prometheus.'));
  command.action(() =>
    run(async () => {
      const o = command.opts<Record<string, unknown>>();
      // Refused, not ignored, as in `jobio top`: the refresh period of a table that is not shown.
      if (o['top'] === false && command.getOptionValueSource('interval') === 'cli') {
        process.stderr.write('jobio demo: --interval works without --no-top only (it is the refresh period of the table)\n(run `jobio demo --help` for usage)\n');
        return 2;
      }
      return runDemo({
        durationMs: o['duration'] as number | undefined,
        top: o['top'] !== false,
        prometheus: o['prometheus'] === false ? false : String(o['prometheus']),
        intervalMs: o['interval'] as number,
      });
    }),
  );
  return command;
}
