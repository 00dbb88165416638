// The most common job shape: read the input, then compute without a call. `jobio run --timeframe 1s`
// with the real library must put the reads in the frames they happened in (the library's flush
// thread sends each process's snapshot just before every second ends, and the run buckets it by the
// time it was taken), not in the frame of the process's exit. The oracle: strace -ttt inside the
// same run gives each read's wall-clock time; the job record gives the run's start.
//
// The one tolerance: the flush thread takes the snapshot 20 ms before a frame's end
// (JOBIO_FLUSH_LEAD_NS in native/profiler/src/process/flusher.c), so a read made in those last 20 ms
// is counted in the next frame. By the end of second k the run counted at least the reads strace saw
// before 20 ms ahead of its end and at most those before its end; in all, exactly strace's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runJobio } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';
import { readValidLog } from './mistral-schema.js';

type Obj = Record<string, any>;
const SHM = '/dev/shm';
/** the flush thread's lead before a frame's end (native/profiler/src/process/flusher.c) */
const LEAD_MS = 20;

// 4 reads of 1 MiB and the one at the end of the file, then ~3 s of computing without any call
const SCRIPT = `
import os, time
fd = os.open(os.environ['INPUT'], os.O_RDONLY)
while os.read(fd, 1 << 20):
    pass
os.close(fd)
t = time.monotonic()
x = 0
while time.monotonic() - t < 3.0:
    x += 1
`;

test('input then compute, --timeframe 1s: the reads are in the frames strace -ttt puts them in, not at the exit', async () => {
  const strace = requireBinary('strace');
  const python = requireBinary('python3');
  const dir = mkdtempSync(join(tmpdir(), 'jobio-run-timeframes-'));
  const data = mkdtempSync(join(SHM, 'jobio-run-timeframes-'));
  try {
    const input = join(data, 'input.bin');
    writeFileSync(input, Buffer.alloc(4 << 20, 1));
    const script = join(dir, 'job.py');
    writeFileSync(script, SCRIPT);
    const out = join(dir, 'out.jsonl');
    const prefix = join(dir, 'st');
    const r = await runJobio(['run', '--timeframe', '1s', '--output', out, '--', strace, '-f', '-ff', '-qq', '-ttt', '-y', '-e', 'trace=read', '-o', prefix, python, script], {
      env: { INPUT: input },
      timeoutMs: 120_000,
    });
    assert.equal(r.code, 0, r.stderr);
    const records = readValidLog(readFileSync(out, 'utf8'));
    // the run's start (ms); a frame of second k is stamped at its end, start + k + 1 s, in whole seconds (truncated)
    const startMs = (records.find((x) => x.jobtotal === true && x.jobstarttime !== undefined) as Obj).jobstarttime as number;
    const stamp = (x: Obj): number => Date.parse(String(x.timestamp));
    const periodic = records.filter((x) => x.type === 'resources' && x.jobtotal === false);
    // strace's reads of the input, each in the second of the run it happened in
    const expected = new Map<number, number>();
    let last = 0;
    const times: number[] = [];
    for (const f of readdirSync(dir).filter((n) => n.startsWith('st.'))) {
      for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
        const m = /^(\d+\.\d+) read\(\d+<([^>]*)>/.exec(line);
        if (!m || m[2] !== input) continue;
        const s = Math.floor((Number(m[1]) * 1000 - startMs) / 1000);
        times.push(Number(m[1]) * 1000 - startMs);
        expected.set(s, (expected.get(s) ?? 0) + 1);
        last = Math.max(last, s);
      }
    }
    assert.equal(
      [...expected.values()].reduce((a, b) => a + b, 0),
      5,
      'strace: 4 reads of 1 MiB and the one at the end',
    );
    const frames = records.filter((x) => x.type === 'mountpoint' && x.jobtotal === false && (x.mountpoint as Obj).path === SHM);
    const seconds = (x: Obj): number => Math.ceil((stamp(x) - startMs) / 1000) - 1;
    const got = new Map<number, number>();
    for (const f of frames) {
      const n = (f.io['read_all']?.calls.total as number | undefined) ?? 0;
      if (n > 0) got.set(seconds(f), (got.get(seconds(f)) ?? 0) + n);
    }
    const runS = Math.max(...periodic.map(seconds));
    assert.ok(runS >= last + 2, `the job computed for seconds after its reads (frames up to ${runS}, reads up to ${last})`);
    const why = `reads per second: profiler ${JSON.stringify([...got])}, strace ${JSON.stringify([...expected])} (ms after the start: ${times.map((t) => t.toFixed(0)).join(', ')}; frames ${frames.map((f) => String(f.timestamp)).join(', ')}, start ${startMs})`;
    const before = (ms: number): number => times.filter((t) => t < ms).length;
    let cumulative = 0;
    for (let k = 0; k <= runS; k++) {
      cumulative += got.get(k) ?? 0;
      const end = (k + 1) * 1000;
      assert.ok(before(end - LEAD_MS) <= cumulative && cumulative <= before(end), `reads by the end of second ${k}: ${cumulative}, strace ${before(end - LEAD_MS)}..${before(end)}; ${why}`);
    }
    assert.equal(cumulative, times.length, why);
    assert.ok(
      [...got.keys()].every((k) => k <= last + 1),
      `no read counted at the exit: ${why}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  }
});
