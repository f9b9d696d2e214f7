/**
 * What judging a harness will take before it is made: per LLM judge, one tool-calling call per
 * view of each record and one coherence call per view with assistant replies, with the judge's
 * real prompts rendered for each (tokens ≈ characters ÷ 4). Records whose stored judgment by that
 * judge is current are skipped, as `judgeHarness` skips them (unless `force`).
 */
import type { HarnessRecord } from '../harness/format';
import { PromptLibrary } from '../llm/prompts';
import { priceEstimate, type CostEstimate, type Prices, type StageEstimate } from '../llm/pricing';
import type { Spec } from '../spec/model';
import { estimateTokens } from '../util/estimateTokens';
import { isCurrentJudgment, judgedViews } from './judgeHarness';
import { specHashOnce } from '../harness/hash';
import { judgePrompts, judgePromptVersions, judgmentInputHashOf, JUDGE_TEMPERATURE } from './judgeRecord';
import { buildView, viewFacts, type RecordView } from './view';

/**
 * Output tokens of one reply. Not measured against a real model: the sizes of the replies the
 * reply schemas ask for (a tool-calling verdict with a score and a reason per dimension and
 * call; five coherence aspects with a reason each), counted on the fake judge's replies in
 * `judge.test.ts` and rounded up.
 */
export const JUDGE_OUTPUT_TOKENS = { tc: 300, coh: 150 } as const;

/** One LLM judge to estimate. */
export interface JudgeToEstimate {
  /** Its id under `judgments` (`gemini:gemini-2.5-flash`). */
  id: string;
  provider: string;
  model: string;
}

/** Calls, tokens and price of judging `records` with each LLM judge (one estimate per judge). */
export function estimateJudging(
  records: readonly HarnessRecord[],
  spec: Spec,
  judges: readonly JudgeToEstimate[],
  options: { prices: Prices; force?: boolean; prompts?: PromptLibrary },
): CostEstimate[] {
  if (!judges.length) return [];
  const prompts = options.prompts ?? PromptLibrary.load();
  const mode = 'unsupervised' as const;
  const promptVersions = judgePromptVersions(prompts, mode);
  // The prompts do not depend on the judge: render each record's once.
  const perRecord = records.map((record) => {
    const tc: StageEstimate = { calls: 0, inputTokens: 0, outputTokens: 0 };
    const coh: StageEstimate = { calls: 0, inputTokens: 0, outputTokens: 0 };
    const views: (RecordView | undefined)[] = judgedViews(record, mode) === 2 ? ['single-turn', 'multi-turn'] : [undefined];
    for (const as of views) {
      const built = buildView(record, mode, undefined, as);
      if (!built.ok) continue;
      const rendered = judgePrompts(built.view, spec, viewFacts(built.view, spec), mode, prompts);
      tc.calls++;
      tc.inputTokens += estimateTokens(rendered.tc.text);
      tc.outputTokens += JUDGE_OUTPUT_TOKENS.tc;
      if (rendered.coh) {
        coh.calls++;
        coh.inputTokens += estimateTokens(rendered.coh.text);
        coh.outputTokens += JUDGE_OUTPUT_TOKENS.coh;
      }
    }
    return { record, tc, coh };
  });
  const hashOfSpec = specHashOnce(spec);
  return judges.map((judge) => {
    const stages: Record<string, StageEstimate> = {
      'judge-tc': { calls: 0, inputTokens: 0, outputTokens: 0 },
      'judge-coh': { calls: 0, inputTokens: 0, outputTokens: 0 },
    };
    for (const r of perRecord) {
      const hash = judgmentInputHashOf(r.record, hashOfSpec, { id: judge.id, promptVersions, temperature: JUDGE_TEMPERATURE, mode });
      if (!options.force && isCurrentJudgment(r.record.judgments?.[judge.id], hash)) continue;
      for (const [key, s] of [
        ['judge-tc', r.tc],
        ['judge-coh', r.coh],
      ] as const) {
        const t = stages[key]!;
        t.calls += s.calls;
        t.inputTokens += s.inputTokens;
        t.outputTokens += s.outputTokens;
      }
    }
    return priceEstimate(stages, judge.provider, judge.model, options.prices);
  });
}
