// Why a command ran without the profiler, told from its file: a static binary has no program
// interpreter (no PT_INTERP program header), so no dynamic loader reads LD_PRELOAD; a set-user-ID or
// set-group-ID program runs in the loader's secure mode, which ignores a preload path with slashes.
// Anything else (a cleared environment, an exclusion) cannot be told from the file: undefined.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { findProgram } from '../util/find-program.js';

const PT_INTERP = 3;

/** True for an ELF file without a program interpreter; false for anything else or unreadable. */
function isStaticElf(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(64);
    if (readSync(fd, head, 0, 64, 0) < 52 || head.readUInt32BE(0) !== 0x7f454c46) return false;
    const is64 = head[4] === 2;
    const little = head[5] === 1;
    const u16 = (b: Buffer, o: number): number => (little ? b.readUInt16LE(o) : b.readUInt16BE(o));
    const u32 = (b: Buffer, o: number): number => (little ? b.readUInt32LE(o) : b.readUInt32BE(o));
    const phoff = is64 ? Number(little ? head.readBigUInt64LE(32) : head.readBigUInt64BE(32)) : u32(head, 28);
    const phentsize = u16(head, is64 ? 54 : 42);
    const phnum = u16(head, is64 ? 56 : 44);
    if (phentsize < 4 || phnum === 0 || phnum > 4096) return false;
    const table = Buffer.alloc(phentsize * phnum);
    if (readSync(fd, table, 0, table.length, phoff) !== table.length) return false;
    for (let i = 0; i < phnum; i++) if (u32(table, i * phentsize) === PT_INTERP) return false;
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** "a static binary", "a set-user-ID program" ... for the command as given to `jobio run`, or undefined. */
export function whyUnprofiled(command: string): string | undefined {
  const path = findProgram(command);
  if (path === undefined) return undefined;
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return undefined;
  }
  if (mode & 0o4000) return 'a set-user-ID program';
  if (mode & 0o2000) return 'a set-group-ID program';
  return isStaticElf(path) ? 'a static binary' : undefined;
}
