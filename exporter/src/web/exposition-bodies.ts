// The bytes of /metrics responses. Every local user can connect, and a client that pipelines requests
// and never reads used to make the server keep one copy of the exposition (and one gzip run) per
// request: 64 connections got the exporter OOM-killed in seconds. So:
//   - one body per scrape and encoding: the scrape's buffers are the identity body as they are, and
//     are gzip-compressed once, as a stream of them (never joined into one string or one buffer);
//     every response of that scrape writes the same buffers, which sockets reference without copying;
//   - the bodies held by responses not yet flushed to their clients are bounded: when a new body would
//     make more than `maxHeld` of them, the connections still holding the oldest one are closed
//     (counted as `slow_reader`). A scraper reads its response at once, so it never holds the oldest.
import { createGzip } from 'node:zlib';
import type { ServerResponse } from 'node:http';
import type { WebMetrics } from './web-metrics.js';

export type BodyEncoding = 'gzip' | 'identity';

/** A response body as the buffers written one after another. */
export type Body = readonly Buffer[];

/** Distinct bodies held at most by unflushed responses: a few scrapes' worth in both encodings. */
export const DEFAULT_MAX_HELD_BODIES = 8;

interface Encoded {
  readonly exposition: Body;
  gzip: Promise<Body> | undefined;
}

/** The gzip stream of `chunks`: compressed on libuv's thread pool, buffer by buffer. */
function gzipChunks(chunks: Body): Promise<Body> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    const gzip = createGzip();
    gzip.on('data', (c: Buffer) => out.push(c));
    gzip.once('end', () => resolve(out));
    gzip.once('error', reject);
    for (const chunk of chunks) gzip.write(chunk);
    gzip.end();
  });
}

export const bodyBytes = (body: Body): number => body.reduce((n, c) => n + c.length, 0);

export class ExpositionBodies {
  private latest: Encoded | undefined;
  /** Unflushed responses by the body they write, oldest body first (Map keeps insertion order). */
  private readonly held = new Map<Body, Set<ServerResponse>>();
  private heldBytes = 0;

  constructor(
    private readonly metrics: WebMetrics,
    private readonly maxHeld = DEFAULT_MAX_HELD_BODIES,
  ) {}

  /**
   * The body of a scrape's exposition in `encoding`, built once per scrape: concurrent requests share
   * the scrape's buffers (the same array), and so its compressed body.
   */
  body(exposition: Body, encoding: BodyEncoding): Promise<Body> {
    if (this.latest?.exposition !== exposition) {
      this.latest = { exposition, gzip: undefined };
      this.metrics.responseBodies.inc({ encoding: 'identity' });
    }
    const encoded = this.latest;
    if (encoding === 'identity') return Promise.resolve(encoded.exposition);
    if (!encoded.gzip) {
      encoded.gzip = gzipChunks(encoded.exposition);
      this.metrics.responseBodies.inc({ encoding: 'gzip' });
      // A failed compression is not kept: the next request tries again.
      encoded.gzip.catch(() => {
        if (this.latest === encoded) encoded.gzip = undefined;
      });
    }
    return encoded.gzip;
  }

  /** Records that `res` is about to write `body`; released once it is flushed or its connection closes. */
  hold(res: ServerResponse, body: Body): void {
    let holders = this.held.get(body);
    if (!holders) {
      this.evictOldestBeyond(this.maxHeld - 1);
      holders = new Set();
      this.held.set(body, holders);
      this.heldBytes += bodyBytes(body);
    }
    holders.add(res);
    const release = (): void => {
      const set = this.held.get(body);
      if (!set?.delete(res) || set.size > 0) return;
      this.held.delete(body);
      this.heldBytes -= bodyBytes(body);
      this.metrics.responseBytesHeld.set(this.heldBytes);
    };
    res.once('finish', release);
    res.once('close', release);
    this.metrics.responseBytesHeld.set(this.heldBytes);
  }

  /** Closes the connections holding the oldest bodies until at most `keep` bodies are held. */
  private evictOldestBeyond(keep: number): void {
    while (this.held.size > keep) {
      const [body, holders] = this.held.entries().next().value as [Body, Set<ServerResponse>];
      this.held.delete(body);
      this.heldBytes -= bodyBytes(body);
      for (const res of holders) {
        this.metrics.connectionsDropped.inc({ reason: 'slow_reader' });
        res.req.socket.destroy();
      }
    }
    this.metrics.responseBytesHeld.set(this.heldBytes);
  }
}
