// One request at a time per connection. Node hands the server every request it parses from a
// connection's bytes, pipelined ones included, while earlier responses are still unsent; a client that
// pipelines a thousand scrapes and never reads would have them all answered into memory. Here a
// connection's next request is handled only once the previous response has been flushed to the
// client (its 'finish': the last byte handed to the kernel):
//   - requests parsed meanwhile wait in a short queue; a client with more than `maxPipelined` waiting
//     is closed (counted as `pipelined`): no scraper pipelines, a flood does;
//   - a response not flushed within `writeTimeoutMs` of being complete closes its connection
//     (counted as `write_timeout`): a client that does not read cannot hold a body for long.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { WebMetrics } from './web-metrics.js';

export interface PipelineLimits {
  /** Requests at most waiting behind the one in progress on a connection. */
  readonly maxPipelined: number;
  /** Time a client has to read a complete response. */
  readonly writeTimeoutMs: number;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Line {
  busy: boolean;
  readonly waiting: [IncomingMessage, ServerResponse][];
}

export function oneRequestAtATime(handler: Handler, limits: PipelineLimits, metrics: WebMetrics): RequestListener {
  const lines = new WeakMap<Socket, Line>();

  const run = (line: Line, socket: Socket, req: IncomingMessage, res: ServerResponse): void => {
    line.busy = true;
    let writeClock: NodeJS.Timeout | undefined;
    let settled = false;
    res.once('prefinish', () => {
      writeClock = setTimeout(() => {
        metrics.connectionsDropped.inc({ reason: 'write_timeout' });
        socket.destroy();
      }, limits.writeTimeoutMs);
      writeClock.unref();
    });
    const settle = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(writeClock);
      const next = socket.destroyed ? undefined : line.waiting.shift();
      if (next) run(line, socket, ...next);
      else {
        line.busy = false;
        line.waiting.length = 0;
      }
    };
    res.once('finish', settle);
    res.once('close', settle);
    handler(req, res);
  };

  return (req, res) => {
    const socket = req.socket;
    if (socket.destroyed) return; // parsed from bytes read before the connection was closed
    let line = lines.get(socket);
    if (!line) {
      line = { busy: false, waiting: [] };
      lines.set(socket, line);
    }
    if (!line.busy) {
      run(line, socket, req, res);
      return;
    }
    if (line.waiting.length >= limits.maxPipelined) {
      metrics.connectionsDropped.inc({ reason: 'pipelined' });
      line.waiting.length = 0;
      socket.destroy();
      return;
    }
    line.waiting.push([req, res]);
  };
}
