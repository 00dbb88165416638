// The repository stands alone: no tracked file points at design notes or fixtures that live outside
// it (a briefing's section numbers, a sibling `shared/` folder, a workstation path). A maintainer who
// has only this repository must be able to follow every pointer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/exporter.js';

const OUTSIDE = [
  /\bDESIGN(?: §?\d|\.md)/, // section numbers of a design brief that is not in the repository
  /(?:^|[^\w-])(?:\.\.\/)*shared\/(?:notes|fixtures)\b/,
  /\bSTYLE\.md\b/,
  /\/work\/(?:main|shared|wt)\b/,
];

test('no tracked file points outside the repository', () => {
  const files = execFileSync('git', ['ls-files'], { cwd: repoRoot, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f !== '' && !f.endsWith('package-lock.json') && !f.endsWith('.png') && f !== 'test/docs/stands-alone.test.ts');
  const found: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(join(repoRoot, file), 'utf8');
    } catch {
      continue; // deleted in the work tree
    }
    text.split('\n').forEach((line, i) => {
      if (OUTSIDE.some((re) => re.test(line))) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
    });
  }
  assert.deepEqual(found, []);
});
