/**
 * Typed failures of a single provider call. Providers translate their SDK's errors into these so
 * the retry policy (limits.ts) and the structured layer (structured.ts) can decide what is
 * transient, what discards one item, and what must stop the whole run.
 */
import { maskUrlCredentials } from '../spec/maskSecrets';

/** An HTTP error answer from the model server. */
export class LlmHttpError extends Error {
  override readonly name = 'LlmHttpError';
  /** HTTP status code. */
  readonly status: number;
  /** Server-requested wait (from `Retry-After`, `retry-after-ms` or a Google `RetryInfo`), in ms. */
  readonly retryAfterMs: number | undefined;
  /** Worth retrying after a wait: 408, 409, 425, 429 and 5xx. */
  readonly transient: boolean;
  /**
   * No item can succeed while this lasts (bad key, no permission, unknown model or endpoint):
   * the run stops instead of discarding every item in turn.
   */
  readonly fatal: boolean;
  /**
   * A 429 that says the quota itself is used up (Gemini's per-day quotas, OpenAI's
   * `insufficient_quota`), not that requests came too fast: waiting minutes will not help.
   */
  readonly quotaExhausted: boolean;
  /**
   * Model calls this answer took (the run's accounting counts them): 1, or 0 for a batch item its
   * job never ran (the provider answered nothing), 2 for a failed batch item whose synchronous
   * retry failed too.
   */
  readonly modelCalls: number;

  constructor(init: { status: number; message: string; retryAfterMs?: number; fatal?: boolean; quotaExhausted?: boolean; modelCalls?: number }) {
    super(init.message);
    this.modelCalls = init.modelCalls ?? 1;
    this.status = init.status;
    this.retryAfterMs = init.retryAfterMs;
    this.quotaExhausted = init.status === 429 && (init.quotaExhausted ?? false);
    this.transient = isTransientStatus(init.status);
    this.fatal = init.fatal ?? (init.status === 401 || init.status === 403 || init.status === 404);
  }
}

/** The call did not finish within the per-call timeout. Transient. */
export class LlmTimeoutError extends Error {
  override readonly name = 'LlmTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`the endpoint did not answer within ${timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`}`);
  }
}

/**
 * The server could not be reached (refused, reset, DNS). Retried; when retries run out it is
 * fatal, because an unreachable endpoint is not a property of one item.
 */
export class LlmNetworkError extends Error {
  override readonly name = 'LlmNetworkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * The provider cannot serve this run now, and every further item would meet the same answer: the
 * run stops instead of burning through them. Finished replies are cached, so re-running later
 * resumes. See {@link LlmQuotaError} and {@link LlmOutageError}.
 */
export class LlmStopError extends Error {
  override readonly name: string = 'LlmStopError';
  /** When re-running makes sense, for messages ("re-run once …"). */
  get resumeWhen(): string {
    return 'the provider answers again';
  }
}

/**
 * The provider's quota is exhausted for longer than a run may wait: a 429 that asks for a wait
 * beyond the retry policy's `maxRetryAfterMs`, or that names a daily (or billing) quota.
 */
export class LlmQuotaError extends LlmStopError {
  override readonly name = 'LlmQuotaError';
  override get resumeWhen(): string {
    return 'the quota resets';
  }
  constructor(
    message: string,
    /** The wait the server asked for, when it said. */
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
  }
}

/**
 * The endpoint is down: the last calls all failed with transient errors (429, 5xx, timeouts)
 * after every retry. Going on would repeat that for every item of the run.
 */
export class LlmOutageError extends LlmStopError {
  override readonly name = 'LlmOutageError';
  override get resumeWhen(): string {
    return 'the endpoint answers again';
  }
}

/** Whether an error body names a quota that resets daily or needs billing (not a per-minute limit). */
export function namesExhaustedQuota(text: string): boolean {
  return /PerDay|per[ _-]?day|daily|insufficient_quota/i.test(text);
}

/** Wrong or missing configuration (no API key, no model); raised before any call is made. */
export class LlmConfigError extends Error {
  override readonly name = 'LlmConfigError';
}

/** Statuses a later attempt may get past. */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 425 || status === 429 || status >= 500;
}

/** Whether `e` is a cancellation (DOMException `AbortError`, an SDK abort error, or `signal.reason`). */
export function isAbortError(e: unknown): boolean {
  if (e === null || typeof e !== 'object') return false;
  const name = (e as { name?: unknown }).name;
  return name === 'AbortError' || name === 'APIUserAbortError';
}

/**
 * Parses a `Retry-After` header: delta-seconds or an HTTP date. Returns ms from `nowMs`, or
 * undefined when absent or unparseable. A date in the past means "now" (0).
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/**
 * Reads the wait a Google API error body asks for (`google.rpc.RetryInfo.retryDelay`, e.g.
 * `"37s"` or `"1.5s"`); Gemini sends it in the body rather than as a header.
 */
export function googleRetryDelayMs(body: unknown): number | undefined {
  const details = (body as { error?: { details?: unknown } } | null)?.error?.details;
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    const delay = (d as { retryDelay?: unknown } | null)?.retryDelay;
    if (typeof delay === 'string') {
      const m = /^(\d+(?:\.\d+)?)s$/.exec(delay.trim());
      if (m?.[1] !== undefined) return Math.round(Number(m[1]) * 1000);
    }
  }
  return undefined;
}

/**
 * Replaces every occurrence of the given secrets, so server echoes never leak a key into
 * messages; credentials in any URL the text quotes (user info, `?key=…`) are masked too.
 */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('***');
  return maskUrlCredentials(out);
}

/** Shortens server text for error messages (bodies can be large HTML pages). */
export function clip(text: string, max = 500): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** The useful part of a fetch failure (`fetch failed` hides the errno in `cause`). */
export function causeText(e: unknown): string {
  const cause = (e as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return e instanceof Error ? e.message : String(e);
}
