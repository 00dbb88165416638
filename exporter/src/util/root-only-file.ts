// Files that only root can have written: the scheduler hooks' spools (the prolog's job files, the
// epilog's stored report summaries). Every local user is a potential attacker, so such a file is
// believed only when it is a regular file (not a symlink: opened with O_NOFOLLOW) owned by root and
// writable by no one else, and small. The checks run on the open file, so it cannot be swapped
// between the check and the read.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/** Owned by root and writable by nobody else (group and other write bits clear). */
export function rootOnly(st: { uid: number; mode: number }): boolean {
  return st.uid === 0 && (st.mode & 0o022) === 0;
}

export type RootOnlyRejection = 'untrusted_file' | 'too_big' | 'unreadable' | 'missing';

/** Reads a root-only file of at most `maxBytes`, or says why it is not believed. */
export async function readRootOnlyFile(path: string, maxBytes: number): Promise<{ text: string } | { rejected: RootOnlyRejection }> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { rejected: code === 'ELOOP' ? 'untrusted_file' : code === 'ENOENT' ? 'missing' : 'unreadable' };
  }
  try {
    const st = await handle.stat();
    if (!st.isFile() || !rootOnly(st)) return { rejected: 'untrusted_file' };
    if (st.size > maxBytes) return { rejected: 'too_big' };
    const buf = Buffer.alloc(maxBytes + 1);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    if (bytesRead > maxBytes) return { rejected: 'too_big' };
    return { text: buf.subarray(0, bytesRead).toString('utf8') };
  } catch {
    return { rejected: 'unreadable' };
  } finally {
    await handle.close();
  }
}
