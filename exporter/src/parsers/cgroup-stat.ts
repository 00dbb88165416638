// Pure parsers of the cgroup files the `cgroup` collector reads (kernel docs:
// Documentation/admin-guide/cgroup-v2.rst "Format" and cgroup-v1/cpuacct.rst, memory.rst):
//   - flat keyed files, `key value` per line: v2 `cpu.stat` (user_usec, system_usec, …) and
//     v1 `cpuacct.stat` (user, system in USER_HZ ticks);
//   - single-value files: v2 `memory.current`, `memory.peak`; v1 `memory.usage_in_bytes`,
//     `memory.max_usage_in_bytes`, `cpuacct.usage_user`, `cpuacct.usage_sys` (ns).
// A parser never throws: malformed text yields an error the collector counts.

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

const UNSIGNED = /^\d{1,20}$/;

/** A non-negative integer of at most u64 size as a number (exact below 2^53, which covers bytes and usecs of any real job). */
function unsigned(text: string): number | undefined {
  if (!UNSIGNED.test(text)) return undefined;
  const big = BigInt(text);
  return big > 0xffff_ffff_ffff_ffffn ? undefined : Number(big);
}

/** Parses a flat keyed file; every line must be `key value` with an unsigned value. */
export function parseFlatKeyed(text: string): Parsed<ReadonlyMap<string, number>> {
  const values = new Map<string, number>();
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) return { ok: false, error: 'empty file' };
  for (const [i, line] of lines.entries()) {
    const fields = line.trim().split(/\s+/);
    const value = fields.length === 2 && fields[0] ? unsigned(fields[1] ?? '') : undefined;
    if (value === undefined || !fields[0]) return { ok: false, error: `line ${i + 1} is not "key value": ${JSON.stringify(line.slice(0, 80))}` };
    values.set(fields[0], value);
  }
  return { ok: true, value: values };
}

/** Parses a file holding one unsigned integer (trailing newline allowed). */
export function parseSingleValue(text: string): Parsed<number> {
  const trimmed = text.trim();
  const value = unsigned(trimmed);
  return value === undefined ? { ok: false, error: `not an unsigned integer: ${JSON.stringify(trimmed.slice(0, 80))}` } : { ok: true, value };
}

export interface CpuSeconds {
  readonly user: number;
  readonly system: number;
}

/** v2 `cpu.stat`: user_usec and system_usec (microseconds) → seconds. */
export function parseCpuStatV2(text: string): Parsed<CpuSeconds> {
  const keyed = parseFlatKeyed(text);
  if (!keyed.ok) return keyed;
  const user = keyed.value.get('user_usec');
  const system = keyed.value.get('system_usec');
  if (user === undefined || system === undefined) return { ok: false, error: 'cpu.stat lacks user_usec or system_usec' };
  return { ok: true, value: { user: user / 1e6, system: system / 1e6 } };
}

/** v1 `cpuacct.stat`: user and system in USER_HZ ticks → seconds. */
export function parseCpuacctStat(text: string, userHz: number): Parsed<CpuSeconds> {
  const keyed = parseFlatKeyed(text);
  if (!keyed.ok) return keyed;
  const user = keyed.value.get('user');
  const system = keyed.value.get('system');
  if (user === undefined || system === undefined) return { ok: false, error: 'cpuacct.stat lacks user or system' };
  return { ok: true, value: { user: user / userHz, system: system / userHz } };
}
