// `jobio report --html FILE`: the report as one self-contained page (inline CSS and SVG, no script,
// nothing fetched: readable offline and from an archive). Everything from the source is HTML-escaped.
import {
  CAUSE_TEXT,
  sourceText,
  type ReportCharacterisationJson,
  type ReportClientJson,
  type ReportDensityJson,
  type ReportFileSystemJson,
  type ReportJson,
  type ReportRankJson,
  type ReportRatePointJson,
  type Severity,
} from './report-schema.js';

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const pct = (share: number): string => `${(share * 100).toFixed(1)} %`;
const COLOUR: Readonly<Record<Severity | 'red' | 'yellow' | 'green', string>> = { high: '#c62828', medium: '#ef6c00', low: '#0277bd', red: '#d32f2f', yellow: '#f9a825', green: '#388e3c' };

/** The red/yellow/green split of the calls as one stacked bar. */
function splitBar(r: ReportJson): string {
  const a = r.application;
  let x = 0;
  const parts = (['red', 'yellow', 'green'] as const).map((c) => {
    const w = a[c].calls_share * 600;
    const rect = `<rect x="${x.toFixed(1)}" y="0" width="${w.toFixed(1)}" height="28" fill="${COLOUR[c]}"><title>${c}: ${a[c].calls} calls (${pct(a[c].calls_share)})</title></rect>`;
    x += w;
    return rect;
  });
  const legend = (['red', 'yellow', 'green'] as const).map((c, i) => `<text x="${i * 200}" y="46" font-size="13">${c} ${a[c].calls.toLocaleString('en-US')} (${pct(a[c].calls_share)})</text>`);
  return `<svg width="600" height="52" role="img" aria-label="red, yellow and green calls">${parts.join('')}${legend.join('')}</svg>`;
}

/** The reasons by calls, one bar each (at most 10), coloured by class. */
function reasonBars(r: ReportJson): string {
  const reasons = [...r.application.reasons].sort((a, b) => b.calls - a.calls).slice(0, 10);
  const max = Math.max(1, ...reasons.map((x) => x.calls));
  const rows = reasons.map((x, i) => {
    const w = (x.calls / max) * 300;
    return `<text x="0" y="${i * 22 + 15}" font-size="12">${esc(`${x.reason} (${x.program.name})`)}</text><rect x="260" y="${i * 22 + 3}" width="${w.toFixed(1)}" height="16" fill="${COLOUR[x.class]}"/><text x="${(265 + w).toFixed(1)}" y="${i * 22 + 15}" font-size="12">${x.calls.toLocaleString('en-US')}</text>`;
  });
  return `<svg width="640" height="${reasons.length * 22 + 4}" role="img" aria-label="calls per reason">${rows.join('')}</svg>`;
}

/** One rate over the job's span as a line (steps: each interval's rate holds over it), its largest value on the axis. */
function rateChart(
  points: readonly ReportRatePointJson[],
  lines: readonly { label: string; colour: string; value: (p: ReportRatePointJson) => number }[],
  unit: (x: number) => string,
  title: string,
): string {
  const W = 600;
  const H = 110;
  const max = Math.max(0, ...points.flatMap((p) => lines.map((l) => l.value(p))));
  const y = (v: number): number => H - (max > 0 ? (v / max) * (H - 10) : 0);
  const paths = lines.map((l) => {
    const d = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${((i / points.length) * W).toFixed(1)},${y(l.value(p)).toFixed(1)}H${(((i + 1) / points.length) * W).toFixed(1)}`).join('');
    return `<path class="rate" d="${d}" fill="none" stroke="${l.colour}" stroke-width="2"><title>${esc(l.label)}</title></path>`;
  });
  const legend = lines.map((l, i) => `<text x="${70 + i * 160}" y="${H + 34}" font-size="12" fill="${l.colour}">${esc(l.label)}</text>`).join('');
  const first = points[0]?.start ?? '';
  const last = points[points.length - 1]?.end ?? '';
  return `<svg class="over-time" width="${W + 80}" height="${H + 40}" role="img" aria-label="${esc(title)}"><g transform="translate(70,0)"><line x1="0" y1="${H}" x2="${W}" y2="${H}" stroke="#999"/><line x1="0" y1="0" x2="0" y2="${H}" stroke="#999"/>${paths.join('')}
<text x="-4" y="14" font-size="11" text-anchor="end">${esc(unit(max))}</text><text x="-4" y="${H}" font-size="11" text-anchor="end">0</text>
<text x="0" y="${H + 16}" font-size="11">${esc(first.slice(11, 19))}</text><text x="${W}" y="${H + 16}" font-size="11" text-anchor="end">${esc(last.slice(11, 19))} UTC</text></g>${legend}</svg>`;
}

/** The jobs of the cluster by decade of their mean rate over the job's span, the job's decade marked. */
function densityChart(d: ReportDensityJson, what: string): string {
  // an object's integer-like keys ("4") come before the others ("-1", "zero"): sorted here by value
  const order = (dec: string): number => (dec === 'zero' ? -Infinity : Number(dec));
  const entries = Object.entries(d.decades).sort((a, b) => order(a[0]) - order(b[0]));
  const max = Math.max(1, ...entries.map(([, n]) => n));
  const label = (dec: string): string => (dec === 'zero' ? '0' : `1e${dec}`);
  const bars = entries.map(([dec, n], i) => {
    const h = (n / max) * 90;
    const own = dec === d.decade;
    return `<rect class="${own ? 'density own' : 'density'}" x="${i * 56}" y="${(114 - h).toFixed(1)}" width="48" height="${h.toFixed(1)}" fill="${own ? '#c62828' : '#90a4ae'}"><title>${n} job(s) at ${label(dec)}${own ? ', this job among them' : ''}</title></rect><text x="${i * 56 + 24}" y="130" font-size="11" text-anchor="middle">${label(dec)}</text><text x="${i * 56 + 24}" y="${(110 - h).toFixed(1)}" font-size="11" text-anchor="middle">${n}</text>`;
  });
  return `<svg width="${Math.max(300, entries.length * 56)}" height="136" role="img" aria-label="jobs by ${esc(what)}">${bars.join('')}</svg>`;
}

/** The file system's view over time and the job's place among the cluster's jobs. */
function fileSystemPlots(fs: ReportFileSystemJson): string {
  const out: string[] = [];
  const mib = (x: number): string => `${(x / 1048576).toFixed(1)} MiB/s`;
  const ops = (x: number): string => `${Math.round(x).toLocaleString('en-US')}/s`;
  const points = fs.over_time ?? [];
  if (points.length > 0) {
    out.push('<h3>Rates over time</h3>');
    if (fs.mdt.targets > 0) out.push(rateChart(points, [{ label: 'MDT requests/s', colour: '#6a1b9a', value: (p) => p.mdt_operations }], ops, 'MDT requests per second over time'));
    if (fs.ost.targets > 0)
      out.push(
        rateChart(
          points,
          [
            { label: 'OST read', colour: '#1565c0', value: (p) => p.ost_read_bytes },
            { label: 'OST written', colour: '#2e7d32', value: (p) => p.ost_write_bytes },
          ],
          mib,
          'OST bytes per second over time',
        ),
      );
  }
  for (const [kind, d] of [
    ['MDT', fs.density?.mdt],
    ['OST', fs.density?.ost],
  ] as const) {
    if (d === undefined) continue;
    const rate = d.measure === 'operations' ? ops(d.rate) : mib(d.rate);
    const what = d.measure === 'operations' ? 'requests per second' : 'bytes per second';
    out.push(
      `<h3>The job among the cluster's jobs on the ${kind}s</h3><p class="place">${rate} over its run: busier than ${pct(d.busier_than)} of the ${(d.jobs - 1).toLocaleString('en-US')} other job(s); jobs by mean ${what} (decades)</p>${densityChart(d, what)}`,
    );
  }
  return out.join('\n');
}

/** The file system's view: one row per target, the job's busiest interval and its share of the target then. */
function fileSystemTable(fs: ReportFileSystemJson): string {
  const n = (x: number): string => Math.round(x).toLocaleString('en-US');
  const mib = (x: number): string => `${(x / 1048576).toFixed(1)} MiB`;
  const rows = fs.targets.map((t) => {
    const p = t.peak;
    const rate = p === null ? '' : p.measure === 'operations' ? `${n(p.rate)} ops/s` : `${mib(p.rate)}/s`;
    return `<tr><td>${esc(t.target)}</td><td>${n(t.operations)}</td><td>${mib(t.read_bytes)}</td><td>${mib(t.write_bytes)}</td><td>${rate}</td><td>${p === null ? '' : pct(p.share)}</td></tr>`;
  });
  const kinds = Object.entries(fs.metadata_operations)
    .map(([op, x]) => `${esc(op)} ${n(x)}`)
    .join(', ');
  return `<h2>File system (Lustre job_stats)</h2><p>${fs.mdt.targets} MDT(s), ${n(fs.mdt.operations)} metadata requests${kinds !== '' ? ` (${kinds})` : ''}; ${fs.ost.targets} OST(s), ${fs.osts_with_data} with data</p>
<table><tr><th>target</th><th>requests</th><th>read</th><th>written</th><th>busiest rate</th><th>share of the target then</th></tr>${rows.join('')}</table>`;
}

/** The client's view: one row per mount with the profiler's coverage of its bytes. */
function clientTable(c: ReportClientJson): string {
  const n = (x: number): string => Math.round(x).toLocaleString('en-US');
  const mib = (x: number): string => `${(x / 1048576).toFixed(1)} MiB`;
  const cov = (x: number | null): string => (x === null ? '' : pct(x));
  const rows = c.mounts.map(
    (m) =>
      `<tr><td>${esc(m.mount)}</td><td>${esc(m.fs)}</td><td>${mib(m.read_bytes)}</td><td>${mib(m.write_bytes)}</td><td>${n(m.operations)}</td><td>${mib(m.profiler_bytes)}</td><td>${cov(m.coverage)}</td></tr>`,
  );
  return `<h2>Client (Lustre llite)</h2><p>read ${mib(c.read_bytes)}, written ${mib(c.write_bytes)}; the profiler counted ${mib(c.profiler_bytes)}${c.coverage === null ? '' : ` (${pct(c.coverage)} coverage)`}</p>
<table class="client"><tr><th>mount</th><th>file system</th><th>read</th><th>written</th><th>operations</th><th>profiler</th><th>coverage</th></tr>${rows.join('')}</table>`;
}

/** The characterisation: one row per direction and threshold c, I, ρ, P with the job's place among the jobs of the same time. */
function characterisationTable(ch: ReportCharacterisationJson): string {
  const mib = (x: number): string => `${(x / 1048576).toFixed(1)} MiB`;
  const cell = (v: number | null, place: ReportRankJson | undefined): string =>
    v === null ? '<td>-</td>' : `<td>${v.toFixed(2)}${place === undefined ? '' : ` <small>(${(place.share_at_or_below * 100).toFixed(0)} % at or below)</small>`}</td>`;
  const rows = (['read', 'write'] as const).flatMap((d) => {
    const x = ch[d];
    if (x === null) return [`<tr><td>${d}</td><td colspan="6">none</td></tr>`];
    return x.thresholds.map(
      (t) =>
        `<tr><td>${d}</td><td>${mib(x.bytes)}</td><td>${x.servers ?? '-'}</td><td>${(t.threshold_bytes / 1024).toFixed(0)} KiB</td>${cell(t.io_intensity, t.population?.io_intensity)}${cell(t.burstiness, t.population?.burstiness)}${cell(t.parallel_intensity, t.population?.parallel_intensity)}</tr>`,
    );
  });
  const where =
    ch.view === 'servers'
      ? "the job_stats series of the job's servers; in brackets the share of the jobs of the same time at or below the job"
      : 'the profiled I/O of all mounts per time frame (no view of the servers: no P)';
  return `<h2>I/O character</h2><p>${ch.intervals} interval(s) of ${ch.step} s from ${where}. I: share of the intervals with more than c bytes moved; ρ: burstiness; P: parallel intensity.</p>
<table class="character"><tr><th>direction</th><th>volume</th><th>servers</th><th>c</th><th>I</th><th>ρ</th><th>P</th></tr>${rows.join('')}</table>`;
}

export function reportHtml(r: ReportJson): string {
  const h = r.header;
  const title = `jobio report: ${h.jobid !== '' ? `job ${h.jobid}` : `host ${h.hostname}`}`;
  const verdictColour = r.findings.length === 0 ? COLOUR.green : COLOUR[r.findings[0]?.severity ?? 'low'];
  const findings = r.findings
    .map(
      (
        f,
        i,
      ) => `<section class="finding"><h3><span class="sev" style="background:${COLOUR[f.severity]}">${f.severity}</span> ${i + 1}. ${esc(f.program.label)}: ${esc(f.reason)} on ${esc(f.target ?? f.mount)} <small>(by ${CAUSE_TEXT[f.severity_from]})</small></h3>
<dl><dt>seen</dt><dd>${esc(f.seen)}</dd><dt>why</dt><dd>${esc(f.why)}</dd><dt>change</dt><dd>${esc(f.hint)}</dd></dl></section>`,
    )
    .join('\n');
  const facts: [string, string][] = [
    ['job id', h.jobid || '-'],
    ['nodes', h.nodes.join(', ') || h.hostname],
    ['user', h.user],
    ['account', h.account],
    ['partition', h.partition],
    ['job name', h.job_name],
    ['work dir', h.work_dir],
    ['start', h.start],
    ['end', h.end],
    ['run time', `${h.run_time.toFixed(3)} s`],
    ['CPU time', h.cpu_time === null ? '' : `${h.cpu_time.toFixed(3)} s`],
    ['peak memory', h.peak_memory === null ? '' : `${(h.peak_memory / 1048576).toFixed(1)} MiB`],
    ['source', sourceText(r.source)],
  ];
  const unseen = r.application.unseen.map((u) => `<li>${esc(u.kind)}: ${esc(u.detail)}</li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>body{font:14px/1.45 system-ui,sans-serif;max-width:900px;margin:24px auto;padding:0 16px;color:#222}
h1{font-size:20px}.verdict{font-size:18px;font-weight:bold;color:#fff;padding:8px 12px;border-radius:4px}
.sev{color:#fff;padding:1px 6px;border-radius:3px;text-transform:uppercase;font-size:12px}
.finding{border-left:4px solid #ccc;padding:2px 12px;margin:12px 0}dl{display:grid;grid-template-columns:70px 1fr;gap:2px 8px}
dt{font-weight:bold;color:#555}dd{margin:0}table{border-collapse:collapse}td{padding:1px 12px 1px 0}</style></head>
<body><h1>${esc(title)}</h1>
<div class="verdict" style="background:${verdictColour}">verdict: ${esc(r.verdict.text)}</div>
${findings}
${r.dashboard !== undefined ? `<p>Dashboard: <a href="${esc(r.dashboard)}">${esc(r.dashboard)}</a></p>` : ''}
<h2>Job</h2><table>${facts
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `<tr><td>${k}</td><td>${esc(v)}</td></tr>`)
    .join('')}</table>
${r.file_system !== undefined ? `${fileSystemTable(r.file_system)}\n${fileSystemPlots(r.file_system)}` : ''}
${r.client !== undefined ? clientTable(r.client) : ''}
${r.characterisation !== undefined ? characterisationTable(r.characterisation) : ''}
<h2>Application (profiler)</h2><p>${r.application.profiled === false ? 'the job ran without the profiler; ' : ''}${r.application.calls.toLocaleString('en-US')} calls; accumulated run time ${r.application.accumulated_run_time.toFixed(3)} s; busiest moment ${Math.round(r.application.peak_metadata_rate).toLocaleString('en-US')} metadata ops/s</p>
${splitBar(r)}
${r.application.reasons.length > 0 ? `<h3>Calls per reason (red or yellow)</h3>${reasonBars(r)}` : ''}
${unseen !== '' ? `<h3>Not seen by the profiler</h3><ul>${unseen}</ul>` : ''}
</body></html>
`;
}
