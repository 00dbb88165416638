// uid → `user` label value: the name from <rootfs>/etc/passwd where it resolves, else `uid:<n>`;
// system accounts (uid below the threshold, default 1000) fold into `_system` (docs/architecture.md "Metric naming", "Bounded cardinality").
import { readFileSync, statSync } from 'node:fs';

export const SYSTEM_USER = '_system';

export function parsePasswd(text: string): Map<number, string> {
  const names = new Map<number, string>();
  for (const line of text.split('\n')) {
    const [name, , uid] = line.split(':');
    if (!name || uid === undefined || !/^\d+$/.test(uid)) continue;
    if (!names.has(Number(uid))) names.set(Number(uid), name);
  }
  return names;
}

export class UserNames {
  private names = new Map<number, string>();
  private mtimeMs = -1;

  constructor(
    private readonly passwdPath: string,
    private readonly systemUidBelow = 1000,
  ) {}

  /** Re-reads the passwd file when it changed (cheap stat per scrape). */
  refresh(): void {
    try {
      const mtime = statSync(this.passwdPath).mtimeMs;
      if (mtime === this.mtimeMs) return;
      this.names = parsePasswd(readFileSync(this.passwdPath, 'utf8'));
      this.mtimeMs = mtime;
    } catch {
      this.names = new Map();
      this.mtimeMs = -1;
    }
  }

  label(uid: number): string {
    if (uid < this.systemUidBelow) return SYSTEM_USER;
    return this.names.get(uid) ?? `uid:${uid}`;
  }
}
