#!/usr/bin/env node
// Screenshots of jobio's terminal screens for the docs (docs/img/*.png): the command runs in a private
// tmux server at a given size until its screen matches a pattern; the screen (with its reverse-video
// lines) is drawn as HTML in headless Chromium (playwright-core from grafana-plugin/'s dependencies)
// and saved as PNG. Run from the repository root, so the screens show relative paths:
//   TMPDIR=/tmp node scripts/screenshot-terminal.mjs --out docs/img/demo-top.png --size 132x36 \
//        --until 'PENDING +JobioMostlyRedJob' -- node bin/jobio.js demo
// It refuses a screen that shows the checkout's or the home folder's path.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: { out: { type: 'string' }, size: { type: 'string', default: '132x40' }, until: { type: 'string' }, timeout: { type: 'string', default: '120' } },
  allowPositionals: true,
});
if (!values.out || !values.until || positionals.length === 0) {
  console.error('usage: screenshot-terminal.mjs --out FILE.png --size COLSxROWS --until REGEX -- COMMAND ARGS…');
  process.exit(2);
}
const [cols, rows] = values.size.split('x').map(Number);
const dir = mkdtempSync(join(tmpdir(), 'jobio-shot-'));
const socket = join(dir, 'socket');
const tmux = (...args) => execFileSync('tmux', ['-S', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env: { ...process.env, TERM: 'xterm-256color' } });

/** HTML of a tmux capture with escapes: reverse video, bold and the 8/16 colours; everything else as text. */
function toHtml(text) {
  const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  let html = '';
  let open = false;
  // eslint-disable-next-line no-control-regex -- the escapes of a captured terminal are what this reads
  for (const part of text.split(/(\x1b\[[0-9;]*m)/)) {
    // eslint-disable-next-line no-control-regex -- the escapes of a captured terminal are what this reads
    const sgr = /^\x1b\[([0-9;]*)m$/.exec(part);
    if (!sgr) {
      html += esc(part);
      continue;
    }
    const codes = sgr[1] === '' ? [0] : sgr[1].split(';').map(Number);
    if (open) html += '</span>';
    open = false;
    if (codes.includes(7)) {
      html += '<span class="inv">';
      open = true;
    }
  }
  return html + (open ? '</span>' : '');
}

try {
  tmux('new-session', '-d', '-x', String(cols), '-y', String(rows), '-s', 'shot', ...positionals);
  const pattern = new RegExp(values.until, 'm');
  const until = Date.now() + Number(values.timeout) * 1000;
  let screen = '';
  for (;;) {
    screen = tmux('capture-pane', '-p', '-e', '-t', 'shot');
    // eslint-disable-next-line no-control-regex -- the escapes of a captured terminal are what this reads
    if (pattern.test(screen.replace(/\x1b\[[0-9;]*m/g, ''))) break;
    if (Date.now() > until) throw new Error(`the screen never matched ${values.until}:\n${screen}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  // The docs show what any user sees: no path of this machine (the checkout, the home folder).
  // eslint-disable-next-line no-control-regex -- the escapes of a captured terminal are what this reads
  const plain = screen.replace(/\x1b\[[0-9;]*m/g, '');
  for (const p of [process.cwd(), homedir()].filter((x) => x !== '/')) {
    if (plain.includes(p)) throw new Error(`the screen shows ${p}, a path of this machine: run from the repository root with TMPDIR=/tmp\n${plain}`);
  }
  const require = createRequire(new URL('../grafana-plugin/package.json', import.meta.url));
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage({ viewport: { width: Math.ceil(cols * 7.83) + 36, height: rows * 17 + 36 }, deviceScaleFactor: 1 });
  const css = 'body{margin:0;background:#1e1e1e}pre{margin:18px;color:#e6e6e6;font:13px/17px "DejaVu Sans Mono",monospace}.inv{background:#e6e6e6;color:#1e1e1e}';
  await page.setContent(`<!doctype html><meta charset="utf-8"><style>${css}</style><pre>${toHtml(screen.replace(/\n+$/, ''))}</pre>`);
  await page.screenshot({ path: values.out });
  await browser.close();
  tmux('send-keys', '-t', 'shot', 'q');
  // The same screen as text, for a README block that matches the picture.
  console.log(plain.replace(/\s+$/, ''));
  console.log(`wrote ${values.out} (${cols}x${rows})`);
} finally {
  await new Promise((r) => setTimeout(r, 3000)); // q: the demo stops what it started
  try {
    tmux('kill-server');
  } catch {
    // already gone
  }
  rmSync(dir, { recursive: true, force: true });
}
