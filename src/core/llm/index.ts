/**
 * # The LLM layer (`src/core/llm`)
 *
 * Structured generation for the pipeline and the judge: a zod schema in, a validated value out,
 * with usage, timing, retries, limits and a disk cache. No `vscode` import here; the VS Code
 * language-model adapter lives in `src/extension` and implements {@link ChatProvider}.
 *
 * ```
 * StructuredLlm.generate(request, signal)          structured.ts
 *   ├─ ReplyCache (DiskCache)  key = sha256(stage, promptVersion, provider, model,
 *   │                          temperature, sampleIndex, inputs + prompt/schema digests)
 *   ├─ parse JSON → zod → validate(); errors re-asked as a follow-up turn, ≤ 3 replies,
 *   │  then a counted discard {ok:false, reason}
 *   └─ CallGuard.call          limits.ts: concurrency, RPM, per-call timeout, abort,
 *        │                     retries of 429/5xx/timeout/network with backoff + Retry-After;
 *        │                     the RPM window shared by every process on the account (sharedQuota.ts)
 *        └─ ChatProvider.complete   one attempt: GeminiProvider | OpenAICompatibleProvider | …
 * LlmStats                     stats.ts: requests, cache hits, retries, re-asks, discards, tokens, cost
 * ```
 *
 * Batch mode (`batch/`): `BatchProvider` is a `ChatProvider` in place of the raw one, keeping its
 * id and model (so cache keys do not change); it gathers the calls of a round into jobs of a
 * provider's batch API (`createBatchBackend`), journals them under `<cacheDir>/batch`, polls and
 * hands each call its item's reply. See `batch/batchProvider.ts`.
 *
 * Typical use:
 * ```ts
 * const provider = createProvider({ provider: 'gemini', env: process.env });
 * const llm = new StructuredLlm({ provider, cache: new DiskCache(cacheDir), stats, limits: { concurrency: 4, rpm: 60 } });
 * const r = await llm.generate({ stage: 'interpret', promptVersion: '1', prompt, schema: Interpretation, cacheInputs: { toolHash } }, signal);
 * if (r.ok) use(r.value); else report(r.reason, r.errors);   // discards are values; abort throws
 * ```
 *
 * Outcomes:
 * - content faults (not JSON, schema, `validate`) → re-asked, then discarded and cached as
 *   discards (an unchanged re-run makes zero calls; `retryDiscarded` asks again);
 * - transport faults that outlive the retries (429/5xx → `'http'`, timeouts → `'timeout'`,
 *   other 4xx such as 400 → `'http'`) → discarded, not cached;
 * - faults no item can get past (bad key, unknown model: `LlmHttpError.fatal`; unreachable
 *   server: `LlmNetworkError`) and cancellation → thrown.
 *
 * Testing: `test/fakes/fakeGemini.ts` and `test/fakes/fakeOpenAI.ts` are real HTTP servers on
 * 127.0.0.1 speaking each wire protocol, scripted per test; point the real clients at `fake.url`.
 */
export * from './types';
export * from './errors';
export * from './limits';
export * from './sharedQuota';
export * from './stats';
export * from './pricing';
export * from './cache';
export * from './jsonSchema';
export * from './structured';
export * from './gemini';
export * from './openai';
export * from './factory';
export * from './toolCalling';
export * from './batch';
