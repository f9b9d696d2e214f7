/** Generation progress in the user's words. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ZERO_LLM, type PipelineProgress } from '../../../../src/core/pipeline/progress';
import { describePipelineProgress } from '../../../../src/core/pipeline/progressWords';

test('generation progress reads as words: "Writing scenario 550 of 800"', () => {
  const zero = { done: 0, total: 0 };
  const p: PipelineProgress = {
    stage: 'write',
    stages: { interpret: zero, scenarios: zero, mock: zero, turns: zero, write: { done: 550, total: 800 } },
    records: 550,
    llm: ZERO_LLM,
  };
  assert.equal(describePipelineProgress(p), 'Writing scenario 550 of 800');
  const llm: PipelineProgress = {
    ...p,
    stage: 'mock',
    stages: { ...p.stages, interpret: { done: 12, total: 12 }, mock: { done: 3, total: 20 }, write: { done: 2, total: 20 } },
    records: 2,
    llm: { ...ZERO_LLM, calls: 17, cacheHits: 4 },
  };
  assert.equal(describePipelineProgress(llm), 'Writing mock outputs for scenario 3 of 20 · 2 records written · 17 LLM calls, 4 from the cache');
});
