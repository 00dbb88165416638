// The terminal text of `jobio report`: the verdict first, then the findings (most costly first), then
// the job and the application's view. Lines fit in 80 columns; colour only when asked (stdout is a
// terminal). Everything quoted from the source (program names, mounts, hints) has its control
// characters replaced: a log or a label is written by whoever ran the job.
import { humanBytes } from '../cli/run-summary.js';
import { withoutControlChars } from '../labels/control-chars.js';
import type { ReportFindingJson, ReportJson, Severity } from './report-schema.js';

export const WIDTH = 80;

/** Words of `text` in lines of at most `width`, the first after `first`, the others after `indent` (a longer word overflows). */
export function wrap(text: string, width: number, first: string, indent: string): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  // "12.5 %", "6.42 s", "3.9 KiB" stay on one line: glued by a no-break space while splitting
  const glued = withoutControlChars(text).replace(/(\d) (%|s|ms|B|KiB|MiB|GiB|TiB)(?=[ ,;:.)]|$)/g, '$1\u00a0$2');
  for (const word of glued.split(/[ \t\n]+/).filter((w) => w !== '')) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent + word;
    } else line = empty ? line + word : `${line} ${word}`;
    empty = false;
  }
  lines.push(line);
  return lines.map((l) => l.replace(/\u00a0/g, ' '));
}

const COLOURS: Readonly<Record<Severity | 'ok', string>> = { high: '\x1b[1;31m', medium: '\x1b[1;33m', low: '\x1b[1;36m', ok: '\x1b[1;32m' };
const RESET = '\x1b[0m';

const pct = (share: number): string => `${(share * 100).toFixed(1)} %`;
const seconds = (s: number): string => (s >= 100 ? `${s.toFixed(0)} s` : s >= 1 ? `${s.toFixed(2)} s` : `${(s * 1000).toFixed(1)} ms`);
const count = (n: number): string => Math.round(n).toLocaleString('en-US');

function findingLines(f: ReportFindingJson, i: number, paint: (s: Severity | 'ok', text: string) => string): string[] {
  const tag = f.severity.toUpperCase();
  const cause = f.severity_from === 'metadata_rate' ? 'metadata load' : 'run time';
  const head = `${i + 1}. ${tag} ${f.program.label}: ${f.reason} on ${f.mount} (by ${cause})`;
  const [firstHead = '', ...restHead] = wrap(head, WIDTH, '', '          ');
  return [
    paint(f.severity, firstHead),
    ...restHead,
    ...wrap(f.seen, WIDTH, '   seen:   ', '           '),
    ...wrap(f.why, WIDTH, '   why:    ', '           '),
    ...wrap(f.hint, WIDTH, '   change: ', '           '),
  ];
}

export function reportText(r: ReportJson, colour: boolean): string {
  const paint = (s: Severity | 'ok', text: string): string => (colour ? `${COLOURS[s]}${text}${RESET}` : text);
  const h = r.header;
  const job = h.jobid !== '' ? `job ${h.jobid}, host ${h.hostname}` : `host ${h.hostname} (no job id)`;
  const out: string[] = [
    ...wrap(`jobio report: ${job}, ${h.start.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}`, WIDTH, '', '  '),
    paint(r.findings.length === 0 ? 'ok' : (r.findings[0]?.severity ?? 'low'), `verdict: ${r.verdict.text}`),
  ];
  if (r.findings.length > 0) out.push('');
  r.findings.forEach((f, i) => out.push(...findingLines(f, i, paint), ''));
  if (r.findings.length === 0) out.push('');

  const a = r.application;
  const facts = [`run time ${seconds(h.run_time)}`];
  if (h.cpu_time !== null) facts.push(`CPU ${seconds(h.cpu_time)}`);
  if (h.peak_memory !== null) facts.push(`peak memory ${humanBytes(h.peak_memory)}`);
  facts.push(`from ${h.start} to ${h.end}`);
  if (h.nodes.length > 1) facts.push(`nodes ${h.nodes.join(', ')}`);
  out.push(...wrap(facts.join(', '), WIDTH, 'job:          ', '              '));
  const scheduler = (
    [
      ['user', h.user],
      ['account', h.account],
      ['partition', h.partition],
      ['name', h.job_name],
      ['work dir', h.work_dir],
    ] as const
  )
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `${k} ${v}`);
  if (scheduler.length > 0) out.push(...wrap(scheduler.join(', '), WIDTH, 'scheduler:    ', '              '));
  out.push(...wrap(r.source.kind === 'log' ? r.source.file : `Prometheus ${r.source.url}, the last ${r.source.range}`, WIDTH, 'from:         ', '              '));
  out.push(
    ...wrap(
      `${count(a.calls)} calls: red ${count(a.red.calls)} (${pct(a.red.calls_share)}), yellow ${count(a.yellow.calls)} (${pct(a.yellow.calls_share)}), green ${count(a.green.calls)} (${pct(a.green.calls_share)}); busiest second ${count(a.peak_metadata_rate)} metadata ops; accumulated run time ${seconds(a.accumulated_run_time)}`,
      WIDTH,
      'application:  ',
      '              ',
    ),
  );
  const quiet = a.reasons.length - r.findings.length;
  if (quiet > 0)
    out.push(
      ...wrap(
        `${quiet} reason(s) with red or yellow calls below ${pct(a.gain_threshold)} of the run time and without metadata load: nothing to gain (--json lists them)`,
        WIDTH,
        'not findings: ',
        '              ',
      ),
    );
  for (const u of a.unseen) out.push(...wrap(`${u.kind}: ${u.detail}`, WIDTH, 'not seen:     ', '              '));
  return out.join('\n') + '\n';
}
