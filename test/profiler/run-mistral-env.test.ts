// `jobio run` under a Mistral start script's environment, with the real library and real programs:
// MISTRAL_CONFIG names the file, MISTRAL_LOG wins over its `output` (and a flag over both),
// MISTRAL_ERR_LOG, MISTRAL_PROFILE_SMALL_IO and MISTRAL_OUTPUT_DIRECTORY take effect; programs named
// in MISTRAL_NOTRACE_PROGRAMS through a linked directory (merged /usr: /bin -> usr/bin) are left out
// with Mistral's default launcher list (`-srun` takes one off); MISTRAL_BYPASS_DISABLE turns tracing
// back on below a MISTRAL_BYPASS_PROGRAMS script, named by its own name. Each read is a file of its own size, so the bytes
// in the log say which processes were traced.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { runJobio } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';
import { readValidLog, type LogRecord } from './mistral-schema.js';
import { mountOf, requireProfilerLibrary } from './real-library.js';

requireProfilerLibrary();
const work = mkdtempSync(join(tmpdir(), 'jobio-mistral-env-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** Files of distinct sizes: which of them were read shows in the log's byte total. */
const file = (name: string, bytes: number): string => {
  const path = join(work, name);
  writeFileSync(path, Buffer.alloc(bytes, 3));
  return path;
};
const a = file('a.bin', 10000);
const b = file('b.bin', 20000);
const c = file('c.bin', 40000);

/** Bytes read on the work directory's mount over the whole run. */
function readBytes(log: string): number {
  const records = readValidLog(readFileSync(log, 'utf8'));
  const total = records.find((x: LogRecord) => x.type === 'mountpoint' && x.jobtotal === true && x.mountpoint.path === mountOf(a));
  return (total?.io as LogRecord | undefined)?.['read_all']?.bytes.total ?? 0;
}

/** Only the Mistral variables a test sets: none inherited from the machine running the tests. */
const clean: NodeJS.ProcessEnv = Object.fromEntries(
  Object.keys(process.env)
    .filter((k) => k.startsWith('MISTRAL_') || k.startsWith('JOBIO_'))
    .map((k) => [k, undefined]),
);

test('a start script: MISTRAL_CONFIG, MISTRAL_LOG over the file, MISTRAL_ERR_LOG, MISTRAL_PROFILE_SMALL_IO, MISTRAL_OUTPUT_DIRECTORY; a flag over them', async () => {
  const cfg = join(work, 'mistral_config.yaml');
  writeFileSync(cfg, `output: ${join(work, 'from-file.log')}\nmetadata:\n  enabled: separate\n`);
  const workDir = join(work, 'mistral-work');
  mkdirSync(workDir);
  const socketSeen = join(work, 'socket-path');
  const env = {
    ...clean,
    MISTRAL_CONFIG: cfg,
    MISTRAL_LOG: join(work, 'env-%h.log'),
    MISTRAL_ERR_LOG: join(work, 'errors.log'),
    MISTRAL_PROFILE_SMALL_IO: '4096',
    MISTRAL_OUTPUT_DIRECTORY: workDir,
    JOBIO_DEBUG: '1',
  };
  const cmd = `cat ${a} > /dev/null; printf %s "$JOBIO_SOCKET" > ${socketSeen}`;
  const r = await runJobio(['run', '--', 'sh', '-c', cmd], { env });
  assert.equal(r.code, 0, r.stderr);
  const log = join(work, `env-${hostname().split('.')[0] ?? ''}.log`);
  assert.ok(existsSync(log), `MISTRAL_LOG written: ${readdirSync(work).join(' ')}`);
  assert.ok(!existsSync(join(work, 'from-file.log')), "the file's output gives way to MISTRAL_LOG");
  const records = readValidLog(readFileSync(log, 'utf8'));
  const total = records.find((x) => x.type === 'mountpoint' && x.jobtotal === true && x.mountpoint.path === mountOf(a));
  assert.ok(total);
  // MISTRAL_PROFILE_SMALL_IO=4096: the small range ends at 4 KiB (cat reads the 10000 bytes in one call)
  assert.deepEqual(
    Object.keys(total.io as object)
      .filter((k) => k.startsWith('read_'))
      .sort(),
    ['read_4KiB-128MiB', 'read_all'],
  );
  assert.equal(total.io['read_all'].bytes.total, 10000);
  // the MISTRAL_CONFIG file applies: per-call metadata keys, no combined one
  assert.ok(total.io['open'], 'an open key');
  assert.equal(total.io['metadata'], undefined);
  assert.match(readFileSync(join(work, 'errors.log'), 'utf8'), /jobio/, 'the library writes its messages to MISTRAL_ERR_LOG');
  assert.ok(readFileSync(socketSeen, 'utf8').startsWith(`${workDir}/jobio-run-`), 'the working directory is made in MISTRAL_OUTPUT_DIRECTORY');
  assert.deepEqual(readdirSync(workDir), [], 'and removed at the end');
  // hostname: the system's full name (the record field includes the domain, as Mistral's)
  assert.ok(records.every((x) => x.hostname === execFileSync('hostname', ['--fqdn'], { encoding: 'utf8' }).trim()));
  // a MISTRAL_LOG without %h gets the host inserted before .log, as under Mistral
  const plain = await runJobio(['run', '--', 'cat', b], { env: { ...clean, MISTRAL_LOG: join(work, 'plain.log') } });
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(readBytes(join(work, `plain-${hostname().split('.')[0] ?? ''}.log`)), 20000, `cat's 20000 bytes; jobio run said: ${plain.stderr}`);
  // jobio's flag wins over the variable
  const flagged = join(work, 'flag.log');
  const f = await runJobio(['run', '-o', flagged, '--', 'cat', b], { env });
  assert.equal(f.code, 0, f.stderr);
  assert.equal(readBytes(flagged), 20000, `cat's 20000 bytes; jobio run said: ${f.stderr}`);
});

test('MISTRAL_NOTRACE_PROGRAMS: a program named through a linked directory is left out, and the launchers of the default list with their children; -srun traces srun', async (t) => {
  // a directory linked as /bin is to usr/bin on merged-/usr systems
  const real = join(work, 'usr-bin');
  mkdirSync(real);
  symlinkSync('usr-bin', join(work, 'bin'));
  copyFileSync(requireBinary('cat'), join(real, 'mycat'));
  const launchers = join(work, 'launchers');
  mkdirSync(launchers);
  copyFileSync(requireBinary('sh'), join(launchers, 'srun')); // a launcher: its children are left out with it
  const cmd = `${join(real, 'mycat')} ${a} > /dev/null; ${join(launchers, 'srun')} -c 'cat ${b} > /dev/null'; cat ${c} > /dev/null`;
  const run = async (notrace: string, name: string): Promise<number> => {
    const out = join(work, `${name}.log`);
    const r = await runJobio(['run', '-o', out, '--', 'sh', '-c', cmd], { env: { ...clean, MISTRAL_NOTRACE_PROGRAMS: notrace } });
    assert.equal(r.code, 0, r.stderr);
    return readBytes(out);
  };
  assert.equal(await run(join(work, 'bin', 'mycat'), 'notrace-link'), 40000, 'mycat (named by the link) and srun with its cat left out');
  assert.equal(await run(`${join(work, 'bin')}/,-srun`, 'notrace-dir'), 20000 + 40000, 'the linked directory covers mycat; srun is traced again');
  // jobio's own variable is resolved the same way: /bin/dd names /usr/bin/dd where /bin is a link
  // merged /usr: /bin is a link, so /bin/dd is /usr/bin/dd to the kernel
  if (lstatSync('/bin').isSymbolicLink() && existsSync('/bin/dd') && realpathSync('/bin/dd') === '/usr/bin/dd') {
    const out = join(work, 'exclude-bin-dd.log');
    const r = await runJobio(['run', '-o', out, '--', 'sh', '-c', `dd if=${a} of=/dev/null bs=1M status=none; cat ${b} > /dev/null`], { env: { ...clean, JOBIO_EXCLUDE: '/bin/dd' } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readBytes(out), 20000, 'dd left out');
  } else t.diagnostic('/bin is not a link to usr/bin here: the system half is not run');
});

test("MISTRAL_BYPASS_DISABLE turns tracing back on below a MISTRAL_BYPASS_PROGRAMS script (the manual's example, the script by its own name)", async () => {
  const script = join(work, 'hello_world.sh');
  writeFileSync(script, `#!/bin/sh\ncat ${a} > /dev/null\nTURN_TRACING_BACK_ON_PLEASE=1 cat ${b} > /dev/null\n`, { mode: 0o755 });
  const cmd = `${script}; cat ${c} > /dev/null`;
  const env = { ...clean, MISTRAL_BYPASS_PROGRAMS: 'hello_world.sh', TURN_TRACING_BACK_ON_PLEASE: undefined };
  const out = join(work, 'bypass.log');
  const r = await runJobio(['run', '-o', out, '--', 'sh', '-c', cmd], { env: { ...env, MISTRAL_BYPASS_DISABLE: 'TURN_TRACING_BACK_ON_PLEASE' } });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readBytes(out), 20000 + 40000, 'the script and its first cat left out; the cat with the variable set traced');
  const all = join(work, 'bypass-all.log');
  const r2 = await runJobio(['run', '-o', all, '--', 'sh', '-c', cmd], { env });
  assert.equal(r2.code, 0, r2.stderr);
  assert.equal(readBytes(all), 40000, 'without MISTRAL_BYPASS_DISABLE the whole subtree is left out');
  // by directory: the script's own path, not its interpreter's
  const dir = join(work, 'bypass-dir.log');
  const r3 = await runJobio(['run', '-o', dir, '--', 'sh', '-c', cmd], { env: { ...env, MISTRAL_BYPASS_PROGRAMS: `${work}/` } });
  assert.equal(r3.code, 0, r3.stderr);
  assert.equal(readBytes(dir), 40000);
});

test("records carry the host name with its domain (from the system's canonical name); the file name keeps the short one", async () => {
  const short = hostname().split('.')[0] ?? '';
  const fake = join(work, 'fake-hostname');
  mkdirSync(fake);
  writeFileSync(join(fake, 'hostname'), `#!/bin/sh\n[ "$1" = --fqdn ] && echo ${short}.cluster.example\n`, { mode: 0o755 });
  const r = await runJobio(['run', '-o', join(work, 'fqdn-%h.log'), '--', 'cat', a], { env: { ...clean, PATH: `${fake}:${process.env['PATH'] ?? ''}` } });
  assert.equal(r.code, 0, r.stderr);
  const records = readValidLog(readFileSync(join(work, `fqdn-${short}.log`), 'utf8'));
  assert.ok(records.length > 3);
  assert.deepEqual([...new Set(records.map((x) => x.hostname))], hostname().includes('.') ? [hostname()] : [`${short}.cluster.example`]);
});

test('MISTRAL_VOLUMES: directories of the file are mount points of their own (the innermost wins), with the type and source of the mount that holds them', async () => {
  const root = realpathSync(work);
  const outer = join(root, 'vol-a');
  const inner = join(outer, 'inner');
  mkdirSync(inner, { recursive: true });
  writeFileSync(join(outer, 'x.bin'), Buffer.alloc(5000, 1));
  writeFileSync(join(inner, 'y.bin'), Buffer.alloc(7000, 1));
  const list = join(root, 'volumes.txt');
  // a comment, a relative line (ignored), a trailing slash, a path listed twice
  writeFileSync(list, `# project volumes\n${outer}/\nrelative/dir\n${inner}\n${inner}\n`);
  const out = join(root, 'volumes.log');
  const cmd = `cat ${join(outer, 'x.bin')} > /dev/null; cd ${inner} && cat y.bin > /dev/null; cat ${b} > /dev/null`;
  const r = await runJobio(['run', '-o', out, '--', 'sh', '-c', cmd], { env: { ...clean, MISTRAL_VOLUMES: list } });
  assert.equal(r.code, 0, r.stderr);
  const records = readValidLog(readFileSync(out, 'utf8'));
  const totals = records.filter((x) => x.type === 'mountpoint' && x.jobtotal === true && x.cumulative === false);
  const bytes = (path: string): number | undefined => totals.find((x) => x.mountpoint.path === path)?.io['read_all']?.bytes.total;
  assert.deepEqual([bytes(outer), bytes(inner), bytes(mountOf(b))], [5000, 7000, 20000], `per mount: ${JSON.stringify(totals.map((x) => [x.mountpoint.path, x.io['read_all']?.bytes.total]))}`);
  const holder = totals.find((x) => x.mountpoint.path === mountOf(b))?.mountpoint;
  for (const v of [outer, inner]) {
    const m = totals.find((x) => x.mountpoint.path === v)?.mountpoint;
    assert.deepEqual([m?.fstype, m?.fsname, m?.fshost], [holder?.fstype, holder?.fsname, holder?.fshost], `${v}: the holding mount's type and source`);
  }
  assert.equal(records.filter((x) => x.type === 'mountpointsummary' && x.mountpoint.path === outer).length, 1, 'a summary per volume');
  // a file that cannot be read stops the run before the command starts
  const missing = await runJobio(['run', '--', 'sh', '-c', `cat ${b} > /dev/null`], { env: { ...clean, MISTRAL_VOLUMES: join(root, 'none.txt') } });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /MISTRAL_VOLUMES=.*none\.txt: ENOENT/);
});
