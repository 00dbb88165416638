// Parsers of the Lustre server files that say how full and how well a target is, not how busy:
//   osd-{ldiskfs,zfs}/<target>/{kbytestotal,kbytesfree,kbytesavail,filestotal,filesfree}  one integer each
//   health_check                   `healthy`, or `NOT HEALTHY` (after `device <name> reported unhealthy`
//                                  lines), or a line starting with `LBUG` after a kernel assertion
//   {obdfilter,mdt}/<target>/recovery_status   `key: value` lines from `lprocfs_recovery_status_seq_show()`:
//     status: COMPLETE             recovery_start, recovery_duration, completed_clients: <done>/<max>, …
//     status: RECOVERING           time_remaining, connected_clients: <n>/<max>, completed_clients: <n>,
//                                  evicted_clients, …
//     status: INACTIVE | WAITING | WAITING_FOR_CLIENTS   (a few keys or none)
//   ldlm/namespaces/{mdt,filter}-<target>_UUID/{lock_count,resource_count,lock_timeouts}  one integer each
// raw, or as one `lctl get_param` dump of them all (`<param>=` headers, a one-line value on the header
// line). None of them throws on input: a value of no known shape is `undefined`, for the caller to count.
import { LCTL_HEADER } from './lustre-stats.js';

/** One parameter of an `lctl get_param` dump: its dotted name and its value's text. */
export interface LctlParam {
  readonly name: string;
  readonly text: string;
}

/** Splits a dump at its `<param>=` headers. Lines before the first header belong to no parameter and are counted. */
export function splitLctlDump(input: string): { readonly params: LctlParam[]; readonly orphanLines: number } {
  const params: { name: string; lines: string[] }[] = [];
  let orphanLines = 0;
  for (const raw of input.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const header = LCTL_HEADER.exec(line);
    // A recovery_status line (`status: COMPLETE`) never holds `=`, so it is never taken for a header.
    if (header?.[1] !== undefined) {
      params.push({ name: header[1], lines: header[2] === undefined || header[2] === '' ? [] : [header[2]] });
      continue;
    }
    const current = params.at(-1);
    if (current) current.lines.push(line);
    else if (line.trim() !== '') orphanLines += 1;
  }
  return { params: params.map((p) => ({ name: p.name, text: p.lines.join('\n') })), orphanLines };
}

/** The capacity files, in the order they are documented. */
export const CAPACITY_FILES = ['kbytestotal', 'kbytesfree', 'kbytesavail', 'filestotal', 'filesfree'] as const;
export type CapacityFile = (typeof CAPACITY_FILES)[number];

export function isCapacityFile(name: string): name is CapacityFile {
  return (CAPACITY_FILES as readonly string[]).includes(name);
}

const MAX_U64 = (1n << 64n) - 1n;

/** The lock manager files of a server target's namespace (`ldlm/namespaces/{mdt,filter}-<target>_UUID/`). */
export const LDLM_FILES = ['lock_count', 'resource_count', 'lock_timeouts'] as const;
export type LdlmFile = (typeof LDLM_FILES)[number];

export function isLdlmFile(name: string): name is LdlmFile {
  return (LDLM_FILES as readonly string[]).includes(name);
}

/** The groups of Lustre's request-handling services (`ost.OSS.ost_io`, `mds.MDS.mdt`, `mgs.MGS.mgs`, `ldlm.services.ldlm_canceld`). */
export const SERVICE_GROUPS = ['ost.OSS', 'mds.MDS', 'mgs.MGS', 'ldlm.services'] as const;

/** A service's thread counts: started now, and the bounds it is configured with. */
export const THREAD_FILES = ['threads_started', 'threads_max', 'threads_min'] as const;
export type ThreadFile = (typeof THREAD_FILES)[number];

export function isThreadFile(name: string): name is ThreadFile {
  return (THREAD_FILES as readonly string[]).includes(name);
}

/** The target of a server namespace (`filter-fs-OST0000_UUID` → `fs-OST0000`); undefined for a client's. */
export function namespaceTarget(namespace: string): string | undefined {
  return /^(?:mdt|filter)-(.+)_UUID$/.exec(namespace)?.[1];
}

/** One unsigned decimal integer (`%llu\n`); undefined for anything else. */
export function parseCapacityValue(text: string): bigint | undefined {
  const m = /^\s*(\d{1,20})\s*$/.exec(text);
  if (!m?.[1]) return undefined;
  const v = BigInt(m[1]);
  return v > MAX_U64 ? undefined : v;
}

export interface HealthCheck {
  readonly healthy: boolean;
}

/** `healthy` → healthy; `NOT HEALTHY`, `device … reported unhealthy` or `LBUG` → not; anything else undefined. */
export function parseHealthCheck(text: string): HealthCheck | undefined {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.length === 0) return undefined;
  if (lines.length === 1 && lines[0] === 'healthy') return { healthy: true };
  if (lines.some((l) => l === 'NOT HEALTHY' || l.startsWith('LBUG') || /^device \S+ reported unhealthy$/.test(l))) return { healthy: false };
  return undefined;
}

/** The states `status:` can take, in Lustre's order of checks. */
export const RECOVERY_STATES = ['INACTIVE', 'COMPLETE', 'WAITING', 'WAITING_FOR_CLIENTS', 'RECOVERING'] as const;
export type RecoveryState = (typeof RECOVERY_STATES)[number];

export interface RecoveryStatus {
  readonly status: RecoveryState;
  /** Clients that finished recovery (`completed_clients`: `<n>/<max>` when COMPLETE, `<n>` while RECOVERING). */
  readonly completedClients?: number;
  /** Clients the target expects back (the `<max>` of `completed_clients` or `connected_clients`). */
  readonly recoverableClients?: number;
  readonly timeRemainingSeconds?: number;
  readonly evictedClients?: number;
  /** Lines of no known shape (kept out of the values). */
  readonly badLines: number;
}

const RECOVERY_LINE = /^([A-Za-z_ -]+):\s*(.*)$/;

/** undefined when there is no `status:` line with a known state. */
export function parseRecoveryStatus(text: string): RecoveryStatus | undefined {
  const out: { -readonly [K in keyof RecoveryStatus]?: RecoveryStatus[K] } = {};
  let badLines = 0;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const m = RECOVERY_LINE.exec(line);
    if (!m?.[1] || m[2] === undefined) {
      badLines += 1;
      continue;
    }
    const [key, value] = [m[1], m[2].trim()];
    const ratio = /^(\d+)\/(\d+)$/.exec(value);
    const whole = /^\d+$/.test(value) ? Number(value) : undefined;
    if (key === 'status') {
      if ((RECOVERY_STATES as readonly string[]).includes(value)) out.status = value as RecoveryState;
      else badLines += 1;
    } else if (key === 'completed_clients' && ratio) {
      out.completedClients = Number(ratio[1]);
      out.recoverableClients = Number(ratio[2]);
    } else if (key === 'completed_clients' && whole !== undefined) out.completedClients = whole;
    else if (key === 'connected_clients' && ratio) out.recoverableClients = Number(ratio[2]);
    else if (key === 'time_remaining' && whole !== undefined) out.timeRemainingSeconds = whole;
    else if (key === 'evicted_clients' && whole !== undefined) out.evictedClients = whole;
    // Other keys (recovery_start, replayed_requests, VBR, IR, non-ready MDTs, …) are known and not exported.
  }
  if (out.status === undefined) return undefined;
  return { ...out, status: out.status, badLines };
}

/** The file system of a target name: `scratch-OST001f` → `scratch`; `MGS` (no fs) → ''. */
export function targetFs(target: string): string {
  const m = /^(.+)-(?:OST|MDT)[0-9a-fA-F]{4}$/.exec(target);
  return m?.[1] ?? '';
}
