/**
 * Large specs through the real Gemini client and a fake server whose "model" answers from the
 * tool list in each prompt: grouping keeps every scenario prompt within the token budget, and
 * coverage reaches 100% (the paper's coverage fell to 56% at 64 tools). A third of the tools
 * are left out of first-round replies, so coverage follow-ups at scale are exercised too.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readHarness } from '../../../../src/core/harness/store';
import { GeminiProvider } from '../../../../src/core/llm';
import { estimateTokens } from '../../../../src/core/pipeline/llm/summaries';
import { runPipeline } from '../../../../src/core/pipeline/runner';
import { hash32 } from '../../../../src/core/pipeline/offline/rng';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { startFakeGemini } from '../../../fakes/fakeGemini';
import type { FakeLlmServer } from '../../../fakes/fakeLlmServer';
import { specsDir } from '../../fixturePaths';
import { createResponder, firstPrompt, scenarioKind, stageOf } from '../../pipelineResponder';

const BUDGET = 6000;

describe('large specs: grouped prompts within budget, 100% tool coverage', () => {
  let fake: FakeLlmServer;
  const dirs: string[] = [];
  before(async () => {
    fake = await startFakeGemini();
  });
  after(async () => {
    await fake.close();
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  for (const file of ['illustrator-ie3jp-1.2.12.json', 'github-official-all.json', 'twilio-api-v2010.json']) {
    it(file, async (t) => {
      fake.reset();
      const path = join(specsDir, file);
      const load = loadSpecText(await readFile(path, 'utf8'), path);
      assert.ok(load.ok);
      const spec = load.spec;
      fake.respondWith(createResponder({ spec, skipInitially: (name) => hash32(name) % 3 === 0 }).respond);
      const out = await mkdtemp(join(tmpdir(), 'agent-seer-large-'));
      dirs.push(out);
      const res = await runPipeline({
        spec,
        provider: { chat: new GeminiProvider({ apiKey: 'k', baseUrl: fake.url }), limits: { concurrency: 8 } },
        outDir: out,
        simple: 6,
        complex: 6,
        promptTokenBudget: BUDGET,
      });
      assert.equal(res.status, 'complete');
      assert.ok(res.groups > 1, 'split into groups');
      const scenarioPrompts = fake.requests.filter((r) => stageOf(r) === 'scenarios' && r.messages.length === 1).map(firstPrompt);
      const largest = Math.max(...scenarioPrompts.map(estimateTokens));
      assert.ok(largest <= BUDGET, `largest scenario prompt ${largest} tokens ≤ ${BUDGET}`);
      assert.equal(res.maxPromptTokens, largest);
      assert.ok(
        scenarioPrompts.some((p) => p.includes('come from two different areas')),
        'cross-group complex batches',
      );
      assert.ok(
        scenarioPrompts.some((p) => scenarioKind(p) === 'coverage'),
        'coverage follow-ups fired',
      );
      assert.deepEqual(res.counts.coverage.uncovered, []);
      assert.equal(res.counts.coverage.ratio, 1);
      const h = await readHarness(out);
      assert.deepEqual(h.problems, []);
      assert.equal(h.records.length, res.counts.records);
      assert.ok(h.records.every((r) => r.checks.schemaValid && r.checks.unknownTools.length === 0 && r.checks.integrityViolations.length === 0));
      t.diagnostic(
        `${spec.tools.length} tools, ${res.groups} groups, largest prompt ${largest} tokens, ${res.counts.records} records (${res.counts.coverageRound} for coverage), coverage ${res.counts.coverage.covered}/${res.counts.coverage.tools}, multi-turn ${res.counts.multiTurn}/${res.counts.multiCall}, ${res.llm.calls} calls, ${(res.wallTimeMs / 1000).toFixed(1)} s`,
      );
    });
  }
});
