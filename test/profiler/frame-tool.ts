// Builds and drives test/profiler/programs/frame-tool.c, which writes profiler frames with the C
// header's own structs, and repeats its value formulas so tests can assert every decoded field.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireBinary } from '../helpers/binaries.js';

export const protocolInclude = fileURLToPath(new URL('../../native/profiler/include', import.meta.url));
const programs = fileURLToPath(new URL('./programs/', import.meta.url));

let built: string | undefined;

/** Compiles a C program from test/profiler/programs (once per test process) and returns its path. */
export function buildProgram(name: string, extraArgs: readonly string[] = []): string {
  const cc = requireBinary('cc', 'gcc');
  const out = join(mkdtempSync(join(tmpdir(), 'jobio-cprog-')), name);
  execFileSync(cc, ['-std=gnu11', '-O1', '-Wall', '-Wextra', '-Werror', '-I', protocolInclude, join(programs, `${name}.c`), '-o', out, ...extraArgs], { stdio: 'inherit' });
  return out;
}

export function frameTool(): string {
  built ??= buildProgram('frame-tool');
  return built;
}

/** `frame-tool dump`: the frames it wrote, split on their u32 length prefixes. */
export function dumpFrames(): Buffer[] {
  const out = execFileSync(frameTool(), ['dump']);
  const frames: Buffer[] = [];
  for (let at = 0; at < out.length;) {
    const len = out.readUInt32LE(at);
    frames.push(out.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  return frames;
}

export function frameLayout(): Record<string, Record<string, number>> & { magic: number; version: number; maxFrame: number; pow2Bins: number } {
  return JSON.parse(execFileSync(frameTool(), ['layout'], { encoding: 'utf8' })) as never;
}

/** Runs `frame-tool send SOCKET SCENARIO [JOBID] [SOURCE]` and returns its exit code and stderr. */
export function sendScenario(socket: string, scenario: 'valid' | 'garbage', jobid?: string, source?: string, env?: NodeJS.ProcessEnv): { status: number | null; stderr: string } {
  const args = ['send', socket, scenario, ...(jobid !== undefined ? [jobid] : []), ...(source !== undefined ? [source] : [])];
  const r = spawnSync(frameTool(), args, { encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: r.status, stderr: r.stderr };
}

// The formulas of frame-tool.c for scale s (c = call index, k = class, d = direction, b = size bin).
export const expected = {
  calls: (s: number, c: number, k: number): number => s * (100 * c + 10 * k + 1),
  timeNs: (s: number, c: number, k: number): number => s * (1_000_000 * c + 1000 * k + 7),
  sampled: (s: number, c: number): number => s * (c + 3),
  sizedCalls: (s: number, d: number, b: number): number => s * (10 * d + b + 1),
  sizedBytes: (s: number, d: number, b: number): number => s * (10 * d + b + 1) * 4096,
  sizedTimeNs: (s: number, d: number, b: number): number => s * (100 * d + 10 * b + 5),
  pow2Calls: (s: number, d: number, i: number): number => s * (64 * d + i),
  pow2Bytes: (s: number, d: number, i: number): number => s * (64 * d + i) * 3,
  maxCallNs: (s: number, c: number): number => s * (50 * c + 13),
  maxSizedNs: (s: number, d: number, b: number): number => s * (30 * d + 3 * b + 2),
  /** the classes' sum, and for open, create and access 5 more not decided yet */
  madeCalls: (s: number, c: number): number => s * (300 * c + 33) + ([2, 3, 5].includes(c) ? s * 5 : 0),
  /** the classes' time and timed calls, and for open, create and access 11 ns in 2 timed calls not decided yet */
  madeTimeNs: (s: number, c: number): number => s * (3_000_000 * c + 3021) + ([2, 3, 5].includes(c) ? s * 11 : 0),
  madeSampled: (s: number, c: number): number => s * (c + 3) + ([2, 3, 5].includes(c) ? s * 2 : 0),
  runtimeNs: (s: number): number => s * 2_500_000_000,
  droppedFrames: (s: number): number => s * 2,
  networkFolded: (s: number): number => s * 3,
  startNs: 1700000000123456789n,
};
