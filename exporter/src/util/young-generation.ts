// The exporter's start-up without a large young generation. V8 doubles its young generation (the
// semi-spaces) whenever a scavenge finds more alive than it holds, and gives it back only when its
// memory reducer runs, 10–20 s after activity stops. Loading the exporter's modules is such activity:
// on an idle compute node the young generation grew from 1 to about 8 MB during start-up and stayed
// there, 5 MB of its idle resident memory. Holding the growth factor at 1 while the modules load keeps
// it at its initial size; once the exporter listens the factor is V8's default again, so a large scrape
// grows it as before.
import { setFlagsFromString } from 'node:v8';

/** V8's own default for --semi-space-growth-factor (Node 20 to 24). */
const DEFAULT_GROWTH_FACTOR = 2;

let held = false;

/** Whether the operator chose a young-generation setting of their own (left as they set it). */
function operatorSet(): boolean {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return flags.some((flag) => flag.includes('semi-space') || flag.includes('semi_space'));
}

/** Keeps the young generation at its size until releaseYoungGeneration(). */
export function holdYoungGeneration(): void {
  if (held || operatorSet()) return;
  setFlagsFromString('--semi-space-growth-factor=1');
  held = true;
}

/** V8's default growth again (nothing when not held). */
export function releaseYoungGeneration(): void {
  if (!held) return;
  setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
  held = false;
}
