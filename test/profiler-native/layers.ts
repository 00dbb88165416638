// The dependency graph of native code, and the check of the profiler's layers against it
// (layers.test.ts). A unit is a source with its header of the same name (fdtab.c and fdtab.h), as
// a reader meets them; an edge is an #include, or a symbol one unit's object uses and another's
// defines (nm): a call needs no include in C when a declaration is written by hand.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, join, relative } from 'node:path';

export interface Edge {
  from: string;
  to: string;
  /** what ties them: `#include "x"`, or the symbols used */
  why: string;
}

/** The unit of a file: its path (relative to the tree's root) without the extension. */
export function unitOf(file: string): string {
  return file.slice(0, file.length - extname(file).length);
}

/** Every file under dir (relative paths), sorted. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(c|cc|h|def)$/.test(f))
    .sort();
}

/** The quoted includes of a file, in order. */
export function quotedIncludes(text: string): string[] {
  return [...text.matchAll(/^\s*#\s*include\s+"([^"]+)"/gm)].map((m) => m[1]!);
}

/**
 * Include edges of the files under root. An include is looked up beside the including file first,
 * then from root (the profiler's -iquote src); one found nowhere under root (the wire format, shared
 * with the receiver, lives outside) is returned in `outside`.
 */
export function includeEdges(root: string, files: string[]): { edges: Edge[]; outside: { file: string; include: string }[] } {
  const edges: Edge[] = [];
  const outside: { file: string; include: string }[] = [];
  const known = new Set(files);
  for (const file of files) {
    for (const inc of quotedIncludes(readFileSync(join(root, file), 'utf8'))) {
      const beside = relative(root, join(root, dirname(file), inc));
      const target = known.has(beside) ? beside : known.has(inc) ? inc : undefined;
      if (!target) {
        outside.push({ file, include: inc });
        continue;
      }
      if (unitOf(target) !== unitOf(file)) edges.push({ from: unitOf(file), to: unitOf(target), why: `#include "${inc}"` });
    }
  }
  return { edges, outside };
}

/** Symbol edges between the objects of objDir (object path relative to objDir = unit + ".o"). */
export function symbolEdges(objDir: string): Edge[] {
  const objects = readdirSync(objDir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.o'))
    .sort();
  // nm -A: every line starts with "<object>:", so one run reads every object
  const nm = (args: string[]): [string, string][] =>
    execFileSync('nm', ['-A', ...args, ...objects], { cwd: objDir, encoding: 'utf8', maxBuffer: 64 << 20 })
      .split('\n')
      .filter((l) => l.includes(':'))
      .map((l) => {
        const at = l.indexOf(':');
        return [
          unitOf(l.slice(0, at)),
          l
            .slice(at + 1)
            .trim()
            .split(/\s+/)
            .at(-1)!,
        ];
      });
  const definer = new Map<string, string>();
  for (const [unit, symbol] of nm(['--defined-only', '-g'])) definer.set(symbol, unit);
  const byPair = new Map<string, string[]>();
  for (const [unit, symbol] of nm(['-u'])) {
    const to = definer.get(symbol);
    if (!to || to === unit) continue;
    const key = `${unit}\0${to}`;
    byPair.set(key, [...(byPair.get(key) ?? []), symbol]);
  }
  return [...byPair].map(([key, names]) => {
    const [from, to] = key.split('\0') as [string, string];
    return { from, to, why: names.join(', ') };
  });
}

/** The cycles of a graph: its strongly connected components of more than one unit (Tarjan). */
export function cycles(edges: Edge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!next.has(e.from)) next.set(e.from, new Set());
    if (!next.has(e.to)) next.set(e.to, new Set());
    next.get(e.from)!.add(e.to);
  }
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, idx.get(w)!));
      }
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) found.push(scc.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!idx.has(v)) visit(v);
  return found;
}

/** The layer of a unit: the index of its first folder in `layers` (-1: in none). */
export function layerOf(unit: string, layers: readonly string[]): number {
  return layers.indexOf(unit.split('/')[0]!);
}

/** Edges that run from a lower layer up to a higher one (or touch a unit in no layer). */
export function upward(edges: Edge[], layers: readonly string[]): Edge[] {
  return edges.filter((e) => {
    const from = layerOf(e.from, layers);
    const to = layerOf(e.to, layers);
    return from < 0 || to < 0 || to > from;
  });
}

/** The layer folders in build order, as the profiler's Makefile lists them. */
export function makefileLayers(makefile: string): string[] {
  const m = /^LAYERS\s*:=\s*(.+)$/m.exec(readFileSync(makefile, 'utf8'));
  return m ? m[1]!.trim().split(/\s+/) : [];
}

/** Does a folder hold files at its top level (besides the ones named)? */
export function strayFiles(dir: string, allowed: readonly string[]): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isFile() && !allowed.includes(d.name))
    .map((d) => basename(d.name));
}
