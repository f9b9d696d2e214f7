/**
 * The Gemini batch backend through the real `@google/genai` client against the fake Gemini batch
 * API (`test/fakes/fakeGeminiBatch.ts`) on 127.0.0.1: inline and file jobs, state changes, results
 * matched to items, per-item and per-job faults, HTTP errors of the batch endpoints.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { GeminiBatchBackend, batchJobState, itemErrorStatus, type GeminiBatchOptions } from '../../../../src/core/llm/batch/geminiBatch';
import type { BatchItem, BatchItemResult, BatchJobStatus } from '../../../../src/core/llm/batch/types';
import { TERMINAL_BATCH_STATES } from '../../../../src/core/llm/batch/types';
import { GeminiProvider, LlmHttpError, type ChatReply, type ChatRequest } from '../../../../src/core/llm';
import { geminiRetryInfoBody } from '../../../fakes/fakeGemini';
import { startFakeGeminiBatch, type FakeGeminiBatchOptions, type FakeGeminiBatchServer } from '../../../fakes/fakeGeminiBatch';

const KEY = 'test-key';
const signal = new AbortController().signal;
let fake: FakeGeminiBatchServer | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(options: FakeGeminiBatchOptions = {}): Promise<FakeGeminiBatchServer> {
  fake = await startFakeGeminiBatch({ apiKey: KEY, ...options });
  return fake;
}

function backend(server: FakeGeminiBatchServer, options: Partial<GeminiBatchOptions> = {}): GeminiBatchBackend {
  return new GeminiBatchBackend({ apiKey: KEY, baseUrl: server.url, ...options });
}

const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };

function item(id: string, prompt = `prompt ${id}`, over: Partial<ChatRequest> = {}): BatchItem {
  return { id, request: { system: 'Answer in JSON.', messages: [{ role: 'user', content: prompt }], jsonSchema: schema, temperature: 0.2, ...over } };
}

/** Answers each prompt with `{answer: <prompt>}`, like a model that echoes. */
function echo(server: FakeGeminiBatchServer): void {
  server.respondWith((r) => ({ json: { answer: r.lastUserText }, usage: { input: 10, output: 4 } }));
}

async function untilEnded(b: GeminiBatchBackend, job: string, seen: BatchJobStatus[] = []): Promise<BatchJobStatus> {
  for (let i = 0; i < 20; i++) {
    const s = await b.status(job, signal);
    seen.push(s);
    if (TERMINAL_BATCH_STATES.includes(s.state)) return s;
  }
  throw new Error(`job ${job} never ended`);
}

const byId = (results: BatchItemResult[]): Map<string, BatchItemResult> => new Map(results.map((r) => [r.id, r]));
const replyOf = (r: BatchItemResult | undefined): ChatReply => {
  assert.ok(r?.ok, `expected a reply, got ${JSON.stringify(r)}`);
  return r.reply;
};

describe('GeminiBatchBackend', () => {
  it('submits a small job inline, reports pending → running → succeeded, and matches results to items by key', async () => {
    const server = await start();
    echo(server);
    const b = backend(server);
    const job = await b.submit([item('a'), item('b'), item('c')], 'agent-seer-test-1', signal);
    assert.match(job, /^batches\//);
    const created = server.batch.job(job);
    assert.equal(created.source, 'inline');
    assert.equal(created.displayName, 'agent-seer-test-1');
    assert.deepEqual(
      created.items.map((i) => i.key),
      ['a', 'b', 'c'],
    );

    const seen: BatchJobStatus[] = [];
    const end = await untilEnded(b, job, seen);
    assert.deepEqual(
      seen.map((s) => s.state),
      ['pending', 'running', 'succeeded'],
    );
    assert.deepEqual(end.counts, { total: 3, succeeded: 3, failed: 0 });
    assert.equal(server.batch.syncCalls, 0, 'no synchronous generateContent call');
    assert.equal(server.batch.batchItems, 3);

    const results = byId(await b.results(job, signal));
    assert.equal(results.size, 3);
    for (const id of ['a', 'b', 'c']) {
      const reply = replyOf(results.get(id));
      assert.deepEqual(JSON.parse(reply.text), { answer: `prompt ${id}` });
      assert.deepEqual(reply.usage, { inputTokens: 10, outputTokens: 4 });
      assert.equal(reply.finishReason, 'STOP');
    }
  });

  it('reads an item reply as the synchronous path does: no thought parts, thinking tokens billed as output', async () => {
    const server = await start();
    const body = {
      candidates: [{ content: { role: 'model', parts: [{ text: 'thinking…', thought: true }, { text: '{"answer":"x"}' }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 5, thoughtsTokenCount: 30 },
    };
    server.respondWith({ httpBody: JSON.stringify(body) });
    const b = backend(server);
    const job = await b.submit([item('a')], 'thoughts', signal);
    await untilEnded(b, job);
    const batchReply = replyOf((await b.results(job, signal))[0]);
    const syncReply = await new GeminiProvider({ apiKey: KEY, baseUrl: server.url }).complete({ ...item('a').request, signal });
    assert.deepEqual(batchReply, { text: '{"answer":"x"}', usage: { inputTokens: 12, outputTokens: 35 }, finishReason: 'STOP' });
    assert.deepEqual(batchReply, syncReply);
  });

  it('sends a job over the inline limit as a JSONL file through the Files API and reads the results file', async () => {
    const server = await start();
    echo(server);
    const b = backend(server, { inlineMaxBytes: 100 });
    const items = [item('k1'), item('k2'), item('k3')];
    const job = await b.submit(items, 'file-job', signal);

    const created = server.batch.job(job);
    assert.equal(created.source, 'file');
    const start_ = server.batch.calls.find((c) => c.route === 'upload');
    assert.ok(start_, 'a resumable upload was started');
    assert.equal(start_.headers['x-goog-upload-protocol'], 'resumable');
    assert.equal(start_.headers['x-goog-upload-command'], 'start');
    const input = server.batch.files.get(created.inputFile ?? '');
    assert.ok(input);
    assert.equal(input.mimeType, 'jsonl');
    const lines = input.content
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { key: string; request: unknown });
    assert.deepEqual(
      lines.map((l) => l.key),
      ['k1', 'k2', 'k3'],
    );
    // The engine splits jobs by itemBytes: it is exactly the item's share of the file.
    assert.equal(
      items.reduce((sum, i) => sum + b.itemBytes(i), 0),
      Buffer.byteLength(input.content),
    );

    const end = await untilEnded(b, job);
    assert.equal(end.state, 'succeeded');
    const results = byId(await b.results(job, signal));
    assert.ok(
      server.batch.calls.some((c) => c.route === 'download'),
      'the results file was downloaded',
    );
    assert.deepEqual(JSON.parse(replyOf(results.get('k2')).text), { answer: 'prompt k2' });
    assert.deepEqual(replyOf(results.get('k2')).usage, { inputTokens: 10, outputTokens: 4 });
    assert.equal(results.size, 3);
    assert.equal(server.batch.syncCalls, 0);

    // A damaged line fails its item (when its key can be read) instead of vanishing or failing the job.
    const out = server.batch.files.get(created.responsesFile ?? '');
    assert.ok(out);
    const [first, ...rest] = out.content.split('\n');
    out.content = [first?.slice(0, 40), ...rest].join('\n');
    const damaged = byId(await b.results(job, signal));
    const k1 = damaged.get('k1');
    assert.ok(k1 && !k1.ok && k1.status === 502, JSON.stringify(k1));
    assert.ok(damaged.get('k2')?.ok);
  });

  it('refuses a job name that is not a Gemini batch job in words', async () => {
    const server = await start();
    const b = backend(server);
    await assert.rejects(
      b.status('batch_abc123', signal),
      (e: unknown) => e instanceof LlmHttpError && e.status === 400 && /not a Gemini batch job/.test(e.message),
    );
    await assert.rejects(b.cancel('batch_abc123', signal), (e: unknown) => e instanceof LlmHttpError && e.status === 400);
  });

  it('sends the same request body as the synchronous call, inline and in a file', async () => {
    const server = await start();
    echo(server);
    const extraConfig = {
      maxOutputTokens: 256,
      thinkingConfig: { thinkingBudget: 0 },
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
    };
    const request = item('same', 'the same words', {
      messages: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: '{"answer":"one"}' },
        { role: 'user', content: 'the same words' },
      ],
    });
    await new GeminiProvider({ apiKey: KEY, baseUrl: server.url, extraConfig }).complete({ ...request.request, signal });
    const inline = backend(server, { extraConfig });
    const file = backend(server, { extraConfig, inlineMaxBytes: 10 });
    for (const b of [inline, file]) await untilEnded(b, await b.submit([request], `same-${b === inline ? 'inline' : 'file'}`, signal));
    assert.deepEqual(
      server.batch.jobs.map((j) => j.source),
      ['inline', 'file'],
    );

    const sync = server.requests.filter((r) => r.viaBatch === undefined);
    const viaBatch = server.requests.filter((r) => r.viaBatch !== undefined);
    assert.equal(sync.length, 1);
    assert.equal(viaBatch.length, 2);
    assert.equal(sync[0]?.body.generationConfig.maxOutputTokens, 256, 'extraConfig reached the request');
    assert.equal(sync[0]?.body.safetySettings.length, 1, 'safety settings sit beside generationConfig');
    assert.ok(sync[0]?.body.generationConfig.responseJsonSchema, 'the schema reached the request');
    for (const r of viaBatch) assert.deepEqual(r.body, sync[0]?.body);
    // The inline request as the SDK sent it names no model of its own (the URL does).
    assert.equal(server.batch.jobs[0]?.items[0]?.request.model, undefined);
  });

  it('maps per-item errors (HTTP-like and gRPC codes) and keeps malformed or blocked replies as replies', async () => {
    const server = await start();
    server.enqueue(
      { status: 429, message: 'slow down' },
      { status: 500, message: 'boom' },
      { status: 429, body: { error: { code: 8, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' } } },
      { text: 'not json at all' },
      { httpBody: JSON.stringify({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 7 } }) },
      { json: { answer: 'fine' } },
    );
    for (const inlineMaxBytes of [undefined, 10]) {
      if (inlineMaxBytes !== undefined)
        server.enqueue(
          { status: 429, message: 'slow down' },
          { status: 500, message: 'boom' },
          { status: 429, body: { error: { code: 8, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' } } },
          { text: 'not json at all' },
          { httpBody: JSON.stringify({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 7 } }) },
          { json: { answer: 'fine' } },
        );
      const b = backend(server, inlineMaxBytes === undefined ? {} : { inlineMaxBytes });
      const ids = ['r429', 'r500', 'grpc8', 'junk', 'blocked', 'ok'];
      const job = await b.submit(
        ids.map((id) => item(id)),
        `errors-${inlineMaxBytes ?? 'inline'}`,
        signal,
      );
      const end = await untilEnded(b, job);
      assert.equal(end.state, 'succeeded');
      assert.deepEqual(end.counts, { total: 6, succeeded: 3, failed: 3 });
      const results = byId(await b.results(job, signal));
      const r429 = results.get('r429');
      assert.ok(r429 && !r429.ok);
      assert.equal(r429.status, 429);
      assert.match(r429.message, /slow down/);
      const r500 = results.get('r500');
      assert.ok(r500 && !r500.ok && r500.status === 500);
      const grpc = results.get('grpc8');
      assert.ok(grpc && !grpc.ok && grpc.status === 429, `gRPC code 8 is a 429: ${JSON.stringify(grpc)}`);
      assert.equal(replyOf(results.get('junk')).text, 'not json at all');
      const blocked = replyOf(results.get('blocked'));
      assert.equal(blocked.text, '');
      assert.equal(blocked.finishReason, 'SAFETY');
      assert.deepEqual(JSON.parse(replyOf(results.get('ok')).text), { answer: 'fine' });
    }
  });

  it('reports a failed job with the provider’s words and no results', async () => {
    const server = await start();
    echo(server);
    server.batch.scriptNextJob({ endAs: 'failed', message: 'the batch could not be processed' });
    const b = backend(server);
    const job = await b.submit([item('a'), item('b')], 'failing', signal);
    const end = await untilEnded(b, job);
    assert.equal(end.state, 'failed');
    assert.equal(end.error, 'the batch could not be processed');
    assert.deepEqual(await b.results(job, signal), []);
    assert.equal(server.batch.batchItems, 0);
  });

  it('returns the results an expired job holds, inline and from a file', async () => {
    const server = await start();
    echo(server);
    for (const inlineMaxBytes of [undefined, 10]) {
      server.batch.scriptNextJob({ endAs: 'expired', answered: 2 });
      const b = backend(server, inlineMaxBytes === undefined ? {} : { inlineMaxBytes });
      const job = await b.submit([item('a'), item('b'), item('c')], `expiring-${inlineMaxBytes ?? 'inline'}`, signal);
      const end = await untilEnded(b, job);
      assert.equal(end.state, 'expired');
      assert.deepEqual(end.counts, { total: 3, succeeded: 2, failed: 0 });
      const results = await b.results(job, signal);
      assert.deepEqual(results.map((r) => r.id).sort(), ['a', 'b']);
    }
  });

  it('cancels a job and returns the results it kept', async () => {
    const server = await start({ manual: true });
    echo(server);
    server.batch.scriptNextJob({ answered: 1 });
    const b = backend(server);
    const job = await b.submit([item('a'), item('b')], 'to-cancel', signal);
    await server.batch.advance(job);
    assert.equal((await b.status(job, signal)).state, 'running');
    await b.cancel(job, signal);
    assert.ok(server.batch.calls.some((c) => c.route === 'cancel' && c.path.endsWith(`${job}:cancel`)));
    assert.equal((await b.status(job, signal)).state, 'cancelled');
    assert.deepEqual(
      (await b.results(job, signal)).map((r) => r.id),
      ['a'],
    );
  });

  it('matches inline results by position when the API gives no keys back', async () => {
    const server = await start({ omitInlineKeys: true });
    echo(server);
    const b = backend(server);
    const job = await b.submit([item('x'), item('y')], 'no-keys', signal);
    await untilEnded(b, job);
    const results = byId(await b.results(job, signal));
    assert.deepEqual(JSON.parse(replyOf(results.get('y')).text), { answer: 'prompt y' });
  });

  it('finds a job by its display name, paging through the list', async () => {
    const server = await start({ pageSize: 2 });
    echo(server);
    const b = backend(server);
    const first = await b.submit([item('a')], 'run-1', signal);
    await b.submit([item('b')], 'run-2', signal);
    await b.submit([item('c')], 'run-3', signal);
    await b.submit([item('d')], 'run-4', signal);
    assert.equal(await b.find('run-1', signal), first);
    assert.ok(server.batch.calls.filter((c) => c.route === 'list').length >= 2, 'the oldest job is on a later page');
    assert.equal(await b.find('never-submitted', signal), undefined);
  });

  it('turns HTTP errors of the batch endpoints into LlmHttpError with the server’s wait', async () => {
    const server = await start();
    echo(server);
    const b = backend(server);
    server.batch.failRoute('create', { status: 429, retryAfter: 7 });
    await assert.rejects(b.submit([item('a')], 'refused', signal), (e: unknown) => {
      assert.ok(e instanceof LlmHttpError);
      assert.equal(e.status, 429);
      assert.equal(e.retryAfterMs, 7000);
      assert.equal(e.transient, true);
      assert.equal(e.fatal, false);
      return true;
    });
    const job = await b.submit([item('a')], 'accepted', signal);
    server.batch.failRoute('get', { status: 500, message: 'internal' });
    await assert.rejects(b.status(job, signal), (e: unknown) => e instanceof LlmHttpError && e.status === 500 && e.transient);
    server.batch.failRoute('list', { status: 429, body: geminiRetryInfoBody(3) });
    await assert.rejects(b.find('accepted', signal), (e: unknown) => e instanceof LlmHttpError && e.status === 429 && e.retryAfterMs === 3000);
    server.batch.failRoute('cancel', { status: 503 });
    await assert.rejects(b.cancel(job, signal), (e: unknown) => e instanceof LlmHttpError && e.status === 503);

    const file = backend(server, { inlineMaxBytes: 10 });
    server.batch.failRoute('upload', { status: 503, retryAfter: 2 });
    await assert.rejects(
      file.submit([item('a')], 'upload-refused', signal),
      (e: unknown) => e instanceof LlmHttpError && e.status === 503 && e.retryAfterMs === 2000,
    );
    const fileJob = await file.submit([item('a')], 'file', signal);
    await untilEnded(file, fileJob);
    server.batch.failRoute('download', { status: 500 });
    await assert.rejects(file.results(fileJob, signal), (e: unknown) => e instanceof LlmHttpError && e.status === 500);
    assert.equal((await file.results(fileJob, signal)).length, 1, 'the next download works');
  });

  it('refuses an inline job over the API’s size limit with a non-fatal 400', async () => {
    const server = await start({ inlineLimitBytes: 500 });
    echo(server);
    const b = backend(server);
    await assert.rejects(b.submit([item('a', 'x'.repeat(1000))], 'too-big', signal), (e: unknown) => {
      assert.ok(e instanceof LlmHttpError);
      assert.equal(e.status, 400);
      assert.equal(e.fatal, false);
      assert.match(e.message, /exceeds the limit/);
      return true;
    });
    assert.equal(server.batch.jobs.length, 0);
  });

  it('treats a bad key as fatal, on every endpoint', async () => {
    const server = await start();
    const b = new GeminiBatchBackend({ apiKey: 'wrong-key-0123456789', baseUrl: server.url });
    const fatal = (e: unknown): boolean => e instanceof LlmHttpError && e.fatal && e.status === 400 && !e.message.includes('wrong-key-0123456789');
    await assert.rejects(b.submit([item('a')], 'x', signal), fatal);
    await assert.rejects(
      new GeminiBatchBackend({ apiKey: 'wrong-key-0123456789', baseUrl: server.url, inlineMaxBytes: 10 }).submit([item('a')], 'x', signal),
      fatal,
    );
    await assert.rejects(b.status('batches/anything', signal), fatal);
    await assert.rejects(b.find('x', signal), fatal);
  });

  it('stops when its signal aborts', async () => {
    const server = await start();
    const b = backend(server);
    const aborted = AbortSignal.abort();
    const isAbort = (e: unknown): boolean => (e as Error).name === 'AbortError';
    await assert.rejects(b.submit([item('a')], 'x', aborted), isAbort);
    await assert.rejects(
      backend(server, { inlineMaxBytes: 10 }).submit([item('a')], 'x', aborted),
      isAbort,
      'the upload, which the SDK gives no signal, stops too',
    );
    assert.equal(server.batch.jobs.length, 0);
    assert.equal(server.batch.files.size, 0);
  });
});

describe('Gemini batch states and item errors', () => {
  it('maps every state the SDK or the API names', () => {
    assert.equal(batchJobState('JOB_STATE_PENDING'), 'pending');
    assert.equal(batchJobState('JOB_STATE_QUEUED'), 'pending');
    assert.equal(batchJobState('JOB_STATE_RUNNING'), 'running');
    assert.equal(batchJobState('JOB_STATE_SUCCEEDED'), 'succeeded');
    assert.equal(batchJobState('JOB_STATE_FAILED'), 'failed');
    assert.equal(batchJobState('JOB_STATE_EXPIRED'), 'expired');
    assert.equal(batchJobState('JOB_STATE_CANCELLING'), 'cancelled');
    assert.equal(batchJobState('JOB_STATE_CANCELLED'), 'cancelled');
    assert.equal(batchJobState('BATCH_STATE_RUNNING'), 'running');
    assert.equal(batchJobState('BATCH_STATE_EXPIRED'), 'expired');
    assert.equal(batchJobState('JOB_STATE_UNSPECIFIED'), undefined);
  });

  it('reads an item error’s status from an HTTP code, a gRPC code or its name; 500 otherwise', () => {
    assert.equal(itemErrorStatus({ code: 429 }), 429);
    assert.equal(itemErrorStatus({ code: 8 }), 429);
    assert.equal(itemErrorStatus({ code: 14 }), 503);
    assert.equal(itemErrorStatus({ code: 3 }), 400);
    assert.equal(itemErrorStatus({ status: 'UNAVAILABLE' }), 503);
    assert.equal(itemErrorStatus({}), 500);
    assert.equal(itemErrorStatus(undefined), 500);
  });
});
