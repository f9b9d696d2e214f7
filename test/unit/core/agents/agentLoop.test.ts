/**
 * The built-in agent loop with native function calling, through the real `@google/genai` and
 * `openai` clients against fake servers whose scripted agents replay the oracle or inject
 * defects, talking to the harness's mock MCP server over a real SDK client connection.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AGENT_SYSTEM, runAgentOnScenario, userTurns } from '../../../../src/core/agents/agentLoop';
import { HarnessMockServer, type ServedHarness } from '../../../../src/core/agents/mockServer';
import { scoreScenario } from '../../../../src/core/agents/score';
import { Trajectory } from '../../../../src/core/agents/trajectory';
import { specHash } from '../../../../src/core/harness/hash';
import { readHarness } from '../../../../src/core/harness/store';
import { CallGuard, GeminiProvider, OpenAICompatibleProvider, toFunctionParameters } from '../../../../src/core/llm';
import { runPipeline } from '../../../../src/core/pipeline/runner';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { startFakeGemini } from '../../../fakes/fakeGemini';
import type { FakeLlmServer } from '../../../fakes/fakeLlmServer';
import { startFakeOpenAI } from '../../../fakes/fakeOpenAI';
import { geminiAgent, openaiAgent, planFrom } from '../../../fakes/scriptedAgent';
import { specsDir } from '../../fixturePaths';

describe('agent loop with native function calling', () => {
  let root: string;
  let harness: ServedHarness;
  let gemini: FakeLlmServer;
  let openai: FakeLlmServer;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-agent-'));
    const file = join(specsDir, 'git-official.json');
    const load = loadSpecText(await readFile(file, 'utf8'), file);
    assert.ok(load.ok);
    const out = join(root, 'h');
    await runPipeline({ spec: load.spec, provider: 'offline', outDir: out, simple: 5, complex: 6 });
    harness = { spec: load.spec, records: (await readHarness(out)).records, specHash: specHash(load.spec) };
    [gemini, openai] = await Promise.all([startFakeGemini({ apiKey: 'k' }), startFakeOpenAI()]);
  });
  after(async () => {
    await Promise.all([gemini.close(), openai.close()]);
    await rm(root, { recursive: true, force: true });
  });

  const runAll = async (provider: GeminiProvider | OpenAICompatibleProvider, dir: string) => {
    const server = new HarnessMockServer(harness, { trajectoryDir: dir, agent: `${provider.id}:${provider.model}` });
    const guard = new CallGuard({ retry: { maxRetries: 0 } });
    const outcomes = [];
    for (let i = 0; i < harness.records.length; i++) outcomes.push(await runAgentOnScenario(server, { provider, guard, signal: new AbortController().signal }));
    const scores = await Promise.all(
      harness.records.map(async (r) => {
        const t = Trajectory.parse(JSON.parse(await readFile(join(dir, `${r.id}.json`), 'utf8')));
        return scoreScenario(harness.spec, r, t.calls);
      }),
    );
    return { outcomes, scores };
  };

  it('Gemini: an agent replaying the oracle scores exact 1.0 on every scenario, multi-turn included', async () => {
    gemini.reset();
    gemini.respondWith(geminiAgent(planFrom(harness.records)));
    const { outcomes, scores } = await runAll(new GeminiProvider({ apiKey: 'k', baseUrl: gemini.url, model: 'gemini-2.5-flash' }), join(root, 'oracle'));
    assert.ok(
      harness.records.some((r) => r.conversation.length >= 2),
      'a multi-turn scenario is included',
    );
    for (const s of scores) assert.equal(s.exactCallMatch, 1, s.id);
    for (const o of outcomes) {
      assert.equal(o.stoppedBy, 'answered');
      assert.equal(o.replies.length, userTurns(harness.records.find((r) => r.id === o.scenarioId)!).length, 'one reply per user turn');
    }
    // What the model was sent: the tools as declarations in the function-calling subset, the
    // user's turns, and nothing of the oracle.
    const first = gemini.requests[0]!.body;
    const declared = first.tools[0].functionDeclarations as { name: string; parametersJsonSchema: unknown }[];
    assert.deepEqual(declared.map((d) => d.name).sort(), harness.spec.tools.map((t) => t.name).sort());
    assert.doesNotMatch(JSON.stringify(declared), /"\$ref"|"\$defs"|"additionalProperties"|"default"/);
    assert.match(JSON.stringify(first.systemInstruction), new RegExp(AGENT_SYSTEM.slice(0, 30)));
    for (const req of gemini.requests) {
      const sent = JSON.stringify(req.body.contents);
      for (const r of harness.records)
        assert.ok(!sent.includes(JSON.stringify(r.expected_response).slice(1, -1)) || r.expected_response.length < 20, 'no expected response leaks');
    }
  });

  it('OpenAI-compatible: changed argument values keep name match 1.0 while the argument score drops, at exactly the changed arguments', async () => {
    const changed = new Set<string>();
    const plan = planFrom(harness.records, (call, r, i) => {
      const args = { ...(call.arguments as Record<string, unknown>) };
      const key = Object.keys(args).find((k) => typeof args[k] === 'string');
      if (!key || i % 2 === 1) return call;
      args[key] = `${String(args[key])}-x`;
      changed.add(`${r.id}/${i}/${key}`);
      return { name: call.name, arguments: args };
    });
    openai.reset();
    openai.respondWith(openaiAgent(plan));
    const { scores } = await runAll(new OpenAICompatibleProvider({ baseUrl: openai.url, model: 'agent-model', apiKey: 'k' }), join(root, 'changed'));
    assert.ok(changed.size > 3);
    // The mock refuses a call whose arguments differ (it never improvises), so the agent's later
    // calls of that scenario may be refused too; the score reads the calls as the agent made them.
    const found = new Set<string>();
    for (const s of scores) {
      assert.equal(s.nameMatch, 1, s.id);
      s.calls.forEach((c, i) => {
        for (const [k, v] of Object.entries(c.arguments)) if (v !== 'ok') found.add(`${s.id}/${i}/${k}:${v}`);
      });
    }
    assert.deepEqual([...found].sort(), [...changed].map((k) => `${k}:wrong`).sort());
    assert.ok(scores.some((s) => s.argumentAccuracy < 1 && s.exactCallMatch < 1));
  });

  it('stops an agent that keeps calling at the step limit', async () => {
    gemini.reset();
    gemini.respondWith(geminiAgent(() => Array.from({ length: 100 }, () => ({ name: 'no_such_tool', arguments: {} }))));
    const server = new HarnessMockServer(harness, { scenario: harness.records[0]!.id });
    const outcome = await runAgentOnScenario(server, {
      provider: new GeminiProvider({ apiKey: 'k', baseUrl: gemini.url }),
      guard: new CallGuard(),
      maxSteps: 5,
      signal: new AbortController().signal,
    });
    assert.equal(outcome.stoppedBy, 'step-limit');
    assert.equal(outcome.steps, 5);
    assert.equal(gemini.requests.length, 5);
  });
});

describe('tool schemas for function declarations', () => {
  it('every fixture spec converts: no $ref/$defs/additionalProperties/default/oneOf/const left, every top-level parameter kept', async () => {
    const { readdir } = await import('node:fs/promises');
    let tools = 0;
    let changed = 0;
    for (const name of (await readdir(specsDir)).filter((f) => f.endsWith('.json'))) {
      const file = join(specsDir, name);
      const load = loadSpecText(await readFile(file, 'utf8'), file);
      if (!load.ok) continue;
      for (const t of load.spec.tools) {
        tools++;
        const { parameters, warnings } = toFunctionParameters(t.inputSchema);
        if (warnings.length) changed++;
        const text = JSON.stringify(parameters);
        assert.doesNotMatch(text, /"(\$ref|\$defs|definitions|additionalProperties|default|oneOf|const|allOf|\$schema)":/, `${name} ${t.name}`);
        assert.equal(parameters.type, 'object', `${name} ${t.name}`);
        const before = Object.keys((t.inputSchema as { properties?: object } | undefined)?.properties ?? {});
        const after = Object.keys(parameters.properties ?? {});
        for (const p of before) assert.ok(after.includes(p), `${name} ${t.name}: ${p} kept`);
      }
    }
    assert.ok(tools > 700, `${tools} tools`);
    assert.ok(changed > 0, 'some schemas needed changes (and said so)');
  });

  it('inlines $ref, cuts recursion, turns type arrays into nullable and non-string enums into description text', () => {
    const { parameters, warnings } = toFunctionParameters({
      type: 'object',
      $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' }, name: { type: ['string', 'null'], default: 'x' } } } },
      properties: { root: { $ref: '#/$defs/node' }, level: { type: 'integer', enum: [1, 2, 3], description: 'Level.' } },
      required: ['root', 'ghost'],
      additionalProperties: false,
    });
    assert.deepEqual(parameters.required, ['root']);
    const root = (parameters.properties as Record<string, Record<string, unknown>>).root!;
    assert.equal(root.type, 'object');
    assert.deepEqual((root.properties as Record<string, unknown>).name, { type: 'string', nullable: true });
    assert.equal((parameters.properties as Record<string, Record<string, unknown>>).level!.description, 'Level. One of: 1, 2, 3.');
    assert.ok(warnings.includes('a recursive $ref was cut at depth 6'));
    assert.ok(warnings.includes('additionalProperties dropped'));
  });
});
