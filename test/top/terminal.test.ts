// `jobio top` never writes a control character it did not mean to the admin's terminal: label values
// from an exporter (a hostile one, or one older than the Lustre job id check) holding OSC 52
// (clipboard write), a window title, clear-screen or a C1 CSI are printed with `?` in their place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { runJobio } from '../helpers/exporter.js';

const HOSTILE_JOB = '\u001b]52;c;aGk=\u0007';
const HOSTILE_USER = '\u001b]0;pwned\u0007\u001b[2J\u009b2J';

test('jobio top --exporter: control characters in label values reach the terminal as ?', async () => {
  let scrapes = 0;
  const server = createServer((_req, res) => {
    scrapes += 1;
    const value = scrapes === 1 ? 0 : 1048576;
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
    res.end(
      ['# TYPE jobio_lustre_jobstats_write_bytes_total counter', `jobio_lustre_jobstats_write_bytes_total{target="fs-OST0000",jobid="${HOSTILE_JOB}",user="${HOSTILE_USER}"} ${value}`, ''].join('\n'),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  try {
    const r = await runJobio(['top', '--exporter', `http://127.0.0.1:${port}/metrics`, '--once', '--interval', '1s']);
    assert.equal(r.code, 0, r.stderr);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(`${r.stdout}${r.stderr}`, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    const row = r.stdout.split('\n')[2] ?? ''; // under the title and the header
    assert.match(row, /^\?\]52;c;aGk=\? +1\.0 +0\.0 +0 +0 +\?\]0;pwned\?\?\[2J\?2J +1$/);
  } finally {
    server.close();
  }
});
