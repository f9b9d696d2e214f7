/** The LLM layer's parts in isolation: limits with a manual clock, cache, schemas, parsing, stats. */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { z } from 'zod';
import {
  backoffDelayMs,
  cacheKey,
  CallGuard,
  canonicalJson,
  DEFAULT_RETRY,
  DiskCache,
  googleRetryDelayMs,
  isAbortError,
  isStrictCompatible,
  LlmHttpError,
  LlmOutageError,
  LlmQuotaError,
  LlmStats,
  LlmTimeoutError,
  MemoryCache,
  parseJsonReply,
  parseRetryAfter,
  priceOf,
  BUILT_IN_PRICES,
  RateLimiter,
  redact,
  seededRandom,
  Semaphore,
  StructuredLlm,
  toGeminiSchema,
  zodToJsonSchema,
  type CacheKeyParts,
  type ChatProvider,
  type ChatReply,
  type ChatRequest,
} from '../../../../src/core/llm';
import { flush, ManualClock } from '../../../fakes/manualClock';
import { repoRoot } from '../../fixturePaths';

/** An in-process provider scripted with a queue of replies or errors. */
function scripted(steps: Array<ChatReply | Error | 'hang' | 'ignore-signal'>, options: { supportsJsonSchema?: boolean } = {}) {
  const calls: ChatRequest[] = [];
  const provider: ChatProvider = {
    id: 'test',
    model: 'test-model',
    supportsJsonSchema: options.supportsJsonSchema ?? true,
    complete(request) {
      calls.push(request);
      const step = steps.shift();
      if (step === undefined) return Promise.reject(new Error('nothing scripted'));
      if (step === 'ignore-signal') return new Promise(() => undefined); // never settles, ignores the signal
      if (step === 'hang') {
        return new Promise((_, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true }));
      }
      return step instanceof Error ? Promise.reject(step) : Promise.resolve(step);
    },
  };
  return { provider, calls };
}

const chat = (signal: AbortSignal = new AbortController().signal): ChatRequest => ({ messages: [{ role: 'user', content: 'hi' }], temperature: 0, signal });
const ok = (text = '{}'): ChatReply => ({ text, usage: { inputTokens: 1, outputTokens: 1 } });

describe('Retry-After and error helpers', () => {
  it('parses delta-seconds and HTTP dates', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('1', now), 1000);
    assert.equal(parseRetryAfter(' 2.5 ', now), 2500);
    assert.equal(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now), 30_000);
    assert.equal(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now), 0, 'a past date means now');
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter(null, now), undefined);
    assert.equal(parseRetryAfter('', now), undefined);
  });

  it("reads Google's RetryInfo from an error body", () => {
    const body = { error: { details: [{ '@type': 'x.ErrorInfo' }, { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '37s' }] } };
    assert.equal(googleRetryDelayMs(body), 37_000);
    assert.equal(googleRetryDelayMs({ error: { details: [{ retryDelay: '0.25s' }] } }), 250);
    assert.equal(googleRetryDelayMs({ error: { message: 'x' } }), undefined);
    assert.equal(googleRetryDelayMs(undefined), undefined);
  });

  it('classifies statuses and redacts secrets', () => {
    assert.equal(new LlmHttpError({ status: 429, message: '' }).transient, true);
    assert.equal(new LlmHttpError({ status: 503, message: '' }).transient, true);
    assert.equal(new LlmHttpError({ status: 400, message: '' }).transient, false);
    assert.equal(new LlmHttpError({ status: 401, message: '' }).fatal, true);
    assert.equal(new LlmHttpError({ status: 404, message: '' }).fatal, true);
    assert.equal(new LlmHttpError({ status: 500, message: '' }).fatal, false);
    assert.equal(redact('key=AIzaSECRET and AIzaSECRET', ['AIzaSECRET', undefined]), 'key=*** and ***');
  });
});

describe('limits', () => {
  it('backoff grows exponentially with bounded jitter and a ceiling', () => {
    const policy = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1_000 };
    assert.equal(
      backoffDelayMs(0, policy, () => 0),
      50,
    );
    assert.equal(
      backoffDelayMs(0, policy, () => 0.999999),
      100,
    );
    assert.equal(
      backoffDelayMs(3, policy, () => 0),
      400,
    );
    assert.equal(
      backoffDelayMs(10, policy, () => 1),
      1_000,
    );
    const r1 = seededRandom(42);
    const r2 = seededRandom(42);
    const xs = Array.from({ length: 5 }, () => r1());
    assert.deepEqual(
      xs,
      Array.from({ length: 5 }, () => r2()),
    );
    assert.ok(xs.every((x) => x >= 0 && x < 1));
  });

  it('the semaphore grants in FIFO order and drops waiters that abort', async () => {
    const sem = new Semaphore(1);
    const order: string[] = [];
    const first = await sem.acquire();
    const controller = new AbortController();
    const b = sem.acquire(controller.signal).then((rel) => (order.push('b'), rel));
    const c = sem.acquire().then((rel) => (order.push('c'), rel));
    const d = sem.acquire().then((rel) => (order.push('d'), rel));
    assert.equal(sem.waiting, 3);
    controller.abort();
    await assert.rejects(b, (e) => isAbortError(e));
    assert.equal(sem.waiting, 2);
    first();
    const relC = await c;
    assert.deepEqual(order, ['c']);
    relC();
    relC(); // idempotent: must not free a second slot
    (await d)();
    assert.deepEqual(order, ['c', 'd']);
    assert.equal(sem.inUse, 0);
  });

  it('the semaphore grants by priority, in arrival order among equals, and an aborted waiter leaves its place', async () => {
    const sem = new Semaphore(1);
    const order: string[] = [];
    const first = await sem.acquire();
    const take = (name: string, priority: number, signal?: AbortSignal): Promise<void> =>
      sem.acquire(signal, priority).then((release) => {
        order.push(name);
        release();
      });
    const controller = new AbortController();
    const all = [take('turns-1', 0), take('mock-1', 1), take('turns-2', 0), take('batch', 3), take('mock-2', 1), take('interpret', 4)];
    const dropped = take('restate', 2, controller.signal);
    controller.abort();
    await assert.rejects(dropped, (e) => isAbortError(e));
    first();
    await Promise.all(all);
    assert.deepEqual(order, ['interpret', 'batch', 'mock-1', 'mock-2', 'turns-1', 'turns-2']);
    assert.equal(sem.inUse, 0);
  });

  it('a structured request passes its priority to the call guard, never into the cache key', async () => {
    const { provider, calls } = scripted([{ text: '{"n":1}' }, { text: '{"n":1}' }]);
    const llm = new StructuredLlm({ provider });
    const base = { stage: 's', promptVersion: 'v1', prompt: 'p', schema: z.object({ n: z.number() }) };
    await llm.generate({ ...base, priority: 3 });
    assert.equal(calls[0]?.priority, 3);
    assert.equal(llm.keyOf({ ...base, priority: 3 }), llm.keyOf(base));
  });

  it('the rate limiter allows N starts per sliding window (manual clock)', async () => {
    const clock = new ManualClock();
    const rl = new RateLimiter(2, 60_000, clock);
    await rl.acquire();
    await clock.advance(10_000);
    await rl.acquire();
    let third = false;
    const p = rl.acquire().then(() => (third = true));
    await flush();
    assert.equal(third, false);
    await clock.advance(49_999); // t = 59 999: the first start is still inside the window
    assert.equal(third, false);
    await clock.advance(1); // t = 60 000: it left the window
    await p;
    assert.equal(third, true);
    const controller = new AbortController();
    const fourth = rl.acquire(controller.signal);
    controller.abort();
    await assert.rejects(fourth, (e) => isAbortError(e));
  });

  it('retries transport faults on the backoff schedule and gives up after maxRetries', async () => {
    const clock = new ManualClock();
    const { provider, calls } = scripted([
      new LlmHttpError({ status: 500, message: 'a' }),
      new LlmHttpError({ status: 502, message: 'b' }),
      new LlmHttpError({ status: 503, message: 'c' }),
    ]);
    const stats = new LlmStats();
    const guard = new CallGuard({ retry: { maxRetries: 2, baseDelayMs: 1_000 } }, { clock, random: () => 0 });
    const p = guard.call(provider, chat(), stats);
    p.catch(() => undefined);
    await flush();
    assert.equal(calls.length, 1);
    await clock.advance(499);
    assert.equal(calls.length, 1);
    await clock.advance(1); // 1st retry after base/2 = 500 (random 0)
    assert.equal(calls.length, 2);
    await clock.advance(999);
    assert.equal(calls.length, 2);
    await clock.advance(1); // 2nd retry after 1 000
    assert.equal(calls.length, 3);
    await assert.rejects(p, (e) => e instanceof LlmHttpError && e.status === 503);
    assert.equal(stats.snapshot().retries.server, 2);
    assert.equal(stats.snapshot().requests, 3);
  });

  it('a 429 with Retry-After holds back every caller sharing the guard', async () => {
    const clock = new ManualClock();
    const { provider, calls } = scripted([new LlmHttpError({ status: 429, message: 'slow down', retryAfterMs: 5_000 }), ok(), ok()]);
    const guard = new CallGuard({ concurrency: 2 }, { clock, random: () => 0 });
    const a = guard.call(provider, chat());
    await flush();
    assert.equal(calls.length, 1);
    const b = guard.call(provider, chat()); // arrives during the cooldown
    await flush();
    assert.equal(calls.length, 1, 'the second caller waits for the cooldown too');
    await clock.advance(4_999);
    assert.equal(calls.length, 1);
    await clock.advance(1);
    await Promise.all([a, b]);
    assert.equal(calls.length, 3);
  });

  it('does not wait for a Retry-After beyond maxRetryAfterMs: a quota stop, and later calls send nothing', async () => {
    const { provider, calls } = scripted([new LlmHttpError({ status: 429, message: 'quota', retryAfterMs: 3_600_000 }), { text: 'ok' }]);
    const guard = new CallGuard({ retry: { maxRetryAfterMs: 60_000 } });
    await assert.rejects(
      guard.call(provider, chat()),
      (e) => e instanceof LlmQuotaError && e.retryAfterMs === 3_600_000 && /asks to wait 3600 s/.test(e.message),
    );
    await assert.rejects(guard.call(provider, chat()), LlmQuotaError);
    assert.equal(calls.length, 1);
  });

  it('after outageCalls spent calls in a row the endpoint is down: later calls send nothing; a success in between resets the count', async () => {
    const e500 = (): LlmHttpError => new LlmHttpError({ status: 500, message: 'backend error' });
    const { provider, calls } = scripted([e500(), e500(), { text: 'ok' }, e500(), e500(), e500(), { text: 'never sent' }]);
    const guard = new CallGuard({ retry: { maxRetries: 0, outageCalls: 3 } });
    for (let i = 0; i < 2; i++) await assert.rejects(guard.call(provider, chat()), LlmHttpError);
    assert.equal((await guard.call(provider, chat())).text, 'ok');
    await assert.rejects(guard.call(provider, chat()), LlmHttpError);
    await assert.rejects(guard.call(provider, chat()), LlmHttpError);
    await assert.rejects(
      guard.call(provider, chat()),
      (e) => e instanceof LlmOutageError && /3 calls in a row failed, the last after 1 attempt \(/.test(e.message),
    );
    await assert.rejects(guard.call(provider, chat()), LlmOutageError);
    assert.equal(calls.length, 6, 'nothing sent once the endpoint is down');
  });

  it('non-transient errors and bugs are not retried', async () => {
    const { provider, calls } = scripted([new TypeError('bug in adapter')]);
    await assert.rejects(new CallGuard().call(provider, chat()), TypeError);
    assert.equal(calls.length, 1);
  });

  it('a timed-out call is tried once more, and three such calls in a row are an outage (6 requests, not 3 × 6)', async () => {
    const { provider, calls } = scripted(Array.from({ length: 20 }, () => 'hang' as const));
    const guard = new CallGuard({ timeoutMs: 20, retry: { baseDelayMs: 1, maxDelayMs: 2 } });
    for (let i = 0; i < 2; i++)
      await assert.rejects(guard.call(provider, chat()), (e) => e instanceof LlmTimeoutError && /did not answer within 20 ms/.test(e.message));
    await assert.rejects(
      guard.call(provider, chat()),
      (e) => e instanceof LlmOutageError && /3 calls in a row failed, the last after 2 attempts \(the endpoint did not answer within 20 ms\)/.test(e.message),
    );
    assert.equal(calls.length, 6);
    await assert.rejects(guard.call(provider, chat()), LlmOutageError);
    assert.equal(calls.length, 6, 'nothing more is sent');
  });

  it('times out a call even when the provider ignores its signal, and aborts promptly', async () => {
    const clock = new ManualClock();
    const { provider } = scripted(['ignore-signal', 'ignore-signal']);
    const guard = new CallGuard({ timeoutMs: 1_000, retry: { maxRetries: 0 } }, { clock });
    const p = guard.call(provider, chat());
    p.catch(() => undefined);
    await flush();
    await clock.advance(999);
    await flush();
    let settled = false;
    p.then(
      () => (settled = true),
      () => (settled = true),
    );
    await flush();
    assert.equal(settled, false);
    await clock.advance(1);
    await assert.rejects(p, (e) => e instanceof LlmTimeoutError && e.timeoutMs === 1_000);

    const controller = new AbortController();
    const q = guard.call(provider, chat(controller.signal));
    await flush();
    controller.abort(new DOMException('user cancelled', 'AbortError'));
    await assert.rejects(q, (e) => isAbortError(e) && (e as Error).message === 'user cancelled');
  });
});

describe('structured layer with a text-only provider', () => {
  it('puts the JSON Schema in the system text when the provider has no structured mode', async () => {
    const { provider, calls } = scripted([ok('{"answer": 42}')], { supportsJsonSchema: false });
    const llm = new StructuredLlm({ provider });
    const r = await llm.generate({ stage: 's', promptVersion: '1', system: 'Be brief.', prompt: 'q', schema: z.object({ answer: z.number() }) });
    assert.ok(r.ok && r.value.answer === 42);
    const sent = calls[0]!;
    assert.equal(sent.jsonSchema, undefined);
    assert.ok(sent.system?.startsWith('Be brief.\n\n'));
    assert.ok(sent.system?.includes('"answer":{"type":"number"}'));
    assert.equal(sent.temperature, 0.7);
  });

  it('a zod transform applies to fresh and cached values alike', async () => {
    const schema = z.object({ name: z.string().transform((s) => s.toUpperCase()) });
    const { provider } = scripted([ok('{"name":"abc"}')]);
    const cache = new MemoryCache();
    const llm = new StructuredLlm({ provider, cache });
    const a = await llm.generate({ stage: 's', promptVersion: '1', prompt: 'p', schema });
    const b = await llm.generate({ stage: 's', promptVersion: '1', prompt: 'p', schema });
    assert.deepEqual(a.ok && a.value, { name: 'ABC' });
    assert.deepEqual(b.ok && b.cached && b.value, { name: 'ABC' });
  });
});

describe('reply parsing', () => {
  it('accepts plain JSON, fenced JSON and JSON inside prose', () => {
    assert.deepEqual(parseJsonReply('{"a":1}'), { ok: true, value: { a: 1 } });
    assert.deepEqual(parseJsonReply('```json\n{"a":1}\n```'), { ok: true, value: { a: 1 } });
    assert.deepEqual(parseJsonReply('```\n[1,2]\n```'), { ok: true, value: [1, 2] });
    assert.deepEqual(parseJsonReply('Here you go:\n{"a":{"b":[1]}}\nHope it helps.'), { ok: true, value: { a: { b: [1] } } });
  });

  it('explains empty, truncated and non-JSON replies', () => {
    const empty = parseJsonReply('  ', 'SAFETY');
    assert.ok(!empty.ok && /empty \(finish reason: SAFETY\)/.test(empty.error));
    const cut = parseJsonReply('{"a": [1, 2', 'MAX_TOKENS');
    assert.ok(!cut.ok && /not valid JSON \(finish reason: MAX_TOKENS\)/.test(cut.error));
    const stop = parseJsonReply('nope', 'STOP');
    assert.ok(!stop.ok && !stop.error.includes('finish reason'));
  });
});

describe('JSON Schema for providers', () => {
  const Tool = z.object({
    name: z
      .string()
      .regex(/^[a-z_]+$/)
      .min(1),
    kind: z.literal('tool'),
    pattern: z.string().optional().describe('a property named like a keyword'),
    meta: z.record(z.string(), z.unknown()),
    score: z.number().min(0).max(10).default(5),
  });

  it("keeps only Gemini's supported keywords, turning const into enum, without touching property names", () => {
    const g = toGeminiSchema(zodToJsonSchema(Tool)) as { properties: Record<string, Record<string, unknown>>; required: string[] };
    assert.deepEqual(g.properties.name, { type: 'string' });
    assert.deepEqual(g.properties.kind, { type: 'string', enum: ['tool'] });
    assert.deepEqual(g.properties.pattern, { type: 'string', description: 'a property named like a keyword' });
    assert.deepEqual(g.properties.meta, { type: 'object', additionalProperties: {} });
    assert.deepEqual(g.properties.score, { type: 'number', minimum: 0, maximum: 10 });
    assert.deepEqual(g.required, ['name', 'kind', 'meta'], 'a field with a default is optional for the model');
    assert.equal((zodToJsonSchema(Tool) as { $schema?: unknown }).$schema, undefined);
  });

  it('keeps $defs/$ref and strips siblings of $ref', () => {
    const g = toGeminiSchema({ $defs: { A: { type: 'string', minLength: 2 } }, type: 'object', properties: { a: { $ref: '#/$defs/A', description: 'x' } } });
    assert.deepEqual(g, { $defs: { A: { type: 'string' } }, type: 'object', properties: { a: { $ref: '#/$defs/A' } } });
  });

  it('recognises schemas OpenAI strict mode accepts', () => {
    assert.equal(isStrictCompatible(zodToJsonSchema(z.strictObject({ a: z.string(), b: z.array(z.strictObject({ c: z.number() })) }))), true);
    assert.equal(isStrictCompatible(zodToJsonSchema(z.object({ a: z.string() }))), false);
    assert.equal(isStrictCompatible(zodToJsonSchema(z.strictObject({ a: z.string().optional() }))), false);
    assert.equal(isStrictCompatible(zodToJsonSchema(z.strictObject({ a: z.array(z.object({ b: z.string() })) }))), false);
  });
});

describe('cache keys and the disk cache', () => {
  const parts: CacheKeyParts = {
    stage: 's',
    promptVersion: '1',
    provider: 'gemini',
    model: 'm',
    temperature: 0.7,
    sampleIndex: 0,
    inputs: { b: 1, a: [1, { y: 2, x: 1 }] },
  };

  it('canonical JSON ignores key order; every part changes the key', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: 1, c: undefined, e: [3, undefined] } }), '{"a":{"d":1,"e":[3,null]},"b":1}');
    assert.equal(cacheKey(parts), cacheKey({ ...parts, inputs: { a: [1, { x: 1, y: 2 }], b: 1 } }));
    const variants: Partial<CacheKeyParts>[] = [
      { stage: 't' },
      { promptVersion: '2' },
      { provider: 'openai' },
      { model: 'n' },
      { temperature: 0.2 },
      { sampleIndex: 1 },
      { inputs: { b: 2, a: [1, { y: 2, x: 1 }] } },
    ];
    const keys = new Set(variants.map((v) => cacheKey({ ...parts, ...v })));
    keys.add(cacheKey(parts));
    assert.equal(keys.size, variants.length + 1);
  });

  it('stores one file per entry in a two-hex shard and survives concurrent writers', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-seer-cache-'));
    try {
      const key = cacheKey(parts);
      const writers = Array.from({ length: 8 }, (_, i) =>
        new DiskCache(dir).set(
          key,
          { ok: true, value: { writer: i, big: 'x'.repeat(50_000) }, usage: { inputTokens: i, outputTokens: 0 }, attempts: 1 },
          parts,
        ),
      );
      await Promise.all(writers);
      assert.deepEqual(await readdir(dir), [key.slice(0, 2)]);
      assert.deepEqual(await readdir(join(dir, key.slice(0, 2))), [`${key}.json`], 'no temp files left behind');
      const entry = await new DiskCache(dir).get(key);
      assert.ok(entry?.ok && typeof (entry.value as { writer: number }).writer === 'number');
      const file = JSON.parse(await readFile(new DiskCache(dir).pathOf(key), 'utf8'));
      assert.equal(file.about.model, 'm');
      assert.equal(file.about.inputs, undefined, 'inputs are hashed, not stored');
      assert.equal(await new DiskCache(dir).get(cacheKey({ ...parts, stage: 'other' })), undefined);
      assert.throws(() => new DiskCache(dir).pathOf('../../etc/passwd'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('stats', () => {
  it('prices by longest model prefix and leaves unknown models unpriced', () => {
    const io = (p: { input: number; output: number } | undefined): unknown => p && { input: p.input, output: p.output };
    assert.deepEqual(io(priceOf(BUILT_IN_PRICES, 'gemini-2.5-flash-lite')), { input: 0.1, output: 0.4 });
    assert.deepEqual(io(priceOf(BUILT_IN_PRICES, 'models/gemini-2.5-flash-preview-09-2025')), { input: 0.3, output: 2.5 });
    assert.deepEqual(io(priceOf(BUILT_IN_PRICES, 'gpt-4o-mini-2024-07-18')), { input: 0.15, output: 0.6 });
    assert.equal(priceOf(BUILT_IN_PRICES, 'llama3.1:8b'), undefined);

    const table = {
      date: '2026-01-01',
      sources: [],
      models: { 'my-model': { provider: 'openai' as const, input: 1, output: 2, batchInput: 0.5, batchOutput: 1 } },
    };
    const stats = new LlmStats(table);
    stats.recordRequest('my-model');
    stats.recordUsage('my-model', { inputTokens: 2_000_000, outputTokens: 1_000_000 });
    assert.equal(stats.snapshot().costUsd, 4);
    stats.recordRequest('llama3.1:8b');
    assert.equal(stats.snapshot().costUsd, 4, 'a model that spent nothing costs nothing');
    stats.recordUsage('llama3.1:8b', { inputTokens: 10, outputTokens: 10 });
    assert.equal(stats.snapshot().costUsd, undefined);
    assert.equal(stats.snapshot().byModel['my-model']?.costUsd, 4);
  });

  it('counts items per stage, cache hits and discards', () => {
    const stats = new LlmStats();
    stats.recordItem('judge', { ok: true }, false);
    stats.recordItem('judge', { ok: false, reason: 'schema' }, true, { inputTokens: 5, outputTokens: 3 });
    const s = stats.snapshot();
    assert.deepEqual(s.byStage.judge, { items: 2, cacheHits: 1, discards: 1 });
    assert.equal(s.discards.schema, 1);
    assert.equal(s.savedInputTokens, 5);
    assert.equal(s.succeeded, 1);
  });
});

describe('core/llm stays editor-free', () => {
  it('no file under src/core/llm imports vscode', async () => {
    const dir = join(repoRoot, 'src', 'core', 'llm');
    const files = (await readdir(dir)).filter((f) => f.endsWith('.ts'));
    assert.ok(files.length >= 8);
    for (const f of files) {
      const text = await readFile(join(dir, f), 'utf8');
      assert.doesNotMatch(text, /from ['"]vscode['"]|require\(['"]vscode['"]\)/, relative(repoRoot, join(dir, f)));
    }
  });
});
