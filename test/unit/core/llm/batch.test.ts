/**
 * Batch mode: the engine (`BatchProvider`) over the OpenAI batch backend, through the real
 * `openai` client against the fake OpenAI batch server on 127.0.0.1. Real files for the journal,
 * short real times for flushes and polls.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { z } from 'zod';
import {
  BatchPendingError,
  BatchProvider,
  cancelBatchJobs,
  CallGuard,
  DiskCache,
  isAbortError,
  LlmHttpError,
  LlmStats,
  LlmStopError,
  OpenAIBatchBackend,
  OpenAICompatibleProvider,
  readBatchJournal,
  readJobResults,
  refreshBatchJobs,
  StructuredLlm,
  type BatchBackend,
  type BatchEvent,
  type BatchItem,
  type BatchLimits,
  type BatchProviderOptions,
  type ChatReply,
} from '../../../../src/core/llm';
import { ManualClock } from '../../../fakes/manualClock';
import { BATCH_POLL_FAILURES } from '../../../../src/core/workspace/defaults';
import { startFakeOpenAIBatch, type FakeOpenAIBatchOptions, type FakeOpenAIBatchServer } from '../../../fakes/fakeOpenAIBatch';
import type { FakeReply, FakeRequest } from '../../../fakes/fakeLlmServer';
import { BATCH_TEST_KEY, BATCH_TEST_MODEL, batchRequest } from './batchChild';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The number a request asks for (`item <n>`). */
const itemOf = (r: FakeRequest): number => Number(/item (\d+)/.exec(r.lastUserText)?.[1] ?? -1);
/** The fake's answer to `item n`: `{n}`. */
const counting = (r: FakeRequest): FakeReply => ({ json: { n: itemOf(r) }, usage: { input: 10, output: 3 } });
const nOf = (reply: ChatReply): number => (JSON.parse(reply.text) as { n: number }).n;
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

interface Setup {
  fake: FakeOpenAIBatchServer;
  backend: OpenAIBatchBackend;
  dir: string;
  events: BatchEvent[];
  provider(over?: Partial<BatchProviderOptions>): BatchProvider;
}

async function setup(fakeOptions: FakeOpenAIBatchOptions = {}, limits?: Partial<BatchLimits>): Promise<Setup> {
  const fake = await startFakeOpenAIBatch({ apiKey: BATCH_TEST_KEY, ...fakeOptions });
  cleanups.push(() => fake.close());
  fake.respondWith(counting);
  const dir = await mkdtemp(join(tmpdir(), 'agent-seer-batch-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const backend = new OpenAIBatchBackend({ model: BATCH_TEST_MODEL, baseUrl: fake.url, apiKey: BATCH_TEST_KEY, ...(limits ? { limits } : {}) });
  const events: BatchEvent[] = [];
  return {
    fake,
    backend,
    dir,
    events,
    provider(over = {}) {
      const p = new BatchProvider({ backend, dir, firstPollMs: 10, maxPollMs: 30, flushMs: 20, onEvent: (e) => events.push(e), ...over });
      cleanups.push(() => p.close());
      return p;
    },
  };
}

/** A guard as the lead runs batch mode: no concurrency limit to speak of, no rpm, fast retries. */
const batchGuard = (): CallGuard => new CallGuard({ concurrency: 100_000, timeoutMs: 600_000, retry: { baseDelayMs: 5, maxDelayMs: 20 } });

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('batch mode over the OpenAI batch API', () => {
  it('sends a round of calls as one job, with no synchronous chat call, and journals it', async () => {
    const s = await setup();
    const provider = s.provider();
    // The results are on disk before the first call is resolved with them.
    let onDiskFirst = false;
    const first = provider.complete(batchRequest(0)).then((r) => {
      onDiskFirst = readdirSync(join(s.dir, 'jobs')).some((f) => f.endsWith('.results.jsonl'));
      return r;
    });
    const replies = await Promise.all([first, ...range(19).map((i) => provider.complete(batchRequest(i + 1)))]);
    assert.ok(onDiskFirst);
    assert.deepEqual(replies.map(nOf), range(20));
    assert.equal(s.fake.batch.jobs.length, 1);
    assert.deepEqual(s.fake.batch.itemsPerJob(), [20]);
    assert.equal(s.fake.batch.syncCalls, 0);
    assert.equal(s.fake.batch.batchItems, 20);
    const summary = provider.summary();
    assert.deepEqual(summary.jobs, { submitted: 1, resumed: 0, byState: { succeeded: 1 } });
    assert.deepEqual(summary.items, { submitted: 20, succeeded: 20, failed: 0, retriedSync: 0, fromEarlierJobs: 0, fromJournal: 0 });
    assert.deepEqual(summary.usage.batch, { inputTokens: 200, outputTokens: 60 });
    assert.equal(replies[0]?.usage?.inputTokens, 10);
    const journal = await readBatchJournal(s.dir);
    assert.equal(journal.jobs.length, 1);
    const job = journal.jobs[0]!;
    assert.equal(job.job, s.fake.batch.jobs[0]?.id);
    assert.equal(job.state, 'succeeded');
    assert.equal(job.collected, true);
    assert.match(job.displayName, /^agent-seer-[0-9a-f]+-1$/);
    assert.equal(s.fake.batch.jobs[0]?.displayName, job.displayName, 'the job carries its display name at the provider');
    assert.equal((await readJobResults(s.dir, job.displayName))?.length, 20);
    assert.deepEqual(
      s.events.map((e) => e.type).filter((t) => t !== 'polled'),
      ['submitted', 'ended'],
    );
  });

  it('polls a running job with backoff: each wait 1.5 times the last, up to maxPollMs', async () => {
    const s = await setup({ pollsPerState: 'manual' });
    const clock = new ManualClock();
    const polledAt: number[] = [];
    const provider = s.provider({
      clock,
      firstPollMs: 1000,
      maxPollMs: 3000,
      flushMs: 100,
      onEvent: (e) => {
        if (e.type === 'polled') polledAt.push(clock.now());
      },
    });
    const reply = provider.complete(batchRequest(4));
    while (polledAt.length < 6) {
      // Real HTTP between the manual clock's steps: wait for the engine to sleep again.
      await until('the engine to wait', () => clock.sleeping > 0);
      await clock.advance(50);
    }
    const submittedAt = 100;
    assert.deepEqual(
      polledAt.map((t, i) => t - (i === 0 ? submittedAt : polledAt[i - 1]!)),
      [1000, 1500, 2250, 3000, 3000, 3000],
    );
    await s.fake.batch.finishAll();
    while (!(await Promise.race([reply.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 5))]))) {
      if (clock.sleeping > 0) await clock.advance(50);
    }
    assert.equal(nOf(await reply), 4);
  });

  it('sends a batch item with exactly the body of a synchronous call', async () => {
    const s = await setup();
    await s.provider().complete(batchRequest(1));
    await new OpenAICompatibleProvider({ model: BATCH_TEST_MODEL, baseUrl: s.fake.url, apiKey: BATCH_TEST_KEY }).complete(batchRequest(1));
    const [viaBatch, viaSync] = s.fake.requests;
    assert.ok(viaBatch?.viaBatch && viaSync && !viaSync.viaBatch);
    assert.deepEqual(viaBatch.body, viaSync.body);
  });

  it('splits a round into jobs by the item limit and by the byte limit; an item over the byte limit alone fails as a 413 discard', async () => {
    const byCount = await setup({}, { maxItems: 7 });
    const a = byCount.provider();
    assert.deepEqual((await Promise.all(range(20).map((i) => a.complete(batchRequest(i))))).map(nOf), range(20));
    assert.deepEqual(byCount.fake.batch.itemsPerJob(), [7, 7, 6]);

    const one = byCount.backend.itemBytes({ id: 'x'.repeat(64), request: batchRequest(10) });
    const bySize = await setup({}, { maxBytes: one * 3 + 10 });
    const b = bySize.provider();
    const huge = { ...batchRequest(99), messages: [{ role: 'user' as const, content: `item 99 ${'x'.repeat(one * 4)}` }] };
    const results = await Promise.allSettled([...range(10).map((i) => b.complete(batchRequest(i + 10))), b.complete(huge)]);
    assert.deepEqual(
      results.slice(0, 10).map((r) => (r.status === 'fulfilled' ? nOf(r.value) : r.reason)),
      range(10).map((i) => i + 10),
    );
    const refused = results[10];
    assert.ok(refused?.status === 'rejected' && refused.reason instanceof LlmHttpError);
    assert.equal(refused.reason.status, 413);
    assert.equal(refused.reason.fatal, false);
    assert.deepEqual(bySize.fake.batch.itemsPerJob(), [3, 3, 3, 1]);
    assert.equal(bySize.fake.batch.refused, 0, 'no job went over what the provider accepts');
  });

  it('retries items answered 429 or 500 into a follow-up job through the guard, and counts them', async () => {
    const s = await setup();
    const seen = new Set<number>();
    s.fake.respondWith((r) => {
      const n = itemOf(r);
      const first = !seen.has(n);
      seen.add(n);
      if (first && n === 3) return { status: 429, message: 'Rate limit reached' };
      if (first && n === 5) return { status: 500, message: 'The server had an error' };
      return counting(r);
    });
    const provider = s.provider();
    const guard = batchGuard();
    const replies = await Promise.all(range(10).map((i) => guard.call(provider, batchRequest(i))));
    assert.deepEqual(replies.map(nOf), range(10));
    assert.deepEqual(s.fake.batch.itemsPerJob(), [10, 2]);
    assert.equal(s.fake.batch.syncCalls, 0);
    const summary = provider.summary();
    assert.deepEqual(summary.items, { submitted: 12, succeeded: 10, failed: 2, retriedSync: 0, fromEarlierJobs: 0, fromJournal: 0 });
    assert.deepEqual(summary.jobs.byState, { succeeded: 2 });
  });

  it('recovers a run where 10% of the items fail once, through StructuredLlm', async () => {
    const s = await setup();
    const failing = new Set(range(100).filter((i) => i % 10 === 7));
    const seen = new Set<number>();
    s.fake.respondWith((r) => {
      const n = itemOf(r);
      const first = !seen.has(n);
      seen.add(n);
      return first && failing.has(n) ? { status: n % 20 === 7 ? 429 : 503, message: 'try later' } : counting(r);
    });
    const provider = s.provider();
    const llm = new StructuredLlm({ provider, guard: batchGuard() });
    const results = await Promise.all(
      range(100).map((i) =>
        llm.generate({ stage: 'count', promptVersion: '1', system: 'You count.', prompt: `item ${i}`, schema: z.object({ n: z.number() }) }),
      ),
    );
    assert.deepEqual(
      results.map((r) => (r.ok ? r.value.n : r.reason)),
      range(100),
    );
    assert.equal(s.fake.batch.syncCalls, 0);
    assert.equal(s.fake.batch.batchItems, 110);
    const summary = provider.summary();
    assert.equal(summary.items.failed, 10);
    assert.equal(summary.items.succeeded, 100);
    const retries = llm.stats.snapshot().retries;
    assert.equal(retries['rate-limit'] + retries.server, 10);
  });

  it('with a synchronous provider, sends each failed item once through it, and counts it apart', async () => {
    const s = await setup();
    s.fake.respondWith((r) => (r.viaBatch && itemOf(r) % 4 === 0 ? { status: 500, message: 'boom' } : counting(r)));
    const sync = new OpenAICompatibleProvider({ model: BATCH_TEST_MODEL, baseUrl: s.fake.url, apiKey: BATCH_TEST_KEY });
    const provider = s.provider({ sync });
    const replies = await Promise.all(range(8).map((i) => provider.complete(batchRequest(i))));
    assert.deepEqual(replies.map(nOf), range(8));
    assert.equal(s.fake.batch.jobs.length, 1);
    assert.equal(s.fake.batch.syncCalls, 2);
    const summary = provider.summary();
    assert.equal(summary.items.retriedSync, 2);
    assert.equal(summary.items.failed, 2);
    assert.deepEqual(summary.usage.sync, { inputTokens: 20, outputTokens: 6 });
    assert.deepEqual(summary.usage.batch, { inputTokens: 60, outputTokens: 18 });
  });

  for (const fault of [
    { kind: 'fail', keep: 0, state: 'failed' },
    { kind: 'expire', keep: 3, state: 'expired' },
    { kind: 'cancel', keep: 2, state: 'cancelled' },
  ] as const) {
    it(`a job that ends ${fault.state} keeps the items it answered and sends the rest into a new job`, async () => {
      const s = await setup();
      s.fake.batch.faultNext(fault.kind === 'fail' ? { kind: 'fail', message: 'model not available for batch' } : { kind: fault.kind, keep: fault.keep });
      const provider = s.provider();
      const guard = batchGuard();
      const replies = await Promise.all(range(10).map((i) => guard.call(provider, batchRequest(i))));
      assert.deepEqual(replies.map(nOf), range(10));
      assert.deepEqual(s.fake.batch.itemsPerJob(), [10, 10 - fault.keep]);
      assert.equal(s.fake.batch.batchItems, 10, 'each item answered exactly once');
      const summary = provider.summary();
      assert.deepEqual(summary.jobs.byState, { [fault.state]: 1, succeeded: 1 });
      assert.equal(summary.items.succeeded, 10);
      assert.equal(summary.items.failed, 10 - fault.keep);
      const journal = await readBatchJournal(s.dir);
      assert.deepEqual(
        journal.jobs.map((j) => j.state),
        [fault.state, 'succeeded'],
      );
      if (fault.kind === 'fail') assert.match(journal.jobs[0]?.error ?? '', /model not available for batch/);
      const kept = (await readJobResults(s.dir, journal.jobs[0]!.displayName)) ?? [];
      assert.equal(kept.filter((r) => r.ok).length, fault.keep, 'the answered items are on disk');
    });
  }

  it("an item's own 4xx is a non-fatal content error; a 429 naming an exhausted quota stops the run", async () => {
    const s = await setup();
    s.fake.respondWith((r) =>
      itemOf(r) === 1
        ? { status: 404, message: 'The model does not exist for this item' }
        : itemOf(r) === 2
          ? { status: 429, message: 'You exceeded your current quota (insufficient_quota)' }
          : counting(r),
    );
    const provider = s.provider();
    const [notFound, quota] = await Promise.allSettled([provider.complete(batchRequest(1)), provider.complete(batchRequest(2))]);
    assert.ok(notFound.status === 'rejected' && notFound.reason instanceof LlmHttpError);
    assert.equal(notFound.reason.status, 404);
    assert.equal(notFound.reason.fatal, false);
    assert.match(notFound.reason.message, /model does not exist/);
    assert.ok(quota.status === 'rejected' && quota.reason instanceof LlmHttpError && quota.reason.quotaExhausted);
  });

  it('a failed job rejects its calls with a retryable 503 that carries the provider words', async () => {
    const s = await setup();
    s.fake.batch.faultNext({ kind: 'fail', message: 'input file malformed' });
    const provider = s.provider();
    const e = await provider.complete(batchRequest(1)).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(e instanceof LlmHttpError);
    assert.equal(e.status, 503);
    assert.equal(e.transient, true);
    assert.match(e.message, /failed \(fake_failure: input file malformed\)/);
  });

  it('cancelling one call rejects it at once; the job keeps running and the other calls get their replies', async () => {
    const s = await setup({ pollsPerState: 'manual' });
    const provider = s.provider();
    const controller = new AbortController();
    const cancelled = provider.complete(batchRequest(0, controller.signal));
    const others = range(4).map((i) => provider.complete(batchRequest(i + 1)));
    await until('the job', () => s.fake.batch.jobs.length === 1);
    const started = Date.now();
    controller.abort();
    const e = await cancelled.then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(isAbortError(e), String(e));
    assert.ok(Date.now() - started < 200, 'rejected promptly');
    assert.equal(s.fake.batch.jobs[0]?.status, 'validating', 'the provider job is not cancelled');
    await s.fake.batch.finishAll();
    assert.deepEqual((await Promise.all(others)).map(nOf), [1, 2, 3, 4]);
  });

  it('wait: false stops the round with BatchPendingError once it is journaled; a re-run collects without submitting again', async () => {
    const s = await setup({ pollsPerState: 'manual' });
    const first = s.provider({ wait: false, statusFolder: 'evals/github' });
    const outcomes = await Promise.allSettled(range(6).map((i) => first.complete(batchRequest(i))));
    for (const o of outcomes) {
      assert.ok(o.status === 'rejected' && o.reason instanceof BatchPendingError && o.reason instanceof LlmStopError);
      assert.equal(
        (o.reason as Error).message,
        '1 batch job is still running (6 items); run the same command again to collect them, or `agent-seer status evals/github`',
      );
    }
    const journal = await readBatchJournal(s.dir);
    assert.equal(journal.jobs.length, 1);
    assert.equal(journal.jobs[0]?.job, s.fake.batch.jobs[0]?.id, 'journaled with its job name before the calls stopped');
    await assert.rejects(first.complete(batchRequest(7)), BatchPendingError);
    assert.equal(s.fake.batch.jobs.length, 1, 'nothing new submitted after the stop');

    // Still running: a re-run stops again without a new job.
    const second = s.provider({ wait: false });
    await assert.rejects(second.complete(batchRequest(0)), BatchPendingError);
    assert.equal(s.fake.batch.jobs.length, 1);

    await s.fake.batch.finishAll();
    const third = s.provider({ wait: false });
    const replies = await Promise.all(range(6).map((i) => third.complete(batchRequest(i))));
    assert.deepEqual(replies.map(nOf), range(6));
    assert.equal(s.fake.batch.jobs.length, 1);
    assert.equal(s.fake.batch.batchItems, 6);
    assert.deepEqual(third.summary().jobs, { submitted: 0, resumed: 1, byState: { succeeded: 1 } });

    // Collected: the next run answers from disk.
    const fourth = s.provider({ wait: false });
    assert.equal(nOf(await fourth.complete(batchRequest(2))), 2);
    assert.equal(fourth.summary().items.fromJournal, 1);
  });

  it('wait: false stops a round split into several jobs only after all of them are journaled', async () => {
    const s = await setup({ pollsPerState: 'manual' }, { maxItems: 4 });
    const provider = s.provider({ wait: false, statusFolder: 'out' });
    const outcomes = await Promise.allSettled(range(10).map((i) => provider.complete(batchRequest(i))));
    assert.deepEqual(s.fake.batch.itemsPerJob(), [4, 4, 2]);
    for (const o of outcomes) {
      assert.ok(o.status === 'rejected' && o.reason instanceof BatchPendingError);
      assert.match((o.reason as Error).message, /^3 batch jobs are still running \(10 items\)/);
    }
    assert.equal((await readBatchJournal(s.dir)).jobs.filter((j) => j.job !== undefined).length, 3);
  });

  it('wait: false goes on from a job that ended: the call its reply leads to goes out before the run stops', async () => {
    const s = await setup({ pollsPerState: 'manual' }, { maxItems: 1 });
    // A first run leaves two jobs: item 0's and item 1's.
    const first = s.provider({ wait: false });
    await Promise.allSettled([0, 1].map((i) => first.complete(batchRequest(i))));
    assert.deepEqual(s.fake.batch.itemsPerJob(), [1, 1]);
    // Item 0's job ends; item 1's is still running when the run is made again.
    const [jobA] = s.fake.batch.jobs;
    for (let i = 0; i < 4; i++) await s.fake.batch.advance(jobA!.id);
    const second = s.provider({ wait: false });
    // Item 2 is asked once item 0's reply is in (a dependent round).
    const chain = second.complete(batchRequest(0)).then((r) => {
      assert.equal(nOf(r), 0);
      return second.complete(batchRequest(2));
    });
    const outcomes = await Promise.allSettled([chain, second.complete(batchRequest(1))]);
    for (const o of outcomes) assert.ok(o.status === 'rejected' && o.reason instanceof BatchPendingError);
    assert.deepEqual(s.fake.batch.itemsPerJob(), [1, 1, 1], 'item 2 went out in this run, not in the next one');
    assert.equal(second.summary().items.fromEarlierJobs, 1);
  });

  it('a new sample of an equal request is an item of its own; a reply handed out again from the journal is no call', async () => {
    const s = await setup();
    const provider = s.provider();
    const stats = new LlmStats();
    const guard = batchGuard();
    const call = (sample: string): Promise<ChatReply> => guard.call(provider, { ...batchRequest(0), sample }, stats);
    await Promise.all([call('item-key'), call('item-key#retry-1')]);
    assert.equal(s.fake.batch.batchItems, 2, 'two samples, two items');
    const again = await call('item-key');
    assert.equal(again.modelCalls, 0);
    assert.equal(s.fake.batch.batchItems, 2);
    const snap = stats.snapshot();
    assert.equal(snap.requests, 2, 'the calls counted are the items the provider answered');
    assert.deepEqual([snap.inputTokens, snap.outputTokens], [20, 6]);
    assert.equal(provider.summary().items.fromJournal, 1);
  });

  it('a job created but not journaled (killed in between) is found by its name, not submitted again', async () => {
    const s = await setup();
    // A backend whose process "dies" right after the provider created the job.
    let created = false;
    const dying: BatchBackend = Object.assign(Object.create(s.backend) as BatchBackend, {
      submit: async (items: readonly BatchItem[], name: string, signal: AbortSignal): Promise<string> => {
        await s.backend.submit(items, name, signal);
        created = true;
        return new Promise<string>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
      },
    });
    const first = s.provider({ backend: dying });
    const lost = range(5).map((i) => first.complete(batchRequest(i)).catch((e: unknown) => e));
    await until('the job', () => created);
    await first.close();
    assert.ok((await Promise.all(lost)).every(isAbortError));
    const intent = (await readBatchJournal(s.dir)).jobs[0];
    assert.equal(intent?.job, undefined, 'the journal holds only the intent');

    const second = s.provider();
    const replies = await Promise.all(range(5).map((i) => second.complete(batchRequest(i))));
    assert.deepEqual(replies.map(nOf), range(5));
    assert.equal(s.fake.batch.jobs.length, 1, 'found by name, not created again');
    assert.equal(s.fake.batch.batchItems, 5);
    assert.deepEqual(second.summary().jobs, { submitted: 0, resumed: 1, byState: { succeeded: 1 } });
  });

  it('an intent the provider never turned into a job is dropped and its items are submitted anew', async () => {
    const s = await setup();
    let asked = false;
    const stuck: BatchBackend = Object.assign(Object.create(s.backend) as BatchBackend, {
      submit: (_items: readonly BatchItem[], _name: string, signal: AbortSignal): Promise<string> => {
        asked = true;
        return new Promise<string>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
      },
    });
    const first = s.provider({ backend: stuck });
    const lost = range(3).map((i) => first.complete(batchRequest(i)).catch((e: unknown) => e));
    await until('the submission', () => asked);
    await first.close();
    await Promise.all(lost);
    const [intent] = (await readBatchJournal(s.dir)).jobs;
    assert.ok(intent && intent.job === undefined);

    const second = s.provider();
    assert.deepEqual((await Promise.all(range(3).map((i) => second.complete(batchRequest(i))))).map(nOf), range(3));
    assert.equal(s.fake.batch.jobs.length, 1);
    const journal = await readBatchJournal(s.dir);
    assert.deepEqual(
      journal.jobs.map((j) => j.displayName === intent.displayName),
      [false],
      'the dead intent is gone',
    );
  });

  it('StructuredLlm over batch mode stores replies under the synchronous cache key: a synchronous run after it makes no call', async () => {
    const s = await setup();
    const cacheDir = join(s.dir, 'llm');
    const schema = z.object({ n: z.number() });
    const ask = (i: number): Parameters<StructuredLlm['generate']>[0] => ({
      stage: 'count',
      promptVersion: '1',
      system: 'You count.',
      prompt: `item ${i}`,
      schema,
    });
    const batchLlm = new StructuredLlm({ provider: s.provider(), cache: new DiskCache(cacheDir), guard: batchGuard() });
    const batched = await Promise.all(range(5).map((i) => batchLlm.generate(ask(i))));
    assert.ok(batched.every((r) => r.ok && !r.cached));
    assert.equal(s.fake.batch.batchItems, 5);

    const syncLlm = new StructuredLlm({
      provider: new OpenAICompatibleProvider({ model: BATCH_TEST_MODEL, baseUrl: s.fake.url, apiKey: BATCH_TEST_KEY }),
      cache: new DiskCache(cacheDir),
    });
    const again = await Promise.all(range(5).map((i) => syncLlm.generate(ask(i))));
    assert.ok(again.every((r) => r.ok && r.cached));
    assert.deepEqual(
      again.map((r) => r.key),
      batched.map((r) => r.key),
    );
    assert.equal(s.fake.batch.syncCalls, 0);
    assert.equal(s.fake.requests.length, 5);
  });

  it('a job the provider refuses (file too large, too many lines) fails its calls with the 400 and leaves no intent behind', async () => {
    for (const refusal of [{ maxFileBytes: 500 }, { maxLines: 2 }]) {
      const s = await setup(refusal);
      const provider = s.provider();
      const outcomes = await Promise.allSettled(range(3).map((i) => provider.complete(batchRequest(i))));
      for (const o of outcomes) {
        assert.ok(o.status === 'rejected' && o.reason instanceof LlmHttpError, JSON.stringify(refusal));
        assert.equal(o.reason.status, 400);
        assert.equal(o.reason.fatal, false, 'a counted discard, not a stop');
      }
      assert.equal(s.fake.batch.refused, 1);
      assert.equal(s.fake.batch.jobs.length, 0);
      assert.deepEqual((await readBatchJournal(s.dir)).jobs, [], 'the intent is removed');
      assert.equal(provider.summary().jobs.submitted, 0);
    }
  });

  it('find pages through the batch list (newest first) to the job with the display name', async () => {
    const s = await setup();
    const signal = new AbortController().signal;
    const ids: string[] = [];
    for (const i of range(105)) ids.push(await s.backend.submit([{ id: `item-${i}`, request: batchRequest(i) }], `agent-seer-paging-${i}`, signal));
    assert.equal(await s.backend.find('agent-seer-paging-0', signal), ids[0], 'on the second page');
    assert.equal(await s.backend.find('agent-seer-paging-104', signal), ids[104]);
    assert.equal(await s.backend.find('agent-seer-never', signal), undefined);
    const listed = s.fake.requests.length;
    assert.equal(listed, 0, 'listing is no chat call');
  });

  it('refreshBatchJobs polls running jobs once; cancelBatchJobs cancels them at the provider, on request only', async () => {
    const s = await setup({ pollsPerState: 'manual' });
    const provider = s.provider({ wait: false });
    await Promise.allSettled(range(3).map((i) => provider.complete(batchRequest(i))));
    await s.fake.batch.advance();
    const refreshed = await refreshBatchJobs(s.dir, s.backend, new AbortController().signal);
    assert.equal(refreshed.jobs[0]?.state, 'running');
    assert.equal((await readBatchJournal(s.dir)).jobs[0]?.state, 'running');
    const cancelled = await cancelBatchJobs(s.dir, s.backend, new AbortController().signal);
    assert.equal(s.fake.batch.jobs[0]?.status, 'cancelling');
    assert.equal(cancelled.jobs[0]?.state, 'cancelled');
  });

  it('rides out failing polls; after too many in a row the calls fail and the job stays journaled for the next call', async () => {
    const s = await setup();
    s.fake.batch.failPolls(3, 503);
    const provider = s.provider();
    assert.deepEqual((await Promise.all(range(3).map((i) => provider.complete(batchRequest(i))))).map(nOf), range(3));

    const down = await setup({ pollsPerState: 'manual' });
    down.fake.batch.failPolls(BATCH_POLL_FAILURES, 502);
    const flaky = down.provider({ maxPollMs: 10 });
    const e = await flaky.complete(batchRequest(1)).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(e instanceof LlmHttpError && e.status === 502, String(e));
    assert.equal((await readBatchJournal(down.dir)).jobs[0]?.job, down.fake.batch.jobs[0]?.id, 'still journaled');
    // The endpoint is back and the job has ended: the same call attaches to the job again.
    await down.fake.batch.finishAll();
    assert.equal(nOf(await flaky.complete(batchRequest(1))), 1);
    assert.equal(down.fake.batch.jobs.length, 1);
  });

  it('refuses an unreadable journal file with its path instead of risking a second submission', async () => {
    const s = await setup();
    const provider = s.provider();
    await provider.complete(batchRequest(1));
    const [job] = (await readBatchJournal(s.dir)).jobs;
    const file = join(s.dir, 'jobs', `${job!.displayName}.json`);
    await import('node:fs/promises').then((fs) => fs.writeFile(file, '{"version": 1, "oops": true}'));
    await assert.rejects(s.provider().complete(batchRequest(2)), (e: Error) => e.message.startsWith(`${file}: not a batch journal file`));
    assert.ok((await readFile(file, 'utf8')).includes('oops'), 'left as it was');
  });
});
