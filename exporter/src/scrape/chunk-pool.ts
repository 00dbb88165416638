// The memory of a scrape's exposition chunks, used again by a later scrape once nothing reads them.
//
// Why: the rate density of 1,000 targets is 49 MB of chunks a scrape. New each scrape, that memory
// counts as external to V8's heap, and growing it started a full mark-and-compact every scrape (and young
// collections for "external memory pressure"), whatever the heap held. A chunk's memory is only taken back
// when every response that wrote it is done and its gzip run has ended (scraper.ts counts them), so a
// slow reader still writing an older scrape never sees its bytes change.

/** Bytes of the chunks the writer fills (exposition-writer.ts): only memory of that size comes back. */
export const POOLED_CHUNK_BYTES = 1 << 16;

export class ChunkPool {
  private readonly free: ArrayBuffer[] = [];
  private readonly inPool = new Set<ArrayBuffer>();
  /** At most one scrape's worth is kept: the count of the last scrape given back. */
  private most = 0;

  /** A chunk of POOLED_CHUNK_BYTES: memory given back, or new. */
  take(): Buffer {
    const memory = this.free.pop();
    if (memory === undefined) return Buffer.allocUnsafe(POOLED_CHUNK_BYTES);
    this.inPool.delete(memory);
    return Buffer.from(memory, 0, POOLED_CHUNK_BYTES);
  }

  /**
   * The chunks of a scrape that nothing reads any more (no response writing them, no gzip run over
   * them, no reference kept elsewhere): the memory of those the writer took from here, or made at
   * POOLED_CHUNK_BYTES, is kept for take().
   */
  giveBack(chunks: readonly Buffer[]): void {
    let mine = 0;
    for (const chunk of chunks) {
      const memory = chunk.buffer;
      if (!(memory instanceof ArrayBuffer) || memory.byteLength !== POOLED_CHUNK_BYTES || chunk.byteOffset !== 0) continue;
      mine += 1;
      if (this.inPool.has(memory)) continue;
      this.inPool.add(memory);
      this.free.push(memory);
    }
    this.most = mine;
    while (this.free.length > this.most) this.inPool.delete(this.free.shift() as ArrayBuffer);
  }

  /** Chunks' memory kept now (tests). */
  get size(): number {
    return this.free.length;
  }
}
