// Profiler benchmark: added instructions (callgrind, stable) and added ns
// per call of the LD_PRELOAD profiler, against the plain program and a no-op forwarding preload
// (the interposition floor) in the same run. Then the mount lookup's independence of the mount
// count: the calls that look a path's mount up, with the machine's mounts and with 50 more (tmpfs
// mounts in a private mount namespace, `unshare -m`), as a same-run ratio. `npm run bench` calls
// run(); run directly with `node --import tsx bench/profiler/index.ts` to print the section.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const profBuild = join(root, 'native', 'profiler', 'build');
const bench = join(here, 'build', 'microbench');

interface Config {
  name: string;
  env: Record<string, string>;
}
const configs: Config[] = [
  { name: 'plain', env: {} },
  { name: 'no-op preload', env: { LD_PRELOAD: join(profBuild, 'libjobio-noop.so') } },
  { name: 'jobio (JOBIO_SAMPLE_EVERY=16, default)', env: { LD_PRELOAD: join(profBuild, 'libjobio.so') } },
  { name: 'jobio, every call timed (JOBIO_SAMPLE_EVERY=1)', env: { LD_PRELOAD: join(profBuild, 'libjobio.so'), JOBIO_SAMPLE_EVERY: '1' } },
];
// JOBIO_BENCH_BASELINE_LIB=<a libjobio.so built from another commit>: measured in the same run, so a
// change's cost is a same-run comparison (build the other commit in a scratch clone, copy its library)
const baselineLib = process.env['JOBIO_BENCH_BASELINE_LIB'];
if (baselineLib) {
  configs.push(
    { name: 'baseline library (JOBIO_SAMPLE_EVERY=16)', env: { LD_PRELOAD: baselineLib } },
    { name: 'baseline library, every call timed', env: { LD_PRELOAD: baselineLib, JOBIO_SAMPLE_EVERY: '1' } },
  );
}
const ops = [
  { op: 'read', label: 'pread 4 KiB (cached)', n: 1_000_000, cg: [20_000, 60_000] },
  // the read at the end of a file that gets less than it asked for (once per file read whole)
  { op: 'read-end', label: 'pread of 4 KiB getting the last 1000 B', n: 1_000_000, cg: [20_000, 60_000] },
  { op: 'write', label: 'write 16 B to a file', n: 1_000_000, cg: [20_000, 60_000] },
  { op: 'stat', label: 'stat', n: 200_000, cg: [10_000, 30_000] },
  { op: 'lseek', label: 'lseek', n: 1_000_000, cg: [20_000, 60_000] },
  // open + close by absolute path: the mount comes from the path (the thread's last directory
  // answers when the directory is the same; open-miss alternates two directories, so the index does)
  { op: 'open', label: 'open + close by path', n: 50_000, cg: [5_000, 15_000] },
  { op: 'open-miss', label: 'open + close by path, two directories in turn', n: 50_000, cg: [5_000, 15_000] },
  // socket I/O with network metering on: a connected socket's peer, and the last address a
  // socket sent to, are kept in its descriptor's entry (a call to a new address looks its peer up)
  { op: 'send', label: 'send 16 B, connected UDP (JOBIO_NETWORK=1)', n: 500_000, cg: [20_000, 60_000], env: { JOBIO_NETWORK: '1' } },
  { op: 'sendto', label: 'sendto 16 B with its address (JOBIO_NETWORK=1)', n: 500_000, cg: [20_000, 60_000], env: { JOBIO_NETWORK: '1' } },
  // stdio calls the stream's buffer answers (one in a buffer's worth reaches the kernel)
  { op: 'fwrite', label: 'fwrite 20 B to a stream', n: 1_000_000, cg: [20_000, 60_000] },
  { op: 'fputc', label: 'fputc', n: 1_000_000, cg: [20_000, 60_000] },
  { op: 'fgets', label: 'fgets of 19-byte lines', n: 1_000_000, cg: [20_000, 60_000] },
  { op: 'fgetc', label: 'fgetc', n: 1_000_000, cg: [20_000, 60_000] },
  // other calls on an open file and its path (the path is open: a stat of it is decided at once)
  { op: 'fstat', label: 'fstat of an open file', n: 200_000, cg: [10_000, 30_000] },
  { op: 'access', label: 'access of an open file', n: 200_000, cg: [10_000, 30_000] },
  { op: 'fdatasync', label: 'fdatasync', n: 5_000, cg: [1_000, 3_000] },
];
const opEnv = (o: (typeof ops)[number], cfg: Config): Record<string, string> => ({ ...('env' in o ? o.env : {}), ...cfg.env });
// JOBIO_BENCH_OPS=send,sendto: only these operations (a quick look at one change)
const only = process.env['JOBIO_BENCH_OPS']?.split(',');
const selected = only ? ops.filter((o) => only.includes(o.op)) : ops;

function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('JOBIO_') && k !== 'LD_PRELOAD') e[k] = v;
  return { ...e, ...extra };
}

// The extra mounts of the mount-count comparison, and how a command is run with them: in a private
// mount namespace (`unshare -m` as root, else `unshare -rm` in a user namespace) whose shell mounts
// them and then execs the command, so the profiler's table holds them from the start.
const EXTRA_MOUNTS = 50;
function command(argv: string[], mounts: number, dir: string): [string, string[]] {
  if (mounts === 0) return [argv[0]!, argv.slice(1)];
  const script = `set -e; for i in $(seq 1 ${mounts}); do mkdir -p "$MNT/m$i"; mount -t tmpfs jobio-bench "$MNT/m$i"; done; exec "$@"`;
  const ns = process.getuid?.() === 0 ? ['-m'] : ['-rm'];
  return ['env', [`MNT=${join(dir, 'mnt')}`, 'unshare', ...ns, 'sh', '-c', script, 'sh', ...argv]];
}
function canUnshare(): boolean {
  const [cmd, args] = command(['true'], 1, tmpdir());
  return spawnSync(cmd, args).status === 0;
}

function nsPerOp(op: string, n: number, dir: string, cfg: Config, mounts = 0): number {
  const [cmd, args] = command([bench, op, String(n), dir], mounts, dir);
  const out = execFileSync(cmd, args, { env: env(cfg.env) })
    .toString()
    .trim();
  return Number(out.split(' ')[2]);
}

function instructions(op: string, n: number, dir: string, cfg: Config, mounts = 0): number {
  const outFile = join(dir, `cg.${op}.${n}.${Math.random().toString(36).slice(2)}`);
  const [cmd, args] = command(['valgrind', '--tool=callgrind', `--callgrind-out-file=${outFile}`, bench, op, String(n), dir], mounts, dir);
  const r = spawnSync(cmd, args, { env: env(cfg.env) });
  if (r.status !== 0) throw new Error(`valgrind failed: ${r.stderr.toString().slice(-500)}`);
  const text = readFileSync(outFile, 'utf8');
  const m = /^(?:summary|totals): (\d+)/m.exec(text);
  if (!m) throw new Error('no callgrind summary');
  return Number(m[1]);
}

// The runner awaits every benchmark's run(); this one measures synchronously.
export function run(): Promise<string> {
  return Promise.resolve(report());
}

function report(): string {
  execFileSync('make', ['-s', '-C', join(root, 'native', 'profiler')], { stdio: 'inherit' });
  execFileSync('make', ['-s', '-C', here], { stdio: 'inherit' });
  const hasValgrind = spawnSync('sh', ['-c', 'command -v valgrind']).status === 0;
  const dir = mkdtempSync(join(tmpdir(), 'jobio-bench-'));
  try {
    // wall time: best of 5 rounds, configurations interleaved so drift hits all alike
    const ns = new Map<string, number>();
    for (let round = 0; round < 5; round++) {
      for (const o of selected) {
        for (const c of configs) {
          const k = `${o.op}|${c.name}`;
          const v = nsPerOp(o.op, o.n, dir, { ...c, env: opEnv(o, c) });
          ns.set(k, Math.min(ns.get(k) ?? Infinity, v));
        }
      }
    }
    // instructions per call: the slope between two loop lengths (start-up cost cancels out)
    const instr = new Map<string, number>();
    if (hasValgrind) {
      for (const o of selected) {
        for (const c of configs) {
          const [n1, n2] = o.cg as [number, number];
          const i1 = instructions(o.op, n1, dir, { ...c, env: opEnv(o, c) });
          const i2 = instructions(o.op, n2, dir, { ...c, env: opEnv(o, c) });
          instr.set(`${o.op}|${c.name}`, (i2 - i1) / (n2 - n1));
        }
      }
    }
    const cpu = cpus()[0]?.model ?? 'unknown';
    const lines: string[] = [];
    lines.push('## Profiler', '');
    lines.push(`Date: ${new Date().toISOString()}. Machine: ${cpus().length} CPUs, ${cpu}. Node ${process.version}.`, '');
    lines.push(
      'Per call, added over the plain program in the same run. Instructions: user-space instructions per call from',
      '`valgrind --tool=callgrind` (slope between two loop lengths, so start-up cancels out); under valgrind',
      '`clock_gettime` is a system call, so each timer read counts ~10 instructions instead of ~75 natively',
      '(add ~130 to the timed figures for native vDSO reads). Time: best of 5 runs of N calls, ns per call',
      '(noisy on a shared VM; the instruction counts are the stable figure).',
      '',
    );
    lines.push('| operation | N | plain ns | config | added instr/call | added ns/call | time ratio to plain |');
    lines.push('| --- | --- | --- | --- | --- | --- | --- |');
    for (const o of selected) {
      const base = ns.get(`${o.op}|plain`)!;
      const baseI = instr.get(`${o.op}|plain`);
      for (const c of configs.slice(1)) {
        const v = ns.get(`${o.op}|${c.name}`)!;
        const i = instr.get(`${o.op}|${c.name}`);
        const di = i !== undefined && baseI !== undefined ? (i - baseI).toFixed(0) : 'n/a';
        lines.push(`| ${o.label} | ${o.n} | ${base.toFixed(1)} | ${c.name} | ${di} | ${(v - base).toFixed(1)} | ${(v / base).toFixed(3)} |`);
      }
    }
    lines.push('');
    if (!hasValgrind) lines.push('valgrind not installed: instruction counts not measured (apt-get install valgrind).', '');
    lines.push(...mountCount(dir, hasValgrind));
    return lines.join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The calls that look a path's mount up, with the machine's mounts and with EXTRA_MOUNTS more, in
// the same run: added instructions and ns per call (each against the plain program with the same
// mounts) and their ratio, more mounts / machine's mounts (1.00: the lookup does not grow with them).
function mountCount(dir: string, hasValgrind: boolean): string[] {
  const lookups = ops.filter((o) => ['open', 'open-miss', 'stat'].includes(o.op) && (!only || only.includes(o.op)));
  if (lookups.length === 0) return [];
  const lines = ['### Mount lookup and the number of mounts', ''];
  if (!canUnshare()) return [...lines, 'No mount namespace here (`unshare -m` failed): not measured.', ''];
  // plain, jobio default, and the baseline library (default sampling) when one is given
  const cfgs = [configs[0]!, configs[2]!, ...configs.filter((c) => c.name === 'baseline library (JOBIO_SAMPLE_EVERY=16)')];
  const counts = [0, EXTRA_MOUNTS];
  const ns = new Map<string, number>();
  for (let round = 0; round < 5; round++) {
    for (const o of lookups)
      for (const m of counts)
        for (const c of cfgs) {
          const k = `${o.op}|${c.name}|${m}`;
          ns.set(k, Math.min(ns.get(k) ?? Infinity, nsPerOp(o.op, o.n, dir, c, m)));
        }
  }
  const instr = new Map<string, number>();
  if (hasValgrind) {
    for (const o of lookups)
      for (const m of counts)
        for (const c of cfgs) {
          const [n1, n2] = o.cg as [number, number];
          instr.set(`${o.op}|${c.name}|${m}`, (instructions(o.op, n2, dir, c, m) - instructions(o.op, n1, dir, c, m)) / (n2 - n1));
        }
  }
  const machine = readFileSync('/proc/self/mountinfo', 'utf8').trim().split('\n').length;
  lines.push(
    `The machine's ${machine} mounts, and ${EXTRA_MOUNTS} more tmpfs mounts in a private mount namespace. Added over the plain program`,
    "with the same mounts; ratio = with more mounts / with the machine's (the lookup must not grow with them).",
    '',
    `| operation | library | added instr/call, ${machine} mounts | added instr/call, +${EXTRA_MOUNTS} | instr ratio | added ns/call, ${machine} mounts | added ns/call, +${EXTRA_MOUNTS} | ns ratio |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  );
  const added = (m: Map<string, number>, op: string, lib: Config, mounts: number): number | undefined => {
    const a = m.get(`${op}|${lib.name}|${mounts}`);
    const b = m.get(`${op}|${cfgs[0]!.name}|${mounts}`);
    return a !== undefined && b !== undefined ? a - b : undefined;
  };
  const fmt = (v: number | undefined, d: number): string => (v === undefined ? 'n/a' : v.toFixed(d));
  const ratio = (a: number | undefined, b: number | undefined): string => (a === undefined || b === undefined ? 'n/a' : (b / a).toFixed(2));
  for (const o of lookups) {
    for (const lib of cfgs.slice(1)) {
      const [i0, i1] = [added(instr, o.op, lib, 0), added(instr, o.op, lib, EXTRA_MOUNTS)];
      const [t0, t1] = [added(ns, o.op, lib, 0), added(ns, o.op, lib, EXTRA_MOUNTS)];
      lines.push(`| ${o.label} | ${lib.name} | ${fmt(i0, 0)} | ${fmt(i1, 0)} | ${ratio(i0, i1)} | ${fmt(t0, 1)} | ${fmt(t1, 1)} | ${ratio(t0, t1)} |`);
    }
  }
  lines.push('');
  return lines;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run().then(
    (s) => console.log(s),
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
