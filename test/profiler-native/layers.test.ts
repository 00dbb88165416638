// The profiler's layers (docs/architecture.md, "How the native code is laid out"): one folder per
// layer under native/profiler/src, listed bottom up in the Makefile's LAYERS (base, transport,
// process, account, wrap). Every include and every symbol a unit's object uses must come from its own
// layer or a lower one, and no units may depend on each other in a loop, there or in the addons.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { buildDir, buildTests, profDir, root } from './harness.js';
import { cycles, filesUnder, includeEdges, layerOf, makefileLayers, strayFiles, symbolEdges, upward, type Edge } from './layers.js';

const src = join(profDir, 'src');
const layers = makefileLayers(join(profDir, 'Makefile'));
const show = (edges: Edge[]): string[] => edges.map((e) => `${e.from} -> ${e.to}: ${e.why}`);
let symbols: Edge[] | undefined;
/** The symbol edges of the built objects (the library is built first, once). */
function symbolGraph(): Edge[] {
  if (!symbols) {
    buildTests();
    symbols = symbolEdges(join(buildDir, 'obj'));
  }
  return symbols;
}

test('the Makefile lists the five layers bottom up, and every source lies in one of them', () => {
  assert.deepEqual(layers, ['base', 'transport', 'process', 'account', 'wrap']);
  assert.deepEqual(strayFiles(src, ['exports.map.in']), []);
  const files = filesUnder(src);
  assert.ok(files.length >= 40, `sources found: ${files.length}`);
  assert.deepEqual(
    files.filter((f) => layerOf(f, layers) < 0),
    [],
  );
});

test('every include names its layer and points down (or across, within a layer)', () => {
  const files = filesUnder(src);
  const { edges, outside } = includeEdges(src, files);
  // the wire format, shared with the receiver, is the one include from outside the layers
  assert.deepEqual(outside, [{ file: 'base/common.h', include: '../../include/jobio_protocol.h' }]);
  const unqualified = edges.filter((e) => !/^#include "(base|transport|process|account|wrap)\//.test(e.why));
  assert.deepEqual(show(unqualified), []);
  assert.deepEqual(show(upward(edges, layers)), []);
});

test("every symbol a unit's object uses is defined in its layer or below", () => {
  const edges = symbolGraph();
  assert.ok(edges.length > 50, `symbol edges found: ${edges.length}`);
  assert.deepEqual(show(upward(edges, layers)), []);
});

test('no loop of units in the profiler: includes and symbols together', () => {
  const edges = [...includeEdges(src, filesUnder(src)).edges, ...symbolGraph()];
  assert.deepEqual(cycles(edges), []);
});

test('no include loop in the addons and tools of native/', () => {
  const native = join(root, 'native');
  const files = filesUnder(native).filter((f) => !f.includes('/build/') && !f.startsWith('profiler/src/'));
  assert.ok(files.some((f) => f.startsWith('seqpacket/')) && files.some((f) => f.startsWith('nvml/')));
  assert.deepEqual(cycles(includeEdges(native, files).edges), []);
});

test('the check finds what it looks for: an include up, a symbol up, a loop', () => {
  const order = ['base', 'wrap'];
  const up: Edge = { from: 'base/log', to: 'wrap/entry', why: '#include "wrap/entry.h"' };
  assert.deepEqual(upward([up, { from: 'wrap/entry', to: 'base/log', why: 'jobio_log' }], order), [up]);
  assert.deepEqual(upward([{ from: 'misc/x', to: 'base/log', why: 'jobio_log' }], order).length, 1);
  assert.deepEqual(
    cycles([
      { from: 'wrap/a', to: 'wrap/b', why: 'f' },
      { from: 'wrap/b', to: 'wrap/c', why: 'g' },
      { from: 'wrap/c', to: 'wrap/a', why: 'h' },
      { from: 'wrap/c', to: 'base/d', why: 'i' },
    ]),
    [['wrap/a', 'wrap/b', 'wrap/c']],
  );
});
