// Golden exposition files (node_exporter's e2e-output.txt habit): the real exporter's /metrics,
// normalised where values legitimately vary between runs, compared with a committed file.
// Regenerate with JOBIO_UPDATE_GOLDEN=1 npm test, then review the diff like code.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Replaces run-dependent values (durations, versions) with placeholders; drops process/nodejs metrics
 * and the HTTP server's jobio_web_* counters, which depend on the test's own traffic, not on the files.
 */
export function normaliseExposition(text: string): string {
  const isWeb = (line: string | undefined): boolean => line !== undefined && /^(# (HELP|TYPE) )?jobio_web_/.test(line);
  return (
    text
      .split('\n')
      // A dropped jobio_web_ family takes the blank line that separates it from the one before along.
      .filter((line, i, lines) => !isWeb(line) && !(line === '' && isWeb(lines[i + 1])))
      .filter((line) => !/^(# (HELP|TYPE) )?(process_|nodejs_)/.test(line))
      .map((line) => {
        if (line.startsWith('jobio_scrape_collector_duration_seconds{')) return line.replace(/ \S+$/, ' <duration>');
        if (line.startsWith('jobio_build_info{')) return 'jobio_build_info{<build labels>} 1';
        return line;
      })
      .join('\n')
  );
}

export function assertGolden(actual: string, goldenPath: string): void {
  if (process.env.JOBIO_UPDATE_GOLDEN === '1' || !existsSync(goldenPath)) {
    if (process.env.JOBIO_UPDATE_GOLDEN !== '1' && process.env.CI) {
      assert.fail(`golden file ${goldenPath} is missing; generate it with JOBIO_UPDATE_GOLDEN=1 npm test and commit it`);
    }
    mkdirSync(dirname(goldenPath), { recursive: true });
    writeFileSync(goldenPath, actual);
    return;
  }
  assert.equal(actual, readFileSync(goldenPath, 'utf8'), `exposition differs from ${goldenPath} (regenerate with JOBIO_UPDATE_GOLDEN=1 after checking the change)`);
}
