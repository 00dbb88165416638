// Drives the C profiler's test programs: builds them (make -C native/profiler test), runs a program
// under LD_PRELOAD=libjobio.so with jobio-dump listening on a fresh socket, and returns the dump.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JOBID_VARIABLES } from '../../exporter/src/labels/process-job.js';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const profDir = join(root, 'native', 'profiler');
export const buildDir = join(profDir, 'build');
export const lib = join(buildDir, 'libjobio.so');
export const dumpTool = join(buildDir, 'jobio-dump');
export const testBin = (name: string): string => join(buildDir, 'tests', name);

let built = false;
/** Builds the library, tools and C test programs once per test process. */
export function buildTests(): void {
  if (built) return;
  execFileSync('make', ['-C', profDir, '--no-print-directory', '-s', 'test'], { stdio: ['ignore', 'pipe', 'inherit'] });
  built = true;
}

export function tempDir(base: string = tmpdir()): string {
  return mkdtempSync(join(base, 'jobio-prof-'));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export interface ClassCounts {
  red: number;
  yellow: number;
  green: number;
  time_ns: [number, number, number];
  sampled: number;
}
export interface SizeStats {
  calls: number;
  bytes: number;
  time_ns: number;
}
export interface MountBody {
  calls: Record<string, ClassCounts>;
  sizes: Record<'read' | 'write', Record<'small' | 'medium' | 'large', SizeStats>>;
  pow2: Record<'read' | 'write', [number, number, number][]>;
  /** red/yellow reasons the call counts cannot tell apart (non-zero only) */
  reasons: Record<string, number>;
  /** application-level stdio calls: function -> [calls, bytes] (non-zero only) */
  stdio: Record<string, [number, number]>;
  /** the calls made per call type, decided or not (non-zero only; wire version 4) */
  made: Record<string, number>;
  /** their estimated time (ns) and timed calls, counted as they were made: call -> [time_ns, sampled] (non-zero only; wire version 5) */
  made_time: Record<string, [number, number]>;
  /** the small bin's reads that got fewer bytes than they asked for (green): [calls, bytes, time_ns] (wire version 7) */
  short_reads: [number, number, number];
}
export interface DumpMount extends MountBody {
  path: string;
  fstype: string;
  fsname: string;
  /** whose calls: '' the program's own, 'mpi-runtime' those made inside MPI_Init or MPI_Finalize,
   * 'python-imports' a Python interpreter's calls on its modules' files, 'mpi-io' those made inside
   * MPI_File_* calls, 'sqlite-journal' those on SQLite's journals */
  component: '' | 'mpi-runtime' | 'python-imports' | 'mpi-io' | 'sqlite-journal';
}
export interface DumpProcess {
  pid: number;
  uid: number;
  start_ns: number;
  frames: number;
  final: boolean;
  exec: boolean;
  claimed_pid: number;
  exe: string;
  jobid: string;
  jobid_source: string;
  runtime_ns: number;
  dropped_frames: number;
  ignored_calls: number;
  mount_count: number;
  small_threshold: number;
  large_threshold: number;
  sample_every: number;
  network_folded: number;
  io_uring_setups: number;
  posix_aio_calls: number;
  libaio_iocbs: number;
  mmap_bytes: number;
  exec_target: string;
  mounts: DumpMount[];
  totals: MountBody;
}
export interface Dump {
  connections: number;
  frames: number;
  rejected: Record<string, number>;
  processes: DumpProcess[];
  totals: MountBody & { ignored_calls: number; dropped_frames: number };
}

/** Environment for a profiled run: no inherited JOBIO_* or LD_PRELOAD. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('JOBIO_') || k === 'LD_PRELOAD') continue;
    if ((JOBID_VARIABLES as readonly string[]).includes(k)) continue;
    env[k] = v;
  }
  for (const [k, v] of Object.entries(extra)) env[k] = v;
  // An undefined value in `extra` removes the variable.
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined));
}

export interface RunResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  ms: number;
}

export function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: Buffer | string; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const child = spawn(cmd, args, { env: opts.env ?? cleanEnv(), cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60000);
    child.on('error', reject);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err), ms: Date.now() - t0 });
    });
    child.stdin.on('error', () => {}); // the program may not read its input
    child.stdin.end(opts.input ?? '');
  });
}

export interface Receiver {
  socket: string;
  stop(): Promise<Dump>;
}

/** Starts jobio-dump on a new socket in dir and waits until it listens. */
export function startDump(dir: string, extraArgs: string[] = []): Promise<Receiver> {
  const socket = join(dir, 'jobio.sock');
  return new Promise((resolve, reject) => {
    const child = spawn(dumpTool, [socket, ...extraArgs], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    let ready = false;
    child.stdout.on('data', (d: Buffer) => out.push(d));
    const closed = new Promise<void>((res) => child.on('close', () => res()));
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      if (!ready && err.includes('listening')) {
        ready = true;
        resolve({
          socket,
          async stop() {
            child.kill('SIGTERM');
            await closed;
            const text = Buffer.concat(out).toString();
            try {
              return JSON.parse(text) as Dump;
            } catch {
              throw new Error(`jobio-dump printed no JSON: ${text.slice(0, 500)} ${err}`);
            }
          },
        });
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (!ready) reject(new Error(`jobio-dump exited (${code}) before listening: ${err}`));
    });
  });
}

export interface ProfiledResult extends RunResult {
  dump: Dump;
  dir: string;
}

/** Runs cmd under the profiler with a jobio-dump receiver; returns the result and the dump. */
export async function runProfiled(
  cmd: string,
  args: string[],
  opts: { env?: Record<string, string | undefined>; cwd?: string; input?: Buffer | string; dir?: string; timeoutMs?: number } = {},
): Promise<ProfiledResult> {
  const dir = opts.dir ?? tempDir();
  const recv = await startDump(dir);
  const env = cleanEnv({ LD_PRELOAD: lib, JOBIO_SOCKET: recv.socket, JOBIO_ERROR_LOG: join(dir, 'jobio-error.log'), ...opts.env });
  let r: RunResult;
  try {
    r = await run(cmd, args, { env, cwd: opts.cwd, input: opts.input, timeoutMs: opts.timeoutMs });
  } finally {
    // a receiver left running would keep the test alive
  }
  const dump = await recv.stop();
  return { ...r, dump, dir };
}

/** The one process of the dump whose executable is exe (fails if there is not exactly one). */
export function proc(dump: Dump, exe: string): DumpProcess {
  const found = dump.processes.filter((p) => p.exe === exe);
  if (found.length !== 1) {
    throw new Error(`expected one process "${exe}", found ${found.length}: ${dump.processes.map((p) => p.exe).join(',')}`);
  }
  return found[0]!;
}

/** red/yellow/green of one call type. */
export function ryg(body: MountBody, call: string): [number, number, number] {
  const c = body.calls[call];
  if (!c) throw new Error(`no call type ${call}`);
  return [c.red, c.yellow, c.green];
}

/** Every call type with a non-zero count, as { call: [red, yellow, green] }. */
export function counted(body: MountBody): Record<string, [number, number, number]> {
  const out: Record<string, [number, number, number]> = {};
  for (const [k, c] of Object.entries(body.calls)) {
    if (c.red + c.yellow + c.green > 0) out[k] = [c.red, c.yellow, c.green];
  }
  return out;
}

/** The calls of `mounts` summed over their classes, for each of `kinds` (a create is an open). */
export function callsOfKinds(mounts: readonly MountBody[], kinds: Iterable<string>): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries([...kinds].map((k) => [k, 0]));
  for (const m of mounts)
    for (const [call, c] of Object.entries(m.calls)) {
      const k = call === 'create' ? 'open' : call;
      if (k in out) out[k]! += c.red + c.yellow + c.green;
    }
  return out;
}

/** Opens (creates included) in the final snapshots' mounts of `component` ('' for the program's own). */
export function componentOpens(dump: Dump, component: string): number {
  const mounts = dump.processes.filter((p) => p.final).flatMap((p) => p.mounts);
  return callsOfKinds(
    mounts.filter((m) => m.component === component),
    ['open'],
  )['open']!;
}

export function exists(path: string): boolean {
  return existsSync(path);
}
