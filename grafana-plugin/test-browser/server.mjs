// A loopback static file server for the harness (127.0.0.1 only, GET only, paths kept under root).
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.json': 'application/json', '.svg': 'image/svg+xml', '.map': 'application/json', '.woff2': 'font/woff2', '.png': 'image/png' };

/** Grafana serves @grafana/ui's icons under public/build/img/; the npm package ships them. */
const ICONS = /^.*\/public\/build\/img\//;

export function serveStatic(root) {
  const server = createServer((req, res) => {
    let path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    if (ICONS.test(path)) {
      path = path.replace(ICONS, '/node_modules/@grafana/ui/dist/public/img/');
    }
    const file = join(root, path);
    if (req.method !== 'GET' || !file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((ok) => server.close(ok)) })));
}
