// The cluster the demo replays: who runs what, on which Lustre targets, at what rate. The targets and
// the background entries come from real captures (captured-targets.ts); the jobs below are added on
// top, written in the same layout. Rates are requests per second; a `*_bytes` operation carries
// `rpcBytes` per request, any other operation its latency in microseconds.

export interface DemoUser {
  readonly name: string;
  readonly uid: number;
}

export interface TargetLoad {
  readonly target: string;
  /** Operation → requests per second. */
  readonly rates: Readonly<Record<string, number>>;
  /** Bytes per read/write RPC (the `read_bytes`/`write_bytes` lines). */
  readonly rpcBytes?: number;
  /** Latency per request in µs, per operation, over the defaults in LATENCY_US. */
  readonly latencyUs?: Readonly<Record<string, number>>;
}

export interface DemoJob {
  readonly jobid: string;
  readonly user: DemoUser;
  /** The client host in the job id (`%j:%u:%H`). */
  readonly host: string;
  readonly what: string;
  /** Seconds after the demo starts when the job's entries appear, and when they stop growing. */
  readonly startSec: number;
  readonly endSec?: number;
  readonly load: readonly TargetLoad[];
}

const MiB = 1024 * 1024;

export const DEMO_USERS: readonly DemoUser[] = [
  { name: 'alice', uid: 2001 },
  { name: 'bob', uid: 2002 },
  { name: 'carol', uid: 2003 },
  { name: 'dave', uid: 2004 },
  { name: 'erin', uid: 2005 },
];
const [alice, bob, carol, dave, erin] = DEMO_USERS as [DemoUser, DemoUser, DemoUser, DemoUser, DemoUser];

/** The captured MDTs and OST, plus three OSTs in the captured OST's layout. */
export const MDT = 'es01a-MDT0000';
export const MDT2 = 'es02a-MDT0000';
export const OSTS = ['es01a-OST0000', 'es01a-OST0001', 'es01a-OST0002', 'es01a-OST0003'] as const;
const [OST0, OST1, OST2, OST3] = OSTS;

/** Typical service times (µs) of a 2.14 server: what `sum` grows by per request. */
export const LATENCY_US: Readonly<Record<string, number>> = {
  open: 140,
  close: 30,
  mknod: 160,
  link: 120,
  unlink: 180,
  mkdir: 220,
  rmdir: 200,
  rename: 260,
  getattr: 15,
  setattr: 110,
  getxattr: 20,
  setxattr: 90,
  statfs: 20,
  sync: 900,
  samedir_rename: 240,
  crossdir_rename: 300,
  read: 2500,
  write: 6000,
  punch: 200,
};

const writes = (rpcs: number) => ({ write_bytes: rpcs, write: rpcs });
const reads = (rpcs: number) => ({ read_bytes: rpcs, read: rpcs });

/**
 * The metadata storm: 125,200 metadata requests/s on one MDT (an untar of a software environment on
 * every rank). The alert JobioMetadataStorm fires above 5,000/s as a 5-minute rate; a series only a few
 * seconds old has a 5-minute rate of (its increase)/300 s, so the storm must be this strong to cross
 * the threshold within the first minute of the demo (about 12 s of storm).
 */
export const STORM_RATES: Readonly<Record<string, number>> = { open: 32_000, close: 32_000, getattr: 40_000, setattr: 6_000, mknod: 8_000, unlink: 6_000, mkdir: 400, rename: 800 };

export const DEMO_JOBS: readonly DemoJob[] = [
  {
    jobid: '4201',
    user: alice,
    host: 'n001',
    what: 'climate model checkpoint: 16 MiB writes striped over 4 OSTs',
    startSec: 0,
    load: [...OSTS.map((target) => ({ target, rates: { ...writes(12), punch: 0.2 }, rpcBytes: 16 * MiB, latencyUs: { write: 28_000 } })), { target: MDT, rates: { open: 2, close: 2, getattr: 4 } }],
  },
  {
    jobid: '4202',
    user: bob,
    host: 'n017',
    what: 'logger appending 4 KiB records: tiny writes',
    startSec: 2,
    load: [
      { target: OST1, rates: { ...writes(5000), getattr: 20 }, rpcBytes: 4096, latencyUs: { write: 60 } },
      { target: MDT, rates: { open: 200, close: 200, getattr: 400, setattr: 200 } },
    ],
  },
  {
    jobid: '4203',
    user: carol,
    host: 'n018',
    what: 'metadata storm: untarring a Python environment on every rank',
    startSec: 5,
    load: [
      { target: MDT, rates: STORM_RATES },
      { target: OST2, rates: { ...writes(100), setattr: 300, punch: 50 }, rpcBytes: 4096, latencyUs: { write: 80 } },
    ],
  },
  {
    jobid: '4204',
    user: dave,
    host: 'n020',
    what: 'reading input: 8 MiB reads from two OSTs',
    startSec: 10,
    load: [
      { target: OST0, rates: reads(20), rpcBytes: 8 * MiB },
      { target: OST2, rates: reads(20), rpcBytes: 8 * MiB },
      { target: MDT2, rates: { open: 10, close: 10, getattr: 30 } },
    ],
  },
  {
    jobid: '4205',
    user: erin,
    host: 'n024',
    what: 'short post-processing job (runs 25 s)',
    startSec: 20,
    endSec: 45,
    load: [
      { target: OST3, rates: writes(50), rpcBytes: MiB, latencyUs: { write: 3000 } },
      { target: MDT2, rates: { open: 10, close: 10, mkdir: 1 } },
    ],
  },
];
