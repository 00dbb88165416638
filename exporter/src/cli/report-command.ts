// `jobio report FILE.jsonl`: one answer per job from a `jobio run` log: "nothing to change", or the
// findings by severity, most costly first, each addressed to the program that made the calls
// (docs/report.md). Text for people (colour on a terminal), --json for scripts (report-schema.ts).
// Exit codes: 0 reported, 1 the log could not be read or is not a jobio run log, 2 usage error.
import { Command, Option } from 'commander';
import { reportFromLog, ReportError } from '../report/log-source.js';
import { reportText } from '../report/text.js';

export function reportCommand(run: (action: () => Promise<number>) => void): Command {
  const command = new Command('report')
    .description(
      'One answer per job: "nothing to change", or what to change, most costly first (by share of the run time or metadata load on the file system), each addressed to the program that made the calls. From a `jobio run --output` log.',
    )
    .argument('<file>', 'a log written by `jobio run --output FILE`')
    .addOption(new Option('--json', 'Print the report as JSON (schema in docs/report.md) instead of text.'));
  command.action((file: string) =>
    run(async () => {
      const o = command.opts<{ json?: boolean }>();
      try {
        const report = await reportFromLog(file);
        if (report.source.malformed_lines > 0)
          process.stderr.write(`jobio report: ${file}: ${report.source.malformed_lines} of ${report.source.lines} line(s) are not JSON records and were skipped\n`);
        const colour = process.stdout.isTTY && process.env['NO_COLOR'] === undefined;
        process.stdout.write(o.json === true ? `${JSON.stringify(report, null, 2)}\n` : reportText(report, colour));
        return 0;
      } catch (err) {
        if (!(err instanceof ReportError)) throw err;
        process.stderr.write(`jobio report: ${err.message}\n`);
        return 1;
      }
    }),
  );
  return command;
}
