/**
 * Stage 3 held to the determinacy bar (issue 20), end to end through the real `@google/genai`
 * client against the fake Gemini server: a mock reply whose listing the request does not pick, or
 * whose read answers about another thing, is re-asked with the finding; a reply that never gets
 * fixed is repaired by code when it can be (the listing cut to the item used, the output's field
 * set to its call's value), else discarded and counted as `mock:undetermined`; and a record whose
 * checks still find an undetermined value is never written unlabelled (`keep`'s final gate).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { HarnessRecord } from '../../../../src/core/harness/format';
import { readHarness } from '../../../../src/core/harness/store';
import { GeminiProvider, type CallLimits } from '../../../../src/core/llm';
import { runPipeline, type PipelineResult, type RunPipelineOptions } from '../../../../src/core/pipeline/runner';
import type { LlmScenarioSlots } from '../../../../src/core/pipeline/llm/scenarioRequest';
import { cutLists, setSubjectField } from '../../../../src/core/pipeline/llm/determinacy';
import { plantMissing } from '../../../../src/core/pipeline/llm/mock';
import { checkIntegrity } from '../../../../src/core/checks/integrity';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import type { Spec } from '../../../../src/core/spec/model';
import { startFakeGemini } from '../../../fakes/fakeGemini';
import type { FakeLlmServer, FakeReply, FakeRequest } from '../../../fakes/fakeLlmServer';
import { specsDir } from '../../fixturePaths';
import { createResponder, firstPrompt, scenarioKind, stageOf, type Responder } from '../../pipelineResponder';

const limits: CallLimits = { retry: { baseDelayMs: 10, maxDelayMs: 40 }, timeoutMs: 3000, concurrency: 4 };

/** A rule: the first `times` requests matching `match` get `reply` instead of the responder's answer. */
interface Rule {
  match: (req: FakeRequest) => boolean;
  reply: (req: FakeRequest, base: FakeReply) => FakeReply;
  times: number;
  hits: number[];
}
const rule = (match: Rule['match'], reply: Rule['reply'], times = 1): Rule => ({ match, reply, times, hits: [] });

function serve(fake: FakeLlmServer, responder: Responder, rules: Rule[]): void {
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
after(async () => {
  await Promise.all(tmpDirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** The re-ask that followed a request (same first prompt, more messages). */
const reaskOf = (fake: FakeLlmServer, original: FakeRequest): FakeRequest | undefined =>
  fake.requests.find((r) => r.index > original.index && r.messages.length > original.messages.length && firstPrompt(r) === firstPrompt(original));

type Call = { name: string; arguments: Record<string, unknown>; explanation: string };

/** The first simple batch with its first scenario replaced by one of ours. */
const withScenario = (responder: Responder, req: FakeRequest, title: string, prompt: string, calls: Call[]): LlmScenarioSlots => ({
  ...responder.batchFor(req),
  scenario_1: {
    category: 'Incidents',
    title,
    prompt,
    calls_before: [],
    focus_call: calls[0]!,
    calls_after: calls.slice(1),
    novelty_reason: 'The value must be one the request picks.',
    agent_followup: 'Shall I summarise it?',
  },
});

/** Output schemas the tests give two slack tools (see `before`). */
const OUTPUT_SCHEMAS: Record<string, Record<string, unknown>> = {
  slack_list_channels: {
    type: 'object',
    properties: {
      ok: { type: 'boolean' },
      channels: {
        type: 'array',
        items: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, num_members: { type: 'integer' } } },
      },
    },
  },
  slack_get_user_profile: {
    type: 'object',
    properties: { ok: { type: 'boolean' }, user_id: { type: 'string' }, real_name: { type: 'string' }, title: { type: 'string' } },
  },
};

/** The responder's mock reply with some outputs replaced (a value for a tool with an output schema, else JSON in a string). */
const withOutputs = (base: FakeReply, outputs: Record<string, unknown>): FakeReply => {
  const json = structuredClone((base as { json: { outputs: Record<string, unknown>; expected_response: string } }).json);
  for (const [k, v] of Object.entries(outputs)) json.outputs[k] = k === 'call_0' ? v : JSON.stringify(v);
  return { json };
};

const CHANNEL = 'C07QX2M8K1P';
/** Three channels; nothing in "our incident channel" picks the one the next call reads. */
const threeChannels = (chosenName: string): unknown => ({
  ok: true,
  channels: [
    { id: 'C01GNRL0001', name: 'general', num_members: 120 },
    { id: CHANNEL, name: chosenName, num_members: 14 },
    { id: 'C02RNDM0002', name: 'random', num_members: 98 },
  ],
});
const history = { ok: true, messages: [{ ts: '1733412000.000100', user: 'U024BE7LH', text: 'Deploy rolled back at 09:12.' }] };

describe('stage 3 holds the mock outputs to determinacy (issue 20)', () => {
  let fake: FakeLlmServer;
  let slack: Spec;
  let responder: Responder;
  before(async () => {
    fake = await startFakeGemini({ apiKey: 'test-key' });
    const file = join(specsDir, 'slack.json');
    const r = loadSpecText(await readFile(file, 'utf8'), file);
    assert.ok(r.ok);
    // The listing and the profile declare output schemas (open, as most servers write them). A
    // tool without one gets the values later calls take as pinned fields of their own
    // (`llm/pins.ts`), which leaves nothing for these checks to find; with one, the model can
    // still answer a listing of several items or another user's profile, as these tests do.
    slack = {
      ...r.spec,
      tools: r.spec.tools.map((t) => (OUTPUT_SCHEMAS[t.name] ? { ...t, outputSchema: OUTPUT_SCHEMAS[t.name] } : t)),
    };
    responder = createResponder({ spec: slack });
  });
  after(() => fake.close());
  beforeEach(() => fake.reset());

  async function run(over: Partial<RunPipelineOptions> = {}): Promise<{ res: PipelineResult; records: HarnessRecord[] }> {
    const outDir = await mkdtemp(join(tmpdir(), 'agent-seer-determinacy-'));
    tmpDirs.push(outDir);
    const res = await runPipeline({
      spec: slack,
      provider: { chat: new GeminiProvider({ apiKey: 'test-key', baseUrl: fake.url }), limits },
      outDir,
      simple: 3,
      complex: 1,
      ...over,
    });
    const h = await readHarness(res.outputDir);
    assert.deepEqual(h.problems, []);
    // No record of any run is written with an undetermined value and no label.
    for (const rec of h.records) if (rec.checks.determinacy?.length) assert.equal(rec.provenance.determinacy, 'unresolved', rec.id);
    return { res, records: h.records };
  }

  const incident = (title: string): Rule =>
    rule(
      (r) => stageOf(r) === 'scenarios' && scenarioKind(firstPrompt(r)) === 'simple',
      (req) => ({
        json: withScenario(responder, req, title, 'Show me the latest messages in our incident channel.', [
          { name: 'slack_list_channels', arguments: { limit: 50 }, explanation: 'Find the incident channel.' },
          { name: 'slack_get_channel_history', arguments: { channel_id: CHANNEL, limit: 5 }, explanation: 'Read its latest messages.' },
        ]),
      }),
    );
  const isIncidentMock = (r: FakeRequest): boolean => stageOf(r) === 'mock' && firstPrompt(r).includes(CHANNEL);

  it('a listing of three channels the request does not pick is re-asked with the finding; the fixed reply is accepted', async () => {
    // First reply: the channel is "ops-alerts", which nothing the user says picks; the re-ask's reply names it "incident-review".
    const mock = rule(
      isIncidentMock,
      (req, base) => withOutputs(base, { call_0: threeChannels(req.messages.length === 1 ? 'ops-alerts' : 'incident-review'), call_1: history }),
      2,
    );
    serve(fake, responder, [incident('Read the incident channel'), mock]);
    const { res, records } = await run();
    assert.equal(mock.hits.length, 2);
    const text = reaskOf(fake, fake.requests[mock.hits[0]!]!)?.lastUserText ?? '';
    assert.match(text, /Call 1 \(slack_get_channel_history\): channel_id "C07QX2M8K1P" is one item of a list of several in call 0's output/);
    assert.match(text, /make the list in outputs\.call_0 \(slack_list_channels\) hold only the item with "C07QX2M8K1P"/);
    // The prompt said it from the start.
    assert.match(firstPrompt(fake.requests[mock.hits[0]!]!), /make that list hold only the one item the later call uses/);
    assert.equal(res.counts.repaired['mock:undetermined'], 1);
    assert.equal(res.counts.repaired['mock:undetermined-list-cut'], undefined);
    const rec = records.find((r) => r.title === 'Read the incident channel');
    assert.ok(rec, 'the record is kept');
    assert.equal((rec.mock_outputs[0]!.output as { channels: unknown[] }).channels.length, 3, "the model's listing is kept whole");
    assert.deepEqual(rec.checks.determinacy, []);
    assert.equal(rec.provenance.determinacy, 're-asked');
  });

  it('a listing never fixed is cut to the channel the next call reads, and counted as a repair', async () => {
    const mock = rule(isIncidentMock, (_req, base) => withOutputs(base, { call_0: threeChannels('ops-alerts'), call_1: history }), 3);
    serve(fake, responder, [incident('Read the incident channel'), mock]);
    const { res, records } = await run();
    assert.equal(mock.hits.length, 3, 'asked three times');
    assert.equal(res.counts.repaired['mock:undetermined-list-cut'], 1);
    assert.equal(res.counts.discarded['mock:undetermined'], undefined);
    const rec = records.find((r) => r.title === 'Read the incident channel');
    assert.ok(rec);
    assert.deepEqual(rec.mock_outputs[0]!.output, { ok: true, channels: [{ id: CHANNEL, name: 'ops-alerts', num_members: 14 }] });
    // The other output is the model's, with the call's own channel echoed in its pinned field.
    assert.deepEqual(rec.mock_outputs[1]!.output, { channel_id: CHANNEL, ...history }, 'the other output is untouched');
    assert.deepEqual(rec.checks.determinacy, []);
    assert.equal(rec.provenance.determinacy, 'repaired');
  });

  it('when no cut can serve every later call, the scenario is discarded as mock:undetermined, and the verdict counts it', async () => {
    // Two later calls read two different channels of one listing the request does not pick from: cutting it to either breaks the other.
    const scen = rule(
      (r) => stageOf(r) === 'scenarios' && scenarioKind(firstPrompt(r)) === 'simple',
      (req) => ({
        json: withScenario(responder, req, 'Read two channels', 'Show me the latest messages in two of our channels.', [
          { name: 'slack_list_channels', arguments: { limit: 50 }, explanation: 'Find the channels.' },
          { name: 'slack_get_channel_history', arguments: { channel_id: CHANNEL, limit: 5 }, explanation: 'Read the first.' },
          { name: 'slack_get_channel_history', arguments: { channel_id: 'C02RNDM0002', limit: 5 }, explanation: 'Read the second.' },
        ]),
      }),
    );
    const mock = rule(isIncidentMock, (_req, base) => withOutputs(base, { call_0: threeChannels('ops-alerts'), call_1: history, call_2: history }), 3);
    serve(fake, responder, [scen, mock]);
    const { res, records } = await run();
    assert.equal(mock.hits.length, 3);
    assert.equal(res.counts.discarded['mock:undetermined'], 1);
    assert.ok(!records.some((r) => r.title === 'Read two channels'));
    assert.ok((res.items?.discarded ?? 0) >= 1, 'a discarded item');
  });

  it("a read of one user answered about another is re-asked; never fixed, the field is set to the call's value", async () => {
    const scen = (title: string): Rule =>
      rule(
        (r) => stageOf(r) === 'scenarios' && scenarioKind(firstPrompt(r)) === 'simple',
        (req) => ({
          json: withScenario(responder, req, title, "What does U024BE7LH's profile say?", [
            { name: 'slack_get_user_profile', arguments: { user_id: 'U024BE7LH' }, explanation: 'Read the profile.' },
          ]),
        }),
      );
    const isProfileMock = (r: FakeRequest): boolean => stageOf(r) === 'mock' && firstPrompt(r).includes('U024BE7LH');
    const other = { ok: true, user_id: 'U0ZZ99XY7', real_name: 'Dana Okafor', title: 'SRE' };
    const once = rule(isProfileMock, (req, base) => withOutputs(base, { call_0: req.messages.length === 1 ? other : { ...other, user_id: 'U024BE7LH' } }), 2);
    serve(fake, responder, [scen('Read a profile'), once]);
    let { res, records } = await run();
    const text = reaskOf(fake, fake.requests[once.hits[0]!]!)?.lastUserText ?? '';
    assert.match(
      text,
      /Call 0 \(slack_get_user_profile\): 'slack_get_user_profile' is called with user_id "U024BE7LH", but its output says user_id "U0ZZ99XY7"/,
    );
    assert.match(text, /outputs\.call_0 must echo the call's own user_id "U024BE7LH"/);
    assert.equal(res.counts.repaired['mock:undetermined'], 1);
    assert.equal((records.find((r) => r.title === 'Read a profile')?.mock_outputs[0]!.output as { user_id: string }).user_id, 'U024BE7LH');

    fake.reset();
    const never = rule(isProfileMock, (_req, base) => withOutputs(base, { call_0: other }), 3);
    serve(fake, responder, [scen('Read a profile again'), never]);
    ({ res, records } = await run());
    assert.equal(never.hits.length, 3);
    assert.equal(res.counts.repaired['mock:undetermined-output-set'], 1);
    const rec = records.find((r) => r.title === 'Read a profile again');
    assert.deepEqual(rec?.mock_outputs[0]!.output, { ...other, user_id: 'U024BE7LH' }, 'only the contradicting field changed');
    assert.equal(rec?.provenance.determinacy, 'repaired');
  });

  it('a turn split whose later message does not pick the channel the request picked is re-asked', async () => {
    const mock = rule(isIncidentMock, (_req, base) => withOutputs(base, { call_0: threeChannels('incident-review'), call_1: history }), 1);
    const isIncidentSplit = (r: FakeRequest): boolean => stageOf(r) === 'turns' && firstPrompt(r).includes(CHANNEL);
    const split = rule(
      isIncidentSplit,
      (req) => ({
        json: {
          turns: [
            { prompt: 'Which channels do we have?', last_call: 0, followup: 'Three channels: general, incident-review, random.' },
            { prompt: req.messages.length === 1 ? 'Read that one.' : 'Read the incident-review one.', last_call: 1, followup: 'The deploy was rolled back.' },
          ],
        },
      }),
      2,
    );
    serve(fake, responder, [incident('Read the incident channel'), mock, split]);
    const { res, records } = await run();
    assert.equal(split.hits.length, 2);
    const text = reaskOf(fake, fake.requests[split.hits[0]!]!)?.lastUserText ?? '';
    assert.match(text, /call 1 \(slack_get_channel_history\) in turn 1: channel_id "C07QX2M8K1P" is one item of a list of several/);
    assert.equal(res.counts.repaired['turns:undetermined'], 1);
    const rec = records.find((r) => r.title === 'Read the incident channel');
    // The request was restated with the limits (issue 21); the split's messages lost them, so each
    // is given back in its call's turn.
    assert.equal(rec?.conversation[0]?.prompt, 'Which channels do we have? (limit: 50)');
    assert.equal(rec?.conversation[1]?.prompt, 'Read the incident-review one. (limit: 5)');
    assert.deepEqual(rec?.checks.determinacy, []);
  });

  it('a number the request gives for one call and another call reuses is left out of the reusing call in stage 2, without a re-ask', async () => {
    const scen = rule(
      (r) => stageOf(r) === 'scenarios' && scenarioKind(firstPrompt(r)) === 'simple',
      (req) => ({
        json: withScenario(responder, req, 'Channels and people', 'List 25 channels, then all our users.', [
          { name: 'slack_list_channels', arguments: { limit: 25 }, explanation: 'List the channels.' },
          { name: 'slack_get_users', arguments: { limit: 25 }, explanation: 'List the users.' },
        ]),
      }),
      3,
    );
    serve(fake, responder, [scen]);
    const { res, records } = await run();
    // Optional, so repaired at once: the batch is neither re-asked nor topped up for it.
    assert.equal(scen.hits.length, 1);
    assert.equal(reaskOf(fake, fake.requests[scen.hits[0]!]!), undefined);
    assert.equal(res.counts.repaired['scenarios:reused-statement-dropped'], 1);
    const rec = records.find((r) => r.title === 'Channels and people');
    assert.deepEqual(rec?.expected_tools[0]?.arguments, { limit: 25 });
    assert.deepEqual(rec?.expected_tools[1]?.arguments, {}, "the users' listing takes the tool's default");
    assert.deepEqual(rec?.checks.determinacy, []);
  });

  it('the final gate: with --fallback offline, offline-filled outputs that leave a value undetermined are kept only labelled, and counted', async () => {
    // The model never answers the mock usably: the offline generator fills it (its outputs are not held to the mock stage's checks).
    const unusable = rule(isIncidentMock, () => ({ json: { outputs: {}, expected_response: 'Done.' } }), 3);
    serve(fake, responder, [incident('Read the incident channel'), unusable]);
    const { res, records } = await run({ fallback: 'offline' });
    assert.equal(res.counts.repaired['mock:offline-fallback'], 1);
    const labelled = records.filter((r) => r.provenance.determinacy === 'unresolved');
    assert.equal(res.counts.repaired['record:undetermined-kept'] ?? 0, labelled.length);
    for (const r of labelled) assert.ok(r.checks.determinacy?.length, `${r.id}: labelled because its checks find a value undetermined`);
  });
});

describe('the deterministic repairs', () => {
  it('cutLists keeps the one item holding the value, in arrays, JSON text and bulleted text; whole lists otherwise', () => {
    const list = [{ id: 'a1' }, { id: 'b2' }, { id: 'c3' }];
    assert.deepEqual(cutLists({ items: list }, 'b2', 'id'), { items: [{ id: 'b2' }] });
    assert.equal(cutLists(JSON.stringify({ items: list }), 'c3', 'id'), JSON.stringify({ items: [{ id: 'c3' }] }));
    assert.equal(cutLists('Files:\n[FILE] a.md\n[FILE] b.md\n[DIR] src', 'b.md', 'name'), 'Files:\n[FILE] b.md');
    // Every item holds it, or none: nothing to cut.
    const same = { items: [{ org: 'acme' }, { org: 'acme' }] };
    assert.equal(cutLists(same, 'acme', 'name'), same);
    const none = { items: list };
    assert.equal(cutLists(none, 'zz9', 'id'), none);
  });
  it('an integrity plant never overwrites the field that echoes its own call', async () => {
    const file = join(specsDir, 'elasticsearch-cr7258.json');
    const r = loadSpecText(await readFile(file, 'utf8'), file);
    assert.ok(r.ok);
    const scenario = {
      title: 't',
      prompt: 'Create the new logs index, then drop the old one.',
      novelty_reason: '',
      agent_followup: '',
      agent_workflow: [
        { name: 'create_index', arguments: { index: 'logs-2024.10' }, explanation: 'Create it.' },
        { name: 'delete_index', arguments: { index: 'logs-2024.02' }, explanation: 'Drop the old one.' },
      ],
    };
    const outputs = [{ acknowledged: true, index: 'logs-2024.10' }, { acknowledged: true }];
    const violations = checkIntegrity({ calls: scenario.agent_workflow, outputs, prompt: scenario.prompt, spec: r.spec });
    assert.equal(violations.length, 1);
    const planted = plantMissing({ spec: r.spec }, scenario, outputs, violations);
    // Before, "index" was overwritten with the next call's index: the create of logs-2024.10 said it made logs-2024.02.
    assert.equal((planted[0] as { index: string }).index, 'logs-2024.10');
    assert.ok(JSON.stringify(planted[0]).includes('logs-2024.02'));
    assert.deepEqual(checkIntegrity({ calls: scenario.agent_workflow, outputs: planted, prompt: scenario.prompt, spec: r.spec }), []);
  });
  it('setSubjectField sets the field named like the argument, through a one-key wrapper and JSON text', () => {
    assert.deepEqual(setSubjectField({ name: 'b', size: 3 }, 'name', 'a'), { name: 'a', size: 3 });
    assert.deepEqual(setSubjectField({ result: { pageId: 'p2' } }, 'page_id', 'p1'), { result: { pageId: 'p1' } });
    assert.equal(setSubjectField('{"id":"x2"}', 'page_id', 'x1'), '{"id":"x1"}');
    assert.equal(setSubjectField({ a: 1, b: 2 }, 'name', 'a'), undefined);
  });
});
