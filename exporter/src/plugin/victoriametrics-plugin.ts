// `jobio-victoriametrics-plugin --url URL [--basic-auth-file FILE]`: an output plug-in for `jobio run`
// (a Mistral configuration's `plugin.path`). It speaks the plug-in protocol on stdin/stdout and sends
// each block of records to VictoriaMetrics' /api/v1/import/prometheus as Prometheus text
// (prometheus-records.ts). A failed import ends it with status 1, so `jobio run` writes the records
// to its log file instead: nothing is lost silently.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { recordSamples } from './prometheus-records.js';

const VERSION = 1;

interface Settings {
  readonly url: URL;
  readonly authorization?: string;
}

function settings(argv: readonly string[]): Settings {
  let url: string | undefined;
  let authFile: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--url') url = argv[++i];
    else if (a === '--basic-auth-file') authFile = argv[++i];
    else throw new Error(`unknown argument ${String(a)} (usage: --url URL [--basic-auth-file FILE])`);
  }
  if (url === undefined) throw new Error('--url URL of VictoriaMetrics is required');
  const target = new URL('/api/v1/import/prometheus', url);
  // The credentials come from a file (USER:PASSWORD on its first line): arguments are visible to every user.
  const auth = authFile === undefined ? undefined : (readFileSync(authFile, 'utf8').split('\n')[0] ?? '');
  return { url: target, ...(auth !== undefined ? { authorization: `Basic ${Buffer.from(auth).toString('base64')}` } : {}) };
}

async function send(s: Settings, lines: readonly string[]): Promise<void> {
  if (lines.length === 0) return;
  const res = await fetch(s.url, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', ...(s.authorization ? { authorization: s.authorization } : {}) },
    body: `${lines.join('\n')}\n`,
  });
  if (!res.ok) throw new Error(`${s.url.href}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
}

export async function main(argv: readonly string[]): Promise<number> {
  let s: Settings;
  try {
    s = settings(argv);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.stdout.write(':PGNSHUTDWN:\n');
    return 2;
  }
  let block: string[] | undefined;
  let imports = Promise.resolve();
  let failed: Error | undefined;
  for await (const line of createInterface({ input: process.stdin })) {
    if (block !== undefined && !line.startsWith(':PGNDATAEND:')) {
      if (line !== '') block.push(...recordSamples(JSON.parse(line) as Record<string, unknown>));
    } else if (line.startsWith(':PGNSUPVRSN:')) process.stdout.write(`:PGNVERSION:${VERSION}:\n`);
    else if (line.startsWith(':PGNDATASRT:')) block = [];
    else if (line.startsWith(':PGNDATAEND:')) {
      const samples = block ?? [];
      block = undefined;
      // in order, one import at a time; the reading goes on meanwhile
      imports = imports.then(() => (failed ? undefined : send(s, samples))).catch((err: unknown) => void (failed = err instanceof Error ? err : new Error(String(err))));
    } else if (line === ':PGNSHUTDWN:') break;
  }
  await imports;
  if (failed) {
    process.stderr.write(`import failed: ${failed.message}\n`);
    return 1;
  }
  return 0;
}
