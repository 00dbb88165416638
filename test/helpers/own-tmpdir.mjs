// Preloaded by `npm test` into every test file's process: the file gets its own temporary
// directory as TMPDIR (os.tmpdir() reads it on every call, and every program a test spawns inherits
// it), removed when the process exits. A test that forgets to clean up, or a daemon that leaves a
// socket behind, then leaves nothing in the machine's /tmp.
// Only in the runner's child processes (NODE_TEST_CONTEXT): the runner itself keeps the real TMPDIR.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

if (process.env.NODE_TEST_CONTEXT !== undefined && process.env.JOBIO_TEST_OWN_TMPDIR === undefined) {
  // Short prefix: Unix socket paths made under it must stay below 108 bytes.
  const dir = mkdtempSync(join(tmpdir(), 'jt-'));
  // As /tmp itself (sticky, open to all): tests run programs as other users and daemons (Slurm,
  // Grid Engine, the profiler's peers) that make their own files here.
  chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  process.env.JOBIO_TEST_OWN_TMPDIR = dir;
  process.on('exit', () => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }));
}
