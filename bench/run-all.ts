// `npm run bench`: every component's benchmark, each printing a markdown section with its figures
// and its same-run baseline. Copy the output into docs/BENCHMARKS.md with the date and machine.
// `npm run bench -- exporter lustre` runs only the named ones; `npm run bench -- soak --soak-minutes=15`
// is the 15-minute soak of the exporter under four hostile local users (part of the full run).
import { cpus } from 'node:os';
import { existsSync } from 'node:fs';

const all = ['exporter', 'idle', 'lustre', 'lustre-health', 'collectors', 'profiler', 'grafana', 'fleet', 'soak', 'run'] as const;
// Flags (--name=value) belong to the benchmarks themselves (e.g. --soak-minutes=N).
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const names = wanted.length > 0 ? all.filter((n) => wanted.includes(n)) : all;

console.log(`# jobio benchmarks, ${new Date().toISOString()}`);
console.log(`Machine: ${cpus().length} cores, ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}\n`);
let failed = 0;
for (const name of names) {
  const path = new URL(`./${name}/index.ts`, import.meta.url);
  if (!existsSync(path)) {
    console.log(`## ${name}\n\n(no benchmark yet)\n`);
    continue;
  }
  try {
    const mod = (await import(path.href)) as { run: () => Promise<string> };
    console.log(await mod.run());
  } catch (err) {
    failed += 1;
    console.log(`## ${name}\n\nFAILED: ${(err as Error).stack ?? String(err)}\n`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
