/**
 * Masking a server's stderr as a stream (before it is cut to its tail), against masking the same
 * text in one call (the least any masking of the whole stream must do): 10 MB of log lines in
 * 64 KB chunks, three known values, in one process.
 */
import { maskSecretText } from '../src/core/spec/maskSecrets';
import { MaskedTail } from '../src/core/spec/live/tailBuffer';
import type { BenchResult } from './foundation';

function timeOf(make: () => { push(chunk: Buffer): void; text(): string | undefined }, chunk: Buffer, count: number): number {
  const start = process.hrtime.bigint();
  const tail = make();
  for (let i = 0; i < count; i++) tail.push(chunk);
  tail.text();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Median of 5 runs each; the ratio is streamed ÷ at once. */
export function runMaskingBench(): BenchResult[] {
  const line = 'INFO 2026-12-06 request handled in 12ms path=/api/v1/items user=alice status=200\n';
  const chunk = Buffer.from(line.repeat(Math.ceil(65_536 / line.length)));
  const count = Math.ceil(10e6 / chunk.length);
  const known = ['tok-1234567890abcdef', 'acme-corp-secret', 'x'.repeat(64)];
  const median = (fn: () => number) => {
    const times = Array.from({ length: 5 }, fn).sort((a, b) => a - b);
    return times[2]!;
  };
  const whole = chunk.toString().repeat(count);
  const once = median(() => {
    const start = process.hrtime.bigint();
    maskSecretText(whole, known);
    return Number(process.hrtime.bigint() - start) / 1e6;
  });
  const masked = median(() => timeOf(() => new MaskedTail(4096, known), chunk, count));
  return [
    {
      name: `stderr tail of ${((count * chunk.length) / 1e6).toFixed(1)} MB masked as a stream (3 known values)`,
      value: masked,
      unit: 'ms',
      baseline: once,
      ratio: masked / once,
      note: 'baseline: maskSecretText of the whole 10 MB text in one call',
    },
  ];
}
