// Keeps the server reachable when someone opens connections and never finishes a request
// (slowloris). Every local user can connect, and without a bound ~1,100 trickling connections used up
// the exporter's file descriptors and denied every scrape until Node's own timeouts fired.
//   - Caps: at most `maxConnections` open, at most `maxPerPeer` from one address.
//   - At a cap, the new connection is not refused if an older one is merely *waiting* (no request
//     in progress: still handshaking, trickling its headers, or idle keep-alive): the one waiting
//     longest is closed instead. A scraper connects and sends its request at once, so it always gets
//     in; the attacker's connections, which never complete a request, are the ones closed.
//   - Header and request timeouts (set on the server by listen.ts) reap the rest.
// Connections are keyed by peer address and port, which name the same TCP connection whether the
// server sees the raw socket (on connect) or the TLS socket carrying the request.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { WebMetrics, ConnectionDrop } from './web-metrics.js';

export interface ConnectionLimits {
  readonly maxConnections: number;
  readonly maxPerPeer: number;
}

interface Connection {
  readonly socket: Socket;
  readonly key: string;
  readonly peer: string;
  /** Requests in progress on it; 0 means waiting, and so evictable. */
  active: number;
}

export function guardConnections(server: Server, limits: ConnectionLimits, metrics: WebMetrics): void {
  const open = new Map<string, Connection>();
  /** The waiting connections, longest-waiting first (Map keeps insertion order). */
  const waiting = new Map<string, Connection>();
  const perPeer = new Map<string, number>();

  const forget = (conn: Connection): void => {
    if (open.get(conn.key) !== conn) return;
    open.delete(conn.key);
    waiting.delete(conn.key);
    const n = (perPeer.get(conn.peer) ?? 1) - 1;
    if (n > 0) perPeer.set(conn.peer, n);
    else perPeer.delete(conn.peer);
    metrics.connections.set(open.size);
  };
  const drop = (conn: Connection, reason: ConnectionDrop): void => {
    forget(conn);
    metrics.connectionsDropped.inc({ reason });
    conn.socket.destroy();
  };
  /** Closes the longest-waiting connection that `which` selects; false if there is none. */
  const evict = (which: (c: Connection) => boolean, reason: ConnectionDrop): boolean => {
    for (const conn of waiting.values()) {
      if (!which(conn)) continue;
      drop(conn, reason);
      return true;
    }
    return false;
  };

  server.prependListener('connection', (socket: Socket) => {
    const peer = socket.remoteAddress ?? 'unknown';
    const conn: Connection = { socket, key: `${peer}:${socket.remotePort ?? 0}`, peer, active: 0 };
    if ((perPeer.get(peer) ?? 0) >= limits.maxPerPeer && !evict((c) => c.peer === peer, 'max_connections_per_peer')) {
      metrics.connectionsDropped.inc({ reason: 'max_connections_per_peer' });
      socket.destroy();
      return;
    }
    if (open.size >= limits.maxConnections && !evict(() => true, 'max_connections')) {
      metrics.connectionsDropped.inc({ reason: 'max_connections' });
      socket.destroy();
      return;
    }
    open.set(conn.key, conn);
    waiting.set(conn.key, conn);
    perPeer.set(peer, (perPeer.get(peer) ?? 0) + 1);
    metrics.connections.set(open.size);
    socket.once('close', () => forget(conn));
  });

  server.prependListener('request', (req, res) => {
    const conn = open.get(`${req.socket.remoteAddress ?? 'unknown'}:${req.socket.remotePort ?? 0}`);
    if (!conn) return;
    conn.active += 1;
    waiting.delete(conn.key);
    res.once('close', () => {
      conn.active -= 1;
      // Waiting again (keep-alive), now the most recent.
      if (conn.active === 0 && open.get(conn.key) === conn) waiting.set(conn.key, conn);
    });
  });
}
