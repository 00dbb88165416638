// A stand-in for the jobio exporter while the real Lustre/profiler collectors are being built: serves
// a realistic /metrics exposition with exactly the metric names and labels of DESIGN 3.13, whose
// counters advance with wall time following a fixed scenario (see SCENARIO below), so a real
// Prometheus scraping it records series with known shapes.
//
// Scenario (t = seconds since the server started):
// - MDT scratch-MDT0000: 48 users, one job each (jobid 4100+i), metadata rates spread over decades
//   (0.1 … 10^4 ops/s); every 7th user idle (rate 0, series present); every 9th user's job starts at
//   t = 14 s; every 11th user's job ends at t = 30 s (its series vanish: no data afterwards).
// - OSTs scratch-OST0000..0003: job 7001 (alice) writes 64 MiB/s on OST0000 and OST0001 in bursts
//   (4 s on, 4 s off) and reads 1 MiB/s steadily on OST0000; job 7002 (bob) writes 2 MiB/s on OST0002
//   only; OST0003 carries job 7003 (carol) at 4 MiB/s, rising ×8 from t = 24 s (a trend change).
// - Profiler: jobs 7001–7005 with distinct red/yellow/green mixes on /scratch, /home and /tmp.
// - GPU 0 and 1 on this host, GPU 0 used by job 7001; cgroup CPU/memory for jobs 7001–7005.
import { createServer } from 'node:http';

const MiB = 1048576;
const FIRST = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi', 'ivan', 'judy', 'mallory', 'niaj', 'olivia', 'peggy', 'rupert', 'sybil', 'trent', 'victor', 'walter', 'yves', 'zoe', 'quinn', 'uma', 'xena'];
const MDT_USERS = Array.from({ length: 48 }, (_, i) => (i < FIRST.length ? FIRST[i] : `uid:${20000 + i}`));
const MDT_OPS = [['open', 0.3], ['close', 0.3], ['getattr', 0.25], ['setattr', 0.05], ['mknod', 0.04], ['unlink', 0.03], ['statfs', 0.03]];

/** Deterministic pseudo-random in [0, 1) from an integer. */
function unit(i) {
  const x = Math.sin(i * 12.9898 + 78.233) * 43758.5453;
  return x - Math.floor(x);
}

/** Integral of a rate over [start, min(t, end)), with an optional step-up factor after `riseAt`. */
function integral(t, rate, { start = 0, end = Infinity, riseAt = Infinity, factor = 1 } = {}) {
  const hi = Math.min(t, end);
  if (hi <= start) {
    return 0;
  }
  const before = Math.max(0, Math.min(hi, riseAt) - start);
  const after = Math.max(0, hi - Math.max(start, riseAt));
  return rate * before + rate * factor * after;
}

/** Seconds "on" in [0, t) for a square wave `on` seconds on, `off` seconds off. */
function burstSeconds(t, on, off) {
  const period = on + off;
  return Math.floor(t / period) * on + Math.min(t % period, on);
}

function labels(obj) {
  return `{${Object.entries(obj).map(([k, v]) => `${k}="${String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`).join(',')}}`;
}

class Exposition {
  constructor() {
    this.families = new Map();
  }
  add(name, type, help, lbls, value) {
    const f = this.families.get(name) ?? { type, help, samples: [] };
    f.samples.push(`${name}${labels(lbls)} ${Number.isInteger(value) ? value : value.toFixed(6)}`);
    this.families.set(name, f);
  }
  text() {
    let out = '';
    for (const [name, f] of this.families) {
      out += `# HELP ${name} ${f.help}\n# TYPE ${name} ${f.type}\n${f.samples.join('\n')}\n`;
    }
    return out;
  }
}

function jobstats(e, t) {
  const target = 'scratch-MDT0000';
  MDT_USERS.forEach((user, i) => {
    const jobid = String(4100 + i);
    const start = i % 9 === 4 ? 14 : 0;
    const end = i % 11 === 5 ? 30 : Infinity;
    if (t < start || t >= end) {
      return;
    }
    const rate = i % 7 === 3 ? 0 : 10 ** (-1 + 5 * unit(i));
    for (const [operation, share] of MDT_OPS) {
      const v = Math.floor(integral(t, rate * share, { start, end }));
      e.add('jobio_lustre_jobstats_operations_total', 'counter', 'Operations (jobstats samples) per target, job, user and operation.', { target, jobid, user, operation }, v);
      e.add('jobio_lustre_jobstats_operation_seconds_total', 'counter', 'Summed operation latency in seconds (jobstats sum, usecs converted).', { target, jobid, user, operation }, v * 0.00012);
    }
  });
  const ost = (n) => `scratch-OST000${n}`;
  const io = [
    { target: ost(0), jobid: '7001', user: 'alice', write: 64 * MiB * burstSeconds(t, 4, 4), read: integral(t, MiB) },
    { target: ost(1), jobid: '7001', user: 'alice', write: 64 * MiB * burstSeconds(t, 4, 4), read: 0 },
    { target: ost(2), jobid: '7002', user: 'bob', write: integral(t, 2 * MiB), read: integral(t, 64 * 1024) },
    { target: ost(3), jobid: '7003', user: 'carol', write: integral(t, 4 * MiB, { riseAt: 24, factor: 8 }), read: integral(t, 512 * 1024) },
  ];
  for (const r of io) {
    const base = { target: r.target, jobid: r.jobid, user: r.user };
    e.add('jobio_lustre_jobstats_read_bytes_total', 'counter', 'Bytes read per target, job and user (jobstats read_bytes sum).', base, Math.floor(r.read));
    e.add('jobio_lustre_jobstats_write_bytes_total', 'counter', 'Bytes written per target, job and user (jobstats write_bytes sum).', base, Math.floor(r.write));
    e.add('jobio_lustre_jobstats_operations_total', 'counter', 'Operations (jobstats samples) per target, job, user and operation.', { ...base, operation: 'read' }, Math.floor(r.read / MiB) * 4);
    e.add('jobio_lustre_jobstats_operations_total', 'counter', 'Operations (jobstats samples) per target, job, user and operation.', { ...base, operation: 'write' }, Math.floor(r.write / MiB));
  }
  for (const tgt of [target, ost(0), ost(1), ost(2), ost(3)]) {
    for (const [quality, n] of [['correct', tgt === target ? 44 : 1], ['missing_jobid', 1], ['malformed', tgt === target ? 2 : 0]]) {
      e.add('jobio_lustre_jobstats_entries', 'gauge', 'Jobstats entries in the last read, by identifier quality.', { target: tgt, quality }, n);
    }
  }
  for (const [n, w] of [[0, 64], [1, 64], [2, 2], [3, 4]]) {
    e.add('jobio_lustre_target_write_bytes_total', 'counter', 'Bytes written on the target (lustre stats).', { target: ost(n) }, Math.floor(integral(t, w * MiB)));
    e.add('jobio_lustre_target_read_bytes_total', 'counter', 'Bytes read on the target (lustre stats).', { target: ost(n) }, Math.floor(integral(t, MiB)));
    e.add('jobio_lustre_export_write_bytes_total', 'counter', 'Bytes written per client NID (export stats).', { target: ost(n), client: `10.1.0.${11 + n}@o2ib` }, Math.floor(integral(t, w * MiB)));
  }
}

const CLASS_OF = { read: ['red', 'green'], write: ['red', 'green'], open: ['red', 'yellow', 'green'], close: ['red', 'green'], access: ['red', 'yellow'], seek: ['red', 'yellow'], sync: ['red', 'yellow'], delete: ['red', 'yellow'] };
/** Profiler jobs: calls per second by call and class, and seconds per call by class. */
const PROFILER_JOBS = [
  { jobid: '7001', user: 'alice', mount: '/scratch', mix: { read: { green: 400, red: 10 }, write: { green: 300, red: 5 }, open: { green: 2, yellow: 1 }, close: { green: 3 }, access: { yellow: 2, red: 1 }, seek: { yellow: 20 } } },
  { jobid: '7001', user: 'alice', mount: '/home', mix: { read: { red: 50, green: 5 }, open: { red: 4 }, close: { green: 4 }, access: { red: 10 } } },
  { jobid: '7002', user: 'bob', mount: '/scratch', mix: { write: { red: 900, green: 10 }, seek: { red: 200, yellow: 5 }, sync: { yellow: 5 }, open: { yellow: 2 }, close: { green: 2 } } },
  { jobid: '7003', user: 'carol', mount: '/scratch', mix: { read: { green: 50, red: 20 }, access: { yellow: 150, red: 30 }, open: { yellow: 60, green: 10 }, seek: { yellow: 80 }, close: { green: 70 } } },
  { jobid: '7004', user: 'dave', mount: '/scratch', mix: { read: { green: 1200 }, write: { green: 200, red: 2 }, open: { green: 1 }, close: { green: 1 } } },
  { jobid: '7005', user: 'erin', mount: '/tmp', mix: { write: { red: 100, green: 100 }, delete: { yellow: 40, red: 5 }, open: { red: 20, green: 20 }, close: { green: 40 } } },
];
const SECONDS_PER_CALL = { red: 0.0004, yellow: 0.0009, green: 0.0015 };

function profiler(e, t) {
  for (const job of PROFILER_JOBS) {
    const base = { jobid: job.jobid, user: job.user, mount: job.mount };
    for (const [call, byClass] of Object.entries(job.mix)) {
      for (const [cls, perSecond] of Object.entries(byClass)) {
        if (!CLASS_OF[call]?.includes(cls)) {
          throw new Error(`scenario error: ${call} cannot be ${cls}`);
        }
        const calls = Math.floor(perSecond * t);
        const seconds = calls * SECONDS_PER_CALL[cls] * (call === 'sync' ? 20 : 1);
        e.add('jobio_profiler_calls_total', 'counter', 'Intercepted I/O calls by job, user, mount, call type and class.', { ...base, call, class: cls }, calls);
        e.add('jobio_profiler_io_seconds_total', 'counter', 'Estimated seconds spent in I/O calls (scaled from sampled durations).', { ...base, call, class: cls }, seconds);
      }
    }
    const reads = job.mix.read ? (job.mix.read.green ?? 0) * 65536 + (job.mix.read.red ?? 0) * 512 : 0;
    const writes = job.mix.write ? (job.mix.write.green ?? 0) * 65536 + (job.mix.write.red ?? 0) * 512 : 0;
    e.add('jobio_profiler_read_bytes_total', 'counter', 'Bytes read through intercepted calls, by size bin.', { ...base, size: 'medium' }, Math.floor(reads * t));
    e.add('jobio_profiler_write_bytes_total', 'counter', 'Bytes written through intercepted calls, by size bin.', { ...base, size: 'medium' }, Math.floor(writes * t));
  }
  for (const jobid of ['7001', '7002', '7003', '7004', '7005']) {
    const user = PROFILER_JOBS.find((j) => j.jobid === jobid)?.user ?? '_other';
    e.add('jobio_profiler_runtime_seconds_total', 'counter', 'Accumulated process run time.', { jobid, user }, 4 * t);
    e.add('jobio_job_cpu_user_seconds_total', 'counter', 'Job CPU user time (cgroup).', { jobid, user }, 3.6 * t);
    e.add('jobio_job_cpu_system_seconds_total', 'counter', 'Job CPU system time (cgroup).', { jobid, user }, 0.3 * t);
    e.add('jobio_job_memory_bytes', 'gauge', 'Job memory in use (cgroup).', { jobid, user }, 2 * 1024 * MiB);
  }
  e.add('jobio_profiler_records_dropped_total', 'counter', 'Records dropped by processes that could not send.', {}, 0);
}

function gpu(e, t) {
  for (const g of ['0', '1']) {
    const busy = g === '0' ? 0.55 + 0.4 * Math.sin(t / 5) : 0;
    e.add('jobio_gpu_info', 'gauge', 'GPU identity.', { gpu: g, uuid: `GPU-0000000${g}-1111-2222-3333-444444444444`, name: 'NVIDIA A100-SXM4-40GB' }, 1);
    e.add('jobio_gpu_utilization_ratio', 'gauge', 'SM utilisation (0-1).', { gpu: g }, Math.max(0, busy));
    e.add('jobio_gpu_memory_used_bytes', 'gauge', 'GPU memory used.', { gpu: g }, g === '0' ? 30 * 1024 * MiB : 0);
    e.add('jobio_gpu_memory_total_bytes', 'gauge', 'GPU memory total.', { gpu: g }, 40 * 1024 * MiB);
    e.add('jobio_gpu_temperature_celsius', 'gauge', 'GPU temperature.', { gpu: g }, g === '0' ? 61 : 34);
    e.add('jobio_gpu_power_watts', 'gauge', 'GPU power draw.', { gpu: g }, g === '0' ? 250 : 55);
    e.add('jobio_gpu_energy_joules_total', 'counter', 'GPU energy.', { gpu: g }, (g === '0' ? 250 : 55) * t);
    e.add('jobio_gpu_pcie_receive_bytes_total', 'counter', 'PCIe bytes received.', { gpu: g }, Math.floor((g === '0' ? 900 * MiB : 0) * t));
    e.add('jobio_gpu_pcie_transmit_bytes_total', 'counter', 'PCIe bytes transmitted.', { gpu: g }, Math.floor((g === '0' ? 200 * MiB : 0) * t));
  }
  e.add('jobio_gpu_job_info', 'gauge', '1 while the job has processes on the GPU.', { gpu: '0', jobid: '7001', user: 'alice' }, 1);
}

export function exposition(t) {
  const e = new Exposition();
  jobstats(e, t);
  profiler(e, t);
  gpu(e, t);
  for (const collector of ['lustre_jobstats', 'lustre_stats', 'lustre_exports', 'profiler', 'gpu', 'cgroup']) {
    e.add('jobio_scrape_collector_success', 'gauge', 'Whether the collector succeeded.', { collector }, 1);
    e.add('jobio_scrape_collector_duration_seconds', 'gauge', 'Collector duration in seconds.', { collector }, 0.002);
  }
  e.add('jobio_build_info', 'gauge', 'Build information.', { version: '0.1.0-fake' }, 1);
  return e.text();
}

/** Starts the stand-in exporter on 127.0.0.1 (port 0 = any); resolves to { port, close }. */
export function startFakeExporter(port = 0) {
  const started = Date.now();
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/metrics')) {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end(exposition((Date.now() - started) / 1000));
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve({ port: server.address().port, close: () => new Promise((ok) => server.close(ok)) })),
  );
}
