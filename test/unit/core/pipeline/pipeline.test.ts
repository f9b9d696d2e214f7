/**
 * The LLM pipeline end to end, through the real `@google/genai` (and `openai`) clients against
 * fake servers on 127.0.0.1. A deterministic responder plays the model (pipelineResponder.ts);
 * each test scripts one kind of fault on top of it and asserts that it was retried, re-asked,
 * repaired or discarded, and counted.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { HarnessRecord } from '../../../../src/core/harness/format';
import { readHarness } from '../../../../src/core/harness/store';
import { GeminiProvider, OpenAICompatibleProvider, type CallLimits, type ChatProvider } from '../../../../src/core/llm';
import { textLeaves } from '../../../../src/core/checks/integrity';
import { MAX_EXTRA_ROUNDS } from '../../../../src/core/workspace/defaults';
import { runPipeline, type PipelineResult, type RunPipelineOptions } from '../../../../src/core/pipeline/runner';
import type { LlmScenarioSlots } from '../../../../src/core/pipeline/llm/scenarioRequest';
import type { LlmTurnEnds } from '../../../../src/core/pipeline/schemas';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import type { Spec } from '../../../../src/core/spec/model';
import { startFakeGemini } from '../../../fakes/fakeGemini';
import type { FakeLlmServer, FakeReply, FakeRequest } from '../../../fakes/fakeLlmServer';
import { startFakeOpenAI } from '../../../fakes/fakeOpenAI';
import { specsDir } from '../../fixturePaths';
import { mockSlot, createResponder, firstPrompt, scenarioKind, stageOf, type Responder } from '../../pipelineResponder';

/** Fast retries; a short per-call timeout for the hang test. */
const limits: CallLimits = { retry: { baseDelayMs: 10, maxDelayMs: 40 }, timeoutMs: 1500, concurrency: 4 };

async function loadFixture(name: string): Promise<Spec> {
  const file = join(specsDir, name);
  const r = loadSpecText(await readFile(file, 'utf8'), file);
  assert.ok(r.ok, `fixture ${name} loads`);
  return r.spec;
}

/** A rule: the first `times` requests matching `match` get `reply` instead of the responder's answer. */
interface Rule {
  match: (req: FakeRequest) => boolean;
  reply: (req: FakeRequest, base: FakeReply) => FakeReply;
  times: number;
  hits: number[];
}
const rule = (match: Rule['match'], reply: Rule['reply'], times = 1): Rule => ({ match, reply, times, hits: [] });

function serve(fake: FakeLlmServer, responder: Responder, rules: Rule[] = []): void {
  fake.respondWith((req) => {
    for (const r of rules) {
      if (r.hits.length < r.times && r.match(req)) {
        r.hits.push(req.index);
        return r.reply(req, responder.respond(req));
      }
    }
    return responder.respond(req);
  });
}

const tmpDirs: string[] = [];
async function tmp(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'agent-seer-pipeline-'));
  tmpDirs.push(d);
  return d;
}
after(async () => {
  await Promise.all(tmpDirs.map((d) => rm(d, { recursive: true, force: true })));
});

function gemini(fake: FakeLlmServer): ChatProvider {
  return new GeminiProvider({ apiKey: 'test-key', baseUrl: fake.url });
}

async function run(fake: FakeLlmServer, spec: Spec, over: Partial<RunPipelineOptions> = {}, chat: ChatProvider = gemini(fake)): Promise<PipelineResult> {
  return runPipeline({ spec, provider: { chat, limits }, outDir: await tmp(), simple: 3, complex: 2, ...over });
}

/** Every record valid against the harness schema, with no unknown tool, no invalid argument, no integrity gap. */
async function assertSoundHarness(result: PipelineResult): Promise<HarnessRecord[]> {
  const h = await readHarness(result.outputDir);
  assert.deepEqual(h.problems, [], 'every file of the harness is valid');
  assert.equal(h.manifest?.status, result.status);
  assert.equal(h.records.length, result.counts.records);
  for (const r of h.records) {
    assert.ok(r.checks.schemaValid, `${r.id}: schema-valid calls`);
    assert.deepEqual(r.checks.unknownTools, [], `${r.id}: no unknown tools`);
    assert.deepEqual(r.checks.integrityViolations, [], `${r.id}: referential integrity`);
    assert.equal(r.mock_outputs.length, r.expected_tools.length);
  }
  return h.records;
}

/** The user's request quoted in a mock prompt. */
const victimPrompt = (prompt: string): string => /## The user's request\n```text\n([\s\S]*?)\n```/.exec(prompt)?.[1] ?? '';

const reaskOf = (fake: FakeLlmServer, original: FakeRequest): FakeRequest | undefined =>
  fake.requests.find((r) => r.index > original.index && r.messages.length > original.messages.length && firstPrompt(r) === firstPrompt(original));

describe('pipeline through the real Gemini client against a fake server', () => {
  let fake: FakeLlmServer;
  let slack: Spec;
  let responder: Responder;
  before(async () => {
    fake = await startFakeGemini({ apiKey: 'test-key' });
    slack = await loadFixture('slack.json');
    responder = createResponder({ spec: slack });
  });
  after(() => fake.close());
  beforeEach(() => fake.reset());

  let good: PipelineResult;
  it('a good run writes a complete, valid harness with full coverage and multi-turn records', async () => {
    serve(fake, responder);
    good = await run(fake, slack);
    assert.equal(good.status, 'complete');
    const records = await assertSoundHarness(good);
    assert.equal(good.counts.coverage.ratio, 1);
    assert.ok(good.counts.byTier.simple > 0 && good.counts.byTier.complex > 0);
    assert.ok(good.counts.multiTurn > 0 && good.multiTurnRate === 1, 'every multi-call scenario split');
    assert.equal(good.llm.calls, fake.requests.length, 'every request counted');
    assert.equal(good.llm.cacheHits, 0);
    const m = good.manifest;
    assert.equal(m.provider, 'gemini');
    assert.equal(m.tokens.calls, fake.requests.length);
    assert.ok(m.tokens.input > 0 && m.tokens.output > 0);
    assert.deepEqual([...m.recordIds].sort(), records.map((r) => r.id).sort());
    for (const r of records) {
      assert.equal(r.provenance.provider, 'gemini');
      assert.match(r.provenance.promptVersions.scenarios ?? '', /^v\d+\+[0-9a-f]{8}$/);
      assert.ok(Object.keys(r.provenance.toolHashes).length > 0);
      for (const o of r.mock_outputs) assert.equal(o.grounding, 'low', 'slack declares no output schemas and no examples were given');
      // The expected response quotes the outputs.
      assert.ok(
        r.mock_outputs.flatMap((o) => textLeaves(o.output)).some((l) => l.length >= 3 && r.expected_response.includes(l)),
        r.id,
      );
    }
    // Stages: one interpretation per tool, one mock per scenario, one split per multi-call scenario.
    const byStage = (s: string): number => fake.requests.filter((r) => stageOf(r) === s).length;
    assert.equal(byStage('interpret'), slack.tools.length);
    assert.equal(byStage('mock'), good.counts.records);
    assert.equal(byStage('turns'), good.counts.multiCall);
  });

  it('429 with Retry-After, 500 and a timeout are retried; the harness is the same as without faults', async () => {
    const r429 = rule(
      (r) => stageOf(r) === 'scenarios',
      () => ({ status: 429, retryAfter: '0.3', message: 'slow down' }),
    );
    const r500 = rule(
      (r) => stageOf(r) === 'mock',
      () => ({ status: 500, message: 'boom' }),
      2,
    );
    const hang = rule(
      (r) => stageOf(r) === 'interpret',
      () => ({ hang: true }),
    );
    serve(fake, responder, [r429, r500, hang]);
    const res = await run(fake, slack);
    assert.equal(res.status, 'complete');
    assert.equal(r429.hits.length, 1);
    assert.equal(r500.hits.length, 2);
    assert.equal(hang.hits.length, 1);
    assert.ok(res.llm.retries >= 4, `retries counted (${res.llm.retries})`);
    // The retry after the 429 waited for the server's Retry-After.
    const after429 = fake.requests.find((r) => r.index > r429.hits[0]! && firstPrompt(r) === firstPrompt(fake.requests[r429.hits[0]!]!));
    assert.ok(after429 && after429.receivedAt - fake.requests[r429.hits[0]!]!.receivedAt >= 280, 'Retry-After honoured');
    await assertSoundHarness(res);
    // Same content as the fault-free run: retries change nothing.
    const names = (await readdir(join(res.outputDir, 'records'))).sort();
    assert.deepEqual(names, (await readdir(join(good.outputDir, 'records'))).sort());
    for (const n of names) assert.equal(await readFile(join(res.outputDir, 'records', n), 'utf8'), await readFile(join(good.outputDir, 'records', n), 'utf8'));
  });

  it('malformed JSON and schema-violating replies are re-asked with the errors and counted', async () => {
    const notJson = rule(
      (r) => stageOf(r) === 'scenarios' && r.messages.length === 1,
      () => ({ text: 'Sure! Here are your scenarios: {oops' }),
    );
    const badSchema = rule(
      (r) => stageOf(r) === 'interpret' && r.messages.length === 1,
      () => ({ json: { tool_name: 'x', what_it_does: 3 } }),
    );
    serve(fake, responder, [notJson, badSchema]);
    const res = await run(fake, slack);
    assert.equal(res.status, 'complete');
    const reask1 = reaskOf(fake, fake.requests[notJson.hits[0]!]!);
    assert.match(reask1?.lastUserText ?? '', /not valid JSON/);
    const reask2 = reaskOf(fake, fake.requests[badSchema.hits[0]!]!);
    assert.match(reask2?.lastUserText ?? '', /at \$\.what_it_does/);
    assert.match(reask2?.lastUserText ?? '', /at \$\.why_its_used/);
    assert.equal(res.counts.repaired['scenarios:malformed-reply'], 1);
    assert.equal(res.counts.repaired['interpret:malformed-reply'], 1);
    assert.equal(res.llm.reasks, 2);
    await assertSoundHarness(res);
  });

  const slotsOf = (req: FakeRequest): string[] => Object.keys((req.jsonSchema as { properties: Record<string, unknown> }).properties);

  it('a slip is repaired at the argument; an unknown tool costs only its own scenario, whose slot is asked again with the exact error', async () => {
    let original: LlmScenarioSlots | undefined;
    let coercedAt = -1;
    let coercedKey = '';
    const corrupt = rule(
      (r) => stageOf(r) === 'scenarios' && scenarioKind(firstPrompt(r)) === 'simple' && r.messages.length === 1,
      (req) => {
        const batch = responder.batchFor(req);
        original = structuredClone(batch);
        const s = Object.values(batch);
        s[0]!.focus_call.name = 'slack_list_channelz';
        coercedAt = s.findIndex((x, i) => i > 0 && Object.values(x.focus_call.arguments as object).some((v) => typeof v === 'string'));
        const args = s[coercedAt]!.focus_call.arguments as Record<string, unknown>;
        coercedKey = Object.keys(args).find((k) => typeof args[k] === 'string')!;
        args[coercedKey] = 12345;
        return { json: batch };
      },
    );
    serve(fake, responder, [corrupt]);
    const res = await run(fake, slack);
    assert.ok(original);
    const first = fake.requests[corrupt.hits[0]!]!;
    // No batch-wide re-ask: the other scenarios of the reply were accepted as they came.
    assert.equal(reaskOf(fake, first), undefined);
    const topUp = fake.requests.find((r) => r.index > first.index && stageOf(r) === 'scenarios' && firstPrompt(r).includes('## Problems of an earlier answer'));
    assert.ok(topUp, 'the refused slot is asked again');
    assert.deepEqual(slotsOf(topUp), ['scenario_1'], 'only the refused slot');
    assert.match(
      firstPrompt(topUp),
      /- scenario_1: focus_call \(slack_list_channelz\): unknown tool 'slack_list_channelz'; did you mean 'slack_list_channels'\?/,
    );
    assert.equal(res.counts.discarded['scenarios:unknown-tool'], 1);
    assert.equal(res.counts.repaired['scenarios:argument-coerced'], 1);
    assert.equal(res.counts.discarded['scenarios:invalid-arguments'], undefined);
    const records = await assertSoundHarness(res);
    const fixed = Object.values(original)[coercedAt]!;
    const rec = records.find((r) => r.title === fixed.title && r.expected_tools[0]?.name === fixed.focus_call.name);
    assert.ok(rec, 'the scenario with the slip became a record');
    assert.equal(rec.expected_tools[0]!.arguments[coercedKey], '12345');
  });

  it('a scenario refused in every round is discarded alone each time; its valid siblings are kept from the first reply', async () => {
    let firstBatch: LlmScenarioSlots | undefined;
    const persistent = rule(
      (r) => stageOf(r) === 'scenarios' && scenarioKind(firstPrompt(r)) === 'simple',
      (req) => {
        const batch = responder.batchFor(req);
        batch.scenario_1!.focus_call.name = 'post_to_teams';
        firstBatch ??= structuredClone(batch);
        return { json: batch };
      },
      1 + MAX_EXTRA_ROUNDS,
    );
    serve(fake, responder, [persistent]);
    const res = await run(fake, slack);
    assert.equal(persistent.hits.length, 1 + MAX_EXTRA_ROUNDS, 'the batch, then a top-up per extra round');
    const [first, ...topUps] = persistent.hits.map((i) => fake.requests[i]!);
    assert.ok(slotsOf(first!).length > 1);
    for (const t of topUps) {
      assert.deepEqual(slotsOf(t), ['scenario_1']);
      assert.match(firstPrompt(t), /- scenario_1: focus_call \(post_to_teams\): unknown tool 'post_to_teams'/);
    }
    assert.equal(res.counts.discarded['scenarios:unknown-tool'], 1 + MAX_EXTRA_ROUNDS);
    const records = await assertSoundHarness(res);
    assert.ok(records.every((r) => r.expected_tools.every((c) => c.name !== 'post_to_teams')));
    // The siblings of the first reply became records.
    const siblings = Object.entries(firstBatch!).filter(([k]) => k !== 'scenario_1');
    assert.ok(siblings.length > 0);
    for (const [, s] of siblings)
      assert.ok(
        records.some((r) => r.title === s.title && r.expected_tools.some((c) => c.name === s.focus_call.name)),
        `${s.title} kept`,
      );
    // The discarded scenario's tool was re-covered by a follow-up round.
    assert.equal(res.counts.coverage.ratio, 1);
  });

  const chained = (req: FakeRequest, prompt: string): LlmScenarioSlots => ({
    ...responder.batchFor(req),
    scenario_1: {
      category: 'Incidents',
      title: 'Read the incident channel',
      prompt,
      calls_before: [{ name: 'slack_list_channels', arguments: { limit: 50 }, explanation: 'Find the incident channel.' }],
      focus_call: { name: 'slack_get_channel_history', arguments: { channel_id: 'C07QX2M8K1P', limit: 5 }, explanation: 'Read its latest messages.' },
      calls_after: [],
      novelty_reason: 'The channel ID must come from the listing.',
      agent_followup: 'Shall I summarise the thread?',
    },
  });
  /** The responder's mock reply with the chained ID taken out of call 0's details (a model that ignored its pinned field). */
  const stripId = (reply: FakeReply): FakeReply => {
    const json = structuredClone((reply as { json: { outputs: Record<string, { details_json: string }> } }).json);
    const first = json.outputs.call_0!;
    assert.ok(first.details_json.includes('C07QX2M8K1P'), 'the responder chains the ID');
    json.outputs.call_0 = { ...first, details_json: first.details_json.split('C07QX2M8K1P').join('C0000000001') };
    return { json };
  };
  const chainedScenario = (): Rule =>
    rule(
      (r) => stageOf(r) === 'scenarios' && scenarioKind(firstPrompt(r)) === 'simple',
      (req) => ({ json: chained(req, 'Show me the latest messages in our incident channel.') }),
    );
  const incidentRecord = (records: HarnessRecord[]): HarnessRecord => records.find((r) => r.title === 'Read the incident channel')!;

  it('an ID a later call takes is fixed in the earlier output by the reply schema, in a field of its own', async () => {
    const mock = rule(
      (r) => stageOf(r) === 'mock' && firstPrompt(r).includes('C07QX2M8K1P'),
      (_req, base) => stripId(base),
    );
    serve(fake, responder, [chainedScenario(), mock]);
    const res = await run(fake, slack);
    const req = fake.requests[mock.hits[0]!]!;
    // The one-value enum sits where a reader looks: the field the later call names.
    assert.deepEqual((mockSlot(req, 0)?.properties?.channel_id as { enum?: unknown[] }).enum, ['C07QX2M8K1P']);
    assert.match(firstPrompt(req), /"C07QX2M8K1P" must appear in the output of call 0 \(slack_list_channels\) \(the reply schema already fixes it/);
    // The details left it out, and nothing needed asking again or planting.
    assert.equal(reaskOf(fake, req), undefined);
    assert.equal(res.counts.repaired['mock:integrity'], undefined);
    assert.equal(res.counts.repaired['mock:integrity-planted'], undefined);
    const rec = incidentRecord(await assertSoundHarness(res));
    const out = rec.mock_outputs[0]!.output as Record<string, unknown>;
    assert.equal(out.channel_id, 'C07QX2M8K1P');
    assert.equal(rec.provenance.integrity, undefined);
    // The later call's own channel is echoed in its output.
    assert.equal((rec.mock_outputs[1]!.output as Record<string, unknown>).channel_id, 'C07QX2M8K1P');
  });

  it('a reply that ignores the slot shape (bare JSON text without the ID) still gets the ID in its field, never glued onto another', async () => {
    // Call 0 answers with a bare list of channel IDs that lacks the chained one, every time.
    const idsOnly = rule(
      (r) => stageOf(r) === 'mock' && firstPrompt(r).includes('C07QX2M8K1P'),
      (_req, base) => {
        const json = structuredClone((base as { json: { outputs: Record<string, unknown> } }).json);
        json.outputs.call_0 = JSON.stringify(['C0000000001', 'C0000000002']);
        return { json };
      },
      3,
    );
    serve(fake, responder, [chainedScenario(), idsOnly]);
    const res = await run(fake, slack);
    assert.equal(idsOnly.hits.length, 1, 'no re-ask: the pinned value goes in whatever the reply did');
    const rec = incidentRecord(await assertSoundHarness(res));
    assert.deepEqual(rec.mock_outputs[0]!.output, { channel_id: 'C07QX2M8K1P', items: ['C0000000001', 'C0000000002'] });
    for (const o of rec.mock_outputs)
      for (const leaf of textLeaves(o.output)) assert.ok((leaf.match(/\bC0[0-9A-Z]{9}\b/g) ?? []).length <= 1, `glued: ${JSON.stringify(leaf)}`);
    assert.deepEqual(rec.checks.determinacy, []);
  });

  it('the answer quotes the outputs by construction; one that quotes nothing anyway is kept and labelled, not counted as a repair', async () => {
    const vague = rule(
      (r) => stageOf(r) === 'mock' && firstPrompt(r).includes('C07QX2M8K1P'),
      (_req, base) => ({ json: { ...(base as { json: Record<string, unknown> }).json, expected_response: 'All done.' } }),
      3,
    );
    serve(fake, responder, [chainedScenario(), vague]);
    const res = await run(fake, slack);
    const schema = fake.requests[vague.hits[0]!]!.jsonSchema as { properties: { expected_response: { properties: { value: { enum: string[] } } } } };
    assert.ok(schema.properties.expected_response.properties.value.enum.includes('C07QX2M8K1P'), 'the answer is asked for around a value the outputs hold');
    assert.equal(vague.hits.length, 3);
    assert.equal(res.counts.repaired['mock:response-not-grounded'], undefined, 'nothing was repaired');
    const rec = incidentRecord(await assertSoundHarness(res));
    assert.equal(rec.expected_response, 'All done.');
    assert.equal(rec.provenance.response, 'not-grounded');
    // Records whose answers quote their outputs carry no label.
    assert.ok((await readHarness(res.outputDir)).records.filter((r) => r.id !== rec.id).every((r) => r.provenance.response === undefined));
  });

  it('a mock reply that cannot be used is discarded with its scenario; the offline outputs stand in only with fallback offline', async () => {
    let victim = '';
    const wrong = (): Rule =>
      rule(
        (r) => stageOf(r) === 'mock' && (victim ||= firstPrompt(r)) === firstPrompt(r),
        () => ({ json: { outputs: {}, expected_response: 'Done.' } }),
        3,
      );
    const first = wrong();
    serve(fake, responder, [first]);
    const res = await run(fake, slack);
    assert.equal(first.hits.length, 3);
    assert.equal(res.counts.discarded['mock:output-missing'], 1);
    assert.equal(res.counts.repaired['mock:offline-fallback'], undefined);
    assert.equal(res.items?.discarded, 1);
    assert.equal(res.items?.offline, 0);
    let records = await assertSoundHarness(res);
    assert.ok(
      records.every((r) => r.provenance.stageProviders === undefined),
      'no offline stage without --fallback',
    );
    // No stand-in for the lost scenario: its tools are asked for again by a coverage round (coverage
    // counts kept records), whose scenario the model wrote and whose mock it answered.
    assert.equal(res.counts.coverage.ratio, 1);
    assert.ok(records.filter((r) => r.prompt === victimPrompt(victim)).length <= 1);

    fake.reset();
    victim = '';
    const second = wrong();
    serve(fake, responder, [second]);
    const withFallback = await run(fake, slack, { fallback: 'offline' });
    assert.equal(withFallback.counts.repaired['mock:offline-fallback'], 1);
    assert.equal(withFallback.items?.offline, 1);
    assert.equal(withFallback.items?.offlineRecords, 1);
    records = await assertSoundHarness(withFallback);
    assert.equal(records.filter((r) => r.provenance.stageProviders?.mock === 'offline').length, 1);
  });

  it('uncovered tools get a coverage follow-up round that names exactly them', async () => {
    const skip = new Set(['slack_get_user_profile', 'slack_add_reaction', 'slack_get_thread_replies']);
    serve(fake, createResponder({ spec: slack, skipInitially: (t) => skip.has(t) }));
    const res = await run(fake, slack);
    const followups = fake.requests.filter((r) => stageOf(r) === 'scenarios' && scenarioKind(firstPrompt(r)) === 'coverage');
    assert.equal(followups.length, 1);
    const listed = firstPrompt(followups[0]!).split('## Other tools')[0]!;
    for (const t of skip) assert.match(listed, new RegExp(`### ${t}\\b`));
    // The others listed are tools no slot of the first round had as its focus (3 simple + 2 complex slots for 8 tools).
    assert.ok((listed.match(/^### /gm) ?? []).length <= skip.size + 3, 'only unused tools are listed as unused');
    assert.equal(res.counts.coverage.ratio, 1);
    assert.ok(res.counts.coverageRound >= skip.size);
    await assertSoundHarness(res);
  });

  it('a tool the model never uses validly stays uncovered, unless fallback offline covers it with a labelled template', async () => {
    serve(fake, createResponder({ spec: slack, neverUse: (t) => t === 'slack_get_user_profile' }));
    const res = await run(fake, slack);
    const followups = fake.requests.filter((r) => stageOf(r) === 'scenarios' && scenarioKind(firstPrompt(r)) === 'coverage' && r.messages.length === 1);
    assert.equal(followups.length, 4 + MAX_EXTRA_ROUNDS, 'two group rounds, then two global rounds and the extra ones, all asking for it');
    for (const f of followups) assert.match(firstPrompt(f), /### slack_get_user_profile/);
    assert.equal(res.counts.repaired['scenarios:offline-fallback'], undefined);
    assert.deepEqual(res.counts.coverage.uncovered, ['slack_get_user_profile']);
    await assertSoundHarness(res);

    fake.reset();
    serve(fake, createResponder({ spec: slack, neverUse: (t) => t === 'slack_get_user_profile' }));
    const filled = await run(fake, slack, { fallback: 'offline' });
    assert.equal(filled.counts.repaired['scenarios:offline-fallback'], 1);
    assert.equal(filled.counts.coverage.ratio, 1);
    const records = await assertSoundHarness(filled);
    const rec = records.find((r) => r.provenance.stageProviders?.scenarios === 'offline')!;
    assert.ok(rec.expected_tools.some((c) => c.name === 'slack_get_user_profile'));
    assert.equal(rec.provenance.provider, 'gemini', 'its mock outputs still come from the model');
    assert.equal(filled.items?.offlineRecords, 1);
  });

  it('a "complex" scenario with one call is re-labelled simple', async () => {
    serve(fake, createResponder({ spec: slack, oneCallComplex: true }));
    const res = await run(fake, slack);
    assert.equal(res.counts.repaired['tier:relabelled-complex-to-simple'], 1);
    const records = await assertSoundHarness(res);
    const rec = records.find((r) => r.title.startsWith('Too simple'))!;
    assert.equal(rec.tier, 'simple');
    assert.ok(records.filter((r) => r.tier === 'complex').every((r) => r.expected_tools.length >= 2 && new Set(r.expected_tools.map((c) => c.name)).size >= 2));
  });

  it('a single-turn expansion is discarded from the multi-turn set; the scenario stays a single-turn record', async () => {
    let target = '';
    serve(fake, createResponder({ spec: slack, singleTurn: (p) => (target ||= p) === p }));
    const res = await run(fake, slack);
    assert.equal(res.counts.discarded['turns:single-turn'], 1);
    const records = await assertSoundHarness(res);
    const rec = records.find((r) => r.prompt === target)!;
    assert.ok(rec.expected_tools.length >= 2);
    assert.deepEqual(rec.conversation, []);
    assert.equal(res.counts.multiTurn, res.counts.multiCall - 1);
  });

  it('a turn that does not end after the one before it is dropped with its prompt (a counted repair, no re-ask)', async () => {
    const backwards = rule(
      (r) => stageOf(r) === 'turns',
      (_req, base) => {
        const split = structuredClone((base as { json: LlmTurnEnds }).json);
        // A second turn ending at call 0 names no call that the first turn has not taken.
        split.turns.splice(1, 0, { prompt: 'And the first one again?', last_call: 0, followup: 'Same as before.' });
        return { json: split };
      },
    );
    serve(fake, responder, [backwards]);
    const res = await run(fake, slack);
    assert.equal(reaskOf(fake, fake.requests[backwards.hits[0]!]!), undefined, 'nothing to ask: the code knows where the calls go');
    assert.equal(res.counts.repaired['turns:turn-end-not-after-previous-dropped'], 1);
    assert.equal(res.multiTurnRate, 1);
    const records = await assertSoundHarness(res);
    const conversations = records.filter((r) => r.conversation.length);
    assert.equal(conversations.length, res.counts.multiCall);
    for (const r of conversations) {
      assert.ok(!r.conversation.some((t) => t.prompt === 'And the first one again?'), 'the dropped turn left no prompt behind');
      assert.deepEqual(
        r.conversation.flatMap((t) => t.calls),
        r.expected_tools.map((_, i) => i),
        'contiguous turns in workflow order',
      );
    }
  });

  it('a turn with an empty prompt is re-asked with the turn named, and counted as such, not as a structure problem', async () => {
    const silent = rule(
      (r) => stageOf(r) === 'turns',
      (_req, base) => {
        const split = structuredClone((base as { json: LlmTurnEnds }).json);
        split.turns[1]!.prompt = ' ';
        return { json: split };
      },
    );
    serve(fake, responder, [silent]);
    const res = await run(fake, slack);
    const reask = reaskOf(fake, fake.requests[silent.hits[0]!]!);
    assert.ok(reask, 're-asked');
    assert.match(reask.messages[reask.messages.length - 1]!.content, /turn 1 has an empty prompt/);
    assert.equal(res.counts.repaired['turns:empty-prompt'], 1);
    assert.equal(res.counts.repaired['turns:structure'], undefined);
    assert.equal(res.multiTurnRate, 1);
    await assertSoundHarness(res);
  });

  it('an invalid key stops the run: status failed, the manifest says why', async () => {
    serve(fake, responder);
    const res = await run(fake, slack, {}, new GeminiProvider({ apiKey: 'wrong-key', baseUrl: fake.url }));
    assert.equal(res.status, 'failed');
    assert.match(res.error ?? '', /API key/);
    const h = await readHarness(res.outputDir);
    assert.equal(h.manifest?.status, 'failed');
    assert.match(h.manifest?.error ?? '', /API key/);
  });
});

describe('pipeline through the real openai client against a fake server', () => {
  let fake: FakeLlmServer;
  before(async () => {
    fake = await startFakeOpenAI();
  });
  after(() => fake.close());

  it('writes a valid harness; example outputs raise the grounding of that tool to high', async () => {
    const spec = await loadFixture('git-official.json');
    serve(fake, createResponder({ spec }));
    const chat = new OpenAICompatibleProvider({ model: 'llama3.1:8b', baseUrl: fake.url });
    const res = await run(fake, spec, { exampleOutputs: { git_status: [{ branch: 'main', clean: true }] } }, chat);
    assert.equal(res.status, 'complete');
    assert.equal(res.manifest.provider, 'openai');
    assert.equal(res.counts.coverage.ratio, 1);
    const records = await assertSoundHarness(res);
    const grounding = records.flatMap((r) => r.mock_outputs.map((o) => [o.name, o.grounding] as const));
    assert.ok(grounding.some(([n, g]) => n === 'git_status' && g === 'high'));
    assert.ok(grounding.filter(([n]) => n !== 'git_status').every(([, g]) => g === 'low'));
  });
});
