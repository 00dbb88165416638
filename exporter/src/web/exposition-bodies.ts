// The bytes of /metrics responses. Every local user can connect, and a client that pipelines requests
// and never reads used to make the server keep one copy of the exposition (and one gzip run) per
// request: 64 connections got the exporter OOM-killed in seconds. So:
//   - one body per scrape and encoding: the text is encoded once (one gzip), and every response of
//     that scrape writes the same Buffer, which sockets reference without copying;
//   - the bodies held by responses not yet flushed to their clients are bounded: when a new body would
//     make more than `maxHeld` of them, the connections still holding the oldest one are closed
//     (counted as `slow_reader`). A scraper reads its response at once, so it never holds the oldest.
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { ServerResponse } from 'node:http';
import type { WebMetrics } from './web-metrics.js';

const gzipAsync = promisify(gzip);

export type BodyEncoding = 'gzip' | 'identity';

/** Distinct bodies held at most by unflushed responses: a few scrapes' worth in both encodings. */
export const DEFAULT_MAX_HELD_BODIES = 8;

interface Encoded {
  readonly text: string;
  readonly identity: Buffer;
  gzip: Promise<Buffer> | undefined;
}

export class ExpositionBodies {
  private latest: Encoded | undefined;
  /** Unflushed responses by the body they write, oldest body first (Map keeps insertion order). */
  private readonly held = new Map<Buffer, Set<ServerResponse>>();
  private heldBytes = 0;

  constructor(
    private readonly metrics: WebMetrics,
    private readonly maxHeld = DEFAULT_MAX_HELD_BODIES,
  ) {}

  /**
   * The body of a scrape's text in `encoding`, built once per scrape: concurrent requests share the
   * scrape's text, and a text equal to the last one is the same body. Compression runs on libuv's
   * thread pool, not the event loop.
   */
  async body(text: string, encoding: BodyEncoding): Promise<Buffer> {
    if (this.latest?.text !== text) {
      this.latest = { text, identity: Buffer.from(text, 'utf8'), gzip: undefined };
      this.metrics.responseBodies.inc({ encoding: 'identity' });
    }
    const encoded = this.latest;
    if (encoding === 'identity') return encoded.identity;
    if (!encoded.gzip) {
      encoded.gzip = gzipAsync(encoded.identity);
      this.metrics.responseBodies.inc({ encoding: 'gzip' });
      // A failed compression is not kept: the next request tries again.
      encoded.gzip.catch(() => {
        if (this.latest === encoded) encoded.gzip = undefined;
      });
    }
    return encoded.gzip;
  }

  /** Records that `res` is about to write `body`; released once it is flushed or its connection closes. */
  hold(res: ServerResponse, body: Buffer): void {
    let holders = this.held.get(body);
    if (!holders) {
      this.evictOldestBeyond(this.maxHeld - 1);
      holders = new Set();
      this.held.set(body, holders);
      this.heldBytes += body.length;
    }
    holders.add(res);
    const release = (): void => {
      const set = this.held.get(body);
      if (!set?.delete(res) || set.size > 0) return;
      this.held.delete(body);
      this.heldBytes -= body.length;
      this.metrics.responseBytesHeld.set(this.heldBytes);
    };
    res.once('finish', release);
    res.once('close', release);
    this.metrics.responseBytesHeld.set(this.heldBytes);
  }

  /** Closes the connections holding the oldest bodies until at most `keep` bodies are held. */
  private evictOldestBeyond(keep: number): void {
    while (this.held.size > keep) {
      const [body, holders] = this.held.entries().next().value as [Buffer, Set<ServerResponse>];
      this.held.delete(body);
      this.heldBytes -= body.length;
      for (const res of holders) {
        this.metrics.connectionsDropped.inc({ reason: 'slow_reader' });
        res.req.socket.destroy();
      }
    }
    this.metrics.responseBytesHeld.set(this.heldBytes);
  }
}
