/**
 * The LLM layer end to end: the real `@google/genai` and `openai` clients talking to fake
 * servers on 127.0.0.1 that speak the real wire protocols.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { z } from 'zod';
import {
  createProvider,
  DiskCache,
  GeminiProvider,
  isAbortError,
  LlmConfigError,
  LlmHttpError,
  LlmNetworkError,
  LlmStats,
  OpenAICompatibleProvider,
  seededRandom,
  StructuredLlm,
  toGeminiSchema,
  zodToJsonSchema,
  type StructuredLlmOptions,
  type StructuredRequest,
} from '../../../../src/core/llm';
import { geminiRetryInfoBody, startFakeGemini } from '../../../fakes/fakeGemini';
import type { FakeLlmServer } from '../../../fakes/fakeLlmServer';
import { startFakeOpenAI } from '../../../fakes/fakeOpenAI';

const Scenario = z.object({
  prompt: z.string().min(1),
  tier: z.enum(['simple', 'complex']),
  calls: z.array(z.object({ tool: z.string(), arguments: z.record(z.string(), z.unknown()) })).min(1),
});
type Scenario = z.infer<typeof Scenario>;
const good: Scenario = { prompt: 'List my repositories', tier: 'simple', calls: [{ tool: 'list_repos', arguments: { owner: 'me' } }] };

const request = (over: Partial<StructuredRequest<Scenario>> = {}): StructuredRequest<Scenario> => ({
  stage: 'scenarios',
  promptVersion: '1',
  system: 'You write evaluation scenarios.',
  prompt: 'Write one scenario for list_repos.',
  schema: Scenario,
  cacheInputs: { tool: 'list_repos' },
  ...over,
});

/** Fast retries so fault tests take milliseconds, except where a test measures a server-set wait. */
const fastLimits = { retry: { baseDelayMs: 10, maxDelayMs: 40 }, timeoutMs: 5_000 };

function geminiLlm(fake: FakeLlmServer, options: Partial<StructuredLlmOptions> = {}): StructuredLlm {
  const provider = new GeminiProvider({ apiKey: 'test-key', baseUrl: fake.url });
  return new StructuredLlm({ provider, random: seededRandom(7), ...options, limits: { ...fastLimits, ...options.limits } });
}

function openaiLlm(fake: FakeLlmServer, options: Partial<StructuredLlmOptions> = {}, apiKey?: string): StructuredLlm {
  const provider = new OpenAICompatibleProvider({ model: 'llama3.1:8b', baseUrl: fake.url, apiKey });
  return new StructuredLlm({ provider, random: seededRandom(7), ...options, limits: { ...fastLimits, ...options.limits } });
}

async function until(cond: () => boolean, timeoutMs = 2_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('Gemini through @google/genai against a fake server', () => {
  let fake: FakeLlmServer;
  before(async () => {
    fake = await startFakeGemini({ apiKey: 'test-key' });
  });
  after(() => fake.close());
  beforeEach(() => fake.reset());

  it('returns a validated value and sends model, temperature, schema and system on the wire', async () => {
    fake.enqueue({ json: good, usage: { input: 120, output: 30 } });
    const llm = geminiLlm(fake);
    const r = await llm.generate(request());
    assert.ok(r.ok);
    assert.deepEqual(r.value, good);
    assert.deepEqual(r.usage, { inputTokens: 120, outputTokens: 30 });
    assert.equal(r.attempts, 1);
    assert.equal(r.cached, false);
    assert.match(r.key, /^[0-9a-f]{64}$/);

    const [sent] = fake.requests;
    assert.ok(sent);
    assert.equal(sent.path, '/v1beta/models/gemini-2.5-flash-lite:generateContent');
    assert.equal(sent.model, 'gemini-2.5-flash-lite');
    assert.equal(sent.apiKey, 'test-key');
    assert.equal(sent.temperature, 0.7);
    assert.equal(sent.body.generationConfig.responseMimeType, 'application/json');
    // Gemini gets its supported subset: what it would reject is dropped, the rest is intact.
    assert.deepEqual(sent.jsonSchema.properties.tier, { type: 'string', enum: ['simple', 'complex'] });
    assert.deepEqual(sent.jsonSchema.required, ['prompt', 'tier', 'calls']);
    assert.equal(sent.jsonSchema.properties.prompt.minLength, undefined);
    assert.deepEqual(sent.jsonSchema, toGeminiSchema(zodToJsonSchema(Scenario)));
    assert.equal(sent.system, 'You write evaluation scenarios.');
    assert.deepEqual(sent.messages, [{ role: 'user', content: 'Write one scenario for list_repos.' }]);
    assert.equal(fake.unscripted, 0);
  });

  it('honours Retry-After on a 429 before retrying', async () => {
    fake.enqueue({ status: 429, retryAfter: 1 }, { json: good });
    const llm = geminiLlm(fake);
    const r = await llm.generate(request());
    assert.ok(r.ok);
    assert.equal(fake.requests.length, 2);
    const waited = fake.requests[1]!.receivedAt - fake.requests[0]!.receivedAt;
    assert.ok(waited >= 1_000, `retried after ${waited} ms, Retry-After said 1 s`);
    assert.equal(llm.stats.snapshot().retries['rate-limit'], 1);
  });

  it("honours the wait in Gemini's RetryInfo body when there is no header", async () => {
    fake.enqueue({ status: 429, body: geminiRetryInfoBody(0.3) }, { json: good });
    const r = await geminiLlm(fake).generate(request());
    assert.ok(r.ok);
    const waited = fake.requests[1]!.receivedAt - fake.requests[0]!.receivedAt;
    assert.ok(waited >= 300, `retried after ${waited} ms, RetryInfo said 0.3 s`);
  });

  it('retries a 500 and succeeds', async () => {
    fake.enqueue({ status: 500 }, { status: 503 }, { json: good });
    const llm = geminiLlm(fake);
    const r = await llm.generate(request());
    assert.ok(r.ok);
    assert.equal(fake.requests.length, 3);
    assert.equal(llm.stats.snapshot().retries.server, 2);
  });

  it('times out a hung call, retries it, then discards and counts it', async () => {
    fake.enqueue({ hang: true }, { hang: true });
    const llm = geminiLlm(fake, { limits: { timeoutMs: 300, retry: { maxRetries: 1, baseDelayMs: 10 } } });
    const t0 = Date.now();
    const r = await llm.generate(request());
    assert.equal(r.ok, false);
    assert.ok(!r.ok && r.reason === 'timeout');
    assert.equal(fake.requests.length, 2);
    assert.ok(Date.now() - t0 >= 600);
    const s = llm.stats.snapshot();
    assert.equal(s.retries.timeout, 1);
    assert.equal(s.discards.timeout, 1);
    await until(() => fake.inFlight === 0); // the client really hung up
  });

  it('re-asks a malformed reply with the parse error, then accepts the fix', async () => {
    fake.enqueue({ raw: 'Sure! Here is the scenario: {prompt: oops', usage: { input: 10, output: 5 } }, { json: good, usage: { input: 20, output: 7 } });
    const llm = geminiLlm(fake);
    const r = await llm.generate(request());
    assert.ok(r.ok);
    assert.equal(r.attempts, 2);
    assert.deepEqual(r.usage, { inputTokens: 30, outputTokens: 12 });
    const second = fake.requests[1]!;
    assert.equal(second.messages.length, 3);
    assert.deepEqual(second.messages[1], { role: 'assistant', content: 'Sure! Here is the scenario: {prompt: oops' });
    assert.match(second.lastUserText, /not valid JSON/);
    assert.equal(llm.stats.snapshot().reasks, 1);
  });

  it('accepts JSON wrapped in a code fence without a re-ask', async () => {
    fake.enqueue({ text: '```json\n' + JSON.stringify(good, null, 2) + '\n```' });
    const r = await geminiLlm(fake).generate(request());
    assert.ok(r.ok);
    assert.equal(r.attempts, 1);
  });

  it('discards after three schema violations, counted, with the errors re-asked each time', async () => {
    const bad = { prompt: '', tier: 'medium', calls: [] };
    fake.enqueue({ json: bad }, { json: bad }, { json: bad });
    const llm = geminiLlm(fake);
    const r = await llm.generate(request());
    assert.equal(r.ok, false);
    assert.ok(!r.ok);
    assert.equal(r.reason, 'schema');
    assert.equal(r.attempts, 3);
    assert.ok(
      r.errors.some((e) => e.startsWith('at $.tier:')),
      r.errors.join('\n'),
    );
    assert.ok(r.errors.some((e) => e.startsWith('at $.prompt:')));
    assert.equal(r.lastReply, JSON.stringify(bad));
    assert.equal(fake.requests.length, 3);
    assert.match(fake.requests[1]!.lastUserText, /at \$\.tier:/);
    assert.equal(fake.requests[2]!.messages.length, 5); // prompt, bad, errors, bad, errors
    const s = llm.stats.snapshot();
    assert.equal(s.discards.schema, 1);
    assert.equal(s.reasks, 2);
    assert.equal(s.items, 1);
    assert.equal(s.succeeded, 0);
  });

  it('re-asks semantic validator errors too', async () => {
    const unknownTool = { ...good, calls: [{ tool: 'delete_everything', arguments: {} }] };
    fake.enqueue({ json: unknownTool }, { json: good });
    const validate = (v: Scenario): string[] => v.calls.filter((c) => c.tool !== 'list_repos').map((c) => `calls: "${c.tool}" is not a tool of this server`);
    const r = await geminiLlm(fake).generate(request({ validate }));
    assert.ok(r.ok);
    assert.equal(r.attempts, 2);
    assert.match(fake.requests[1]!.lastUserText, /"delete_everything" is not a tool of this server/);
  });

  it('discards with reason semantic when the checks keep failing', async () => {
    fake.respondWith({ json: good });
    const r = await geminiLlm(fake).generate(request({ validate: () => ['always wrong'] }));
    assert.ok(!r.ok && r.reason === 'semantic' && r.attempts === 3);
    assert.deepEqual(!r.ok && r.errors, ['always wrong']);
  });

  it('rejects promptly when aborted mid-call and hangs up', async () => {
    fake.enqueue({ hang: true });
    const llm = geminiLlm(fake);
    const controller = new AbortController();
    const pending = llm.generate(request(), controller.signal);
    await until(() => fake.requests.length === 1);
    const t0 = Date.now();
    controller.abort();
    await assert.rejects(pending, (e) => isAbortError(e));
    assert.ok(Date.now() - t0 < 500, 'abort took too long');
    await until(() => fake.inFlight === 0);
    assert.equal(fake.requests.length, 1, 'an aborted call is not retried');
  });

  it('keeps no more calls in flight than the concurrency limit', async () => {
    fake.respondWith({ json: good, delayMs: 120 });
    const llm = geminiLlm(fake, { limits: { concurrency: 2 } });
    const results = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => llm.generate(request({ sampleIndex: i }))));
    assert.ok(results.every((r) => r.ok));
    assert.equal(fake.requests.length, 6);
    assert.equal(fake.maxInFlight, 2);
  });

  it('spaces requests to the requests-per-window limit', async () => {
    fake.respondWith({ json: good });
    const provider = new GeminiProvider({ apiKey: 'test-key', baseUrl: fake.url });
    // Warm the client up first: its first request is slower, which would skew arrival times.
    await provider.complete({ messages: [{ role: 'user', content: 'warm-up' }], temperature: 0, signal: new AbortController().signal });
    fake.reset();
    fake.respondWith({ json: good });
    const llm = new StructuredLlm({ provider, limits: { rpm: 2, rpmWindowMs: 400, concurrency: 8 } });
    await Promise.all([0, 1, 2, 3].map((i) => llm.generate(request({ sampleIndex: i }))));
    const at = fake.requests.map((r) => r.receivedAt);
    assert.equal(at.length, 4);
    // Within any 400 ms window at most 2 starts: the 3rd starts ≥ 400 ms after the 1st.
    assert.ok(at[2]! - at[0]! >= 370, `3rd request ${at[2]! - at[0]!} ms after the 1st`);
    assert.ok(at[3]! - at[1]! >= 370, `4th request ${at[3]! - at[1]!} ms after the 2nd`);
    assert.ok(at[1]! - at[0]! < 200, 'the first two are not held back');
  });

  it('a bad key stops the run at once: fatal error, no retries, key not in the message', async () => {
    const provider = new GeminiProvider({ apiKey: 'wrong-key-0123456789', baseUrl: fake.url });
    const llm = new StructuredLlm({ provider, limits: fastLimits });
    await assert.rejects(llm.generate(request()), (e: unknown) => {
      assert.ok(e instanceof LlmHttpError);
      assert.equal(e.status, 400);
      assert.equal(e.fatal, true);
      assert.doesNotMatch(e.message, /wrong-key-0123456789/);
      assert.match(e.message, /API key not valid/);
      return true;
    });
    assert.equal(fake.requests.length, 1);
  });

  it('discards a non-transient 400 without retrying', async () => {
    fake.enqueue({ status: 400, message: 'Request contains an invalid argument.' });
    const llm = geminiLlm(fake);
    const r = await llm.generate(request());
    assert.ok(!r.ok && r.reason === 'http');
    assert.match(!r.ok ? r.errors[0]! : '', /400/);
    assert.equal(fake.requests.length, 1);
    assert.equal(llm.stats.snapshot().discards.http, 1);
  });

  it('treats a 200 whose body is not a Gemini response as a server fault and retries', async () => {
    fake.enqueue({ httpBody: '<html>proxy error</html>', contentType: 'text/html' }, { json: good });
    const r = await geminiLlm(fake).generate(request());
    assert.ok(r.ok);
    assert.equal(fake.requests.length, 2);
  });

  it('sums tokens per run and prices them by model', async () => {
    fake.enqueue(
      { json: good, usage: { input: 1_000_000, output: 0 } },
      { text: 'nope', usage: { input: 0, output: 500_000 } },
      { json: good, usage: { input: 0, output: 500_000 } },
    );
    const stats = new LlmStats();
    const llm = geminiLlm(fake, { stats });
    await llm.generate(request({ sampleIndex: 0 }));
    await llm.generate(request({ sampleIndex: 1 }));
    const s = stats.snapshot();
    assert.equal(s.inputTokens, 1_000_000);
    assert.equal(s.outputTokens, 1_000_000);
    assert.equal(s.requests, 3);
    assert.equal(s.byModel['gemini-2.5-flash-lite']?.requests, 3);
    // flash-lite: $0.10 per 1M in + $0.40 per 1M out.
    assert.ok(Math.abs((s.costUsd ?? NaN) - 0.5) < 1e-9, String(s.costUsd));
  });
});

describe('disk cache: resumable and incremental runs', () => {
  let fake: FakeLlmServer;
  let dir: string;
  before(async () => {
    fake = await startFakeGemini();
  });
  after(() => fake.close());
  beforeEach(async () => {
    fake.reset();
    dir = await mkdtemp(join(tmpdir(), 'agent-seer-llm-'));
  });
  const cleanup = (): Promise<void> => rm(dir, { recursive: true, force: true });

  it('an unchanged re-run makes zero calls; temperature, prompt version and inputs each miss', async () => {
    try {
      fake.respondWith((req) => ({ json: { ...good, prompt: `for ${req.lastUserText}` } }));
      const first = geminiLlm(fake, { cache: new DiskCache(dir) });
      const a = await first.generate(request());
      assert.ok(a.ok && !a.cached);
      assert.equal(fake.requests.length, 1);

      const stats = new LlmStats();
      const second = geminiLlm(fake, { cache: new DiskCache(dir), stats });
      const b = await second.generate(request());
      assert.ok(b.ok && b.cached);
      assert.deepEqual(b.value, a.ok ? a.value : undefined);
      assert.equal(fake.requests.length, 1, 'a cache hit made a request');
      assert.equal(stats.snapshot().cacheHits, 1);
      assert.equal(stats.snapshot().savedInputTokens, a.usage.inputTokens);

      await second.generate(request({ temperature: 0.2 }));
      assert.equal(fake.requests.length, 2);
      await second.generate(request({ promptVersion: '2' }));
      assert.equal(fake.requests.length, 3);
      await second.generate(request({ cacheInputs: { tool: 'list_repos', toolHash: 'changed' } }));
      assert.equal(fake.requests.length, 4);
      await second.generate(request({ sampleIndex: 1 }));
      assert.equal(fake.requests.length, 5);
      await second.generate(request({ prompt: 'Write one scenario for list_repos (edited template).' }));
      assert.equal(fake.requests.length, 6);
      // And each of those is now cached too.
      await second.generate(request({ temperature: 0.2 }));
      assert.equal(fake.requests.length, 6);
    } finally {
      await cleanup();
    }
  });

  it('a cancelled run resumes where it stopped: finished items are not asked again', async () => {
    try {
      const items = ['alpha', 'beta', 'gamma', 'delta'];
      const controller = new AbortController();
      fake.respondWith((req) => {
        if (req.lastUserText.includes('gamma')) {
          controller.abort(); // the "crash" happens while gamma is in flight
          return { hang: true };
        }
        return { json: { ...good, prompt: req.lastUserText } };
      });
      const run1 = geminiLlm(fake, { cache: new DiskCache(dir) });
      const outcome: string[] = [];
      for (const t of items) {
        try {
          const r = await run1.generate(request({ prompt: `item ${t}`, cacheInputs: t }), controller.signal);
          outcome.push(r.ok ? 'ok' : 'discarded');
        } catch (e) {
          outcome.push(isAbortError(e) ? 'aborted' : String(e));
        }
      }
      assert.deepEqual(outcome, ['ok', 'ok', 'aborted', 'aborted']);
      assert.equal(fake.requests.length, 3, 'nothing is sent after the abort');
      const shards = await readdir(dir);
      let files = 0;
      for (const s of shards) files += (await readdir(join(dir, s))).filter((f) => f.endsWith('.json')).length;
      assert.equal(files, 2, 'each finished item was written as it arrived');

      // Debris a killed process could leave: a temp file, and a torn entry for delta.
      const deltaKey = run1.keyOf(request({ prompt: 'item delta', cacheInputs: 'delta' }));
      const cache = new DiskCache(dir);
      await mkdir(join(dir, deltaKey.slice(0, 2)), { recursive: true });
      await writeFile(cache.pathOf(deltaKey), '{"version":1,"key":"' + deltaKey + '","entry":{"ok":tr');
      await writeFile(cache.pathOf(deltaKey) + '.123.abc.tmp', '{');

      fake.reset();
      fake.respondWith((req) => ({ json: { ...good, prompt: req.lastUserText } }));
      const run2 = geminiLlm(fake, { cache: new DiskCache(dir) });
      const results = await Promise.all(items.map((t) => run2.generate(request({ prompt: `item ${t}`, cacheInputs: t }))));
      assert.ok(results.every((r) => r.ok));
      assert.deepEqual(
        results.map((r) => r.cached),
        [true, true, false, false],
      );
      assert.deepEqual(fake.requests.map((r) => r.lastUserText).sort(), ['item delta', 'item gamma']);
    } finally {
      await cleanup();
    }
  });

  it('caches a content discard so an unchanged re-run makes zero calls, unless asked to retry', async () => {
    try {
      fake.respondWith({ text: 'not json' });
      const r1 = await geminiLlm(fake, { cache: new DiskCache(dir) }).generate(request());
      assert.ok(!r1.ok && r1.reason === 'invalid-json' && !r1.cached);
      assert.equal(fake.requests.length, 3);

      const stats = new LlmStats();
      const r2 = await geminiLlm(fake, { cache: new DiskCache(dir), stats }).generate(request());
      assert.ok(!r2.ok && r2.reason === 'invalid-json' && r2.cached);
      assert.equal(fake.requests.length, 3);
      assert.equal(stats.snapshot().discards['invalid-json'], 1, 'a cached discard is still counted');

      fake.respondWith({ json: good });
      const r3 = await geminiLlm(fake, { cache: new DiskCache(dir), retryDiscarded: true }).generate(request());
      assert.ok(r3.ok && !r3.cached);
      assert.equal(fake.requests.length, 4);
    } finally {
      await cleanup();
    }
  });

  it('does not cache transport failures', async () => {
    try {
      fake.respondWith({ status: 503 });
      const r1 = await geminiLlm(fake, { cache: new DiskCache(dir), limits: { retry: { maxRetries: 1, baseDelayMs: 5 } } }).generate(request());
      assert.ok(!r1.ok && r1.reason === 'http');
      fake.respondWith({ json: good });
      const r2 = await geminiLlm(fake, { cache: new DiskCache(dir) }).generate(request());
      assert.ok(r2.ok && !r2.cached);
    } finally {
      await cleanup();
    }
  });

  it('a cached value that no longer passes the (changed) checks is regenerated', async () => {
    try {
      fake.respondWith({ json: good });
      await geminiLlm(fake, { cache: new DiskCache(dir) }).generate(request());
      const strict = await geminiLlm(fake, { cache: new DiskCache(dir) }).generate(
        request({ validate: (v) => (fake.requests.length < 2 && v.tier === 'simple' ? ['need complex'] : []) }),
      );
      assert.ok(strict.ok && !strict.cached);
      assert.equal(fake.requests.length, 2);
    } finally {
      await cleanup();
    }
  });

  it('identical concurrent requests share one call', async () => {
    fake.respondWith({ json: good, delayMs: 50 });
    const llm = geminiLlm(fake);
    const [a, b] = await Promise.all([llm.generate(request()), llm.generate(request())]);
    assert.ok(a.ok && b.ok);
    assert.equal(fake.requests.length, 1);
    await cleanup();
  });
});

describe('OpenAI-compatible chat completions through the openai client against a fake server', () => {
  let fake: FakeLlmServer;
  before(async () => {
    fake = await startFakeOpenAI();
  });
  after(() => fake.close());
  beforeEach(() => fake.reset());

  it('sends a json_schema response format and reads content and usage', async () => {
    fake.enqueue({ json: good, usage: { input: 40, output: 9 } });
    const llm = openaiLlm(fake, {}, 'sk-test');
    const r = await llm.generate(request({ temperature: 0.3 }));
    assert.ok(r.ok);
    assert.deepEqual(r.value, good);
    assert.deepEqual(r.usage, { inputTokens: 40, outputTokens: 9 });
    const [sent] = fake.requests;
    assert.ok(sent);
    assert.equal(sent.path, '/v1/chat/completions');
    assert.equal(sent.body.model, 'llama3.1:8b');
    assert.equal(sent.temperature, 0.3);
    assert.equal(sent.apiKey, 'sk-test');
    assert.equal(sent.body.messages[0].role, 'system');
    assert.equal(sent.body.response_format.type, 'json_schema');
    assert.equal(sent.body.response_format.json_schema.strict, false); // z.object is open: strict would be refused
    assert.deepEqual(sent.jsonSchema, zodToJsonSchema(Scenario));
  });

  it('uses strict mode when the schema allows it', async () => {
    fake.enqueue({ json: { verdict: 'pass', score: 3 } });
    const Verdict = z.strictObject({ verdict: z.enum(['pass', 'fail']), score: z.number().int() });
    const r = await openaiLlm(fake).generate({ stage: 'judge', promptVersion: '1', prompt: 'judge it', schema: Verdict });
    assert.ok(r.ok);
    assert.equal(fake.requests[0]!.body.response_format.json_schema.strict, true);
  });

  it('works without a key against a local server', async () => {
    fake.enqueue({ json: good });
    const provider = createProvider({ provider: 'openai', baseUrl: fake.url, model: 'qwen2.5', env: {} });
    const r = await new StructuredLlm({ provider }).generate(request());
    assert.ok(r.ok);
  });

  it('honours Retry-After on a 429', async () => {
    fake.enqueue({ status: 429, retryAfter: 1 }, { json: good });
    const llm = openaiLlm(fake);
    const r = await llm.generate(request());
    assert.ok(r.ok);
    const waited = fake.requests[1]!.receivedAt - fake.requests[0]!.receivedAt;
    assert.ok(waited >= 1_000, `retried after ${waited} ms, Retry-After said 1 s`);
    assert.equal(llm.stats.snapshot().retries['rate-limit'], 1);
  });

  it('retries 500 then succeeds; re-asks carry the errors as a user turn after the bad reply', async () => {
    fake.enqueue({ status: 500 }, { json: { ...good, tier: 'hard' } }, { json: good });
    const llm = openaiLlm(fake);
    const r = await llm.generate(request());
    assert.ok(r.ok && r.attempts === 2);
    assert.equal(fake.requests.length, 3);
    const roles = fake.requests[2]!.body.messages.map((m: { role: string }) => m.role);
    assert.deepEqual(roles, ['system', 'user', 'assistant', 'user']);
    assert.match(fake.requests[2]!.lastUserText, /at \$\.tier: Invalid option/);
    const s = llm.stats.snapshot();
    assert.equal(s.retries.server, 1);
    assert.equal(s.reasks, 1);
  });

  it('times out a hung call and counts the discard', async () => {
    fake.respondWith({ hang: true });
    const llm = openaiLlm(fake, { limits: { timeoutMs: 200, retry: { maxRetries: 1, baseDelayMs: 5 } } });
    const r = await llm.generate(request());
    assert.ok(!r.ok && r.reason === 'timeout');
    assert.equal(fake.requests.length, 2);
    await until(() => fake.inFlight === 0);
  });

  it('rejects promptly when aborted mid-call', async () => {
    fake.enqueue({ hang: true });
    const controller = new AbortController();
    const pending = openaiLlm(fake).generate(request(), controller.signal);
    await until(() => fake.requests.length === 1);
    const t0 = Date.now();
    controller.abort();
    await assert.rejects(pending, (e) => isAbortError(e));
    assert.ok(Date.now() - t0 < 500);
  });

  it('a wrong key is fatal (401), not retried, not discarded item by item', async () => {
    const guarded = await startFakeOpenAI({ apiKey: 'sk-right' });
    try {
      const llm = openaiLlm(guarded, {}, 'sk-wrong-secret-value');
      await assert.rejects(
        llm.generate(request()),
        (e: unknown) => e instanceof LlmHttpError && e.fatal && e.status === 401 && !e.message.includes('sk-wrong-secret-value'),
      );
      assert.equal(guarded.requests.length, 1);
    } finally {
      await guarded.close();
    }
  });
});

describe('unreachable servers and configuration', () => {
  it('an unreachable endpoint is retried, then thrown as a network error', async () => {
    const dead = await startFakeOpenAI();
    const url = dead.url;
    await dead.close();
    const provider = new OpenAICompatibleProvider({ model: 'm', baseUrl: url });
    const llm = new StructuredLlm({ provider, limits: { retry: { maxRetries: 2, baseDelayMs: 5 } } });
    await assert.rejects(llm.generate(request()), (e: unknown) => e instanceof LlmNetworkError && /ECONNREFUSED/.test(e.message));
    assert.equal(llm.stats.snapshot().retries.network, 2);

    const gemini = new StructuredLlm({
      provider: new GeminiProvider({ apiKey: 'k-secret-1234', baseUrl: url.replace(/\/v1$/, '') }),
      limits: { retry: { maxRetries: 0 } },
    });
    await assert.rejects(gemini.generate(request()), (e: unknown) => e instanceof LlmNetworkError && !e.message.includes('k-secret-1234'));
  });

  it('a dropped connection is a network fault and is retried', async () => {
    const fake = await startFakeGemini();
    try {
      fake.enqueue({ drop: true }, { json: good });
      const llm = geminiLlm(fake);
      const r = await llm.generate(request());
      assert.ok(r.ok);
      assert.equal(llm.stats.snapshot().retries.network, 1);
    } finally {
      await fake.close();
    }
  });

  it('missing keys and models fail with a clear message before any call', () => {
    assert.throws(
      () => createProvider({ provider: 'gemini', env: {} }),
      (e: unknown) => e instanceof LlmConfigError && /GEMINI_API_KEY/.test(e.message),
    );
    assert.throws(() => createProvider({ provider: 'gemini', env: { GEMINI_API_KEY: '   ' } }), LlmConfigError);
    assert.throws(
      () => createProvider({ provider: 'openai', env: {} }),
      (e: unknown) => e instanceof LlmConfigError && /OPENAI_API_KEY/.test(e.message),
    );
    assert.throws(
      () => createProvider({ provider: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', env: {} }),
      (e: unknown) => e instanceof LlmConfigError && /model/.test(e.message),
    );
  });

  it('reads keys, models and base URLs from the given environment', () => {
    const g = createProvider({ provider: 'gemini', env: { GOOGLE_API_KEY: 'g-key', GEMINI_BASE_URL: 'http://127.0.0.1:9' } });
    assert.equal(g.id, 'gemini');
    assert.equal(g.model, 'gemini-2.5-flash-lite');
    const j = createProvider({ provider: 'gemini', model: 'gemini-2.5-flash', apiKey: 'k', env: {} });
    assert.equal(j.model, 'gemini-2.5-flash');
    const o = createProvider({ provider: 'openai', env: { OPENAI_API_KEY: 'sk-x' } });
    assert.equal(o.model, 'gpt-4o-mini');
    const local = createProvider({ provider: 'openai', env: { OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1' }, model: 'qwen' });
    assert.equal((local as OpenAICompatibleProvider).baseUrl, 'http://127.0.0.1:1234/v1');
  });

  it('the Gemini base URL from the environment reaches the real client', async () => {
    const fake = await startFakeGemini();
    try {
      fake.enqueue({ json: good });
      const provider = createProvider({
        provider: 'gemini',
        env: { GEMINI_API_KEY: 'env-key', GEMINI_BASE_URL: fake.url },
        extra: { maxOutputTokens: 2048, thinkingConfig: { thinkingBudget: 0 } },
      });
      const r = await new StructuredLlm({ provider }).generate(request());
      assert.ok(r.ok);
      assert.equal(fake.requests[0]!.apiKey, 'env-key');
      assert.equal(fake.requests[0]!.body.generationConfig.maxOutputTokens, 2048);
      assert.deepEqual(fake.requests[0]!.body.generationConfig.thinkingConfig, { thinkingBudget: 0 });
    } finally {
      await fake.close();
    }
  });
});
