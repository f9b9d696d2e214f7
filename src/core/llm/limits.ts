/**
 * Flow control around a provider: a concurrency limit, a requests-per-minute limit, a per-call
 * timeout, cancellation, and retries with backoff for transport faults (429, 5xx, timeouts,
 * network). Retries here are separate from the structured layer's re-asks of bad content.
 */
import { LlmHttpError, LlmNetworkError, LlmOutageError, LlmQuotaError, LlmTimeoutError, LlmStopError } from './errors';
import type { LlmStats, RetryCause } from './stats';
import type { ChatProvider, ChatReply, ChatRequest, Usage } from './types';
import type { SharedQuota } from './sharedQuota';
import { abortReason, systemClock, type Clock } from './clock';
import { DEFAULT_CONCURRENCY, DEFAULT_REQUEST_TIMEOUT_SECONDS } from '../workspace/defaults';

export { abortReason, systemClock, type Clock } from './clock';

/** A promise that only ever rejects, when `signal` aborts; for racing work that ignores signals. */
function rejectOnAbort(signal: AbortSignal): { promise: Promise<never>; dispose: () => void } {
  let onAbort = (): void => undefined;
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortReason(signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  promise.catch(() => undefined); // the race consumes it; never an unhandled rejection
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}

/** A deterministic PRNG in [0, 1) (mulberry32), for reproducible jitter in tests. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A counting semaphore: waiters by priority (higher first), in arrival order among equals. */
export class Semaphore {
  private active = 0;
  private readonly queue: Array<{ grant: () => void; priority: number }> = [];

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError(`concurrency must be >= 1, got ${limit}`);
  }

  /** Slots in use. */
  get inUse(): number {
    return this.active;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Waits for a slot; returns its release function (idempotent). Rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal, priority = 0): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const makeRelease = (): (() => void) => {
      let released = false;
      return () => {
        if (released) return;
        released = true;
        this.active--;
        const next = this.queue.shift();
        if (next) next.grant();
      };
    };
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve(makeRelease());
    }
    return new Promise((resolve, reject) => {
      const entry = {
        priority,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.active++;
          resolve(makeRelease());
        },
      };
      const onAbort = (): void => {
        const i = this.queue.indexOf(entry);
        if (i >= 0) this.queue.splice(i, 1);
        reject(abortReason(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      // Behind every waiter of the same or a higher priority (the queue stays sorted).
      let at = this.queue.length;
      while (at > 0 && this.queue[at - 1]!.priority < priority) at--;
      this.queue.splice(at, 0, entry);
    });
  }
}

/**
 * Allows at most `limit` starts in any sliding window of `windowMs` (60 s for RPM). A sliding
 * log rather than a token bucket: it never bursts above what the provider's own per-minute
 * counter would allow.
 */
export class RateLimiter {
  private readonly starts: number[] = [];

  constructor(
    readonly limit: number,
    readonly windowMs: number = 60_000,
    private readonly clock: Clock = systemClock,
  ) {
    if (!(limit >= 1)) throw new RangeError(`rate limit must be >= 1, got ${limit}`);
  }

  /** Waits until a start is allowed and records it. Rejects if `signal` aborts first. */
  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (signal?.aborted) throw abortReason(signal);
      const now = this.clock.now();
      while (this.starts.length > 0 && (this.starts[0] ?? 0) <= now - this.windowMs) this.starts.shift();
      if (this.starts.length < this.limit) {
        this.starts.push(now);
        return;
      }
      const oldest = this.starts[0] ?? now;
      await this.clock.sleep(Math.max(1, oldest + this.windowMs - now), signal);
    }
  }
}

/** How transport faults are retried. */
export interface RetryPolicy {
  /** Retries after the first attempt (so up to `maxRetries + 1` requests). Default 5. */
  maxRetries: number;
  /** First backoff delay; doubles each retry. Default 500 ms. */
  baseDelayMs: number;
  /** Backoff ceiling. Default 30 s. */
  maxDelayMs: number;
  /** A server-requested wait longer than this is not waited for: the call fails. Default 120 s. */
  maxRetryAfterMs: number;
  /**
   * After this many calls in a row failed for transient reasons with every retry spent, the
   * endpoint is taken to be down and every later call fails at once (`LlmOutageError`). Default 8:
   * two waves at the default concurrency; a run whose items fail at random, even 30% of them,
   * practically never loses 8 in a row.
   */
  outageCalls: number;
  /**
   * Of those retries, how many may follow a timeout. Default 1: an endpoint that let one whole
   * timeout pass without a word rarely answers the next, and each wait costs the full timeout,
   * so a hanging endpoint reaches the outage stop after `outageCalls` calls of two waits each
   * rather than six (24 minutes at the old fixed 120 s).
   */
  maxTimeoutRetries: number;
  /**
   * After this many calls in a row timed out (their timeout retry spent), the endpoint is down,
   * as with `outageCalls`. Default 3: each such call has cost two whole timeouts (4 minutes at
   * the default 120 s), so eight of them one after another would keep a run waiting over half an
   * hour on an endpoint that answers nothing.
   */
  outageTimeouts: number;
}

/** Defaults of {@link RetryPolicy}. */
export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
  outageCalls: 8,
  maxTimeoutRetries: 1,
  outageTimeouts: 3,
};

/**
 * Delay before retry number `retry` (0-based): exponential with "equal jitter" (half fixed, half
 * random) so concurrent callers that failed together do not return together.
 */
export function backoffDelayMs(retry: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

/** The retry cause of an error, or undefined when it must not be retried. */
export function retryCause(e: unknown): RetryCause | undefined {
  if (e instanceof LlmTimeoutError) return 'timeout';
  if (e instanceof LlmNetworkError) return 'network';
  if (e instanceof LlmHttpError && e.transient && !e.fatal) return e.status === 429 ? 'rate-limit' : 'server';
  return undefined;
}

/**
 * The run-stopping form of a 429 that no retry within the policy can get past: the quota is used
 * up (daily or billing), or the server asks for a longer wait than `maxRetryAfterMs`.
 */
export function quotaStop(e: unknown, policy: RetryPolicy): LlmQuotaError | undefined {
  if (!(e instanceof LlmHttpError) || e.status !== 429) return undefined;
  const tooLong = e.retryAfterMs !== undefined && e.retryAfterMs > policy.maxRetryAfterMs;
  if (!e.quotaExhausted && !tooLong) return undefined;
  const wait = e.retryAfterMs !== undefined ? ` and asks to wait ${Math.ceil(e.retryAfterMs / 1000)} s` : '';
  const why = e.quotaExhausted
    ? 'the quota is exhausted'
    : `the server asks for a longer wait than the ${Math.round(policy.maxRetryAfterMs / 1000)} s a run waits`;
  return new LlmQuotaError(`LLM quota: ${why} (HTTP 429${wait}): ${e.message}`, e.retryAfterMs);
}

/**
 * Model calls a failed attempt took: none when the provider stopped the run without asking the
 * model (a batch run left pending), what an HTTP answer says (a batch item its job never ran took
 * none), else one (sent, whatever became of it).
 */
function callsOf(e: unknown): number {
  if (e instanceof LlmStopError) return 0;
  if (e instanceof LlmHttpError) return e.modelCalls;
  return 1;
}

/** Limits for one provider (or several sharing a `CallGuard`). */
export interface CallLimits {
  /** Calls in flight at once. Default 4. */
  concurrency?: number;
  /** Requests started per `rpmWindowMs`; unlimited when absent. */
  rpm?: number;
  /** The RPM window; 60 000 unless a test shortens it. */
  rpmWindowMs?: number;
  /** Per-attempt timeout. Default 120 s. */
  timeoutMs?: number;
  /** Retry policy overrides. */
  retry?: Partial<RetryPolicy>;
  /**
   * The account's window persisted for every command and process on it (`sharedQuota.ts`): when
   * set, it replaces the in-process rate limiter and a 429 is written into it.
   */
  sharedQuota?: SharedQuota;
}

/** Default per-attempt timeout (`DEFAULT_REQUEST_TIMEOUT_SECONDS`). */
export const DEFAULT_TIMEOUT_MS = DEFAULT_REQUEST_TIMEOUT_SECONDS * 1000;

/**
 * Runs provider calls under the limits. Share one guard between the `StructuredLlm`s that hit
 * the same account (e.g. generator and judge) so they share its concurrency and rate budget.
 */
export class CallGuard {
  private readonly semaphore: Semaphore;
  private readonly rateLimiter: RateLimiter | undefined;
  private readonly sharedQuota: SharedQuota | undefined;
  private readonly rpm: number | undefined;
  private readonly rpmWindowMs: number;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  /** After a 429 with a server-requested wait, nobody starts before this time. */
  private cooldownUntil = 0;
  /** Set by the first quota stop or outage: every later call fails with it without a request. */
  private stopError: LlmStopError | undefined;
  /** Calls that failed in a row with their retries spent (reset by any success). */
  private failedInARow = 0;
  /** Of those, the calls that ended in a timeout, in a row (reset by any success). */
  private timedOutInARow = 0;

  constructor(limits: CallLimits = {}, deps: { clock?: Clock; random?: () => number } = {}) {
    this.clock = deps.clock ?? systemClock;
    this.random = deps.random ?? Math.random;
    this.semaphore = new Semaphore(limits.concurrency ?? DEFAULT_CONCURRENCY);
    this.sharedQuota = limits.sharedQuota;
    this.rpm = limits.rpm;
    this.rpmWindowMs = limits.rpmWindowMs ?? 60_000;
    this.rateLimiter = limits.rpm !== undefined && !this.sharedQuota ? new RateLimiter(limits.rpm, limits.rpmWindowMs, this.clock) : undefined;
    this.policy = { ...DEFAULT_RETRY, ...limits.retry };
    this.timeoutMs = limits.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /**
   * One logical call: waits for a slot and the rate budget, then tries up to `maxRetries + 1`
   * times. Throws the last error when retries run out or the error is not retryable, and the
   * caller's abort reason on cancellation. After a quota stop ({@link quotaStop}) every call
   * throws that `LlmQuotaError` without sending anything: the quota is the account's.
   */
  async call(provider: ChatProvider, request: ChatRequest, stats?: LlmStats): Promise<ChatReply> {
    return this.run(provider.model, request.signal, (signal) => provider.complete({ ...request, signal }), stats, request.priority);
  }

  /**
   * Any one request under the limits, retries, timeout and stops of {@link call}: `send` makes
   * one attempt with the signal it is given (e.g. a tool-calling turn of an agent). `priority`:
   * see {@link ChatRequest.priority}.
   */
  async run<R extends { usage?: Usage; modelCalls?: number }>(
    model: string,
    signal: AbortSignal,
    send: (signal: AbortSignal) => Promise<R>,
    stats?: LlmStats,
    priority = 0,
  ): Promise<R> {
    const release = await this.semaphore.acquire(signal, priority);
    let timeouts = 0;
    try {
      for (let retry = 0; ; retry++) {
        const wait = this.cooldownUntil - this.clock.now();
        if (wait > 0) await this.clock.sleep(wait, signal);
        await this.rateLimiter?.acquire(signal);
        await this.sharedQuota?.acquire(this.quotaLimit(), signal);
        if (this.stopError) throw this.stopError;
        try {
          const reply = await this.attempt(signal, send);
          this.failedInARow = 0;
          this.timedOutInARow = 0;
          // Counted once the provider says what the attempt was: a reply it kept from an earlier
          // call (the batch journal) is no call, and its tokens were spent then.
          const calls = reply.modelCalls ?? 1;
          stats?.recordRequest(model, calls);
          if (calls > 0) stats?.recordUsage(model, reply.usage);
          return reply;
        } catch (e) {
          stats?.recordRequest(model, callsOf(e));
          if (signal.aborted) throw abortReason(signal);
          const quota = quotaStop(e, this.policy);
          if (quota) throw (this.stopError ??= quota);
          const cause = retryCause(e);
          if (cause === undefined) throw e;
          // The provider's count, not ours, is the quota: every other command on it learns too.
          if (cause === 'rate-limit') await this.sharedQuota?.rateLimited(e instanceof LlmHttpError ? e.retryAfterMs : undefined, this.quotaLimit());
          if (cause === 'timeout' && ++timeouts > this.policy.maxTimeoutRetries) throw this.spent(e, retry + 1);
          const delay = retry >= this.policy.maxRetries ? undefined : this.retryDelay(e, retry);
          if (delay === undefined) throw this.spent(e, retry + 1);
          stats?.recordRetry(cause);
          await this.clock.sleep(delay, signal);
        }
      }
    } finally {
      release();
    }
  }

  /** This guard's rate limit as the shared quota takes it. */
  private quotaLimit(): { limit?: number; windowMs: number } {
    return { ...(this.rpm !== undefined ? { limit: this.rpm } : {}), windowMs: this.rpmWindowMs };
  }

  /** A transient failure that outlived its retries: itself, or the outage it completes. */
  private spent(e: unknown, attempts: number): unknown {
    if (this.stopError) return this.stopError;
    const timedOut = e instanceof LlmTimeoutError && ++this.timedOutInARow >= this.policy.outageTimeouts;
    if (++this.failedInARow < this.policy.outageCalls && !timedOut) return e;
    const last = e instanceof Error ? e.message : String(e);
    this.stopError = new LlmOutageError(
      `LLM endpoint down: ${this.failedInARow} calls in a row failed, the last after ${attempts} attempt${attempts === 1 ? '' : 's'} (${last})`,
    );
    return this.stopError;
  }

  /** The wait before the next retry, or undefined when the server asks for more than we accept. */
  private retryDelay(e: unknown, retry: number): number | undefined {
    const asked = e instanceof LlmHttpError ? e.retryAfterMs : undefined;
    if (asked === undefined) return backoffDelayMs(retry, this.policy, this.random);
    if (asked > this.policy.maxRetryAfterMs) return undefined;
    // Honour the server's wait exactly (plus a little jitter so a crowd does not return at once)
    // and hold every other caller back too: the quota is shared.
    const delay = asked + Math.round(Math.min(250, asked * 0.1) * this.random());
    if (e instanceof LlmHttpError && e.status === 429) {
      this.cooldownUntil = Math.max(this.cooldownUntil, this.clock.now() + asked);
    }
    return delay;
  }

  /** One attempt with the per-call timeout; a provider that ignores its signal is raced anyway. */
  private async attempt<R>(outer: AbortSignal, send: (signal: AbortSignal) => Promise<R>): Promise<R> {
    const controller = new AbortController();
    const timerStop = new AbortController();
    let timedOut = false;
    const onOuterAbort = (): void => controller.abort(abortReason(outer));
    outer.addEventListener('abort', onOuterAbort, { once: true });
    this.clock.sleep(this.timeoutMs, timerStop.signal).then(
      () => {
        timedOut = true;
        controller.abort(new LlmTimeoutError(this.timeoutMs));
      },
      () => undefined,
    );
    const race = rejectOnAbort(controller.signal);
    try {
      return await Promise.race([send(controller.signal), race.promise]);
    } catch (e) {
      if (outer.aborted) throw abortReason(outer);
      if (timedOut) throw new LlmTimeoutError(this.timeoutMs);
      throw e;
    } finally {
      race.dispose();
      timerStop.abort();
      outer.removeEventListener('abort', onOuterAbort);
    }
  }
}
