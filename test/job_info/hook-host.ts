// A made-up host for the scheduler hook tests: a root directory with its own user database, the job
// spool under it, and the built exporter's job_info collector reading that spool (--path.rootfs).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scrape, startExporter } from '../helpers/exporter.js';

/** The hooks chown the spool to root, and the exporter believes only a root-owned spool. */
export const hooksNeedRoot = process.getuid?.() === 0 ? false : 'the hooks chown the spool to root, and the exporter believes only a root-owned spool';

export function hostRoot(): { rootfs: string; spool: string } {
  const rootfs = mkdtempSync(join(tmpdir(), 'jobio-hooks-'));
  mkdirSync(join(rootfs, 'etc'));
  writeFileSync(join(rootfs, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\nnobody:x:65534:65534::/nonexistent:/usr/sbin/nologin\n');
  return { rootfs, spool: join(rootfs, 'run/jobio/jobs') };
}

/** The jobio_job_info lines of one scrape of an exporter reading `rootfs`'s spool. */
export async function jobInfo(rootfs: string): Promise<string[]> {
  const exporter = await startExporter(['--collector.disable-defaults', '--collector.job_info', '--collector.job_info.squeue=', `--path.rootfs=${rootfs}`]);
  try {
    return (await scrape(`${exporter.url}/metrics`)).match(/^jobio_job_info\{.*$/gm) ?? [];
  } finally {
    await exporter.stop();
  }
}
