/**
 * A provider's per-minute quota in front of a fake LLM server: at most `limit` accepted requests
 * in any sliding `windowMs`; beyond that a 429 with `Retry-After` (the seconds until the oldest
 * accepted request leaves the window, rounded up to whole seconds as the providers send it). Rejected
 * requests are not counted, as the providers do. Shared by the quota tests and the benches.
 */
import type { FakeReply, FakeRequest } from './fakeLlmServer';

export interface QuotaGate {
  /** A 429 reply when the request is over the quota (and counts it), else undefined (and records it as accepted). */
  check(request: Pick<FakeRequest, 'receivedAt'>): FakeReply | undefined;
  /** Requests answered 429. */
  readonly rejected: number;
  /** Arrival times of the accepted requests. */
  readonly accepted: readonly number[];
}

export function quotaGate(options: { limit: number; windowMs: number }): QuotaGate {
  const window: number[] = [];
  const accepted: number[] = [];
  let rejected = 0;
  return {
    check(request) {
      const now = request.receivedAt;
      while (window.length && (window[0] ?? 0) <= now - options.windowMs) window.shift();
      if (window.length >= options.limit) {
        rejected++;
        const waitMs = (window[0] ?? now) + options.windowMs - now;
        return { status: 429, retryAfter: Math.max(1, Math.ceil(waitMs / 1000)), message: 'Resource has been exhausted (e.g. check quota).' };
      }
      window.push(now);
      accepted.push(now);
      return undefined;
    },
    get rejected() {
      return rejected;
    },
    accepted,
  };
}
