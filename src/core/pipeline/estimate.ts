/**
 * What a generation run will take before it is made: calls, tokens and price per stage, from
 * what the code knows before asking anything.
 *
 * - Stage 1 (interpret): one call per callable tool; input = the real interpret prompt of each
 *   tool, rendered from the prompt library.
 * - Stage 2 (scenarios): the groups the run forms (the same `groupTools` and budget), a simple
 *   and a complex batch per group, the cross-group batches, and one coverage batch per
 *   `MAX_COVERAGE_COUNT` tools no requested slot focuses on; input = the real batch prompts
 *   (without the interpretations the run adds to the tool summaries, which it cannot know yet).
 * - Stage 3 (mock): one call per scenario (requested, plus one per tool left for coverage).
 * - Stage 4 (turns): one call per multi-call scenario (the complex tier).
 *
 * Tokens are characters ÷ 4 (as `estimateTokens` everywhere in the pipeline); a vendor's
 * tokenizer differs by some percent. Constants come from `bench/llmPath.ts` runs (the schema-
 * only model on filesystem.json, illustrator-ie3jp-1.2.12.json and github-npm.json; the
 * cooperative responder on redis-mcp-0.5.0.json; 10 + 10 scenarios, Gemini wire), see each one.
 */
import type { Spec } from '../spec/model';
import { PromptLibrary } from '../llm/prompts';
import { priceEstimate, type CostEstimate, type Prices, type StageEstimate } from '../llm/pricing';
import { DEFAULT_COMPLEX, DEFAULT_COVERAGE_ROUNDS, DEFAULT_SIMPLE } from '../workspace/defaults';
import { apportion, DEFAULT_GROUPING, groupPairs, groupTools } from './llm/grouping';
import { toolJsonForPrompt } from './llm/interpret';
import { planSlots } from './llm/scenarioRequest';
import { crossGroupCount, MAX_COVERAGE_COUNT, overheadTokens, slotList } from './llm/scenarios';
import { compactSummary, estimateTokens, fullSummary } from './llm/summaries';
import { STAGES } from './llm/context';
import { callableTools } from './runner';

/**
 * Output tokens per reply, measured with the cooperative responder on redis-mcp-0.5.0.json
 * (47 tools, 10 + 10): 3,893 tokens over 47 interpretations, 4,571 over 47 scenarios in 11
 * batches, 3,304 over 47 mock replies, 599 over 10 splits. A real model writes more prose than
 * that responder; docs/llm.md ("Cost") gives the band.
 */
export const OUTPUT_TOKENS = { interpretation: 83, scenario: 97, mock: 70, turns: 60, restate: 120 } as const;

/**
 * Prompt tokens of one mock and one turn request (they depend on the scenario, which does not
 * exist yet): the means over the four runs above, 86,821 tokens over 157 mock requests and 30,488
 * over 40 turn requests.
 */
export const PROMPT_TOKENS = { mock: 553, turns: 762, restate: 600 } as const;

/**
 * Calls per planned call for re-asks. The four fault-free runs re-asked nothing (1.0); with 10%
 * of each kind of fault injected in front of the schema-only model (docs/benchmarks.md, "The LLM path against
 * an adversary") runs made 1.3–1.7× the calls. The estimate assumes a model that follows its
 * schema; the band in docs/llm.md says how far a faulty one goes.
 */
export const REASK_FACTOR = 1;

/**
 * The top of the estimate's range: calls (and tokens) per planned call once re-asks, top-ups,
 * coverage rounds and rewrites are counted. Set from `bench/chaosCorpus.ts`: the schema-only
 * fake `../shared/tools/chaos-llm` on all 32 fixture specs, clean and with 10% of every fault and
 * argument defect, through the Gemini client, the OpenAI wire and `--batch`; docs/benchmarks.md's table
 * gives the measured ratios. A model that follows its schemas stays near the low end.
 */
export const HIGH_RATE = 3;

/** What a generation run is asked for (the same options `runPipeline` takes). */
export interface GenerationEstimateOptions {
  provider: string;
  model: string;
  prices: Prices;
  simple?: number;
  complex?: number;
  promptTokenBudget?: number;
  maxGroupTools?: number;
  coverageRounds?: number;
  /** Prompt templates; default `prompts/` of the package. */
  prompts?: PromptLibrary;
}

const stage = (calls: number, inputTokens: number, outputTokens: number): StageEstimate => ({
  calls: Math.round(calls * REASK_FACTOR),
  inputTokens: Math.round(inputTokens * REASK_FACTOR),
  outputTokens: Math.round(outputTokens * REASK_FACTOR),
});

/** Calls, tokens and price of generating a harness for `spec` (see the module comment for the method). */
export function estimateGeneration(spec: Spec, options: GenerationEstimateOptions): CostEstimate {
  const prompts = options.prompts ?? PromptLibrary.load();
  const simple = Math.max(0, options.simple ?? DEFAULT_SIMPLE);
  const complex = Math.max(0, options.complex ?? DEFAULT_COMPLEX);
  const budget = options.promptTokenBudget ?? DEFAULT_GROUPING.promptTokenBudget;
  const maxGroupTools = options.maxGroupTools ?? DEFAULT_GROUPING.maxGroupTools;
  const coverageRounds = options.coverageRounds ?? DEFAULT_COVERAGE_ROUNDS;
  const { callable } = callableTools(spec);

  let interpretIn = 0;
  for (const tool of callable) interpretIn += estimateTokens(prompts.render('interpret', { tool_json: toolJsonForPrompt(tool) }).text);

  const overhead = overheadTokens({ prompts, spec });
  const groups = groupTools(spec, callable, { promptTokenBudget: budget, maxGroupTools, overheadTokens: overhead });
  const listBudget = Math.max(200, budget - overhead);
  const grouped = groups.length > 1;
  const crossCount = crossGroupCount(groups.length, complex);
  const pairs = groupPairs(spec, groups, Math.min(crossCount, groups.length - 1));
  const sizes = groups.map((g) => g.tools.length);
  const simpleCounts = apportion(simple, sizes);
  const complexCounts = apportion(Math.max(0, complex - (pairs.length ? crossCount : 0)), sizes);
  const common = { server_name: spec.name, server_tool_count: spec.tools.length, grouped };

  let batches = 0;
  let batchIn = 0;
  let coverageScenarios = 0;
  const batch = (template: string, values: Record<string, string | number | boolean>, focus: readonly string[], count: number, offset = 0): void => {
    const slots = slotList(planSlots(focus, count, offset));
    batches++;
    batchIn += estimateTokens(prompts.render(template, { ...values, count, slots }).text);
  };
  groups.forEach((g, gi) => {
    const focus = g.tools.map((t) => t.name);
    const values = { ...common, tool_count: g.tools.length, tool_summaries: g.tools.map((t) => fullSummary(t, undefined)).join('\n\n') };
    const s = simpleCounts[gi] ?? 0;
    const c = complexCounts[gi] ?? 0;
    if (s > 0) batch('scenarios-simple', values, focus, s);
    if (c > 0) batch('scenarios-complex', { ...values, cross_group: false, areas: '' }, focus, c, s);
    // Each requested slot focuses on one tool, in order; the rest wait for coverage batches.
    const left = coverageRounds > 0 ? g.tools.slice(Math.min(g.tools.length, s + c)) : [];
    coverageScenarios += left.length;
    for (let k = 0; k < left.length; k += MAX_COVERAGE_COUNT) {
      const chunk = left.slice(k, k + MAX_COVERAGE_COUNT);
      batch(
        'coverage-followup',
        {
          server_name: spec.name,
          uncovered_count: chunk.length,
          uncovered_summaries: chunk.map((t) => fullSummary(t, undefined)).join('\n\n'),
          context_summaries: '',
        },
        chunk.map((t) => t.name),
        chunk.length,
      );
    }
  });
  const crossCounts = apportion(
    crossCount,
    pairs.map(() => 1),
  );
  pairs.forEach(([a, b], k) => {
    const n = crossCounts[k] ?? 0;
    if (n <= 0) return;
    const list = (tools: typeof a.tools): string => tools.map((t) => compactSummary(t, undefined)).join('\n\n');
    const summaries = `## Area: ${a.label}\n\n${list(a.tools)}\n\n## Area: ${b.label}\n\n${list(b.tools)}`;
    batch(
      'scenarios-complex',
      {
        ...common,
        grouped: false,
        cross_group: true,
        areas: `${a.label}; ${b.label}`,
        tool_count: a.tools.length + b.tools.length,
        tool_summaries: summaries.slice(0, listBudget * 4),
      },
      a.tools.map((t) => t.name),
      n,
    );
  });

  const scenarios = callable.length ? simple + complex + coverageScenarios : 0;
  const multiCall = callable.length ? complex : 0;
  const stages: Record<string, StageEstimate> = {
    [STAGES.interpret]: stage(callable.length, interpretIn, callable.length * OUTPUT_TOKENS.interpretation),
    [STAGES.scenarios]: stage(batches, batchIn, scenarios * OUTPUT_TOKENS.scenario),
    [STAGES.mock]: stage(scenarios, scenarios * PROMPT_TOKENS.mock, scenarios * OUTPUT_TOKENS.mock),
    [STAGES.turns]: stage(multiCall, multiCall * PROMPT_TOKENS.turns, multiCall * OUTPUT_TOKENS.turns),
  };
  const low = priceEstimate(stages, options.provider, options.model, options.prices);
  // The top of the range: one rewrite of the request per scenario (`llm/statedValues.ts`), then
  // every planned and rewrite call times the measured re-ask and extra-round rate.
  const highStages: Record<string, StageEstimate> = {};
  for (const [name, st] of Object.entries(stages)) highStages[name] = scaled(st, HIGH_RATE);
  highStages.restate = scaled({ calls: scenarios, inputTokens: scenarios * PROMPT_TOKENS.restate, outputTokens: scenarios * OUTPUT_TOKENS.restate }, HIGH_RATE);
  const high = priceEstimate(highStages, options.provider, options.model, options.prices);
  return {
    ...low,
    high: { calls: high.calls, inputTokens: high.inputTokens, outputTokens: high.outputTokens, usd: high.usd, batchUsd: high.batchUsd, stages: high.stages },
  };
}

const scaled = (s: StageEstimate, k: number): StageEstimate => ({
  calls: Math.ceil(s.calls * k),
  inputTokens: Math.ceil(s.inputTokens * k),
  outputTokens: Math.ceil(s.outputTokens * k),
});
