/**
 * Building the structured LLM client for a role, the one recipe used by the CLI, the editor and the
 * pipeline runner: a disk cache under `<cacheDir>/llm`, fresh statistics, the concurrency and rate
 * limits with the rate-limit window's margin, and the role's temperature.
 */
import { join, resolve } from 'node:path';
import { DiskCache } from './cache';
import { CallGuard, type CallLimits } from './limits';
import { sharedQuotaFor } from './sharedQuota';
import { LlmStats } from './stats';
import { StructuredLlm } from './structured';
import type { ChatProvider } from './types';
import { DEFAULT_CONCURRENCY, RPM_WINDOW_MS } from '../workspace/defaults';
import { LLM_CACHE_DIR } from '../workspace/layout';

/** What the client is for: generation samples at the provider's temperature, a judge at 0 (the paper's setting). */
export type LlmRole = 'generate' | 'judge';

export interface LlmClientOptions {
  chat: ChatProvider;
  role: LlmRole;
  /** Folder of the cache (the reply cache goes in its `llm/` subfolder). */
  cacheDir: string;
  concurrency?: number;
  rpm?: number;
  /** Limits besides concurrency/rpm (timeouts, retry policy); concurrency and rpm above win. */
  limits?: CallLimits;
  stats?: LlmStats;
  /**
   * A guard shared with other clients (a corpus run: every spec's client on one account), so
   * their calls share one concurrency and rate budget; concurrency, rpm and limits above are then
   * the guard's business (build it with {@link createCallGuard}).
   */
  guard?: CallGuard;
  /** Ask again, as a new sample, for items an earlier run discarded (`--retry-discarded`); default: a cached discard stays one. */
  retryDiscarded?: boolean;
}

/**
 * The limits of a guard: concurrency and rpm over `limits`, with the rate-limit window's margin,
 * and the account's window shared through `<cacheDir>/quota/` when the provider names its account
 * (so `generate` then `judge`, or the editor and the CLI at once, share one budget). The batch
 * engine's provider names no account: a batch API has a quota of its own.
 */
function callLimitsOf(options: Pick<LlmClientOptions, 'concurrency' | 'rpm' | 'limits'> & { chat?: ChatProvider; cacheDir?: string }): CallLimits {
  const scope = options.chat?.quotaScope;
  return {
    ...(scope && options.cacheDir !== undefined && !options.limits?.sharedQuota ? { sharedQuota: sharedQuotaFor(resolve(options.cacheDir), scope) } : {}),
    ...options.limits,
    concurrency: options.concurrency ?? options.limits?.concurrency ?? DEFAULT_CONCURRENCY,
    ...(options.rpm !== undefined ? { rpm: options.rpm } : {}),
    // A request that leaves at the very edge of our window arrives inside the server's; a second
    // of margin costs under 2% of throughput and saves the 429 round trips.
    rpmWindowMs: options.limits?.rpmWindowMs ?? RPM_WINDOW_MS,
  };
}

/** A guard with the same limits a client built by {@link createLlmClient} would have, for several clients to share. */
export function createCallGuard(options: Pick<LlmClientOptions, 'concurrency' | 'rpm' | 'limits'> & { chat?: ChatProvider; cacheDir?: string }): CallGuard {
  return new CallGuard(callLimitsOf(options));
}

/** The client and the absolute cache folder it uses. */
export function createLlmClient(options: LlmClientOptions): { llm: StructuredLlm; cacheDir: string } {
  const cacheDir = resolve(options.cacheDir);
  const llm = new StructuredLlm({
    provider: options.chat,
    cache: new DiskCache(join(cacheDir, LLM_CACHE_DIR)),
    stats: options.stats ?? new LlmStats(),
    ...(options.guard ? { guard: options.guard } : { limits: callLimitsOf({ ...options, cacheDir }) }),
    ...(options.role === 'judge' ? { defaultTemperature: 0 } : {}),
    ...(options.retryDiscarded ? { retryDiscarded: true } : {}),
  });
  return { llm, cacheDir };
}
