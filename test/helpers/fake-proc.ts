// A procfs of made-up processes for the job verifier and the profiler's process table: per pid the
// files they read (environ, cgroup, stat for the parent, cmdline, status for the uid).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FakeProcess {
  readonly environ?: string | Buffer;
  readonly cgroup?: string;
  readonly ppid?: number;
  readonly cmdline?: string;
  /** Written as all four ids of the status Uid line; `status` gives the whole file instead. */
  readonly uid?: number;
  readonly status?: string;
}

/** A new directory holding `processes` as <pid>/<file>; returns its path. */
export function fakeProc(processes: Readonly<Record<number, FakeProcess>> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'jobio-proc-'));
  for (const [pid, files] of Object.entries(processes)) {
    mkdirSync(join(root, pid));
    if (files.environ !== undefined) writeFileSync(join(root, pid, 'environ'), files.environ);
    if (files.cgroup !== undefined) writeFileSync(join(root, pid, 'cgroup'), files.cgroup);
    if (files.ppid !== undefined) writeFileSync(join(root, pid, 'stat'), `${pid} (x y) S ${files.ppid} ${pid} ${pid} 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0\n`);
    if (files.cmdline !== undefined) writeFileSync(join(root, pid, 'cmdline'), `${files.cmdline}\0`);
    if (files.uid !== undefined) writeFileSync(join(root, pid, 'status'), `Name:\tx\nUid:\t${files.uid}\t${files.uid}\t${files.uid}\t${files.uid}\n`);
    if (files.status !== undefined) writeFileSync(join(root, pid, 'status'), files.status);
  }
  return root;
}
