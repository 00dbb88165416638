// The profiler's defaults (small and large thresholds, sample-every) and the scheduler variables a
// job id is taken from are defined once, as macros of native/profiler/include/jobio_protocol.h, for
// the C library and the receiver addon. The TypeScript side keeps its own copies (`jobio run`'s
// defaults and help, the job resolver's variable list): this test reads the header and holds them
// to it, and checks that no C or C++ source spells the values out again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveRunOptions } from '../../exporter/src/run/run-options.js';
import { runCommand } from '../../exporter/src/cli/run-command.js';
import { JOBID_VARIABLES } from '../../exporter/src/labels/process-job.js';
import { iec } from '../../exporter/src/profiler/mistral-io.js';
import { root } from './harness.js';
import { WIRE_COMPONENTS } from '../../exporter/src/parsers/profiler-wire.js';

const header = readFileSync(join(root, 'native/profiler/include/jobio_protocol.h'), 'utf8');

/** The body of `#define NAME body` (one line). */
function macro(name: string): string {
  const m = new RegExp(`^#define ${name}\\s+(.+?)\\s*(?:/\\*.*)?$`, 'm').exec(header);
  assert.ok(m, `jobio_protocol.h defines ${name}`);
  return m[1]!;
}

function numberMacro(name: string): number {
  const body = macro(name);
  assert.match(body, /^\d+u?$/, `${name} is a plain integer`);
  return Number(body.replace(/u$/, ''));
}

const small = numberMacro('JOBIO_DEFAULT_SMALL_THRESHOLD');
const large = numberMacro('JOBIO_DEFAULT_LARGE_THRESHOLD');
const sampleEvery = numberMacro('JOBIO_DEFAULT_SAMPLE_EVERY');
const jobidVariables = [...macro('JOBIO_JOBID_VARIABLES').matchAll(/"([^"]*)"/g)].map((m) => m[1]);

test('the header holds the documented defaults: 32 KiB, 128 MiB, 1 call in 16', () => {
  assert.deepEqual([small, large, sampleEvery], [32 * 1024, 128 * 1024 * 1024, 16]);
});

test("jobio run's defaults are the header's", () => {
  const options = resolveRunOptions({}, {});
  assert.deepEqual({ small: options.smallThreshold, large: options.largeThreshold, sampleEvery: options.sampleEvery }, { small, large, sampleEvery });
});

test("jobio run --help states the header's defaults", () => {
  const help = runCommand(() => undefined)
    .helpInformation()
    .replace(/\s+/g, ' ');
  for (const [flag, value] of [
    ['--small-threshold', iec(small)],
    ['--large-threshold', iec(large)],
    ['--sample-every', String(sampleEvery)],
  ] as const) {
    assert.match(help, new RegExp(`${flag} <[a-z]+> [^-]*Default ${value}[.; ]`), `${flag}: Default ${value}`);
  }
});

test("the job resolver's variables are the header's, in the same order", () => {
  assert.deepEqual(jobidVariables, ['SLURM_JOB_ID', 'PBS_JOBID', 'LSB_JOBID', 'JOB_ID', 'FLUX_JOB_ID']);
  assert.deepEqual([...JOBID_VARIABLES], jobidVariables);
});

test('no C or C++ source of the library or the receiver spells the defaults or the variables out again', () => {
  const dirs = ['native/profiler/src', 'native/seqpacket/src'];
  const spelled = [String(small), String(large), ...jobidVariables.map((v) => `"${v}`)];
  const found: string[] = [];
  for (const dir of dirs) {
    for (const name of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })) {
      if (!/\.(c|h|cc)$/.test(name)) continue;
      const text = readFileSync(join(root, dir, name), 'utf8');
      for (const s of spelled) if (text.includes(s)) found.push(`${dir}/${name}: ${s}`);
    }
  }
  assert.deepEqual(found, []);
});

test("the receiver's components are the header's enum jobio_component, value for value, and jobio-dump's names", () => {
  const body = /enum jobio_component \{([^}]*)\}/.exec(header)?.[1] ?? '';
  const values = [...body.matchAll(/JOBIO_COMPONENT_(\w+) = (\d+)/g)].filter((m) => m[1] !== 'COUNT');
  const count = Number(/JOBIO_COMPONENT_COUNT = (\d+)/.exec(body)?.[1]);
  assert.equal(values.length, count);
  // PROGRAM is the program's own (''), the others the receiver's names in kebab case
  assert.deepEqual(
    values.map((m) => [Number(m[2]), m[1] === 'PROGRAM' ? '' : m[1]!.toLowerCase().replace(/_/g, '-')]),
    WIRE_COMPONENTS.map((c, i) => [i, c]),
  );
  const dump = readFileSync(join(root, 'native/profiler/tools/jobio-dump.c'), 'utf8');
  assert.deepEqual(
    [.../components\[JOBIO_COMPONENT_COUNT\] = \{([^}]*)\}/.exec(dump)![1]!.matchAll(/"([^"]*)"/g)].map((m) => m[1]),
    [...WIRE_COMPONENTS],
  );
});
