// Generates synthetic job_stats text in the exact layout of a Lustre version, for benchmarks,
// property tests and multi-snapshot scenarios. The layouts copy the real captures in
// test/fixtures/lustre (printf widths included), so the parser sees what a server prints.
export type GeneratedFormat = '2.10' | '2.14';

export interface GeneratedJob {
  /** The job_id as printed (without quotes; 2.14 output quotes ids containing ':'). */
  readonly id: string;
  /** Values per operation: samples, and sum for *_bytes and latency lines. */
  readonly samples: Readonly<Record<string, number | bigint>>;
  readonly sums?: Readonly<Record<string, number | bigint>>;
  readonly startTime?: number;
}

export const OST_OPS_210 = ['read_bytes', 'write_bytes', 'getattr', 'setattr', 'punch', 'sync', 'destroy', 'create', 'statfs', 'get_info', 'set_info', 'quotactl'] as const;
export const OST_OPS_214 = [
  'read_bytes',
  'write_bytes',
  'read',
  'write',
  'getattr',
  'setattr',
  'punch',
  'sync',
  'destroy',
  'create',
  'statfs',
  'get_info',
  'set_info',
  'quotactl',
  'prealloc',
] as const;

const pad = (text: string | number | bigint, width: number): string => String(text).padStart(width, ' ');
const name17 = (op: string): string => `${op}:`.padEnd(17, ' ');

function line210(op: string, samples: number | bigint, sum: number | bigint): string {
  if (op.endsWith('_bytes')) {
    const min = samples === 0 ? 0 : 4096;
    const max = samples === 0 ? 0 : 4194304;
    // Before 2.15, `min:%8llu` leaves no space once the number fills the width (max:16777216).
    return `  ${name17(op)}{ samples: ${pad(samples, 11)}, unit: bytes, min:${pad(min, 8)}, max:${pad(max, 8)}, sum:${pad(sum, 16)} }`;
  }
  return `  ${name17(op)}{ samples: ${pad(samples, 11)}, unit:  reqs }`;
}

function line214(op: string, samples: number | bigint, sum: number | bigint): string {
  const bytes = op.endsWith('_bytes');
  const min = samples === 0 ? 0 : bytes ? 4096 : 12;
  const max = samples === 0 ? 0 : bytes ? 16777216 : 34699;
  const sumsq = samples === 0 ? 0 : 166242808078794752n;
  const hist = bytes ? (samples === 0 ? ', hist: {  }' : `, hist: { 4K: 1, 1M: ${samples}, 16M: 3 }`) : '';
  return `  ${name17(op)}{ samples: ${pad(samples, 11)}, unit: ${bytes ? 'bytes' : 'usecs'}, min: ${pad(min, 8)}, max: ${pad(max, 8)}, sum: ${pad(sum, 16)}, sumsq: ${pad(sumsq, 18)}${hist} }`;
}

function quoteId(id: string, format: GeneratedFormat): string {
  return format === '2.14' && id.includes(':') ? `"${id}"` : id;
}

/** One entry's lines. */
export function entryLines(job: GeneratedJob, format: GeneratedFormat, ops: readonly string[]): string[] {
  const lines = [`- job_id:          ${quoteId(job.id, format)}`];
  if (format === '2.14') {
    const start = job.startTime ?? 1723102025.0572863; // the double nearest 1723102025.057286226
    lines.push(`  snapshot_time:   1723114647.887515895 secs.nsecs`, `  start_time:      ${start.toFixed(9)} secs.nsecs`, `  elapsed_time:    12622.830229669 secs.nsecs`);
  } else {
    lines.push('  snapshot_time:   1510782606');
  }
  for (const op of ops) {
    const samples = job.samples[op] ?? 0;
    const sum = job.sums?.[op] ?? 0;
    lines.push(format === '2.14' ? line214(op, samples, sum) : line210(op, samples, sum));
  }
  return lines;
}

/** A whole job_stats file. An empty job list gives `job_stats:` alone (Lustre before 2.17). */
export function jobStatsText(jobs: readonly GeneratedJob[], format: GeneratedFormat, ops: readonly string[] = format === '2.14' ? OST_OPS_214 : OST_OPS_210): string {
  const lines = ['job_stats:'];
  for (const job of jobs) lines.push(...entryLines(job, format, ops));
  return lines.join('\n') + '\n';
}

/** `count` busy jobs with deterministic, varied values (`seed` shifts them, `scale` grows them). */
export function syntheticJobs(count: number, format: GeneratedFormat, scale = 1): GeneratedJob[] {
  const jobs: GeneratedJob[] = [];
  for (let i = 0; i < count; i += 1) {
    const uid = 1000 + (i % 500);
    const reads = (i % 97) * scale;
    const writes = ((i * 7) % 89) * scale + scale;
    const samples: Record<string, number> = { read_bytes: reads, write_bytes: writes, punch: (i % 3) * scale, getattr: (i % 5) * scale, setattr: (i % 2) * scale };
    const sums: Record<string, number> = { read_bytes: reads * 1048576, write_bytes: writes * 4194304 };
    if (format === '2.14') {
      samples.read = reads;
      samples.write = writes;
      sums.read = reads * 153;
      sums.write = writes * 8467;
      sums.punch = samples.punch! * 99;
      sums.getattr = samples.getattr! * 7;
      sums.setattr = samples.setattr! * 31;
    }
    jobs.push({ id: `${4000000 + i}:${uid}:c${String(i % 1024).padStart(4, '0')}`, samples, sums });
  }
  return jobs;
}
