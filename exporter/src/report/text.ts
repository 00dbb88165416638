// The terminal text of `jobio report`: the verdict first, then the findings (most costly first), then
// the job and the application's view. Lines fit in 80 columns; colour only when asked (stdout is a
// terminal). Everything quoted from the source (program names, mounts, hints) has its control
// characters replaced: a log or a label is written by whoever ran the job.
import { humanBytes } from '../run/run-summary.js';
import { withoutControlChars } from '../labels/control-chars.js';
import {
  CAUSE_TEXT,
  sourceText,
  type ReportCharacterisationJson,
  type ReportClientJson,
  type ReportFileSystemJson,
  type ReportFindingJson,
  type ReportJson,
  type ReportRankJson,
  type Severity,
} from './report-schema.js';

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
const requests = (n: number): string => `${count(n)} request${n === 1 ? '' : 's'}`;

/** A finding's first line (unwrapped): its rank, severity, program, reason, where, and which cost decided. */
export function findingHead(f: ReportFindingJson, i: number): string {
  return `${i + 1}. ${f.severity.toUpperCase()} ${f.program.label}: ${f.reason} on ${f.target ?? f.mount} (by ${CAUSE_TEXT[f.severity_from]})`;
}

function findingLines(f: ReportFindingJson, i: number, paint: (s: Severity | 'ok', text: string) => string): string[] {
  const [firstHead = '', ...restHead] = wrap(findingHead(f, i), WIDTH, '', '          ');
  return [
    paint(f.severity, firstHead),
    ...restHead,
    ...wrap(f.seen, WIDTH, '   seen:   ', '           '),
    ...wrap(f.why, WIDTH, '   why:    ', '           '),
    ...wrap(f.hint, WIDTH, '   change: ', '           '),
  ];
}

/** One line per target class and per target (at most 10 OSTs, the busiest by bytes; --json has all). */
function fileSystemLines(fs: ReportFileSystemJson): string[] {
  const out: string[] = [];
  const kinds = Object.entries(fs.metadata_operations)
    .map(([op, n]) => `${op} ${count(n)}`)
    .join(', ');
  out.push(
    ...wrap(
      `MDTs ${fs.mdt.targets}: ${requests(fs.mdt.operations)}${kinds !== '' ? ` (${kinds})` : ''}; OSTs ${fs.ost.targets}, ${fs.osts_with_data} with data: read ${humanBytes(fs.ost.read_bytes)}, written ${humanBytes(fs.ost.write_bytes)}, ${requests(fs.ost.operations)}`,
      WIDTH,
      'file system:  ',
      '              ',
    ),
  );
  const osts = fs.targets.filter((t) => t.kind === 'ost').sort((a, b) => b.read_bytes + b.write_bytes - (a.read_bytes + a.write_bytes));
  const shown = [...fs.targets.filter((t) => t.kind === 'mdt'), ...osts.slice(0, 10)];
  for (const t of shown) {
    const data = [t.read_bytes > 0 ? `read ${humanBytes(t.read_bytes)}` : '', t.write_bytes > 0 ? `written ${humanBytes(t.write_bytes)}` : ''].filter((x) => x !== '').join(', ');
    const amount = t.kind === 'mdt' || data === '' ? requests(t.operations) : data;
    // the job's busiest interval and its share of everyone's load on the target then
    const peak = t.peak === null ? '' : `; busiest ${t.peak.measure === 'operations' ? `${count(t.peak.rate)} ops/s` : `${humanBytes(t.peak.rate)}/s`} (${pct(t.peak.share)} of all)`;
    out.push(...wrap(`${t.target}: ${amount}${peak}`, WIDTH, '  ', '    '));
  }
  if (osts.length > 10) out.push(`  … ${osts.length - 10} more OSTs (--json lists them)`);
  return out;
}

/** The client's view: bytes and operations per mount, and how much of the bytes the profiler saw. */
function clientLines(c: ReportClientJson): string[] {
  const coverage = (x: number | null): string => (x === null ? 'no bytes to cover' : `profiler coverage ${pct(x)}`);
  const out = wrap(`read ${humanBytes(c.read_bytes)}, written ${humanBytes(c.write_bytes)}; ${coverage(c.coverage)}`, WIDTH, 'client:       ', '              ');
  for (const m of c.mounts.slice(0, 10)) {
    const ops = Object.entries(m.operations_by_kind)
      .slice(0, 4)
      .map(([op, n]) => `${withoutControlChars(op)} ${count(n)}`)
      .join(', ');
    out.push(
      ...wrap(
        `${withoutControlChars(m.mount)} (${withoutControlChars(m.fs)}): read ${humanBytes(m.read_bytes)}, written ${humanBytes(m.write_bytes)}, ${count(m.operations)} operations${ops !== '' ? ` (${ops})` : ''}; profiler ${m.coverage === null ? humanBytes(m.profiler_bytes) : pct(m.coverage)}`,
        WIDTH,
        '  ',
        '    ',
      ),
    );
  }
  if (c.mounts.length > 10) out.push(`  … ${c.mounts.length - 10} more mounts (--json lists them)`);
  return out;
}

/**
 * Per direction: volume, servers, peak; then per threshold c the job's I, ρ and P, each with the share of the jobs of
 * the same time at or below it (from Prometheus).
 */
function characterisationLines(ch: ReportCharacterisationJson): string[] {
  const where = ch.view === 'servers' ? "the job_stats series of the job's servers" : 'the profiled I/O of all mounts (no view of the servers: no P)';
  const out = wrap(
    `${ch.intervals} interval(s) of ${ch.step} s from ${where}; I: share of intervals with I/O over c bytes, ρ: burstiness, P: parallel intensity${ch.view === 'servers' ? '; (x %): share of the jobs of the same time at or below' : ''}`,
    WIDTH,
    'character:    ',
    '              ',
  );
  const figure = (name: string, v: number | null, place: ReportRankJson | undefined): string =>
    v === null ? '' : `${name} ${v.toFixed(2)}${place === undefined ? '' : ` (${(place.share_at_or_below * 100).toFixed(0)} %)`}`;
  for (const d of ['read', 'write'] as const) {
    const x = ch[d];
    if (x === null) {
      out.push(`  ${d}: none`);
      continue;
    }
    const jobs = x.thresholds[0]?.population?.jobs;
    out.push(
      ...wrap(
        `${d}: ${humanBytes(x.bytes)}${x.servers === null ? '' : ` on ${x.servers} server(s)`}, busiest ${humanBytes(x.peak_bandwidth)}/s${jobs === undefined ? '' : `; ${jobs} job(s) ${d === 'read' ? 'read' : 'wrote'} then`}`,
        WIDTH,
        '  ',
        '    ',
      ),
    );
    for (const t of x.thresholds) {
      const p = t.population;
      const figures = [figure('I', t.io_intensity, p?.io_intensity), figure('ρ', t.burstiness, p?.burstiness), figure('P', t.parallel_intensity, p?.parallel_intensity)].filter((f) => f !== '');
      out.push(`    c = ${humanBytes(t.threshold_bytes).padEnd(9)} ${figures.join('  ')}`);
    }
  }
  return out;
}

export function reportText(r: ReportJson, colour: boolean): string {
  const paint = (s: Severity | 'ok', text: string): string => (colour ? `${COLOURS[s]}${text}${RESET}` : text);
  const h = r.header;
  const job = h.jobid === '' ? `host ${h.hostname} (no job id)` : h.hostname === '' ? `job ${h.jobid}` : `job ${h.jobid}, host ${h.hostname}`;
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
  // a link is never wrapped (a terminal makes it clickable only whole)
  if (r.dashboard !== undefined) out.push(`dashboard:    ${withoutControlChars(r.dashboard)}`);
  out.push(...wrap(sourceText(r.source), WIDTH, 'from:         ', '              '));
  if (r.file_system !== undefined) out.push(...fileSystemLines(r.file_system));
  if (r.client !== undefined) out.push(...clientLines(r.client));
  if (r.characterisation !== undefined) out.push(...characterisationLines(r.characterisation));
  if (a.profiled === false) out.push(...wrap('the job ran without the profiler: no view of its calls', WIDTH, 'application:  ', '              '));
  else
    out.push(
      ...wrap(
        `${count(a.calls)} calls: red ${count(a.red.calls)} (${pct(a.red.calls_share)}), yellow ${count(a.yellow.calls)} (${pct(a.yellow.calls_share)}), green ${count(a.green.calls)} (${pct(a.green.calls_share)}); busiest second ${count(a.peak_metadata_rate)} metadata ops; accumulated run time ${seconds(a.accumulated_run_time)}`,
        WIDTH,
        'application:  ',
        '              ',
      ),
    );
  // whose the red calls are: a job whose only red calls are a runtime's (Python's imports) reads so
  const redBy = new Map<string, number>();
  for (const x of a.reasons) if (x.class === 'red') redBy.set(x.program.label, (redBy.get(x.program.label) ?? 0) + x.calls);
  const red = [...redBy].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]));
  const redSum = red.reduce((n, [, c]) => n + c, 0);
  if (redSum > 0) out.push(...wrap(red.map(([label, c]) => `${label} ${count(c)} (${pct(c / redSum)})`).join(', '), WIDTH, 'red calls by: ', '              '));
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
