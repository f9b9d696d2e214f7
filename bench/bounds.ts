/**
 * Lower bounds for runs under a provider's rate limit, the one home of the formulas the LLM benches
 * and docs/benchmarks.md use:
 * - the sliding-window floor: N requests at R per window cannot all have started before
 *   ⌊(N−1)/R⌋ windows have passed (a window's worth go at once, then each further R waits for the
 *   window to slide), and the last one still takes a latency;
 * - the dependency chain measured from a run's own request times (see {@link measuredChain}): no
 *   scheduler finishes before the longest chain of requests that each needed the one before.
 * A run's bound is the larger of the two.
 */

/** ⌊(calls−1)/rpm⌋ windows plus one latency (ms); 0 calls, 0. */
export function windowFloorMs(calls: number, rpm: number, windowMs: number, latencyMs: number): number {
  if (calls <= 0) return 0;
  return Math.floor((calls - 1) / rpm) * windowMs + latencyMs;
}

/** A request as the fake server saw it: when it arrived and when its answer left. */
export interface TimedRequest {
  receivedAt: number;
  answeredAt?: number;
}

/**
 * The longest dependency chain of a run, from its request times: from the request that finished
 * last, step back to the request that finished last before it started (the one whose answer it
 * most plausibly waited for), and so on. Measure it on a run without rate limit or concurrency
 * cap, where a request starts as soon as its inputs exist; `ms` is the time the chain's requests
 * themselves took (their sum), `length` how many there are.
 */
export function measuredChain(requests: readonly TimedRequest[]): { length: number; ms: number } {
  const done = requests.filter((r): r is Required<TimedRequest> => r.answeredAt !== undefined).sort((a, b) => a.answeredAt - b.answeredAt);
  let at = done.at(-1);
  let length = 0;
  let ms = 0;
  while (at) {
    length++;
    ms += at.answeredAt - at.receivedAt;
    const start = at.receivedAt;
    // The last answer that left before this request arrived (binary search over answer times).
    let lo = 0;
    let hi = done.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((done[mid]?.answeredAt ?? Infinity) <= start) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    at = found >= 0 ? done[found] : undefined;
  }
  return { length, ms };
}

/** The mean of some numbers (0 for none). */
export function mean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

/**
 * The same floor for a client that keeps at most `concurrency` requests in flight: the requests of
 * the last window all start after ⌊(N−1)/R⌋ windows (request j waits for request j−R's window to
 * pass) and go `concurrency` at a time, so they add ⌈k/concurrency⌉ latencies, k being how many
 * are left for that window. Not a bound on every scheduler (more concurrency beats it), but the
 * one the run's own `--concurrency` is held to.
 */
export function windowFloorAtConcurrencyMs(calls: number, rpm: number, windowMs: number, latencyMs: number, concurrency: number): number {
  if (calls <= 0) return 0;
  const last = ((calls - 1) % rpm) + 1;
  return Math.floor((calls - 1) / rpm) * windowMs + Math.ceil(last / concurrency) * latencyMs;
}
