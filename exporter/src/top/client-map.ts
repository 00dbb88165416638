// NID → host → job for `jobio top --by client` (docs/architecture.md "Per-client export stats", as lltop does): a NID with no host is its
// own host; a host with no job is its own job.
//   NID → host: `--nid-map FILE` (lines `NID HOST`, `#` comments) or `--nid-command CMD` (run as
//   `CMD NID`, without a shell; the first word it prints is the host), cached for the whole run.
//   host → job: `--job-map FILE` or `--job-map-command CMD` (run with `sh -c` at every refresh,
//   default below): lines `JOBID NODELIST` or `JOBID USER NODELIST`, node lists in Slurm's notation.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { expandHostList } from '../parsers/slurm-hostlist.js';

export const DEFAULT_JOB_MAP_COMMAND = "squeue -h -t running -o '%i %u %N'";
const COMMAND_TIMEOUT_MS = 10_000;

export interface JobOfHost {
  readonly job: string;
  readonly owner: string;
}

function run(file: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: COMMAND_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${[file, ...args].join(' ')}: ${stderr.trim().split('\n')[0] || err.message}`));
      else resolve(stdout);
    });
  });
}

/** Parses `NID HOST` lines. */
export function parseNidMap(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of text.split('\n')) {
    const [nid, host] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (nid && host) map.set(nid, host);
  }
  return map;
}

/** Parses squeue-style lines into host → jobs (a shared node lists every job on it). */
export function parseJobMap(text: string): Map<string, JobOfHost[]> {
  const map = new Map<string, JobOfHost[]>();
  for (const line of text.split('\n')) {
    const fields = line
      .trim()
      .split(/\s+/)
      .filter((f) => f !== '');
    const job = fields[0];
    const nodes = fields[fields.length - 1];
    if (fields.length < 2 || job === undefined || nodes === undefined) continue;
    const owner = fields.length >= 3 ? (fields[1] ?? '-') : '-';
    for (const host of expandHostList(nodes)) {
      const jobs = map.get(host) ?? [];
      if (!jobs.some((j) => j.job === job)) jobs.push({ job, owner });
      map.set(host, jobs);
    }
  }
  return map;
}

export interface ClientMapOptions {
  readonly nidMapFile?: string;
  readonly nidCommand?: string;
  readonly jobMapFile?: string;
  readonly jobMapCommand?: string;
}

export class ClientMapper {
  private nidTable: Map<string, string> | undefined;
  private readonly nidCache = new Map<string, string>();
  private jobs = new Map<string, JobOfHost[]>();
  /** A problem worth one line under the table (squeue missing, …). */
  warning: string | undefined;

  constructor(private readonly options: ClientMapOptions) {}

  /** Loads the NID table once and the job map for this refresh. */
  async refresh(): Promise<void> {
    if (this.options.nidMapFile && !this.nidTable) this.nidTable = parseNidMap(await readFile(this.options.nidMapFile, 'utf8'));
    this.warning = undefined;
    try {
      if (this.options.jobMapFile) this.jobs = parseJobMap(await readFile(this.options.jobMapFile, 'utf8'));
      else this.jobs = parseJobMap(await run('/bin/sh', ['-c', this.options.jobMapCommand ?? DEFAULT_JOB_MAP_COMMAND]));
    } catch (err) {
      // Without a job map every host is its own job: still a useful table.
      this.jobs = new Map();
      this.warning = `no job map (${(err as Error).message}); hosts are shown as jobs`;
    }
  }

  async host(nid: string): Promise<string> {
    const known = this.nidTable?.get(nid) ?? this.nidCache.get(nid);
    if (known !== undefined) return known;
    let host = nid;
    if (this.options.nidCommand) {
      const [file, ...args] = this.options.nidCommand.trim().split(/\s+/);
      try {
        host = (await run(file ?? '', [...args, nid])).trim().split(/\s+/)[0] || nid;
      } catch {
        host = nid; // unresolvable: the NID is its own host
      }
    }
    this.nidCache.set(nid, host);
    return host;
  }

  /** The job(s) of a host: by exact name, else by short name (FQDN vs squeue's short names). */
  job(host: string): JobOfHost {
    const jobs = this.jobs.get(host) ?? this.jobs.get(host.split('.')[0] ?? host);
    if (!jobs || jobs.length === 0) return { job: host, owner: '-' };
    const [only] = jobs;
    if (jobs.length === 1 && only) return only;
    return { job: jobs.map((j) => j.job).join(','), owner: [...new Set(jobs.map((j) => j.owner))].join(',') };
  }
}
