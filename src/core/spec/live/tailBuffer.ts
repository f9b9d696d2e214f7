/**
 * The tail of a stdio server's stderr, kept for messages: a server may write megabytes, and only
 * the last few kilobytes say why it failed. The stream is masked as it arrives, before it is cut
 * (see `SecretStreamMasker`): cutting first would leave the tail of a secret the cut went through.
 */
import { StringDecoder } from 'node:string_decoder';
import { SecretStreamMasker } from '../maskSecrets';

/** Keeps the last `limit` bytes of a stream. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer | string): void {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (buf.length === 0) return;
    this.chunks.push(buf);
    this.size += buf.length;
    while (this.chunks.length > 1 && this.size - (this.chunks[0]?.length ?? 0) >= this.limit) {
      this.size -= this.chunks.shift()?.length ?? 0;
    }
  }
  /** The last `limit` bytes, with `after` (text not pushed yet) counted as their end. */
  text(after = ''): string | undefined {
    const all = Buffer.concat([...this.chunks, Buffer.from(after)]);
    // A cut through a multi-byte character decodes as U+FFFD at the start: drop it.
    const text = all
      .subarray(Math.max(0, all.length - this.limit))
      .toString('utf8')
      .replace(/^\uFFFD+/, '')
      .trim();
    return text === '' ? undefined : text;
  }
}

/**
 * The last `limit` bytes of a stream with the given values (and secret shapes) masked: the whole
 * stream is masked, then cut, so no fragment of a secret is left at the cut.
 */
export class MaskedTail {
  private readonly decoder = new StringDecoder('utf8');
  private readonly masker: SecretStreamMasker;
  private readonly tail: TailBuffer;
  constructor(limit: number, knownValues: readonly string[]) {
    this.masker = new SecretStreamMasker(knownValues);
    this.tail = new TailBuffer(limit);
  }
  push(chunk: Buffer | string): void {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    this.tail.push(this.masker.push(text));
  }
  /** The masked tail so far; undefined when the stream held nothing but whitespace. */
  text(): string | undefined {
    return this.tail.text(this.masker.pendingView());
  }
}
