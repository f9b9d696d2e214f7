/**
 * Structured generation: a zod schema in, a validated value out. Bad replies (not JSON, schema
 * violations, failed semantic checks) are re-asked with the errors, at most `maxAttempts` (3)
 * replies in all, then discarded and counted. Valid replies and content discards go to the
 * cache the moment they are known, and so does every reply that is about to be re-asked (keyed by
 * the conversation so far): a run killed between re-asks replays those replies on resume instead
 * of paying for them again. A request with `cacheRejected: false` (the judge's) caches only valid
 * replies and ignores discards stored by earlier versions.
 */
import type { z } from 'zod';
import { cacheKey, canonicalJson, conversationKey, sha256, type CacheEntry, type CacheKeyParts, type ReplyCache } from './cache';
import { clip, isAbortError, LlmHttpError, LlmTimeoutError } from './errors';
import { zodToJsonSchema } from './jsonSchema';
import { abortReason, CallGuard, systemClock, type CallLimits, type Clock } from './limits';
import { LlmStats } from './stats';
import type { ChatMessage, ChatProvider, DiscardReason, StructuredRequest, StructuredResult, Usage } from './types';
import { safeParseKeepingKeys } from '../util/ownKeys';

/** Default sampling temperature for generation (the paper's setting). */
export const DEFAULT_TEMPERATURE = 0.7;
/** Replies per item before it is discarded (the paper's 3 tries). */
export const DEFAULT_MAX_ATTEMPTS = 3;

/** How a `StructuredLlm` is put together. */
export interface StructuredLlmOptions {
  /** The backend; raw, one attempt per call. */
  provider: ChatProvider;
  /** Reply cache; without one every call goes to the provider. */
  cache?: ReplyCache;
  /** Run accounting; share one across the run. A fresh one when absent. */
  stats?: LlmStats;
  /** Shared limits (e.g. generator and judge on one account); built from `limits` when absent. */
  guard?: CallGuard;
  /** Limits for a guard of its own (ignored when `guard` is given). */
  limits?: CallLimits;
  /** Clock for timing and for the guard built from `limits`. */
  clock?: Clock;
  /** Jitter source for the guard built from `limits`. */
  random?: () => number;
  /** Temperature when a request names none. Default 0.7. */
  defaultTemperature?: number;
  /** Replies per item before discarding. Default 3. */
  maxAttempts?: number;
  /**
   * Content discards are cached so an unchanged re-run makes no calls; set this to ask again
   * for items a previous run discarded.
   */
  retryDiscarded?: boolean;
}

type Check<T> = { ok: true; value: T; raw: unknown } | { ok: false; reason: 'invalid-json' | 'schema' | 'semantic'; errors: string[] };

/** The validated-generation front of the LLM layer. */
export class StructuredLlm {
  readonly provider: ChatProvider;
  readonly stats: LlmStats;
  readonly guard: CallGuard;
  private readonly cache: ReplyCache | undefined;
  private readonly clock: Clock;
  private readonly defaultTemperature: number;
  private readonly maxAttempts: number;
  private readonly retryDiscarded: boolean;
  /** Identical requests in flight share one call. */
  private readonly inFlight = new Map<string, Promise<StructuredResult<unknown>>>();

  constructor(options: StructuredLlmOptions) {
    this.provider = options.provider;
    this.cache = options.cache;
    this.stats = options.stats ?? new LlmStats();
    this.clock = options.clock ?? systemClock;
    this.guard = options.guard ?? new CallGuard(options.limits, { clock: this.clock, random: options.random });
    this.defaultTemperature = options.defaultTemperature ?? DEFAULT_TEMPERATURE;
    this.maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.retryDiscarded = options.retryDiscarded ?? false;
  }

  /** The cache key parts of a request (also its provenance). */
  keyParts<T>(request: StructuredRequest<T>): CacheKeyParts {
    return {
      stage: request.stage,
      promptVersion: request.promptVersion,
      provider: this.provider.id,
      model: this.provider.model,
      temperature: request.temperature ?? this.defaultTemperature,
      sampleIndex: request.sampleIndex ?? 0,
      inputs: {
        caller: request.cacheInputs ?? null,
        prompt: sha256(`${request.system ?? ''}\u0000${request.prompt}`),
        schema: sha256(canonicalJson(request.jsonSchema ?? zodToJsonSchema(request.schema))),
      },
    };
  }

  /** The cache key of a request. */
  keyOf<T>(request: StructuredRequest<T>): string {
    return cacheKey(this.keyParts(request));
  }

  /**
   * Generates one value. Resolves with `{ok: true}` or a counted discard `{ok: false}`; rejects
   * only on cancellation (the signal's reason) and on faults no item can get past (bad key,
   * unknown model, unreachable server: `LlmHttpError` with `fatal`, `LlmNetworkError`).
   */
  async generate<T>(request: StructuredRequest<T>, signal: AbortSignal = new AbortController().signal): Promise<StructuredResult<T>> {
    if (signal.aborted) throw abortReason(signal);
    const parts = this.keyParts(request);
    const key = cacheKey(parts);
    const shared = this.inFlight.get(key) as Promise<StructuredResult<T>> | undefined;
    if (shared) {
      try {
        return await shared;
      } catch (e) {
        // The first caller's cancellation is not ours: fall through and run it ourselves.
        if (!isAbortError(e) || signal.aborted) throw e;
      }
    }
    const run = this.run(request, parts, key, signal);
    this.inFlight.set(key, run);
    try {
      return await run;
    } finally {
      if (this.inFlight.get(key) === run) this.inFlight.delete(key);
    }
  }

  private async run<T>(request: StructuredRequest<T>, parts: CacheKeyParts, key: string, signal: AbortSignal): Promise<StructuredResult<T>> {
    const started = this.clock.now();
    const elapsed = (): number => this.clock.now() - started;

    const hit = await this.cache?.get(key);
    if (hit?.ok) {
      const checked = await this.check(request, hit.value);
      if (checked.ok) {
        this.stats.recordItem(request.stage, { ok: true }, true, hit.usage);
        return { ok: true, value: checked.value, usage: hit.usage, attempts: hit.attempts, cached: true, ms: elapsed(), key };
      }
      // The schema or the semantic checks changed since: the stored value no longer passes.
    } else if (hit && !this.retryDiscarded && request.cacheRejected !== false) {
      this.stats.recordItem(request.stage, { ok: false, reason: hit.reason }, true, hit.usage);
      return { ...hit, cached: true, ms: elapsed(), key };
    }

    const jsonSchema = request.jsonSchema ?? zodToJsonSchema(request.schema);
    const system = this.provider.supportsJsonSchema
      ? request.system
      : [request.system, schemaInstruction(jsonSchema)].filter((s) => s !== undefined && s !== '').join('\n\n');
    const messages: ChatMessage[] = [{ role: 'user', content: request.prompt }];
    const temperature = parts.temperature;
    const usage: Usage = { inputTokens: 0, outputTokens: 0 };

    let last: { reason: DiscardReason; errors: string[]; lastReply?: string } = { reason: 'invalid-json', errors: [] };
    let attempts = 0;
    // Asking a discarded item again must not replay the replies that got it discarded.
    const keepRejected = request.cacheRejected !== false;
    const retry = hit !== undefined && !hit.ok && this.retryDiscarded ? (hit.retries ?? 0) + 1 : undefined;
    const replay = this.cache !== undefined && keepRejected && retry === undefined;
    // The reply asked for: the item's, or for a discarded item asked again a new sample each time
    // (a provider that keeps replies, the batch journal, would otherwise hand back the discarded one).
    const sample = retry === undefined ? key : `${key}#retry-${retry}`;
    while (attempts < this.maxAttempts) {
      let text: string;
      let finishReason: string | undefined;
      const turnKey = conversationKey(key, messages);
      try {
        const stored = replay ? await this.cache?.getReply(turnKey) : undefined;
        const reply =
          stored ??
          (await this.guard.call(
            this.provider,
            // `sample`: a new sample of the same prompt (another sample index) gets a reply of its own, in batch mode too.
            {
              system,
              messages,
              jsonSchema: this.provider.supportsJsonSchema ? jsonSchema : undefined,
              temperature,
              sample,
              priority: request.priority,
              signal,
            },
            this.stats,
          ));
        if (stored) this.stats.recordReplayedReply();
        text = reply.text;
        finishReason = reply.finishReason;
        usage.inputTokens += reply.usage?.inputTokens ?? 0;
        usage.outputTokens += reply.usage?.outputTokens ?? 0;
      } catch (e) {
        if (signal.aborted) throw abortReason(signal);
        const transport = transportDiscard(e);
        if (!transport) throw e;
        // Not cached: a rerun should try again, the fault was not the content's.
        this.stats.recordItem(request.stage, { ok: false, reason: transport.reason }, false);
        return { ok: false, ...transport, attempts, usage, cached: false, ms: elapsed(), key };
      }
      attempts++;

      const parsed = parseJsonReply(text, finishReason);
      const checked: Check<T> = parsed.ok ? await this.check(request, parsed.value) : { ok: false, reason: 'invalid-json', errors: [parsed.error] };
      if (checked.ok) {
        const entry: CacheEntry = { ok: true, value: checked.raw, usage: { ...usage }, attempts };
        await this.cache?.set(key, entry, parts);
        this.stats.recordItem(request.stage, { ok: true }, false);
        return { ok: true, value: checked.value, usage, attempts, cached: false, ms: elapsed(), key };
      }
      last = { reason: checked.reason, errors: checked.errors, lastReply: clip(text, 2000) };
      if (attempts < this.maxAttempts) {
        // On disk before the re-ask leaves: a kill from here on costs no call already paid for.
        if (replay)
          await this.cache?.setReply(
            turnKey,
            { text, ...(finishReason !== undefined ? { finishReason } : {}), usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens } },
            parts,
          );
        this.stats.recordReask();
        messages.push({ role: 'assistant', content: text }, { role: 'user', content: reaskMessage(checked.errors) });
      }
    }

    const discard: CacheEntry = { ok: false, ...last, usage: { ...usage }, attempts, ...(retry !== undefined ? { retries: retry } : {}) };
    if (keepRejected) await this.cache?.set(key, discard, parts);
    this.stats.recordItem(request.stage, { ok: false, reason: last.reason }, false);
    return { ...discard, cached: false, ms: elapsed(), key };
  }

  /** Schema then semantic validation of a parsed reply. */
  private async check<T>(request: StructuredRequest<T>, raw: unknown): Promise<Check<T>> {
    // A reply's argument or output named `__proto__` is kept (zod drops it).
    const result = safeParseKeepingKeys(request.schema, raw);
    if (!result.success) return { ok: false, reason: 'schema', errors: formatIssues(result.error.issues) };
    if (request.validate) {
      const errors = await request.validate(result.data);
      if (errors.length > 0) return { ok: false, reason: 'semantic', errors: [...errors] };
    }
    return { ok: true, value: result.data, raw };
  }
}

/** Maps a transport failure that outlived its retries to a discard; undefined means rethrow. */
function transportDiscard(e: unknown): { reason: 'http' | 'timeout'; errors: string[] } | undefined {
  if (e instanceof LlmTimeoutError) return { reason: 'timeout', errors: [e.message] };
  if (e instanceof LlmHttpError && !e.fatal) return { reason: 'http', errors: [`HTTP ${e.status}: ${e.message}`] };
  return undefined;
}

/**
 * Parses a model reply as JSON, tolerating what models wrap JSON in: a code fence, or prose
 * around a single object or array.
 */
export function parseJsonReply(text: string, finishReason?: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  const why = finishReason && !/^(stop|STOP|end_turn)$/.test(finishReason) ? ` (finish reason: ${finishReason})` : '';
  if (trimmed === '') return { ok: false, error: `The reply was empty${why}.` };
  const fence = /^```[a-zA-Z0-9_-]*\s*\n?([\s\S]*?)\n?\s*```$/.exec(trimmed);
  const body = fence?.[1] !== undefined ? fence[1].trim() : trimmed;
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (e) {
    const start = body.search(/[[{]/);
    const end = Math.max(body.lastIndexOf('}'), body.lastIndexOf(']'));
    if (start >= 0 && end > start) {
      try {
        return { ok: true, value: JSON.parse(body.slice(start, end + 1)) };
      } catch {
        /* report the first error, about the whole reply */
      }
    }
    return { ok: false, error: `The reply is not valid JSON${why}: ${(e as Error).message}` };
  }
}

/** zod issues as `at <path>: <message>` lines, at most 20. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  const lines = issues.slice(0, 20).map((i) => `at ${formatPath(i.path)}: ${i.message}`);
  if (issues.length > 20) lines.push(`…and ${issues.length - 20} more problems`);
  return lines;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '$';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : /^[A-Za-z_$][\w$]*$/.test(String(p)) ? `.${String(p)}` : `[${JSON.stringify(String(p))}]`;
  return out;
}

/** The follow-up turn that sends validation errors back. */
export function reaskMessage(errors: readonly string[]): string {
  return [
    'Your previous reply was not accepted:',
    ...errors.map((e) => `- ${e}`),
    'Reply again with the corrected JSON only: no prose and no code fences, conforming to the required schema.',
  ].join('\n');
}

/** System text that carries the schema for providers without a structured-output mode. */
function schemaInstruction(jsonSchema: Record<string, unknown>): string {
  return `Reply with a single JSON value, and nothing else, that conforms to this JSON Schema:\n${JSON.stringify(jsonSchema)}`;
}
