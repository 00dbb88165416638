import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { whyUnprofiled } from './why-unprofiled.js';

test('why a command ran without the profiler: static binary, set-user-ID, set-group-ID, or not told', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-why-'));
  try {
    writeFileSync(join(dir, 'm.c'), 'int main(void) { return 0; }\n');
    const st = spawnSync('gcc', ['-static', '-o', join(dir, 'static'), join(dir, 'm.c')], { encoding: 'utf8' });
    if (st.status !== 0) return t.skip(`gcc -static is not available: ${st.stderr}`);
    assert.equal(spawnSync('gcc', ['-o', join(dir, 'dynamic'), join(dir, 'm.c')]).status, 0);
    assert.equal(whyUnprofiled(join(dir, 'static')), 'a static binary');
    assert.equal(whyUnprofiled(join(dir, 'dynamic')), undefined);
    copyFileSync(join(dir, 'dynamic'), join(dir, 'suid'));
    chmodSync(join(dir, 'suid'), 0o4755);
    assert.equal(whyUnprofiled(join(dir, 'suid')), 'a set-user-ID program');
    copyFileSync(join(dir, 'dynamic'), join(dir, 'sgid'));
    chmodSync(join(dir, 'sgid'), 0o2755);
    assert.equal(whyUnprofiled(join(dir, 'sgid')), 'a set-group-ID program');
    // a name found in PATH; a script (not ELF); a file that does not exist
    assert.equal(whyUnprofiled('sh'), undefined);
    writeFileSync(join(dir, 'script'), '#!/bin/sh\n');
    assert.equal(whyUnprofiled(join(dir, 'script')), undefined);
    assert.equal(whyUnprofiled(join(dir, 'absent')), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
