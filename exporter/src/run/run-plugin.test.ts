// The output plug-in feed with real plug-in processes (small sh scripts): the protocol lines and the
// arguments a plug-in gets, the fallback to the log file with the last block sent when it fails, the
// records dropped past the bound, and MISTRAL_PLUGIN_EXIT_TIMEOUT.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PluginFeed, pluginArguments, pluginExitTimeoutMs } from './run-plugin.js';
import { UsageError } from './run-options.js';

const work = mkdtempSync(join(tmpdir(), 'jobio-plugin-feed-'));
const opened: number[] = [];
after(() => {
  for (const fd of opened) closeSync(fd);
  rmSync(work, { recursive: true, force: true });
});

function script(name: string, body: string): string {
  const path = join(work, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

function feed(program: string, args: readonly string[], said: string[], log: string, fileOutput = false): PluginFeed {
  let fd: number | undefined;
  return new PluginFeed({
    program,
    args,
    intervalSec: 3600,
    fileOutput,
    logName: log,
    openLog: () => {
      if (fd === undefined) opened.push((fd = openSync(log, 'a')));
      return fd;
    },
    exitTimeoutMs: 30_000,
    say: (line) => said.push(line),
  });
}

test('options as --NAME VALUE then the switches; the records framed by the protocol lines', async () => {
  assert.deepEqual(
    pluginArguments(
      [
        ['url', 'http://h:1'],
        ['--raw', 'x y'],
      ],
      ['-v', 'quiet'],
    ),
    ['--url', 'http://h:1', '--raw', 'x y', '-v', 'quiet'],
  );
  const out = join(work, 'stdin.txt');
  const args = join(work, 'args.txt');
  const plugin = script('recording', `printf '%s\\n' "$@" > ${args}; echo :PGNVERSION:1:; cat > ${out}`);
  const said: string[] = [];
  const f = feed(plugin, ['--url', 'a b', 'quiet'], said, join(work, 'unused.log'));
  f.record('{"n":1}\n');
  f.record('{"n":2}\n');
  await f.finish();
  assert.deepEqual(said, []);
  assert.equal(readFileSync(args, 'utf8'), '--url\na b\nquiet\n');
  assert.equal(readFileSync(out, 'utf8'), ':PGNSUPVRSN:1:1:\n:PGNDATASRT:1:\n{"n":1}\n{"n":2}\n:PGNDATAEND:1:\n:PGNSHUTDWN:\n');
  assert.equal(f.sent, 2);
  assert.equal(f.dropped, 0);
});

test('a plug-in that exits 1 after a block: that block and every later record go to the log file', async () => {
  const log = join(work, 'fallback.log');
  const plugin = script('failing', 'while read -r line; do case "$line" in :PGNDATAEND:*) echo lost the database >&2; exit 1;; esac; done');
  const said: string[] = [];
  const f = feed(plugin, [], said, log);
  f.record('{"n":1}\n');
  await f.finish();
  f.record('{"n":2}\n');
  assert.equal(readFileSync(log, 'utf8'), '{"n":1}\n{"n":2}\n');
  assert.deepEqual(said, [`plug-in ${plugin}: lost the database`, `the plug-in ${plugin} exited with status 1: the records go to the log file ${log}`]);
});

test('file-output: every record in the log file once, also after a failure', async () => {
  const log = join(work, 'both.log');
  const plugin = script('exits', 'exit 3');
  const said: string[] = [];
  const f = feed(plugin, [], said, log, true);
  f.record('{"n":1}\n');
  await f.finish();
  f.record('{"n":2}\n');
  assert.equal(readFileSync(log, 'utf8'), '{"n":1}\n{"n":2}\n');
  assert.equal(said.length, 1);
  assert.match(said[0] ?? '', /exited with status 3/);
});

test('past 100000 records held between blocks the rest are dropped and counted', async () => {
  const out = join(work, 'many.txt');
  const plugin = script('many', `cat > ${out}`);
  const said: string[] = [];
  const f = feed(plugin, [], said, join(work, 'unused2.log'));
  for (let i = 0; i < 100_005; i++) f.record(`{"i":${i}}\n`);
  await f.finish();
  assert.equal(f.sent, 100_000);
  assert.equal(f.dropped, 5);
  assert.equal(
    readFileSync(out, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{')).length,
    100_000,
  );
  assert.deepEqual(said, [`5 records dropped: the plug-in ${plugin} did not keep up`]);
});

test('MISTRAL_PLUGIN_EXIT_TIMEOUT: whole seconds 0 to 86400, default 30', () => {
  assert.equal(pluginExitTimeoutMs({}), 30_000);
  assert.equal(pluginExitTimeoutMs({ MISTRAL_PLUGIN_EXIT_TIMEOUT: '0' }), 0);
  assert.equal(pluginExitTimeoutMs({ MISTRAL_PLUGIN_EXIT_TIMEOUT: '86400' }), 86_400_000);
  for (const bad of ['86401', '-1', '1.5', '5s']) assert.throws(() => pluginExitTimeoutMs({ MISTRAL_PLUGIN_EXIT_TIMEOUT: bad }), UsageError, bad);
});
