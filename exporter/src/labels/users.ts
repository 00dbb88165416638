// uid → `user` label value, the one rule for every collector (so joins on (jobid, user) hold across
// jobstats, profiler, GPU and cgroup series):
//   - a system account (uid ≤ system-uid-max, default 999) is `_system` (one series for all daemons);
//   - else its name: `<rootfs>/etc/passwd`, then `getent passwd` for the uids it lacks (LDAP/SSSD
//     users), each call with a deadline; a uid that resolves to nothing is remembered for a while, so
//     an unknown uid costs at most one lookup per `negativeTtlMs`;
//   - else `uid:<n>`.
// Names are resolved asynchronously (resolve()) before a scrape labels its series (label()).
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { uidLimit } from '../scrape/flag-values.js';
import { switchFlag, valueFlag, type SettingsOf } from '../scrape/flags.js';
import { readPseudoFile } from '../util/pseudo-files.js';
import { rootPath, type Paths } from '../util/paths.js';
import { SYSTEM } from './reserved.js';

/** Highest uid of a system account by default (Debian's and Red Hat's SYS_UID_MAX). */
export const DEFAULT_SYSTEM_UID_MAX = 999;

/** The flags every collector with a `user` label has, declared once (spread into its flag set). */
export const USER_FLAGS = {
  systemUidMax: valueFlag('system-uid-max', String(DEFAULT_SYSTEM_UID_MAX), 'uids up to this value are reported as user="_system" (-1: never).', uidLimit),
  getent: switchFlag('getent', true, 'Resolve uids missing from <rootfs>/etc/passwd with `getent passwd` (only when --path.rootfs is /).'),
};

export type UserSettings = SettingsOf<typeof USER_FLAGS>;

/** The resolver of a collector, configured by its USER_FLAGS settings. */
export function userResolverFor(paths: Paths, settings: UserSettings): UserResolver {
  return new UserResolver({
    passwdPath: rootPath(paths, '/etc/passwd'),
    getent: settings.getent && paths.rootfs === '/',
    systemUidMax: settings.systemUidMax,
  });
}

export interface UserResolverOptions {
  /** Usually rootPath(paths, '/etc/passwd'). */
  readonly passwdPath: string;
  /** Ask NSS through `getent passwd` for uids not in the file (only meaningful when rootfs is '/'). */
  readonly getent: boolean;
  readonly getentCommand?: string;
  readonly timeoutMs?: number;
  readonly negativeTtlMs?: number;
  /** uids up to this are `_system`; -1: none (default DEFAULT_SYSTEM_UID_MAX). */
  readonly systemUidMax?: number;
}

/** Parses /etc/passwd text: `name:x:uid:gid:gecos:home:shell`. */
export function parsePasswd(text: string): Map<number, string> {
  const names = new Map<number, string>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const [name, , uidText] = line.split(':');
    if (!name || !uidText || !/^\d+$/.test(uidText)) continue;
    const uid = Number(uidText);
    if (!names.has(uid)) names.set(uid, name); // the first entry wins, as getpwuid does
  }
  return names;
}

const GETENT_BATCH = 200;
const PASSWD_CHECK_MS = 10_000;

export class UserResolver {
  private passwd = new Map<number, string>();
  private passwdMtime = -1;
  private passwdCheckedAt = -Infinity;
  private readonly nss = new Map<number, { name: string | undefined; until: number }>();

  constructor(private readonly options: UserResolverOptions) {}

  /** The cached name of `uid`, or undefined (call resolve() first). */
  name(uid: number): string | undefined {
    return this.passwd.get(uid) ?? this.nss.get(uid)?.name;
  }

  /** The `user` label of `uid` from what resolve() found: `_system`, the name, or `uid:<n>`. */
  label(uid: number): string {
    if (uid <= (this.options.systemUidMax ?? DEFAULT_SYSTEM_UID_MAX)) return SYSTEM;
    return this.name(uid) ?? `uid:${uid}`;
  }

  /** Makes the names of `uids` available through name(), within bounded time; never throws. */
  async resolve(uids: Iterable<number>, now = Date.now()): Promise<void> {
    await this.refreshPasswd(now);
    if (!this.options.getent) return;
    const missing: number[] = [];
    for (const uid of uids) {
      if (this.passwd.has(uid)) continue;
      const cached = this.nss.get(uid);
      if (cached && (cached.name !== undefined || cached.until > now)) continue;
      missing.push(uid);
    }
    for (let i = 0; i < missing.length; i += GETENT_BATCH) await this.getent(missing.slice(i, i + GETENT_BATCH), now);
  }

  private async refreshPasswd(now: number): Promise<void> {
    if (now - this.passwdCheckedAt < PASSWD_CHECK_MS) return;
    this.passwdCheckedAt = now;
    try {
      const { mtimeMs } = await stat(this.options.passwdPath);
      if (mtimeMs === this.passwdMtime) return;
      this.passwd = parsePasswd((await readPseudoFile(this.options.passwdPath)).toString('utf8'));
      this.passwdMtime = mtimeMs;
    } catch {
      this.passwd = new Map();
      this.passwdMtime = -1;
    }
  }

  private getent(uids: readonly number[], now: number): Promise<void> {
    const until = now + (this.options.negativeTtlMs ?? 600_000);
    return new Promise((resolve) => {
      execFile(
        this.options.getentCommand ?? 'getent',
        ['passwd', ...uids.map(String)],
        { timeout: this.options.timeoutMs ?? 2000, maxBuffer: 4 * 1024 * 1024, killSignal: 'SIGKILL' },
        (_err, stdout) => {
          // getent exits 2 when some key is unknown; the lines it printed are still right.
          const found = parsePasswd(typeof stdout === 'string' ? stdout : '');
          // Bounded: a storm of distinct unknown uids must not grow the cache forever.
          if (this.nss.size > 100_000) this.nss.clear();
          for (const uid of uids) this.nss.set(uid, { name: found.get(uid), until });
          resolve();
        },
      );
    });
  }
}
