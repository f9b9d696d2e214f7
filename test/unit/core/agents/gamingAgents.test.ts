/**
 * Scores that cannot be gamed, through `runHarness` with the real `openai` client against a fake
 * OpenAI-compatible server: a faithful agent scores 1.0 on the headline call score, and three
 * agents that game the old scores each score below it — one that retries from refusals, one that
 * copies whatever the error names (the old mock named the expected call), one that makes
 * dependent calls in the wrong order. Also what makes runs reproducible: the reply cache keyed by
 * endpoint, `--no-cache`, `--force`, every run in `records`, truncated JSON arguments reported as
 * such, and the OpenAI wire getting the input schema as listed (`default` kept).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runHarness, type RunHarnessResult } from '../../../../src/core/agents/runHarness';
import { dependenciesOf } from '../../../../src/core/agents/replay';
import { userTurns } from '../../../../src/core/agents/agentLoop';
import type { HarnessRecord } from '../../../../src/core/harness/format';
import { specHash } from '../../../../src/core/harness/hash';
import { readHarness } from '../../../../src/core/harness/store';
import { OpenAICompatibleProvider } from '../../../../src/core/llm';
import { runPipeline } from '../../../../src/core/pipeline/runner';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import type { Spec } from '../../../../src/core/spec/model';
import { startFakeOpenAI } from '../../../fakes/fakeOpenAI';
import type { FakeLlmServer, FakeReply, FakeRequest } from '../../../fakes/fakeLlmServer';
import { openaiAgent, oraclePlan, type AgentPlan, type PlannedCall } from '../../../fakes/scriptedAgent';
import { specsDir } from '../../fixturePaths';

/* eslint-disable @typescript-eslint/no-explicit-any -- the OpenAI wire's JSON */
/** A chat completion that makes one call, or answers in text. */
function completion(req: FakeRequest, call: { name: string; arguments: string } | undefined): FakeReply {
  const message = call
    ? { role: 'assistant', content: null, tool_calls: [{ id: `call_${req.index}`, type: 'function', function: call }] }
    : { role: 'assistant', content: 'Done.' };
  return {
    httpBody: JSON.stringify({
      id: `chatcmpl-${req.index}`,
      object: 'chat.completion',
      created: 0,
      model: 'm',
      choices: [{ index: 0, message, finish_reason: call ? 'tool_calls' : 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    }),
    contentType: 'application/json',
  };
}

/** The messages since the last user turn. */
function sinceUser(body: any): any[] {
  const messages: any[] = body?.messages ?? [];
  let last = 0;
  messages.forEach((m, i) => m.role === 'user' && (last = i));
  return messages.slice(last + 1);
}

/**
 * A client that reads the error and copies what it names: it makes one bogus call per turn, then
 * calls whatever `name({...})` the last error text names, up to three times, then stops.
 */
function copyTheError(firstTool: string): (req: FakeRequest) => FakeReply {
  return (req) => {
    const since = sinceUser(req.body);
    const tools = since.filter((m) => m.role === 'tool');
    if (!tools.length) return completion(req, { name: firstTool, arguments: '{}' });
    if (tools.length > 3) return completion(req, undefined);
    const named = /([A-Za-z0-9_-]+)\((\{.*?\})\)/.exec(String(tools[tools.length - 1].content));
    return completion(req, named ? { name: named[1]!, arguments: named[2]! } : undefined);
  };
}
/* eslint-enable @typescript-eslint/no-explicit-any -- back to typed code */

/** Changes the first string or number argument; other calls are made as they are. */
function changed(c: PlannedCall): PlannedCall {
  const args = { ...(c.arguments as Record<string, unknown>) };
  const k = Object.keys(args).find((x) => typeof args[x] === 'string' || typeof args[x] === 'number');
  if (k !== undefined) args[k] = typeof args[k] === 'string' ? `${String(args[k])}-x` : (args[k] as number) + 1;
  return { name: c.name, arguments: args };
}

describe('agent scores that cannot be gamed', () => {
  let root: string;
  let spec: Spec;
  let records: HarnessRecord[];
  let server: FakeLlmServer;
  let other: FakeLlmServer;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-gaming-'));
    const file = join(specsDir, 'git-official.json');
    const load = loadSpecText(await readFile(file, 'utf8'), file);
    assert.ok(load.ok);
    spec = load.spec;
    const dir = join(root, 'h');
    await runPipeline({ spec, provider: 'offline', outDir: dir, simple: 4, complex: 6 });
    records = (await readHarness(dir)).records;
    assert.ok(
      records.some((r) => dependenciesOf(r, spec).some((d) => d.length)),
      'a record with a dependent call',
    );
    [server, other] = await Promise.all([startFakeOpenAI(), startFakeOpenAI()]);
  });
  after(async () => {
    await Promise.all([server.close(), other.close()]);
    await rm(root, { recursive: true, force: true });
  });

  const run = (o: { out: string; url?: string; runs?: number; cache?: boolean; noCache?: boolean; force?: boolean }): Promise<RunHarnessResult> =>
    runHarness({
      spec,
      specHash: specHash(spec),
      records,
      provider: new OpenAICompatibleProvider({ model: 'agent-model', apiKey: 'k', baseUrl: o.url ?? server.url }),
      out: join(root, o.out),
      ...(o.runs ? { runs: o.runs } : {}),
      ...(o.cache ? { cacheDir: join(root, 'cache') } : {}),
      ...(o.noCache ? { noCache: true } : {}),
      ...(o.force ? { force: true } : {}),
      limits: { concurrency: 4, retry: { maxRetries: 0 } },
      signal: new AbortController().signal,
    });

  /** A run against the fake answering with `agent` (a scripted plan through `openaiAgent`, or any responder). */
  const withAgent = async (out: string, agent: (req: FakeRequest) => FakeReply): Promise<RunHarnessResult> => {
    server.reset();
    server.respondWith(agent);
    return run({ out });
  };
  const withPlan = (out: string, plan: AgentPlan): Promise<RunHarnessResult> => withAgent(out, openaiAgent(plan));

  it('a faithful agent scores 1.0 on every score; a retrying, a copying and a swapping agent each score below it', async (t) => {
    const oracle = oraclePlan(records);
    const faithful = await withPlan('faithful', oracle);
    assert.equal(faithful.summary.callScore, 1);
    assert.equal(faithful.summary.exactCallMatch, 1);
    assert.equal(faithful.summary.passRate, 1);
    assert.equal(faithful.summary.precision, 1);
    assert.notEqual(faithful.summary.orderAccuracy, null);
    assert.equal(faithful.summary.orderAccuracy, 1);
    assert.deepEqual(faithful.summary.refusals, {});

    // Every call wrong first, then right: the old score (last attempt) would be 1.0.
    const retry = await withPlan('retry', (first, turn) => oracle(first, turn).flatMap((c) => [changed(c), c]));
    assert.equal(retry.summary.nameMatch, 1, 'the name-match score cannot tell');
    assert.ok(retry.summary.callScore < 0.6, `retrying agent: ${retry.summary.callScore}`);
    assert.ok(retry.summary.exactCallMatch < 1);
    assert.equal(retry.summary.passRate, 0);

    // The copying client finds nothing to copy: no error names an expected call.
    const copying = await withAgent('copying', copyTheError(spec.tools[0]!.name));
    assert.ok(copying.summary.callScore < 0.2, `copying client: ${copying.summary.callScore}`);
    for (const req of server.requests)
      for (const m of (req.body as { messages?: { role: string; content?: string }[] }).messages ?? [])
        if (m.role === 'tool') assert.doesNotMatch(String(m.content), /expected/i, 'no refusal says what was expected');

    // Each turn's calls in reverse: dependent calls come before their source.
    const swap = await withPlan('swap', (first, turn) => [...oracle(first, turn)].reverse());
    assert.ok(swap.summary.orderAccuracy !== null && swap.summary.orderAccuracy < 1, `swap: order ${swap.summary.orderAccuracy}`);
    assert.ok((swap.summary.refusals['before-source'] ?? 0) > 0);
    assert.ok(swap.summary.callScore < 1);
    const flagged = swap.records.filter((r) => r.orderAccuracy !== null && r.orderAccuracy < 1);
    assert.ok(flagged.length > 0 && flagged.every((r) => !r.passed));

    for (const gamed of [retry, copying, swap]) assert.ok(gamed.summary.callScore < faithful.summary.callScore);
    const row = (r: RunHarnessResult) =>
      `call ${r.summary.callScore.toFixed(3)} exact ${r.summary.exactCallMatch.toFixed(3)} name ${r.summary.nameMatch.toFixed(3)} order ${r.summary.orderAccuracy?.toFixed(3) ?? '–'} pass ${r.summary.passRate.toFixed(3)}`;
    t.diagnostic(`faithful: ${row(faithful)}; retry: ${row(retry)}; copying: ${row(copying)}; swap: ${row(swap)}`);
  });

  it("an agent making a later turn's call before the user asks fails turn accuracy", async () => {
    const multi = records.filter((r) => r.conversation.length >= 2);
    assert.ok(multi.length > 0, 'a multi-turn record');
    const oracle = oraclePlan(records);
    // In the first turn, every call of the scenario; nothing in later turns.
    const eager = await withPlan('eager', (first, turn) => {
      const r = records.find((x) => userTurns(x)[0] === first)!;
      if (turn > 0) return [];
      return r.conversation.length ? r.conversation.flatMap((_, t) => oracle(first, t)) : oracle(first, 0);
    });
    assert.ok(eager.summary.turnAccuracy !== null && eager.summary.turnAccuracy < 1, `turns ${eager.summary.turnAccuracy}`);
    assert.ok((eager.summary.refusals['before-turn'] ?? 0) > 0);
    const m = eager.records.find((r) => r.id === multi[0]!.id)!;
    assert.equal(m.passed, false);
  });

  it('the reply cache is keyed by endpoint; --no-cache asks again; --force runs finished scenarios again; every run is in records', async () => {
    const oracle = oraclePlan(records);
    server.reset();
    server.respondWith(openaiAgent(oracle));
    const first = await run({ out: 'cached-1', cache: true, runs: 2 });
    assert.ok(first.requests > 0);
    assert.equal(first.records.length, 2 * records.length, 'every run of every scenario');
    assert.deepEqual([...new Set(first.records.map((r) => r.run))], [1, 2]);
    assert.equal(first.summary.passCurve.length, 2);
    assert.equal(first.summary.callScoreVariance, 0);
    assert.equal(first.scenarios.length, records.length);

    // The same model name at another endpoint, a new folder: asked, not served from the first's cache.
    other.reset();
    other.respondWith(openaiAgent(oracle));
    const second = await run({ out: 'cached-2', cache: true, url: other.url });
    assert.ok(other.requests.length > 0, 'the second endpoint was asked');
    assert.equal(second.requests, other.requests.length);

    // Same endpoint and folder again: finished, no request; --force runs it again from the cache;
    // --no-cache with --force asks the model.
    server.reset();
    server.respondWith(openaiAgent(oracle));
    assert.equal((await run({ out: 'cached-1', cache: true, runs: 2 })).requests, 0);
    const forced = await run({ out: 'cached-1', cache: true, runs: 2, force: true });
    assert.equal(forced.requests, 0, 'every turn is in the cache');
    assert.equal(server.requests.length, 0);
    const fresh = await run({ out: 'cached-1', cache: true, runs: 2, force: true, noCache: true });
    assert.ok(fresh.requests > 0 && server.requests.length === fresh.requests);
  });

  it('arguments that are not JSON are reported as malformed, not as missing; the OpenAI wire gets the schema as listed', async () => {
    const target = records[0]!;
    const call = target.expected_tools[0]!;
    server.reset();
    server.respondWith((req) => {
      const since = sinceUser(req.body);
      const users = (req.body as { messages: { role: string; content: string }[] }).messages.filter((m) => m.role === 'user');
      const first = users.length === 1 && users[0]!.content === userTurns(target)[0];
      return completion(req, first && since.length === 0 ? { name: call.name, arguments: '{"repo_path": "/tmp/x", ' } : undefined);
    });
    const r = await run({ out: 'malformed' });
    const score = r.records.find((x) => x.id === target.id)!;
    assert.equal(score.calls[0]!.malformed, true);
    assert.deepEqual(score.calls[0]!.arguments, {});
    assert.equal(score.refusals['malformed-arguments'], 1);
    assert.equal(r.summary.malformedCalls, 1);
    const saved = JSON.parse(await readFile(join(root, 'malformed', '1', `${target.id}.json`), 'utf8')) as {
      calls: { arguments: unknown; refusal?: string; error?: string }[];
    };
    assert.equal(saved.calls[0]!.arguments, '{"repo_path": "/tmp/x", ');
    assert.equal(saved.calls[0]!.refusal, 'malformed-arguments');
    assert.match(saved.calls[0]!.error ?? '', /^Invalid arguments for \S+: expected a JSON object$/);

    // The tools as offered: each input schema as listed, `default` kept, without `$schema`.
    const offered = (server.requests[0]!.body as { tools: { function: { name: string; parameters: Record<string, unknown> } }[] }).tools;
    for (const t of spec.tools) {
      const { $schema: _, ...listed } = t.inputSchema as Record<string, unknown>;
      assert.deepEqual(offered.find((o) => o.function.name === t.name)?.function.parameters, JSON.parse(JSON.stringify(listed)));
    }
    assert.ok(offered.some((o) => JSON.stringify(o.function.parameters).includes('"default"')));
  });
});
