// The `jobio` CLI as a user meets it: help, version, bad flags, bad config, port in use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { runJobio, startExporter, repoRoot } from '../helpers/exporter.js';

const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

test('--help lists the subcommands and exits 0', async () => {
  const r = await runJobio(['--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /Usage: jobio/);
  assert.match(r.stdout, /exporter \[options\]/);
});

test('exporter --help lists node_exporter-style flags', async () => {
  const r = await runJobio(['exporter', '--help']);
  assert.equal(r.code, 0);
  for (const flag of [
    '--web.listen-address',
    '--web.telemetry-path',
    '--web.config.file',
    '--log.level',
    '--log.format',
    '--path.procfs',
    '--path.sysfs',
    '--path.rootfs',
    '--path.lustre',
    '--collector.disable-defaults',
    '--no-collector.process',
  ]) {
    assert.ok(r.stdout.includes(flag), `help mentions ${flag}`);
  }
});

test('--version prints the package version', async () => {
  const r = await runJobio(['--version']);
  assert.equal(r.code, 0);
  assert.equal(r.stdout.trim(), version);
});

test('unknown or malformed flags exit 2 with a clear message', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['exporter', '--bogus'], /unknown option '--bogus'/],
    [['exporter', '--log.level=loud'], /--log.level.*Allowed choices are debug, info, warn, error/],
    [['exporter', '--web.listen-address=nonsense'], /invalid listen address "nonsense"/],
    [['exporter', '--scrape.timeout=soon'], /invalid duration "soon"/],
    [['exporter', '--web.telemetry-path=metrics'], /--web.telemetry-path must start with "\/"/],
    [['exporter', '--web.telemetry-path=/healthz'], /--web.telemetry-path cannot be \/healthz, the liveness check/],
    [['exporter', '--web.max-connections=0'], /invalid value for --web.max-connections: "0" is not a positive integer/],
    [['exporter', '--web.max-connections-per-peer=many'], /invalid value for --web.max-connections-per-peer/],
    [['exporter', '--web.header-timeout=1m'], /--web.header-timeout cannot be longer than --web.request-timeout/],
    [['frobnicate'], /unknown command 'frobnicate'/],
  ];
  for (const [args, pattern] of cases) {
    const r = await runJobio(args);
    assert.equal(r.code, 2, `${args.join(' ')} exits 2 (stderr: ${r.stderr})`);
    assert.match(r.stderr, pattern);
  }
});

test('a flag given twice, or a switch and its --no- form together, exits 2 naming the flag (as node_exporter refuses it)', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['exporter', '--web.listen-address=127.0.0.1:0', '--web.listen-address', '127.0.0.1:1'], /option '--web.listen-address' given more than once/],
    [['exporter', '--collector.profiler.max-jobs=5', '--collector.profiler.max-jobs=6'], /option '--collector.profiler.max-jobs' given more than once/],
    [['exporter', '--collector.gpu', '--no-collector.gpu'], /options '--collector.gpu' and '--no-collector.gpu' contradict each other/],
    [['top', '--prometheus', 'http://127.0.0.1:1', '--interval', '1s', '--interval', '2s'], /option '--interval' given more than once/],
    [['demo', '--prometheus', 'prometheus', '--no-prometheus'], /options '--prometheus' and '--no-prometheus' contradict each other/],
    [['run', '-o', 'a.jsonl', '--output', 'b.jsonl', '--', 'true'], /option '--output' given more than once/],
  ];
  for (const [args, pattern] of cases) {
    const r = await runJobio(args, { timeoutMs: 20_000 });
    assert.equal(r.code, 2, `${args.join(' ')} exits 2 (stderr: ${r.stderr})`);
    assert.match(r.stderr, pattern);
    assert.match(r.stderr, new RegExp(`run \`jobio ${args[0] ?? ''} --help\` for usage`));
  }
});

test('an unreadable or invalid web config names the file and field and exits non-zero', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-cli-'));
  const bad = join(dir, 'web.yml');
  writeFileSync(bad, 'basic_auth_users:\n  alice: not-a-hash\n');
  let r = await runJobio(['exporter', `--web.config.file=${bad}`]);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /web\.yml: basic_auth_users\.alice: expected a bcrypt hash/);
  r = await runJobio(['exporter', `--web.config.file=${join(dir, 'missing.yml')}`]);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /cannot read web config file .*missing\.yml/);
  writeFileSync(bad, `tls_server_config:\n  cert_file: ${join(dir, 'nope.crt')}\n  key_file: ${join(dir, 'nope.key')}\n`);
  r = await runJobio(['exporter', `--web.config.file=${bad}`]);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /tls_server_config\.cert_file: cannot read .*nope\.crt/);
});

test('web config mistakes that used to hang start-up or break every request exit 1 at start', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-cli-'));
  const file = join(dir, 'web.yml');
  const cost31 = '$2y$31$hNmUPaElgNK7d7.OR57NW.tQVd70DJY8ZfLpww.0GG86QrmpWMdUi';
  const cases: Array<[string, RegExp]> = [
    [`basic_auth_users:\n  alice: '${cost31}'\n`, /web\.yml: basic_auth_users\.alice: bcrypt cost 31 is outside 4-14/],
    ['http_server_config:\n  headers:\n    X-Frame-Options: "deny\\r\\nX-Injected: 1"\n', /web\.yml: http_server_config\.headers\.X-Frame-Options: invalid header value/],
  ];
  for (const [yaml, pattern] of cases) {
    writeFileSync(file, yaml);
    const r = await runJobio(['exporter', '--web.listen-address=127.0.0.1:0', `--web.config.file=${file}`], { timeoutMs: 20_000 });
    assert.equal(r.code, 1, `exits 1 (stderr: ${r.stderr})`);
    assert.match(r.stderr, pattern);
  }
});

test('garbage TLS files are reported with the web config file to check', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-cli-'));
  writeFileSync(join(dir, 'server.crt'), 'not a certificate\n');
  writeFileSync(join(dir, 'server.key'), 'not a key\n');
  const file = join(dir, 'web.yml');
  writeFileSync(file, 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n');
  const r = await runJobio(['exporter', '--web.listen-address=127.0.0.1:0', `--web.config.file=${file}`]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /cannot listen: .*check tls_server_config cert_file and key_file in .*web\.yml/);
});

test('a port in use is a clear error, exit 1', async () => {
  const first = await startExporter(['--collector.disable-defaults']);
  try {
    const r = await runJobio(['exporter', `--web.listen-address=127.0.0.1:${first.port}`, '--collector.disable-defaults']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`address 127.0.0.1:${first.port} is already in use`));
  } finally {
    assert.equal(await first.stop(), 0, 'SIGTERM shuts the exporter down cleanly with exit 0');
  }
});
