// The workload capture-prometheus.mjs puts in front of the real jobio exporter:
//
// 1. Lustre job_stats files (2.14 layout) under a temporary procfs root, rewritten every second.
//    The operation lists, their order, the mean transfer size of writes and the mean latency of every
//    operation come from the real whamcloud 2.14.0_ddn captures in test/fixtures/lustre/lctl/; the
//    counters grow per tick following the scenario below.
// 2. Real programs (dd, cp, python3) run under the profiler (LD_PRELOAD=libjobio.so) as real users
//    (uids of the temporary passwd file) with SLURM_JOB_ID set, again and again.
//
// Scenario (t = seconds since the start of the workload; D = the capture duration):
// - scratch-MDT0000: 40 users, one job each (jobid 6100+i, uid 5010+i), metadata rates spread over
//   four decades (0.1 … 1000 ops/s) with the real MDT operation mix; every 8th job idle (counters
//   frozen: rate 0); every 7th job starts at t = D/4 (series born mid-window: "no data" before);
//   every 9th job stops at t = 2D/3 (rate 0 afterwards). Job 7010 (mallory): a stat/open/close storm
//   of ~20,000 ops/s from t = D/3 to t = 5D/6. Jobs 7001–7005 do a little metadata too.
// - OSTs scratch-OST0000..0003:
//   7001 alice writes 16 MiB transfers striped over OST0000..0002, 200 MiB/s per OST, in bursts
//   (6 s on, 6 s off); 7002 bob writes 4 KiB transfers to OST0001 (2000/s); 7003 carol reads from
//   OST0002 (300 MiB/s) and a little from OST0000 (4 MiB/s); 7004 dave writes 32 MiB/s to OST0003,
//   ×8 from t = 3D/5 (a trend change); 7005 erin reads and writes 8 MiB/s on every OST; 30 of the
//   MDT users' jobs do background I/O (10 KiB/s … 50 MiB/s) on one or two OSTs.
// - Profiler: 7001 alice dd bs=1M (/dev/shm → /), 7002 bob dd bs=512 conv=notrunc, 7003 carol python3 stat +
//   forward seeks + 64 KiB reads, 7004 dave python3 stats of files it never opens, 7005 erin cp of a
//   16 MiB file.
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const MiB = 1048576;
const KiB = 1024;

// ---------------------------------------------------------------------------------------------------
// Real captures as templates.

/** Operation order, units and per-operation means of a real `lctl get_param *.job_stats` capture. */
export function readTemplate(file) {
  const text = readFileSync(file, 'utf8');
  const firstEntry = text.split(/^- job_id:/m)[1] ?? '';
  const ops = [];
  for (const m of firstEntry.matchAll(/^ {2}(\w+):\s+\{ samples:\s+\d+, unit: (\w+)/gm)) {
    ops.push({ op: m[1], unit: m[2] });
  }
  const totals = new Map();
  for (const m of text.matchAll(/^ {2}(\w+):\s+\{ samples:\s+(\d+), unit: \w+, min:\s+\d+, max:\s+\d+, sum:\s+(\d+)/gm)) {
    const t = totals.get(m[1]) ?? { samples: 0, sum: 0 };
    t.samples += Number(m[2]);
    t.sum += Number(m[3]);
    totals.set(m[1], t);
  }
  const mean = new Map([...totals].map(([op, t]) => [op, t.samples > 0 ? t.sum / t.samples : 0]));
  return { ops, mean, totals };
}

const pad = (v, w) => String(v).padStart(w, ' ');

function opLine(op, unit, samples, sum, meanPer) {
  const s = Math.round(samples);
  const total = Math.round(sum);
  const each = s > 0 ? Math.round(total / s) : 0;
  const min = s > 0 ? Math.max(1, Math.round(each * 0.4)) : 0;
  const max = s > 0 ? Math.round(each * 3) : 0;
  const sumsq = s > 0 ? BigInt(s) * BigInt(each) * BigInt(each) : 0n;
  const hist = unit === 'bytes' ? (s > 0 ? `, hist: { ${histKey(meanPer || each)}: ${s} }` : ', hist: {  }') : '';
  return `  ${`${op}:`.padEnd(16)} { samples: ${pad(s, 11)}, unit: ${unit}, min: ${pad(min, 8)}, max: ${pad(max, 8)}, sum: ${pad(total, 16)}, sumsq: ${pad(sumsq, 18)}${hist} }`;
}

function histKey(bytes) {
  const k = Math.max(4096, 2 ** Math.round(Math.log2(Math.max(1, bytes))));
  return k >= MiB ? `${k / MiB}M` : `${k / KiB}K`;
}

// ---------------------------------------------------------------------------------------------------
// Users.

const NAMES = [
  'alice',
  'bob',
  'carol',
  'dave',
  'erin',
  'frank',
  'grace',
  'heidi',
  'ivan',
  'judy',
  'mallory',
  'niaj',
  'olivia',
  'peggy',
  'rupert',
  'sybil',
  'trent',
  'victor',
  'walter',
  'yves',
  'zoe',
  'quinn',
  'uma',
  'xena',
  'aaron',
  'beatriz',
  'chen',
  'dmitri',
  'elif',
  'farah',
  'goran',
  'hana',
  'ines',
  'jonas',
  'kaito',
  'lena',
  'mateo',
  'nadia',
  'oskar',
  'priya',
  'rashid',
  'saanvi',
  'tomas',
  'ulla',
  'vera',
  'wanjiru',
  'ximena',
  'yusuf',
  'zainab',
  'amara',
];
/** alice, bob (5000, 5001, as in test/fixtures/lustre/rootfs), carol … mallory (5002 …), MDT users from 5010. */
export const PROFILER_USERS = { alice: 5000, bob: 5001, carol: 5002, dave: 5003, erin: 5004, mallory: 5005 };
export const MDT_USERS = NAMES.filter((n) => !(n in PROFILER_USERS))
  .slice(0, 40)
  .map((name, i) => ({ name, uid: 5010 + i }));

/** A passwd file: the fixture's lines plus every user of the scenario. */
export function passwd(fixturePasswd) {
  const lines = readFileSync(fixturePasswd, 'utf8').trimEnd().split('\n');
  const have = new Set(lines.map((l) => l.split(':')[0]));
  for (const [name, uid] of [...Object.entries(PROFILER_USERS), ...MDT_USERS.map((u) => [u.name, u.uid])]) {
    if (!have.has(name)) {
      lines.push(`${name}:x:${uid}:${uid}:${name[0].toUpperCase()}${name.slice(1)}:/home/${name}:/bin/bash`);
      have.add(name);
    }
  }
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------------
// job_stats.

/** Deterministic pseudo-random in [0, 1). */
function unit(i) {
  const x = Math.sin(i * 12.9898 + 78.233) * 43758.5453;
  return x - Math.floor(x);
}

const burst = (t, on, off) => t % (on + off) < on;

export class JobStatsScenario {
  /**
   * @param {string} procRoot  the temporary procfs root
   * @param {number} duration  D, seconds
   * @param {{ ost: ReturnType<typeof readTemplate>, mdt: ReturnType<typeof readTemplate> }} templates
   */
  constructor(procRoot, duration, templates) {
    this.procRoot = procRoot;
    this.D = duration;
    this.tpl = templates;
    this.osts = [0, 1, 2, 3].map((n) => `scratch-OST000${n}`);
    this.mdt = 'scratch-MDT0000';
    /** target → Map(job_id → { startTime, counters: Map(op → {samples, sum}) }) */
    this.state = new Map([[this.mdt, new Map()], ...this.osts.map((o) => [o, new Map()])]);
    this.t0 = Date.now() / 1000;
    // The real MDT mix of a job's metadata (statfs and sync, node_exporter's and vi's, left out).
    const mix = ['open', 'close', 'getattr', 'setattr', 'mknod', 'unlink', 'rename', 'getxattr'].map((op) => [op, this.tpl.mdt.totals.get(op)?.samples ?? 0]);
    const total = mix.reduce((a, [, n]) => a + n, 0);
    this.mdtMix = mix.map(([op, n]) => [op, n / total]);
    this.writeSize = this.tpl.ost.mean.get('write_bytes') || 16 * MiB;
    for (const target of this.state.keys()) {
      mkdirSync(this.dir(target), { recursive: true });
    }
  }

  dir(target) {
    return join(this.procRoot, 'fs/lustre', target === this.mdt ? 'mdt' : 'obdfilter', target);
  }

  /** Load per target, job and operation at time t: { [target]: [{ id, ops: { op: [samplesPerSec, bytesPerSample?] } }] }. */
  load(t) {
    const D = this.D;
    const out = new Map([...this.state.keys()].map((k) => [k, []]));
    const add = (target, jobid, uid, ops) => out.get(target).push({ id: `${jobid}:${uid}:cn${String(100 + (Number(jobid) % 64)).padStart(3, '0')}`, ops });
    // MDT users.
    MDT_USERS.forEach((u, i) => {
      const jobid = String(6100 + i);
      const starts = i % 7 === 3 ? D / 4 : -Infinity;
      if (t < starts) {
        return;
      }
      const idle = i % 8 === 5 || (i % 9 === 4 && t >= (2 * D) / 3);
      const rate = idle ? 0 : 10 ** (-1 + 4 * unit(i));
      add(this.mdt, jobid, u.uid, Object.fromEntries(this.mdtMix.map(([op, share]) => [op, [rate * share]])));
      if (i < 30) {
        const bw = 10 ** (4 + 3.7 * unit(i + 100));
        const targets = i % 3 === 0 ? [this.osts[i % 4], this.osts[(i + 1) % 4]] : [this.osts[i % 4]];
        for (const o of targets) {
          const w = idle ? 0 : bw / targets.length;
          add(o, jobid, u.uid, { write_bytes: [w / MiB, MiB], write: [w / MiB], read_bytes: [w / 4 / MiB, MiB], read: [w / 4 / MiB], punch: [0.05] });
        }
      }
    });
    // The metadata storm.
    const storm = t >= D / 3 && t < (5 * D) / 6 ? 20000 : 2;
    add(this.mdt, '7010', PROFILER_USERS.mallory, { getattr: [storm * 0.6], open: [storm * 0.2], close: [storm * 0.2] });
    // Profiler jobs on the MDT.
    for (const [jobid, user, rate] of [
      ['7001', 'alice', 3],
      ['7002', 'bob', 1],
      ['7003', 'carol', 40],
      ['7004', 'dave', 120],
      ['7005', 'erin', 2],
    ]) {
      add(this.mdt, jobid, PROFILER_USERS[user], Object.fromEntries(this.mdtMix.map(([op, share]) => [op, [rate * share]])));
    }
    // OST jobs.
    const ws = this.writeSize;
    const on7001 = burst(t, 6, 6);
    for (const o of this.osts.slice(0, 3)) {
      const w = on7001 ? 200 * MiB : 0;
      add(o, '7001', PROFILER_USERS.alice, { write_bytes: [w / ws, ws], write: [w / ws], punch: [on7001 ? 0.5 : 0] });
    }
    add(this.osts[1], '7002', PROFILER_USERS.bob, { write_bytes: [2000, 4096], write: [2000], sync: [0.5] });
    add(this.osts[2], '7003', PROFILER_USERS.carol, { read_bytes: [300, MiB], read: [300] });
    add(this.osts[0], '7003', PROFILER_USERS.carol, { read_bytes: [4, MiB], read: [4] });
    const dave = t >= (3 * D) / 5 ? 8 * 32 : 32;
    add(this.osts[3], '7004', PROFILER_USERS.dave, { write_bytes: [dave / 4, 4 * MiB], write: [dave / 4] });
    for (const o of this.osts) {
      add(o, '7005', PROFILER_USERS.erin, { write_bytes: [8, MiB], write: [8], read_bytes: [8, MiB], read: [8], getattr: [1] });
    }
    return out;
  }

  /** Advances every counter by `dt` seconds of the load at `t`, then rewrites every job_stats file. */
  step(t, dt) {
    const now = Date.now() / 1000;
    for (const [target, jobs] of this.load(t)) {
      const entries = this.state.get(target);
      const tpl = target === this.mdt ? this.tpl.mdt : this.tpl.ost;
      for (const job of jobs) {
        let e = entries.get(job.id);
        if (!e) {
          // Jobs present from the start have been running for 10 minutes already.
          const warm = t <= 0 ? 600 : 0;
          e = { startTime: now - warm, counters: new Map(), seed: entries.size };
          entries.set(job.id, e);
          if (warm) {
            this.advance(e, job.ops, tpl, warm);
          }
        }
        this.advance(e, job.ops, tpl, dt);
      }
    }
    for (const [target, entries] of this.state) {
      const tpl = target === this.mdt ? this.tpl.mdt : this.tpl.ost;
      const lines = ['job_stats:'];
      for (const [id, e] of entries) {
        lines.push(
          `- job_id:          "${id}"`,
          `  snapshot_time:   ${now.toFixed(9)} secs.nsecs`,
          `  start_time:      ${e.startTime.toFixed(9)} secs.nsecs`,
          `  elapsed_time:    ${(now - e.startTime).toFixed(9)} secs.nsecs`,
        );
        for (const { op, unit: u } of tpl.ops) {
          const c = e.counters.get(op) ?? { samples: 0, sum: 0 };
          lines.push(opLine(op, u, c.samples, c.sum, c.samples > 0 ? c.sum / c.samples : 0));
        }
      }
      const file = join(this.dir(target), 'job_stats');
      writeFileSync(`${file}.tmp`, `${lines.join('\n')}\n`);
      renameSync(`${file}.tmp`, file);
    }
  }

  advance(e, ops, tpl, dt) {
    for (const [op, [perSecond, bytesPer]] of Object.entries(ops)) {
      const c = e.counters.get(op) ?? { samples: 0, sum: 0, frac: 0 };
      const exact = perSecond * dt + c.frac;
      const n = Math.floor(exact);
      c.frac = exact - n;
      c.samples += n;
      // Bytes: the scenario's transfer size; latency: the real mean latency of the operation (usecs).
      c.sum += n * (bytesPer ?? (tpl.mean.get(op) || 50));
      e.counters.set(op, c);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Profiled programs.

const CAROL = `
import os, sys
d = sys.argv[1]
names = sorted(os.listdir(d))
for n in names:
    p = os.path.join(d, n)
    os.stat(p)
    fd = os.open(p, os.O_RDONLY)
    for k in range(1, 201):
        os.lseek(fd, k * 1024, os.SEEK_SET)
    os.read(fd, 65536)
    os.close(fd)
`;
const DAVE = `
import os, sys
d = sys.argv[1]
for r in range(4):
    for n in sorted(os.listdir(d)):
        p = os.path.join(d, n)
        os.stat(p)
        try:
            os.stat(p + '.missing')
        except FileNotFoundError:
            pass
`;

/**
 * Prepares the jobs' directories on / (under `work`) and on /dev/shm (under `shm`) and returns the
 * programs each job runs, as [jobid, user, argv][].
 */
export function prepareJobs(work, shm) {
  const dirs = {};
  for (const [user, uid] of Object.entries(PROFILER_USERS)) {
    for (const base of [work, shm]) {
      const d = join(base, user);
      mkdirSync(d, { recursive: true });
      chmodSync(d, 0o755);
      chownSync(d, uid, uid);
    }
    dirs[user] = { work: join(work, user), shm: join(shm, user), uid };
  }
  const filled = (dir, count, size) => {
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < count; i++) {
      writeFileSync(join(dir, `f${String(i).padStart(4, '0')}.dat`), Buffer.alloc(size, i % 251));
    }
  };
  filled(join(dirs.carol.work, 'in'), 150, 256 * KiB);
  filled(join(dirs.dave.work, 'in'), 300, 512);
  writeFileSync(join(dirs.erin.shm, 'input.bin'), Buffer.alloc(16 * MiB, 7));
  return [
    ['7001', 'alice', ['/bin/sh', '-c', `dd if=/dev/zero of=${dirs.alice.shm}/a.bin bs=1M count=48 status=none && dd if=${dirs.alice.shm}/a.bin of=${dirs.alice.work}/b.bin bs=1M status=none`]],
    ['7002', 'bob', ['/usr/bin/dd', 'if=/dev/zero', `of=${dirs.bob.work}/small.bin`, 'bs=512', 'count=8000', 'conv=notrunc', 'status=none']],
    ['7003', 'carol', ['/usr/bin/python3', '-I', '-S', '-c', CAROL, join(dirs.carol.work, 'in')]],
    ['7004', 'dave', ['/usr/bin/python3', '-I', '-S', '-c', DAVE, join(dirs.dave.work, 'in')]],
    ['7005', 'erin', ['/bin/cp', `${dirs.erin.shm}/input.bin`, `${dirs.erin.work}/copy.bin`]],
  ].map(([jobid, user, argv]) => ({ jobid, user, uid: dirs[user].uid, argv, cwd: dirs[user].work }));
}

/** Runs one job's program again and again (pause `gapMs` between runs) until `stop()` is called. */
export function loopJob(job, { lib, socket, gapMs, log }) {
  let stopped = false;
  let runs = 0;
  let failures = 0;
  const done = (async () => {
    while (!stopped) {
      const code = await new Promise((resolve) => {
        const child = spawn(job.argv[0], job.argv.slice(1), {
          cwd: job.cwd,
          uid: job.uid,
          gid: job.uid,
          stdio: ['ignore', 'ignore', 'pipe'],
          env: { PATH: '/usr/bin:/bin', LD_PRELOAD: lib, JOBIO_SOCKET: socket, JOBIO_TIMEFRAME: '1', SLURM_JOB_ID: job.jobid, HOME: job.cwd },
        });
        let err = '';
        child.stderr.on('data', (d) => (err += d));
        child.on('close', (c) => {
          if (c !== 0) {
            log(`job ${job.jobid}: ${job.argv.join(' ').slice(0, 80)} exited ${c}: ${err.slice(0, 300)}`);
          }
          resolve(c);
        });
      });
      runs++;
      failures += code === 0 ? 0 : 1;
      await new Promise((r) => setTimeout(r, gapMs));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await done;
      return { runs, failures };
    },
  };
}
