// The verdict in a few lines, for the job's own output at its end (the Slurm TaskEpilog prints it
// there): the verdict, the first lines of the most costly findings, and the command that shows the
// whole report. Every line starts with "jobio:", so it reads apart from the job's own output, and fits
// in 80 columns like the report's text.
import { findingHead, WIDTH, wrap } from './text.js';
import type { ReportJson } from './report-schema.js';

/** At most this many findings are named: the job's output is not the place for the whole report. */
export const BRIEF_FINDINGS = 3;

const PREFIX = 'jobio: ';

/** `argument`: what `jobio report` was given (a job id or a log), named in the line that shows the whole report. */
export function briefText(report: ReportJson, argument: string): string {
  const subject = report.header.jobid !== '' ? `job ${report.header.jobid}` : argument;
  const more = `the whole report: jobio report ${argument}`;
  if (report.findings.length === 0) return `${wrap(`I/O of ${subject}: ${report.verdict.text} (${more})`, WIDTH, PREFIX, `${PREFIX}  `).join('\n')}\n`;
  const lines = wrap(`I/O of ${subject}: ${report.verdict.text}`, WIDTH, PREFIX, `${PREFIX}  `);
  report.findings.slice(0, BRIEF_FINDINGS).forEach((f, i) => lines.push(...wrap(findingHead(f, i), WIDTH, `${PREFIX}  `, `${PREFIX}     `)));
  const unnamed = report.findings.length - BRIEF_FINDINGS;
  if (unnamed > 0) lines.push(`${PREFIX}  and ${unnamed} more`);
  lines.push(`${PREFIX}${more}`);
  return `${lines.join('\n')}\n`;
}
