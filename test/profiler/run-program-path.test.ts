// A short-lived program whose process is gone before `jobio run` reads its first frame: the receiver
// cannot read /proc/<pid>/exe any more, and the program's path comes from the frame the process sent
// (read once at its start-up). Made certain, not left to chance: `jobio run` is stopped (SIGSTOP)
// while the program runs, connects (the kernel queues the connection and its frames), exits and is
// reaped, and only then continued.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobioBin } from '../helpers/exporter.js';
import { readValidLog } from './mistral-schema.js';
import { requireProfilerLibrary } from './real-library.js';

type Obj = Record<string, any>;
const work = mkdtempSync(join(tmpdir(), 'jobio-path-'));

/** Writes a line to a FIFO the shell reads, and closes it. */
async function release(fifo: Awaited<ReturnType<typeof open>>): Promise<void> {
  await fifo.write('go\n');
  await fifo.close();
}

test("a program gone before its first frame is read is still named with its path: the path it sent, /proc's being gone", async () => {
  requireProfilerLibrary();
  const head = realpathSync(execFileSync('sh', ['-c', 'command -v head'], { encoding: 'utf8' }).trim());
  const [before, after, done, input, out] = ['before', 'after', 'done', 'input.txt', 'run.jsonl'].map((n) => join(work, n)) as [string, string, string, string, string];
  for (const fifo of [before, after]) execFileSync('mkfifo', [fifo]);
  writeFileSync(input, 'x'.repeat(100));
  // `: >` and `read` are the shell's own: no other program runs while `jobio run` is stopped.
  const script = `read go < ${before}; head -c 50 ${input} > /dev/null; : > ${done}; read go < ${after}`;
  const run = spawn(process.execPath, [jobioBin, 'run', '--output', out, '--sample-every', '1', '--', 'sh', '-c', script], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  run.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = once(run, 'exit');
  const pid = run.pid ?? 0;
  // The open returns once the shell opened the FIFO too: it runs (and waits for the line). Stop the
  // receiver, then let the shell go on.
  await release(await open(before, 'w').then((f) => (process.kill(pid, 'SIGSTOP'), f)));
  while (!existsSync(done)) await sleep(20);
  process.kill(pid, 'SIGCONT');
  await release(await open(after, 'w'));
  const [code] = (await exited) as [number | null];
  assert.equal(code, 0, stderr);
  const records = readValidLog(readFileSync(out, 'utf8'));
  const programs = records.filter((r) => r.type === 'diagnosis').flatMap((r) => (r.reasons as Obj[] | undefined)?.map((x) => x.program as Obj) ?? []);
  const heads = programs.filter((p) => p.name === 'head');
  assert.ok(heads.length > 0, `head's calls have reasons: ${JSON.stringify(programs)}`);
  for (const p of heads) assert.deepEqual({ name: p.name, path: p.path, role: p.role }, { name: 'head', path: head, role: 'tool' });
  assert.match(stderr, /Head \(GNU coreutils\) on \//, 'the summary addresses the hint to head');
});
