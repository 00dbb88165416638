// A running exporter's changing scrapes of the 20,000-entry 2.14 file against the read+split floor (the
// figure of the goal "changing file ≤ 1.2× the floor"), each run in its own process (running-worker.mjs).
//   node --import tsx bench/lustre/running.ts [--runs N] [TREE ...]
// With several TREEs (checkouts with dist/ and the addon built, e.g. main's built aside), their runs
// alternate, so the machine's load falls on each alike. Prints a JSON line a run, then the medians by tree.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeJobStats } from './index.js';

const worker = fileURLToPath(new URL('./running-worker.mjs', import.meta.url));
const repo = fileURLToPath(new URL('../../', import.meta.url));

interface Run {
  tree: string;
  floorMs: number;
  bestMs: number;
  medianMs: number;
  bestOverFloor: number;
  medianOverFloor: number;
  /** the floor's user CPU alone, and the changing scrape's median (all of its CPU) over it */
  floorUserMs: number;
  medianOverFloorUser: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function parseArgs(argv: string[]): { runs: number; trees: string[] } {
  let runs = 4;
  const trees: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--runs') {
      runs = Number(argv[(i += 1)]);
      if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs needs a positive integer');
    } else if (argv[i] === '--help' || argv[i] === '-h') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else if (argv[i]!.startsWith('-')) {
      throw new Error(`unknown option ${argv[i]}\n${USAGE}`);
    } else {
      // a tree must be a built checkout: its worker imports dist/ and the addon from it
      const tree = resolve(argv[i]!);
      if (!existsSync(join(tree, 'dist'))) throw new Error(`${tree} has no dist/: build it first (npm run build)`);
      trees.push(tree);
    }
  }
  return { runs, trees: trees.length > 0 ? trees : [resolve(repo)] };
}

const USAGE = `usage: node --import tsx bench/lustre/running.ts [--runs N] [TREE ...]
  A running exporter's changing scrapes of a 20,000-entry 2.14 job_stats file against the read+split
  floor, each run in its own process. TREE: a built checkout (default: this one); several alternate.
  --runs N   rounds (default 4)
`;

const { runs, trees } = parseArgs(process.argv.slice(2));
const dir = mkdtempSync(join(tmpdir(), 'jobio-bench-running-'));
try {
  const a = join(dir, 'a');
  const b = join(dir, 'b');
  writeJobStats(a, 20_000, '2.14', 1);
  writeJobStats(b, 20_000, '2.14', 2);
  const results: Run[] = [];
  for (let round = 0; round < runs; round += 1) {
    // Alternated, and the order reversed every other round, so neither tree always goes first.
    const order = round % 2 === 0 ? trees : [...trees].reverse();
    for (const tree of order) {
      const scratch = mkdtempSync(join(dir, 'run-'));
      const out = execFileSync(process.execPath, [worker, scratch, a, b, tree], { cwd: repo, encoding: 'utf8' });
      rmSync(scratch, { recursive: true, force: true });
      const run = JSON.parse(out.trim().split('\n').pop() ?? '{}') as Run;
      results.push(run);
      const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
      console.log(JSON.stringify({ ...run, loadavg: load }));
    }
  }
  for (const tree of trees) {
    const mine = results.filter((r) => r.tree === tree);
    const of = (key: keyof Omit<Run, 'tree'>): string =>
      `${median(mine.map((r) => r[key])).toFixed(2)} (${Math.min(...mine.map((r) => r[key])).toFixed(2)}–${Math.max(...mine.map((r) => r[key])).toFixed(2)})`;
    console.log(
      `${tree}: floor ms ${of('floorMs')}, changing best of 8 ms ${of('bestMs')}, median of 8 ms ${of('medianMs')}, best / floor ${of('bestOverFloor')}, median / floor ${of('medianOverFloor')}, floor's user CPU ms ${of('floorUserMs')}, median / floor's user CPU ${of('medianOverFloorUser')} — medians of ${mine.length} runs (ranges)`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
