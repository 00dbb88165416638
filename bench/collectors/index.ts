// Benchmarks of the collectors that had none: lustre_exports, lustre_stats, cgroup, gpu, and the
// exposition parser of `jobio top --exporter`. Same pattern as bench/lustre: generated inputs in a temp
// dir, a same-run baseline (the floor: reading the same files / the same text), the real collector
// `update()` + registry render on the built exporter (dist/), each case in its own child process
// (worker.mjs) for its peak RSS. Times: best and median of a few scrapes of one process.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const worker = fileURLToPath(new URL('./worker.mjs', import.meta.url));
const repo = fileURLToPath(new URL('../../', import.meta.url));
const fakeNvml = join(repo, 'native/fake-nvml/build/libnvidia-ml.so.1');
const passwdRootfs = join(repo, 'test/fixtures/cgroup/rootfs');
const golden = join(repo, 'test/golden/lustre_exports/whamcloud-2.14.0_ddn133-lctl.prom');

interface Result {
  firstMs: number;
  runsMs: number[];
  idleMs?: number[];
  procRunsMs?: number[];
  maxRssMb: number;
  [key: string]: unknown;
}

function child(args: string[], env: Record<string, string> = {}): Result {
  const out = execFileSync(process.execPath, [worker, ...args], { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 20, env: { ...process.env, ...env } });
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as Result;
}

const best = (runs: readonly number[]): number => Math.min(...runs);
function median(runs: readonly number[]): number {
  const s = [...runs].sort((x, y) => x - y);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
const fmt = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3));

// ---------------------------------------------------------------- Lustre plain stats (2.14 format)

const NSEC = (n: bigint): string => `${n / 1_000_000_000n}.${String(n % 1_000_000_000n).padStart(9, '0')}`;
const line = (name: string, samples: bigint, unit: string, min: bigint, max: bigint, sum: bigint, sumsq: bigint): string =>
  `${name.padEnd(26)}${samples} samples [${unit}] ${min} ${max} ${sum} ${sumsq}`;

/**
 * One export stats file as 2.14 writes it (layout of the 2.14.0_ddn133 export captures in
 * test/fixtures/lustre/lctl, with the start_time/elapsed_time header of the 2.14.0_ddn145 capture):
 * read_bytes/write_bytes in [bytes], read/write/punch/sync/statfs/set_info in [usecs]. Every counter
 * grows with `gen`; client `i` decides how busy it is.
 */
function exportStats(i: number, gen: number): string {
  const g = BigInt(gen);
  const k = BigInt(i);
  const start = 1_715_712_428_324_534_805n + k * 1_000_003n;
  const snap = 1_716_295_737_287_969_347n + g * 30_000_000_000n;
  const reads = 1000n + ((k * 7919n) % 100_000n) + g * (100n + (k % 50n));
  const writes = 500n + ((k * 104_729n) % 80_000n) + g * (50n + (k % 37n));
  const mb = 1_048_576n;
  const rows = [
    `snapshot_time             ${NSEC(snap)} secs.nsecs`,
    `start_time                ${NSEC(start)} secs.nsecs`,
    `elapsed_time              ${NSEC(snap - start)} secs.nsecs`,
    line('read_bytes', reads, 'bytes', mb, mb, reads * mb, reads * mb * mb),
    line('write_bytes', writes, 'bytes', 73_728n, mb, writes * 900_000n, writes * 900_000n * 900_000n),
    line('read', reads, 'usecs', 381n, 521_216n, reads * 11_000n, reads * 180_000_000n),
    line('write', writes, 'usecs', 88n, 75_460n, writes * 3_500n, writes * 29_000_000n),
    line('punch', 20n + (k % 13n) + g, 'usecs', 13n, 581n, 1230n + g * 40n, 352_732n + g * 10_000n),
    line('sync', 40n + (k % 11n) + g, 'usecs', 0n, 233_833n, 412_142n + g * 8_000n, 64_789_684_266n + g * 1_000_000n),
    line('statfs', 1n + (k % 3n), 'usecs', 1n, 4n, 7n, 21n),
    line('set_info', 2n + (k % 5n), 'usecs', 5n, 12n, 50n, 462n),
  ];
  return rows.join('\n') + '\n';
}

/** A target's own stats (obdfilter/<target>/stats), the same layout with the OSS-side operations. */
function targetStats(t: number, gen: number): string {
  return exportStats(t * 131 + 7, gen).replace(
    /^set_info.*$/m,
    (l) => `${l}\n${line('create', 8n + BigInt(gen), 'usecs', 2618n, 284_516n, 444_666n, 89_526_331_570n)}\n${line('get_info', 2n, 'usecs', 1217n, 13_065n, 14_282n, 172_175_314n)}`,
  );
}

const nid = (i: number): string => `10.${(i >> 8) & 255}.${i & 255}.${(i % 7) + 1}@o2ib`;

/** gen0..gen<gens-1>/proc/fs/lustre/obdfilter/<target>/(exports/<nid>/stats | stats). Returns the gen0 files. */
function writeStatsTrees(root: string, kind: 'exports' | 'targets', targets: number, clients: number, gens: number): string[] {
  const gen0: string[] = [];
  for (let g = 0; g < gens; g += 1) {
    for (let t = 0; t < targets; t += 1) {
      const dir = join(root, `gen${g}`, 'proc/fs/lustre/obdfilter', `bench-OST${t.toString(16).padStart(4, '0')}`);
      if (kind === 'targets') {
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, 'stats'), targetStats(t, g));
        if (g === 0) gen0.push(join(dir, 'stats'));
        continue;
      }
      for (let c = 0; c < clients; c += 1) {
        const d = join(dir, 'exports', nid(c));
        mkdirSync(d, { recursive: true });
        writeFileSync(join(d, 'stats'), exportStats(t * clients + c, g));
        if (g === 0) gen0.push(join(d, 'stats'));
      }
      if (g === 0) writeFileSync(join(dir, 'exports', 'clear'), ''); // write-only control file, skipped
    }
  }
  return gen0;
}

// ---------------------------------------------------------------- cgroup v1 (Slurm)

/** <sysfs>/fs/cgroup/{cpuacct,memory}/slurm/uid_<u>/job_<id>/...; returns the files the collector reads. */
function writeCgroupTree(sysfs: string, jobs: number): string[] {
  const read: string[] = [];
  for (let j = 0; j < jobs; j += 1) {
    const id = 4_200_000 + j * 3;
    const uid = 1000 + (j % 60);
    const cpu = join(sysfs, 'fs/cgroup/cpuacct/slurm', `uid_${uid}`, `job_${id}`);
    const mem = join(sysfs, 'fs/cgroup/memory/slurm', `uid_${uid}`, `job_${id}`);
    mkdirSync(join(cpu, 'step_0'), { recursive: true });
    mkdirSync(join(mem, 'step_0'), { recursive: true });
    const user = BigInt(j + 1) * 123_456_789_012n;
    const sys = BigInt(j + 1) * 6_789_000_000n;
    const files: [string, string][] = [
      [join(cpu, 'cpuacct.usage_user'), `${user}\n`],
      [join(cpu, 'cpuacct.usage_sys'), `${sys}\n`],
      [join(mem, 'memory.usage_in_bytes'), `${(j + 1) * 2_147_483_648}\n`],
      [join(mem, 'memory.max_usage_in_bytes'), `${(j + 1) * 4_294_967_296}\n`],
    ];
    for (const [path, text] of files) {
      writeFileSync(path, text);
      read.push(path);
    }
    // Present on a real host but not read when usage_user/usage_sys exist: cpuacct.stat, the steps.
    writeFileSync(join(cpu, 'cpuacct.stat'), `user ${user / 10_000_000n}\nsystem ${sys / 10_000_000n}\n`);
    writeFileSync(join(cpu, 'step_0', 'cpuacct.stat'), 'user 100\nsystem 1\n');
    writeFileSync(join(mem, 'step_0', 'memory.usage_in_bytes'), '1048576\n');
  }
  return read;
}

// ---------------------------------------------------------------- gpu (fake NVML)

/** The fake NVML config (8 GPUs × `per` pids) and a procfs where each pid is in a Slurm job. */
function writeGpuSetup(dir: string, gpus: number, per: number): { config: string; procfs: string } {
  const procfs = join(dir, 'proc');
  const lines = [`gpus=${gpus}`];
  for (let g = 0; g < gpus; g += 1) {
    const pids = Array.from({ length: per }, (_, p) => 20_000 + g * 100 + p);
    lines.push(`gpu${g}.pids=${pids.join(',')}`);
    for (const [p, pid] of pids.entries()) {
      mkdirSync(join(procfs, String(pid)), { recursive: true });
      // Two jobs per GPU (2 processes each): a job with several ranks on one GPU is listed once.
      const job = 7_000_000 + g * 2 + (p % 2);
      writeFileSync(join(procfs, String(pid), 'environ'), `PATH=/usr/bin\0HOME=/home/u\0SLURM_JOB_ID=${job}\0SLURM_PROCID=${p}\0`);
      writeFileSync(join(procfs, String(pid), 'cgroup'), `0::/system.slice/slurmstepd.scope/job_${job}/step_0/user/task_${p}\n`);
    }
  }
  const config = join(dir, 'nvml.conf');
  writeFileSync(config, lines.join('\n') + '\n');
  return { config, procfs };
}

// ---------------------------------------------------------------- exposition (jobio top --exporter)

/**
 * The lustre_exports golden (63 clients of the 2.14.0_ddn133 capture) scaled up to `bytes`: the
 * comment lines of each family once, its per-client samples repeated with the NIDs renamed per copy.
 * The golden's placeholders (`<duration>`, `{<build labels>}`) get real values.
 */
function scaledExposition(bytes: number): string {
  const text = readFileSync(golden, 'utf8').replace('<duration>', '0.0123').replace('{<build labels>}', '{version="0.1.0",runtime="node"}');
  const blocks: { head: string[]; fixed: string[]; perClient: string[] }[] = [];
  for (const l of text.split('\n')) {
    if (l.startsWith('# HELP') || blocks.length === 0) blocks.push({ head: [], fixed: [], perClient: [] });
    const b = blocks[blocks.length - 1]!;
    if (l.startsWith('#') || l === '') b.head.push(l);
    else if (l.includes('client="')) b.perClient.push(l);
    else b.fixed.push(l);
  }
  const perCopy = blocks.reduce((n, b) => n + b.perClient.reduce((m, l) => m + l.length + 1, 0), 0);
  const copies = Math.max(1, Math.ceil(bytes / perCopy));
  const out: string[] = [];
  for (const b of blocks) {
    out.push(...b.head, ...b.fixed);
    for (let c = 0; c < copies; c += 1) {
      for (const l of b.perClient)
        out.push(
          l.replace(/client="(\d+)\.(\d+)\.(\d+)\.(\d+)@/, (_, _a: string, _b: string, x: string, y: string) => `client="10.${c & 255}.${x}.${y}@`).replace(/client="(\d+)@lo"/, `client="$1.${c}@lo"`),
        );
    }
  }
  return out.join('\n') + '\n';
}

// ---------------------------------------------------------------- run

// The runner awaits every benchmark's run(); this one measures synchronously.
export function run(): Promise<string> {
  return Promise.resolve(report());
}

function report(): string {
  // The cases run the built exporter, as production does (see worker.mjs).
  if (!existsSync(join(repo, 'dist/collectors/lustre_exports.js'))) execFileSync('npm', ['run', 'build:ts'], { cwd: repo, stdio: 'ignore' });
  const dir = mkdtempSync(join(tmpdir(), 'jobio-bench-collectors-'));
  const rows: string[] = [];
  const notes: string[] = [];
  /** One table row: baseline and collector of the same run, times as best / median. */
  const row = (name: string, input: string, baseline: string, base: Result, coll: Result, collRuns: number[], series: string): void => {
    const ratioBest = best(collRuns) / best(base.runsMs);
    const ratioMed = median(collRuns) / median(base.runsMs);
    rows.push(
      `| ${name} | ${input} | ${baseline} | ${fmt(best(base.runsMs))} / ${fmt(median(base.runsMs))} | ${base.maxRssMb.toFixed(0)} | ${fmt(coll.firstMs)} | ${fmt(best(collRuns))} / ${fmt(median(collRuns))} | ${ratioBest.toFixed(2)}× / ${ratioMed.toFixed(2)}× | ${coll.maxRssMb.toFixed(0)} | ${series} |`,
    );
  };
  try {
    // 1. lustre_exports: 4 OSTs × 2,000 clients, 5 generations (first scrape, then 4 with every file grown).
    {
      const root = join(dir, 'exports');
      const gens = 5;
      const files = writeStatsTrees(root, 'exports', 4, 2000, gens);
      writeFileSync(join(root, 'files.json'), JSON.stringify(files));
      const base = child(['files', join(root, 'files.json'), '5']);
      const coll = child(['stats', 'lustre_exports', root, String(gens), '3']);
      row('lustre_exports, grown', `4 OSTs × 2,000 NIDs = ${files.length.toLocaleString('en')} files`, 'readFile + split of each file', base, coll, coll.runsMs, `${coll.series as number}`);
      row('lustre_exports, idle', 'same, nothing changed', 'same', base, coll, coll.idleMs ?? [], `${coll.series as number}`);
      notes.push(
        `lustre_exports: ${coll.clients as number} client files in the last read, ${coll.foldedClients as number} folded into client="_other" (max-clients 1000 per target: 1,000 of each OST's 2,000 NIDs fold); ${coll.series as number} series, ${coll.otherSeries as number} of them client="_other". Status ${String(coll.status)}.`,
      );
      rmSync(root, { recursive: true, force: true });
    }
    // 2. lustre_stats: 16 OST stats files.
    {
      const root = join(dir, 'stats');
      const gens = 6;
      const files = writeStatsTrees(root, 'targets', 16, 0, gens);
      writeFileSync(join(root, 'files.json'), JSON.stringify(files));
      const base = child(['files', join(root, 'files.json'), '9']);
      const coll = child(['stats', 'lustre_stats', root, String(gens), '5']);
      row('lustre_stats, grown', '16 OST stats files', 'readFile + split of each file', base, coll, coll.runsMs, `${coll.series as number}`);
      row('lustre_stats, idle', 'same, nothing changed', 'same', base, coll, coll.idleMs ?? [], `${coll.series as number}`);
      rmSync(root, { recursive: true, force: true });
    }
    // 3. cgroup: v1, 500 Slurm jobs.
    {
      const sysfs = join(dir, 'cgroup', 'sys');
      const files = writeCgroupTree(sysfs, 500);
      writeFileSync(join(dir, 'cgroup', 'files.json'), JSON.stringify(files));
      const base = child(['files', join(dir, 'cgroup', 'files.json'), '7']);
      const coll = child(['cgroup', sysfs, passwdRootfs, '7']);
      row('cgroup', `v1, 500 jobs (${files.length.toLocaleString('en')} files read)`, 'readFile + split of the same files', base, coll, coll.runsMs, `${coll.series as number}`);
      notes.push(`cgroup: ${coll.jobs as number} jobs found, ${coll.foldedJobs as number} folded into jobid="_other" (max-jobs 100). Status ${String(coll.status)}.`);
      rmSync(join(dir, 'cgroup'), { recursive: true, force: true });
    }
    // 4. gpu: fake NVML, 8 GPUs × 4 processes.
    {
      const { config, procfs } = writeGpuSetup(join(dir, 'gpu'), 8, 4);
      const env = { JOBIO_FAKE_NVML_CONFIG: config };
      const base = child(['nvml', fakeNvml, procfs, '21'], env);
      const coll = child(['gpu', fakeNvml, procfs, passwdRootfs, '21'], env);
      row('gpu', '8 fake GPUs × 4 processes', 'addon `sample()` alone (the same NVML calls)', base, coll, coll.runsMs, `${coll.series as number}`);
      row('gpu', 'same', 'addon `sample()` + stat and read `environ` of its 32 pids', { ...base, runsMs: base.procRunsMs ?? [] }, coll, coll.runsMs, `${coll.series as number}`);
      notes.push(
        `gpu: baseline ${base.devices as number} devices, ${base.pids as number} pids per sample; the collector's first scrape includes dlopen + nvmlInit_v2 (baseline init alone: ${fmt(base.initMs as number)} ms). ${coll.jobInfo as number} jobio_gpu_job_info series (2 jobs per GPU). Status ${String(coll.status)}.`,
      );
    }
    // 5. jobio top: the exposition parser on ~5 MB.
    {
      const file = join(dir, 'exposition.prom');
      const text = scaledExposition(5_000_000);
      writeFileSync(file, text);
      const mb = (Buffer.byteLength(text) / 1e6).toFixed(1);
      const base = child(['lines', file, '7']);
      const client = child(['expo', file, 'client', '7']);
      const all = child(['expo', file, 'all', '7']);
      row(
        'top parser, `--by client` families',
        `${mb} MB exposition, ${(base.lines as number).toLocaleString('en')} lines`,
        '`text.split("\\n")`',
        base,
        client,
        client.runsMs,
        `${(client.samples as number).toLocaleString('en')} samples kept`,
      );
      row('top parser, every sample', 'same', 'same', base, all, all.runsMs, `${(all.samples as number).toLocaleString('en')} samples`);
      notes.push(`top parser: bad lines ${client.badLines as number} (client families) / ${all.badLines as number} (all).`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return [
    '## Other collectors',
    '',
    'Generated inputs, built exporter (dist/), default flags; each case in its own child process (peak RSS =',
    '`process.resourceUsage().maxRSS`). Times in ms as best / median; "first" is the first scrape of the process',
    '(code not yet compiled, every series new). A scrape is the real `update()` plus the registry render.',
    'Ratio = collector / baseline of the same run (best / best, median / median).',
    '',
    '| case | input | baseline (same run) | baseline ms | baseline RSS MB | first ms | collector ms | ratio | collector RSS MB | series |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    ...notes.map((n) => `- ${n}`),
    '',
  ].join('\n');
}
