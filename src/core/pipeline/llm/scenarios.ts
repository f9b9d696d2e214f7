/**
 * Stage 2 with a model: scenarios in two tiers, grouped by category, for every tool.
 *
 * ## Rounds
 * 1. Tools are split into groups of related tools within a token budget (grouping.ts); each
 *    group gets a simple and a complex batch, with the requested counts apportioned by group
 *    size. Every prompt asks for all of its tools to be used.
 * 2. Large servers also get **cross-group** complex batches (compact summaries of two related
 *    groups; every scenario must span both), so complex workflows are not confined to a group.
 * 3. After a group's batches, its unused tools get **coverage follow-up** rounds (up to
 *    `coverageRounds`), then tools still unused anywhere get global rounds.
 *
 * ## Checks (re-asked with exact messages, then salvaged)
 * Every call must name a tool of the spec and its `arguments_json` must parse and validate
 * against the tool's inputSchema. After the last re-ask the valid scenarios of the reply are
 * kept and the invalid ones discarded (counted by reason).
 *
 * ## After acceptance (deterministic)
 * Duplicates within a reply are dropped; the first `count` scenarios are kept, and extras only
 * when they use a tool no kept scenario of the batch uses (they count as coverage scenarios).
 * Tiers are then set by structure: a "complex" scenario needs at least two calls of two
 * different tools (else it becomes simple); a "simple" one at most four calls (else complex).
 */
import type { Tier } from '../../harness/format';
import { canonicalJson, sha256 } from '../../harness/hash';
import type { Tool } from '../../spec/model';
import { OFFLINE_PROMPT_VERSIONS, scenariosOffline } from '../offline';
import type { PromptValues } from '../../llm/prompts';
import { agentCallFromLlm, LlmScenarioBatch, type AgentCall, type LlmScenario, type Scenario } from '../schemas';
import { validateCall } from '../../checks/validateCall';
import { ask, type Problem } from './ask';
import { bump, emptyStepCounts, type StepCounts } from './counts';
import { count, discarded, repaired, settle, STAGES, type StageContext } from './context';
import { tallyItem } from '../runHealth';
import { apportion, groupPairs, groupTools, type ToolGroup } from './grouping';
import type { InterpretOutcome } from './interpret';
import { compactSummary, estimateTokens, fullSummary } from './summaries';

/** A scenario accepted by stage 2, ready for the mock stage. */
export interface AcceptedScenario {
  scenario: Scenario;
  category: string;
  tier: Tier;
  /** Deterministic position in the run (`g01/simple/0.2`), for ordering records. */
  slot: string;
  /** Stable record id: tier letter, title slug and a hash of the reply key and content. */
  id: string;
  /** Added to reach coverage (a follow-up round, or an extra of a batch that used a new tool). */
  coverage: boolean;
  /** Version of the template that produced it. */
  promptVersion: string;
  /** Dependent LLM calls before this one could be made (interpretation = 1). */
  depth: number;
  /** Who wrote it: the model, or the offline generator as a last resort for coverage. */
  source: 'llm' | 'offline';
}

/** Options of stage 2. */
export interface ScenarioStageOptions {
  simple: number;
  complex: number;
  promptTokenBudget: number;
  maxGroupTools: number;
  /** Follow-up rounds per group, then the same number of global rounds. */
  coverageRounds: number;
  /** Interpretation of a tool (memoised by the caller). */
  interpretation: (tool: Tool) => Promise<InterpretOutcome>;
  /** Called as soon as a scenario is accepted (the mock stage starts on it right away). */
  onScenario: (s: AcceptedScenario) => void;
  /** Called when a batch request is planned (`+1` total) and when it is done. */
  onBatch?: (event: 'planned' | 'done') => void;
}

/** What stage 2 did. */
export interface ScenarioStageResult {
  groups: ToolGroup[];
  /** Tools used by accepted scenarios. */
  covered: Set<string>;
  /** Estimated tokens of every scenario prompt sent (for the budget check). */
  promptTokens: number[];
  /** Deepest dependency chain of a batch (for the bench's lower bound). */
  maxDepth: number;
}

const MAX_PROBLEMS = 30;
/** Most scenarios a coverage batch asks for. */
const MAX_COVERAGE_COUNT = 10;

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40)
      .replace(/-+$/, '') || 'scenario'
  );
}

/** Structural tier of a scenario (see the module doc); `requested` undefined for coverage rounds. */
export function stratify(requested: Tier | undefined, calls: readonly AgentCall[]): Tier {
  const distinct = new Set(calls.map((c) => c.name)).size;
  if (requested === 'complex') return calls.length >= 2 && distinct >= 2 ? 'complex' : 'simple';
  if (requested === 'simple') return calls.length > 4 ? 'complex' : 'simple';
  return calls.length >= 3 && distinct >= 2 ? 'complex' : 'simple';
}

/** One LLM scenario converted and checked against the spec. */
function checkScenario(ctx: StageContext, s: LlmScenario, where: string): { scenario?: Scenario; problems: Problem[] } {
  const problems: Problem[] = [];
  const calls: AgentCall[] = [];
  s.agent_workflow.forEach((c, wi) => {
    const at = `${where}.agent_workflow[${wi}]`;
    const conv = agentCallFromLlm(c, at);
    if (!conv.ok) {
      for (const e of conv.errors) problems.push({ category: 'arguments-json', message: e });
      return;
    }
    const v = validateCall(ctx.spec, conv.value);
    for (const e of v.errors) {
      problems.push({ category: e.kind === 'unknown-tool' ? 'unknown-tool' : 'invalid-arguments', message: `${at} (${c.name}): ${e.message}` });
    }
    calls.push(conv.value);
  });
  if (problems.length) return { problems };
  return {
    scenario: { title: s.title, prompt: s.prompt, agent_workflow: calls, novelty_reason: s.novelty_reason, agent_followup: s.agent_followup },
    problems,
  };
}

interface Converted {
  category: string;
  scenario: Scenario;
  position: string;
}

/** A planned stage-2 request. */
interface Batch {
  slot: string;
  tier: Tier | undefined;
  template: 'scenarios-simple' | 'scenarios-complex' | 'coverage-followup';
  values: PromptValues;
  count: number;
  /** Tools this batch is meant to cover; extras beyond `count` are kept only for new ones of these. */
  focus: readonly string[];
  coverage: boolean;
  depth: number;
  /** Coverage round (0 for first rounds): a repeated follow-up is a new sample, not a cache hit. */
  round: number;
}

/** Runs one batch: request, checks, salvage, selection, tiers. Returns the accepted scenarios. */
async function runBatch(ctx: StageContext, batch: Batch, promptTokens: number[]): Promise<AcceptedScenario[]> {
  const rendered = ctx.prompts.render(batch.template, batch.values);
  promptTokens.push(estimateTokens(rendered.text));
  const collect = (value: LlmScenarioBatch): { kept: Converted[]; bad: Problem[][] } => {
    const kept: Converted[] = [];
    const bad: Problem[][] = [];
    value.categories.forEach((cat, ci) =>
      cat.scenarios.forEach((s, si) => {
        const r = checkScenario(ctx, s, `categories[${ci}].scenarios[${si}]`);
        if (r.scenario) kept.push({ category: cat.category, scenario: r.scenario, position: `${ci}.${si}` });
        else bad.push(r.problems);
      }),
    );
    return { kept, bad };
  };
  const outcome = await ask(ctx, {
    stage: STAGES.scenarios,
    request: {
      stage: STAGES.scenarios,
      promptVersion: rendered.version,
      prompt: rendered.text,
      schema: LlmScenarioBatch,
      sampleIndex: ctx.seed,
      cacheInputs: { template: batch.template, tier: batch.tier ?? null, count: batch.count, round: batch.round },
    },
    check: (value) => {
      const { kept, bad } = collect(value);
      if (kept.length + bad.length === 0) return [{ category: 'empty', message: `The reply contains no scenarios; write at least ${batch.count}.` }];
      const all = bad.flat();
      return all.length > MAX_PROBLEMS
        ? [
            ...all.slice(0, MAX_PROBLEMS),
            { category: all[MAX_PROBLEMS]!.category, message: `…and ${all.length - MAX_PROBLEMS} more problems of the same kinds` },
          ]
        : all;
    },
    accept: (value) => collect(value).kept,
    salvage: (value) => {
      const { kept, bad } = collect(value);
      if (!kept.length) return undefined;
      const counts: StepCounts = emptyStepCounts();
      for (const problems of bad) bump(counts.discarded, `${STAGES.scenarios}:${problems[0]?.category ?? 'invalid'}`);
      return { value: kept, counts };
    },
  });
  count(ctx, outcome.counts);
  settle(ctx, STAGES.scenarios, outcome, 'discarded');
  if (!outcome.ok) return [];

  // Duplicates (same request and workflow) within the reply.
  const seen = new Set<string>();
  const unique = outcome.value.filter((c) => {
    const key = canonicalJson({ p: c.scenario.prompt, w: c.scenario.agent_workflow.map((x) => [x.name, x.arguments]) });
    if (seen.has(key)) {
      discarded(ctx, `${STAGES.scenarios}:duplicate`);
      return false;
    }
    seen.add(key);
    return true;
  });
  // The requested count, plus extras that bring a tool of the batch's focus no kept one uses.
  const focus = new Set(batch.focus);
  const used = new Set<string>();
  const accepted: AcceptedScenario[] = [];
  unique.forEach((c, i) => {
    const names = c.scenario.agent_workflow.map((x) => x.name);
    const extra = i >= batch.count;
    if (extra && !names.some((n) => focus.has(n) && !used.has(n))) {
      discarded(ctx, `${STAGES.scenarios}:surplus`);
      return;
    }
    names.forEach((n) => used.add(n));
    const tier = stratify(batch.tier, c.scenario.agent_workflow);
    if (batch.tier !== undefined && tier !== batch.tier) repaired(ctx, `tier:relabelled-${batch.tier}-to-${tier}`);
    const hash = sha256(`${outcome.key}\u0000${canonicalJson(c.scenario)}`).slice(0, 10);
    accepted.push({
      scenario: c.scenario,
      category: c.category,
      tier,
      slot: `${batch.slot}/${c.position}`,
      id: `${tier === 'simple' ? 's' : 'c'}-${slug(c.scenario.title)}-${hash}`,
      coverage: batch.coverage || extra,
      promptVersion: rendered.version,
      depth: batch.depth,
      source: 'llm',
    });
  });
  return accepted;
}

/** Tokens the template takes around its tool list (rendered with empty lists). */
function overheadTokens(ctx: StageContext): number {
  const base = { server_name: ctx.spec.name, server_tool_count: ctx.spec.tools.length, tool_count: 999, count: 99, tool_summaries: '' };
  const texts = [
    ctx.prompts.render('scenarios-simple', { ...base, grouped: true }).text,
    ctx.prompts.render('scenarios-complex', { ...base, grouped: true, cross_group: true, areas: '' }).text,
    ctx.prompts.render('coverage-followup', { server_name: ctx.spec.name, uncovered_count: 999, uncovered_summaries: '', context_summaries: 'x', count: 99 })
      .text,
  ];
  // Area labels and headings add a little; keep a margin.
  return Math.max(...texts.map(estimateTokens)) + 100;
}

/** Summaries joined until the token budget is used up (in order; the rest left out). */
function withinBudget(parts: readonly string[], budget: number): string {
  const out: string[] = [];
  let used = 0;
  for (const p of parts) {
    const t = estimateTokens(p) + 1;
    if (used + t > budget) break;
    out.push(p);
    used += t;
  }
  return out.join('\n\n');
}

const pad = (n: number): string => String(n).padStart(2, '0');

/**
 * Waits for every promise, then rethrows the first failure. Unlike `Promise.all`, nothing is
 * still running (and emitting scenarios) when this settles, so the caller's wait is complete.
 */
async function settleAll(promises: readonly Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Runs stage 2 over the callable tools; scenarios stream out through `onScenario`. */
export async function generateScenarios(ctx: StageContext, tools: readonly Tool[], options: ScenarioStageOptions): Promise<ScenarioStageResult> {
  const overhead = overheadTokens(ctx);
  const groups = groupTools(ctx.spec, tools, { promptTokenBudget: options.promptTokenBudget, maxGroupTools: options.maxGroupTools, overheadTokens: overhead });
  const listBudget = Math.max(200, options.promptTokenBudget - overhead);
  const grouped = groups.length > 1;
  const crossCount = grouped && options.complex > 0 ? Math.max(1, Math.round(options.complex * 0.25)) : 0;
  const pairs = groupPairs(ctx.spec, groups, Math.min(crossCount, groups.length - 1));
  const crossCounts = apportion(
    crossCount,
    pairs.map(() => 1),
  );
  const sizes = groups.map((g) => g.tools.length);
  const simpleCounts = apportion(Math.max(0, options.simple), sizes);
  const complexCounts = apportion(Math.max(0, options.complex - (pairs.length ? crossCount : 0)), sizes);
  const promptTokens: number[] = [];
  const covered = new Set<string>();
  let maxDepth = 1;

  const interpretations = async (ts: readonly Tool[]): Promise<Map<string, InterpretOutcome>> => {
    const list = ts.map((t) => options.interpretation(t));
    await settleAll(list);
    return new Map(await Promise.all(ts.map(async (t, i) => [t.name, await list[i]!] as const)));
  };
  const run = async (batch: Batch): Promise<AcceptedScenario[]> => {
    options.onBatch?.('planned');
    maxDepth = Math.max(maxDepth, batch.depth);
    try {
      const accepted = await runBatch(ctx, batch, promptTokens);
      for (const a of accepted) {
        for (const c of a.scenario.agent_workflow) covered.add(c.name);
        options.onScenario(a);
      }
      return accepted;
    } finally {
      options.onBatch?.('done');
    }
  };
  const common = { server_name: ctx.spec.name, server_tool_count: ctx.spec.tools.length, grouped };
  const coverageBatch = (
    slot: string,
    uncovered: readonly Tool[],
    context: readonly Tool[],
    interp: Map<string, InterpretOutcome>,
    depth: number,
    round: number,
  ): Batch => {
    const full = uncovered.map((t) => fullSummary(t, interp.get(t.name)?.interpretation));
    const uncoveredText = withinBudget(full, listBudget);
    const left = listBudget - estimateTokens(uncoveredText);
    const contextText =
      left > 200
        ? withinBudget(
            context.map((t) => compactSummary(t, interp.get(t.name)?.interpretation)),
            left,
          )
        : '';
    return {
      slot,
      tier: undefined,
      template: 'coverage-followup',
      values: {
        server_name: ctx.spec.name,
        uncovered_count: uncovered.length,
        uncovered_summaries: uncoveredText,
        context_summaries: contextText,
        count: Math.min(MAX_COVERAGE_COUNT, Math.max(1, Math.ceil(uncovered.length / 2))),
      },
      count: Math.min(MAX_COVERAGE_COUNT, Math.max(1, Math.ceil(uncovered.length / 2))),
      focus: uncovered.map((t) => t.name),
      coverage: true,
      depth,
      round,
    };
  };

  const groupTasks = groups.map(async (g, gi) => {
    const interp = await interpretations(g.tools);
    const summaries = g.tools.map((t) => fullSummary(t, interp.get(t.name)?.interpretation)).join('\n\n');
    const values = { ...common, tool_count: g.tools.length, tool_summaries: summaries };
    const first: Promise<AcceptedScenario[]>[] = [];
    const mine = new Set<string>();
    const focus = g.tools.map((t) => t.name);
    if ((simpleCounts[gi] ?? 0) > 0)
      first.push(
        run({
          slot: `g${pad(gi)}/a-simple`,
          tier: 'simple',
          template: 'scenarios-simple',
          values: { ...values, count: simpleCounts[gi]! },
          count: simpleCounts[gi]!,
          focus,
          coverage: false,
          depth: 2,
          round: 0,
        }),
      );
    if ((complexCounts[gi] ?? 0) > 0) {
      first.push(
        run({
          slot: `g${pad(gi)}/b-complex`,
          tier: 'complex',
          template: 'scenarios-complex',
          values: { ...values, count: complexCounts[gi]!, cross_group: false, areas: '' },
          count: complexCounts[gi]!,
          focus,
          coverage: false,
          depth: 2,
          round: 0,
        }),
      );
    }
    await settleAll(first.map(async (p) => (await p).forEach((a) => a.scenario.agent_workflow.forEach((c) => mine.add(c.name)))));
    let depth = first.length ? 2 : 1;
    for (let round = 1; round <= options.coverageRounds; round++) {
      const uncovered = g.tools.filter((t) => !mine.has(t.name));
      if (!uncovered.length) break;
      depth++;
      const context = g.tools.filter((t) => mine.has(t.name));
      for (const a of await run(coverageBatch(`g${pad(gi)}/c-cover${round}`, uncovered, context, interp, depth, round)))
        for (const c of a.scenario.agent_workflow) mine.add(c.name);
    }
  });
  const crossTasks = pairs.map(async ([a, b], k) => {
    const n = crossCounts[k] ?? 0;
    if (n <= 0) return;
    const interp = await interpretations([...a.tools, ...b.tools]);
    const half = Math.floor(listBudget / 2);
    const list = (g: ToolGroup): string =>
      `## Area: ${g.label}\n\n${withinBudget(
        g.tools.map((t) => compactSummary(t, interp.get(t.name)?.interpretation)),
        half - 10,
      )}`;
    await run({
      slot: `x${pad(k)}/b-complex`,
      tier: 'complex',
      template: 'scenarios-complex',
      values: {
        ...common,
        grouped: false,
        cross_group: true,
        areas: `${a.label}; ${b.label}`,
        tool_count: a.tools.length + b.tools.length,
        tool_summaries: `${list(a)}\n\n${list(b)}`,
        count: n,
      },
      count: n,
      // Cross-group scenarios are about combinations, not coverage: no extras.
      focus: [],
      coverage: false,
      depth: 2,
      round: 0,
    });
  });
  await settleAll([...groupTasks, ...crossTasks]);

  // Global rounds for whatever is still unused, regrouped within the budget.
  for (let round = 1; round <= options.coverageRounds; round++) {
    const uncovered = tools.filter((t) => !covered.has(t.name));
    if (!uncovered.length) break;
    const regrouped = groupTools(ctx.spec, uncovered, {
      promptTokenBudget: options.promptTokenBudget,
      maxGroupTools: options.maxGroupTools,
      overheadTokens: overhead,
    });
    const depth = maxDepth + 1;
    await settleAll(
      regrouped.map(async (g, k) => {
        const interp = await interpretations(g.tools);
        await run(coverageBatch(`z${round}/${pad(k)}`, g.tools, [], interp, depth, options.coverageRounds + round));
      }),
    );
  }

  // Last resort: tools the model never used validly get an offline scenario each, so coverage
  // does not depend on one stubborn tool. Counted, and marked in the records' provenance. Not
  // after a batch was lost in transport: then the tools are uncovered because the model was not
  // reached, and filling them offline would hide the outage (a re-run asks the model again).
  const left = tools.filter((t) => !covered.has(t.name));
  const batchLost = Object.keys(ctx.items.failedBy).some((k) => k.startsWith(`${STAGES.scenarios}:`));
  if (left.length && !batchLost) {
    const focus = new Set(left.map((t) => t.name));
    const batch = scenariosOffline(ctx.spec, [], { seed: ctx.seed, tier: 'simple', count: left.length, focus: [...focus] });
    let k = 0;
    for (const cat of batch.categories) {
      for (const scenario of cat.scenarios) {
        const names = scenario.agent_workflow.map((c) => c.name);
        if (!names.some((n) => focus.has(n) && !covered.has(n))) continue;
        names.forEach((n) => covered.add(n));
        repaired(ctx, `${STAGES.scenarios}:offline-fallback`);
        tallyItem(ctx.items, 'offline');
        const tier = stratify(undefined, scenario.agent_workflow);
        const hash = sha256(`offline\u0000${ctx.seed}\u0000${canonicalJson(scenario)}`).slice(0, 10);
        options.onScenario({
          scenario,
          category: cat.category,
          tier,
          slot: `zz/${pad(k++)}`,
          id: `${tier === 'simple' ? 's' : 'c'}-${slug(scenario.title)}-${hash}`,
          coverage: true,
          promptVersion: OFFLINE_PROMPT_VERSIONS.scenarios ?? 'offline',
          depth: maxDepth,
          source: 'offline',
        });
      }
    }
  }
  return { groups, covered, promptTokens, maxDepth };
}
