// The jobio version, read once from the root package.json so there is one place to bump it.
import { readFileSync } from 'node:fs';

function readVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'jobio' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // try the next location: compiled (dist/) and source (exporter/src/) sit at different depths
    }
  }
  return 'unknown';
}

export const VERSION = readVersion();
