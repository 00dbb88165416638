import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { LctlError, runLctl } from './lustre-lctl.js';

// A stand-in tool that fails the way a sick node's does: nothing on stdout, a reason on stderr.
function failingTool(name: string): { path: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-lctl-'));
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\necho "cannot talk to the LNet module" >&2\nexit 3\n');
  chmodSync(path, 0o755);
  return { path, dir };
}

test('a failing tool is named in the error as it ran (lnetctl, not lctl), with its exit code and stderr', async () => {
  const tool = failingTool('lnetctl');
  try {
    await assert.rejects(runLctl(tool.path, 5000, undefined, ['stats', 'show']), (err: unknown) => {
      assert.ok(err instanceof LctlError);
      assert.equal(err.message, 'lnetctl stats show exited with 3: cannot talk to the LNet module');
      return true;
    });
  } finally {
    rmSync(tool.dir, { recursive: true, force: true });
  }
});

test('lctl keeps its own name and the first parameter it was asked for', async () => {
  const tool = failingTool('lctl');
  try {
    await assert.rejects(runLctl(tool.path, 5000), /^Error: lctl get_param mdt\.\*\.job_stats exited with 3: cannot talk/);
  } finally {
    rmSync(tool.dir, { recursive: true, force: true });
  }
});
