/**
 * An LLM outage is never a success: `agent-seer generate` and `agent-seer judge` through the real
 * `@google/genai` and `openai` clients against the fake servers, with scripted faults. Total
 * outages fail (exit 1) with no record claiming to be LLM-made; a run with too many failed items
 * is `partial` (exit 3); a quota that will not reset soon stops the run at once.
 *
 * Faults carry `Retry-After: 0` where the test is not about waiting, so the client's retries
 * (which honour it) run without backoff and the tests stay fast.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EXIT } from '../../../../src/cli/errors';
import { DEFAULT_RETRY } from '../../../../src/core/llm/limits';
import { readHarness } from '../../../../src/core/harness/store';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { geminiRetryInfoBody, startFakeGemini } from '../../../fakes/fakeGemini';
import type { FakeLlmServer, FakeReply, FakeRequest } from '../../../fakes/fakeLlmServer';
import { startFakeOpenAI } from '../../../fakes/fakeOpenAI';
import { schemaOnlyModel } from '../../../fakes/schemaOnly';
import { cli } from '../../cliRunner';
import { specsDir } from '../../fixturePaths';
import { createResponder, firstPrompt, type Responder } from '../../pipelineResponder';

const slackSpec = join(specsDir, 'slack.json');

describe('LLM outages and quotas', () => {
  let gemini: FakeLlmServer;
  let openai: FakeLlmServer;
  let responder: Responder;
  let root: string;
  let n = 0;
  const out = (): string => join(root, `run${n++}`);
  const env = { GEMINI_API_KEY: 'k', OPENAI_API_KEY: 'k' };
  const generate = (fake: FakeLlmServer, dir: string, provider: 'gemini' | 'openai' = 'gemini', extra: string[] = []) =>
    cli(
      [
        'generate',
        slackSpec,
        '--provider',
        provider,
        ...(provider === 'openai' ? ['--model', 'm'] : []),
        '--base-url',
        fake.url,
        '--simple',
        '3',
        '--complex',
        '3',
        '--out',
        dir,
        '--json',
        ...extra,
      ],
      root,
      env,
    );

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-outage-'));
    [gemini, openai] = await Promise.all([startFakeGemini(), startFakeOpenAI()]);
    const loaded = loadSpecText(await readFile(slackSpec, 'utf8'), slackSpec);
    assert.ok(loaded.ok);
    responder = createResponder({ spec: loaded.spec });
  });
  after(async () => {
    await Promise.all([gemini.close(), openai.close()]);
    await rm(root, { recursive: true, force: true });
  });

  /** Asserts a total outage: failed, exit 1, manifest failed, no record made by or filled in for the model. */
  const assertTotalOutage = async (r: { code: number; out: string; err: string }, dir: string): Promise<void> => {
    assert.equal(r.code, EXIT.failed, r.err);
    const summary = JSON.parse(r.out) as { status: string; records: number; items: { llm: number; failed: number; total: number; offline: number } };
    assert.equal(summary.status, 'failed');
    assert.equal(summary.items.llm, 0);
    assert.equal(summary.items.offline, 0);
    assert.ok(summary.items.failed > 0 && summary.items.failed === summary.items.total, JSON.stringify(summary.items));
    // Either every item ran and failed, or the endpoint failed enough calls in a row to stop the run.
    assert.match(
      r.err,
      /generation failed: (no LLM item succeeded|stopped after \d+ items \(0 made by the model\): LLM endpoint down: \d+ calls in a row failed)/,
    );
    const h = await readHarness(dir);
    assert.equal(h.manifest?.status, 'failed');
    assert.match(h.manifest?.error ?? '', /no LLM item succeeded|LLM endpoint down/);
    assert.equal(h.records.length, 0, 'no record: none was made by the model, and none is filled in offline');
  };

  it('every request answered 429 (Gemini): the run fails with exit 1 and no record', async () => {
    gemini.reset();
    gemini.respondWith({ status: 429, retryAfter: 0, message: 'Resource has been exhausted (e.g. check quota).' });
    const dir = out();
    await assertTotalOutage(await generate(gemini, dir), dir);
    assert.ok(gemini.requests.every((q) => q.messages.length === 1));
  });

  it('every request answered 500 (OpenAI-compatible): the run fails with exit 1 and no record', async () => {
    openai.reset();
    openai.respondWith({ status: 500, retryAfter: 0, message: 'internal error' });
    const dir = out();
    await assertTotalOutage(await generate(openai, dir, 'openai'), dir);
  });

  it('a total outage on a 197-tool spec stops after a few waves of calls, not after trying every item', async () => {
    openai.reset();
    openai.respondWith({ status: 503, retryAfter: 0, message: 'service unavailable' });
    const dir = out();
    const twilio = join(specsDir, 'twilio-api-v2010.json');
    const r = await cli(['generate', twilio, '--provider', 'openai', '--model', 'm', '--base-url', openai.url, '--out', dir, '--json'], root, env);
    assert.equal(r.code, EXIT.failed, r.err);
    assert.match(r.err, /LLM endpoint down: 8 calls in a row failed, the last after 6 attempts \(/);
    assert.match(r.out, /"stopped": "outage"/);
    // 197 interpretations alone would be 197 × 6 requests; the breaker trips after 8 spent calls
    // (plus the calls already in flight at the default concurrency of 4).
    assert.ok(openai.requests.length <= (8 + 4) * 6, `${openai.requests.length} requests`);
    assert.equal((await readHarness(dir)).manifest?.status, 'failed');
  });

  it('a model that satisfies the response schema and nothing else still makes every record, none of them offline', async () => {
    gemini.reset();
    gemini.respondWith(schemaOnlyModel);
    const dir = out();
    const r = await generate(gemini, dir);
    const s = JSON.parse(r.out) as {
      status: string;
      items: { total: number; llm: number; discarded: number; offline: number; degradedShare: number; offlineRecords: number };
    };
    // What the code needs is in the schemas, so prose the model ignores costs nothing.
    assert.equal(s.status, 'complete', JSON.stringify(s.items));
    assert.equal(r.code, EXIT.ok);
    assert.equal(s.items.llm, s.items.total);
    assert.equal(s.items.offlineRecords, 0);
    const h = await readHarness(dir);
    assert.equal(h.manifest?.status, 'complete');
    assert.ok(h.records.length > 0);
    assert.ok(h.records.every((rec) => rec.provenance.stageProviders === undefined));
  });

  it('30% of the items failing permanently: partial, exit 3, the summary says how many failed and why', async () => {
    // An item fails for good when a hash of its prompt says so: every retry of it (the first
    // maxRetries + 1 sends of that prompt) gets the same 500. The same prompt sent again later is
    // a new item (a coverage round asks again for a tool whose scenario was lost, and its request
    // can be byte-identical): it is answered. Without that, one lost scenario's tool made the
    // global coverage rounds send one doomed prompt 8 times, which the outage stop rightly reads
    // as 8 calls in a row failing (issue 21's rewrite stage loses more scenarios to a 30% failure
    // rate, and 6 of 10 hash salts then tripped it).
    const doomer = (): ((req: FakeRequest) => boolean) => {
      const sends = new Map<string, number>();
      return (req) => {
        const prompt = firstPrompt(req);
        const n = (sends.get(prompt) ?? 0) + 1;
        sends.set(prompt, n);
        return n <= DEFAULT_RETRY.maxRetries + 1 && createHash('sha256').update(prompt).digest()[0]! % 10 < 3;
      };
    };
    let doomed = doomer();
    gemini.reset();
    gemini.respondWith((req): FakeReply => (doomed(req) ? { status: 500, retryAfter: 0, message: 'backend error' } : responder.respond(req)));
    const dir = out();
    const r = await generate(gemini, dir);
    assert.equal(r.code, EXIT.partial, r.err);
    const s = JSON.parse(r.out) as {
      status: string;
      records: number;
      items: { total: number; llm: number; failed: number; failedBy: Record<string, number>; degradedShare: number };
    };
    assert.equal(s.status, 'partial');
    assert.ok(s.records > 0 && s.items.llm > 0);
    assert.ok(s.items.failed > 0 && s.items.degradedShare > 0.1, JSON.stringify(s.items));
    assert.equal(
      Object.values(s.items.failedBy).reduce((a, b) => a + b, 0),
      s.items.failed,
    );
    assert.ok(
      Object.keys(s.items.failedBy).every((k) => /^(interpret|scenarios|mock|turns):http$/.test(k)),
      JSON.stringify(s.items.failedBy),
    );
    assert.match(r.err, /generation partial: \d+% of \d+ LLM items degraded \(limit 10%\): \d+ failed \(/);
    const h = await readHarness(dir);
    assert.equal(h.manifest?.status, 'partial');
    assert.deepEqual(h.manifest?.items, s.items);
    // A failed mock is not filled in offline: every record's outputs came from the model.
    assert.ok(h.records.every((rec) => rec.provenance.stageProviders?.mock === undefined));

    // The text summary says the same.
    doomed = doomer();
    gemini.reset();
    gemini.respondWith((req): FakeReply => (doomed(req) ? { status: 500, retryAfter: 0 } : responder.respond(req)));
    const text = await cli(
      ['generate', slackSpec, '--provider', 'gemini', '--base-url', gemini.url, '--simple', '3', '--complex', '3', '--out', dir],
      root,
      env,
    );
    assert.equal(text.code, EXIT.partial);
    assert.match(text.out, /\(partial; gemini /);
    assert.match(text.out, /LLM items: \d+ of \d+ made by the model; \d+ failed \(\w+:http \d+/);
    // Only the doomed items are asked again (the rest are cached), and they fail again: enough
    // of them in a row stop the run as an outage; either way the text says to re-run.
    assert.match(text.out, /Re-run the same command (to retry the \d+ items? that failed|once it answers again)/);
  });

  for (const form of ['Retry-After: 3600', 'RetryInfo retryDelay 3600s', 'a daily quota']) {
    it(`a 429 with ${form} stops the run within seconds, with the quota message and how to resume`, async () => {
      gemini.reset();
      const quota: FakeReply =
        form === 'Retry-After: 3600'
          ? { status: 429, retryAfter: 3600, message: 'Resource has been exhausted (e.g. check quota).' }
          : form === 'a daily quota'
            ? {
                status: 429,
                body: {
                  error: {
                    code: 429,
                    message: 'You exceeded your current quota, please check your plan and billing details.',
                    status: 'RESOURCE_EXHAUSTED',
                    details: [
                      {
                        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
                        violations: [{ quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier' }],
                      },
                      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '20s' },
                    ],
                  },
                },
              }
            : { status: 429, body: geminiRetryInfoBody(3600) };
      gemini.respondWith(quota);
      const dir = out();
      const t0 = Date.now();
      const r = await generate(gemini, dir);
      const elapsed = Date.now() - t0;
      assert.ok(elapsed < 5000, `stopped after ${elapsed} ms`);
      assert.equal(r.code, EXIT.failed, r.err);
      assert.ok(gemini.requests.length <= 4, `${gemini.requests.length} requests: the first quota answer stops the rest`);
      assert.match(r.err, /LLM quota: /);
      const s = JSON.parse(r.out) as { status: string; error: string };
      assert.equal(s.status, 'failed');
      assert.match(s.error, /stopped after \d+ items \(\d+ made by the model\): LLM quota: /);
      const h = await readHarness(dir);
      assert.equal(h.manifest?.status, 'failed');
      assert.match(h.manifest?.error ?? '', /stopped after \d+ items \(\d+ made by the model\): LLM quota: /);

      const text = await cli(['generate', slackSpec, '--provider', 'gemini', '--base-url', gemini.url, '--out', out()], root, env);
      assert.equal(text.code, EXIT.failed);
      assert.match(text.out, /Stopped by the LLM quota: re-run the same command once the quota resets; finished replies are cached/);
    });
  }

  it('a quota hit after some records: partial, exit 3, the text says to re-run the same command; the re-run resumes from the cache', async () => {
    gemini.reset();
    let answered = 0;
    gemini.respondWith((req): FakeReply => (answered++ < 20 ? responder.respond(req) : { status: 429, body: geminiRetryInfoBody(3600) }));
    const dir = out();
    const argv = [
      'generate',
      slackSpec,
      '--provider',
      'gemini',
      '--base-url',
      gemini.url,
      '--simple',
      '3',
      '--complex',
      '3',
      '--out',
      dir,
      '--concurrency',
      '1',
    ];
    const r = await cli(argv, root, env);
    assert.equal(r.code, EXIT.partial, r.err);
    assert.match(r.out, /Stopped by the LLM quota: re-run the same command once the quota resets/);
    const first = await readHarness(dir);
    assert.equal(first.manifest?.status, 'partial');
    assert.ok(first.records.length > 0);
    assert.equal(gemini.requests.length, 21, 'nothing is asked after the quota answer');

    gemini.reset();
    gemini.respondWith(responder.respond);
    const again = await cli(argv, root, env);
    assert.equal(again.code, EXIT.ok, again.err);
    assert.match(again.out, /\(complete; gemini /);
    assert.ok(gemini.requests.length > 0);
  });

  it('judge: every request 500 → exit 1 and "not judged: N"; enough failed calls in a row stop the judge', async () => {
    // A one-tool spec with one scenario (2 judge calls), and slack with more records than 4.
    for (const [spec, simple, complex] of [
      [join(specsDir, 'fetch-official.json'), 1, 0],
      [slackSpec, 2, 2],
    ] as const) {
      const harness = out();
      assert.equal((await cli(['generate', spec, '--simple', String(simple), '--complex', String(complex), '--out', harness], root, env)).code, 0);
      gemini.reset();
      gemini.respondWith({ status: 500, retryAfter: 0, message: 'internal error' });
      const r = await cli(['judge', harness, '--judge', 'gemini', '--base-url', gemini.url, '--spec', spec], root, env);
      assert.equal(r.code, EXIT.failed, r.err);
      const records = (await readHarness(harness)).records.length;
      assert.ok(spec === slackSpec ? records >= 4 : records * 2 < 8, `${records} records`);
      if (records * 2 < 8) {
        // Under the 8 spent calls that mean an outage: every record ends not judged.
        assert.match(r.out, new RegExp(`not judged: ${records} of ${records} records \\(gemini:gemini-2\\.5-flash\\)`));
        assert.match(r.out, /no record was judged by gemini:gemini-2\.5-flash/);
      } else {
        // Two calls a record: the eighth spent call stops the judge.
        assert.match(r.err, /stopped: LLM endpoint down: 8 calls in a row failed/);
        assert.match(r.err, /re-run the same command once the endpoint answers again to judge the rest/);
      }
    }
  });
});
