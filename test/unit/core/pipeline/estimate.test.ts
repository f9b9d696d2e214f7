/**
 * The cost estimate of a generation run against what a real run makes: the built CLI's code path
 * (`measureLlmPath`) against the schema-only model through the real `@google/genai` client and
 * the fake Gemini, stage by stage. Stages 1 (interpret) and 3 (mock) are counted exactly when the
 * requested scenarios reach every tool; stage 2 (scenario batches) and the coverage scenarios are
 * allowed the band docs/llm.md states.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BUILT_IN } from '../../../../src/core/llm/pricing';
import { estimateGeneration } from '../../../../src/core/pipeline/estimate';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import type { Spec } from '../../../../src/core/spec/model';
import { specsDir } from '../../fixturePaths';
import { measureLlmPath } from '../../llmPath';

function spec(name: string): Spec {
  const file = join(specsDir, name);
  const r = loadSpecText(readFileSync(file, 'utf8'), file);
  if (!r.ok) throw new Error(`cannot load ${name}`);
  return r.spec;
}

const options = { provider: 'gemini', model: 'gemini-2.5-flash-lite', prices: BUILT_IN, simple: 10, complex: 10 };

/** The band stage 2 and the coverage scenarios may be off by (docs/llm.md, "Cost"). */
const BAND = { scenarioBatches: 0.25, coverage: 0.1 } as const;

describe('estimateGeneration', () => {
  it('equals a real run in stages 1, 3 and 4 when the requested scenarios reach every tool (filesystem.json, 14 tools, 10 + 10)', async () => {
    const e = estimateGeneration(spec('filesystem.json'), options);
    const f = await measureLlmPath('filesystem.json', { client: 'gemini', faults: false, simple: 10, complex: 10 });
    const all = JSON.stringify({ estimate: e.stages, run: f.stages });
    assert.equal(e.stages.interpret?.calls, f.stages.interpret?.requests, all);
    // The interpret prompts are rendered as the run renders them: the same tokens, to the token.
    assert.equal(e.stages.interpret?.inputTokens, f.stages.interpret?.promptTokens, all);
    assert.equal(e.stages.mock?.calls, f.stages.mock?.requests, all);
    assert.equal(e.stages.turns?.calls, f.stages.turns?.requests, all);
    assert.equal(e.stages.scenarios?.calls, f.stages.scenarios?.requests, all);
    assert.equal(e.calls, f.calls, all);
  });

  it('stays within the stated band where coverage rounds come in (github-npm.json, 26 tools, 10 + 10)', async () => {
    const e = estimateGeneration(spec('github-npm.json'), options);
    const f = await measureLlmPath('github-npm.json', { client: 'gemini', faults: false, simple: 10, complex: 10 });
    const all = JSON.stringify({ estimate: e.stages, run: f.stages });
    assert.equal(e.stages.interpret?.calls, f.stages.interpret?.requests, all);
    assert.equal(e.stages.interpret?.inputTokens, f.stages.interpret?.promptTokens, all);
    assert.equal(e.stages.turns?.calls, f.stages.turns?.requests, all);
    const within = (estimate: number, real: number, band: number): boolean => Math.abs(estimate - real) <= band * real;
    assert.ok(within(e.stages.mock!.calls, f.stages.mock!.requests, BAND.coverage), `mock: ${all}`);
    assert.ok(within(e.stages.scenarios!.calls, f.stages.scenarios!.requests, BAND.scenarioBatches), `scenarios: ${all}`);
    assert.ok(e.calls <= f.calls && f.calls <= e.high!.calls, `the range ${e.calls}–${e.high?.calls} holds the ${f.calls} calls made`);
  });

  it('its range holds the calls of a run with faults and argument defects injected (slack.json, 10 + 10)', async () => {
    const e = estimateGeneration(spec('slack.json'), options);
    const f = await measureLlmPath('slack.json', { client: 'gemini', faults: true, simple: 10, complex: 10 });
    assert.ok(f.calls > e.calls, `faults cost re-asks: ${f.calls} calls against ${e.calls} planned`);
    assert.ok(f.calls <= e.high!.calls, `the range ${e.calls}–${e.high?.calls} holds the ${f.calls} calls made`);
    assert.ok(e.high!.usd! > e.usd!, 'the price has a range too');
  });

  it('grows with the spec: more tools never cost less', () => {
    const twilio = spec('twilio-api-v2010.json');
    let last = { calls: 0, inputTokens: 0, usd: 0 };
    for (const n of [10, 40, 100, twilio.tools.length]) {
      const e = estimateGeneration({ ...twilio, tools: twilio.tools.slice(0, n) }, options);
      assert.equal(e.stages.interpret?.calls, n);
      assert.ok(
        e.calls >= last.calls && e.inputTokens > last.inputTokens && (e.usd ?? 0) > last.usd,
        `${n} tools: ${JSON.stringify(e)} after ${JSON.stringify(last)}`,
      );
      last = { calls: e.calls, inputTokens: e.inputTokens, usd: e.usd ?? 0 };
    }
  });

  it('prices synchronous and batch calls, and says "unknown" for a model without a price', () => {
    const e = estimateGeneration(spec('slack.json'), options);
    assert.ok(e.usd !== null && e.batchUsd !== null && e.usd > 0);
    assert.ok(Math.abs(e.batchUsd - e.usd / 2) < 1e-12);
    const local = estimateGeneration(spec('slack.json'), { ...options, provider: 'openai', model: 'llama3.1:8b' });
    assert.equal(local.usd, null);
    assert.equal(local.batchUsd, null);
    assert.equal(local.calls, e.calls, 'the calls do not depend on the price');
  });
});
