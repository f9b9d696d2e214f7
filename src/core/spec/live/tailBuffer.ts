/**
 * The tail of a stdio server's stderr, kept for messages: a server may write megabytes, and only
 * the last few kilobytes say why it failed.
 */

/** Keeps the last `limit` bytes of a stream. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer | string): void {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.chunks.push(buf);
    this.size += buf.length;
    while (this.chunks.length > 1 && this.size - (this.chunks[0]?.length ?? 0) >= this.limit) {
      this.size -= this.chunks.shift()?.length ?? 0;
    }
  }
  text(): string | undefined {
    const all = Buffer.concat(this.chunks);
    // A cut through a multi-byte character decodes as U+FFFD at the start: drop it.
    const text = all
      .subarray(Math.max(0, all.length - this.limit))
      .toString('utf8')
      .replace(/^\uFFFD+/, '')
      .trim();
    return text === '' ? undefined : text;
  }
}
