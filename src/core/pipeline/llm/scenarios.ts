/**
 * Stage 2 with a model: scenarios in two tiers, grouped by category, for every tool.
 *
 * ## Rounds
 * 1. Tools are split into groups of related tools within a token budget (grouping.ts); each
 *    group gets a simple and a complex batch, with the requested counts apportioned by group
 *    size.
 * 2. Large servers also get **cross-group** complex batches (compact summaries of two related
 *    groups; each scenario starts in one and goes on in the other).
 * 3. A batch that still falls short gets **top-up** rounds for the scenarios it is missing (each
 *    told the problems of the scenario it got before), until none is missing or
 *    `MAX_EXTRA_ROUNDS` (workspace/defaults.ts) are spent. A tier's batch also counts as missing
 *    a slot whose scenario became no record (its restatement, mock or turn split was discarded),
 *    so each tier ends with the records asked for, not merely the replies. (A scenario re-labelled
 *    to the other tier is not asked again: a model that wrote it once tends to write it again.)
 * 4. After a group's batches, its unused tools get **coverage follow-up** rounds (up to
 *    `coverageRounds`, one scenario per unused tool), then tools still unused anywhere get
 *    global rounds (`coverageRounds` + `MAX_EXTRA_ROUNDS`, while any tool is unused).
 *
 * ## The reply (scenarioRequest.ts)
 * A batch asks for its scenarios by position, each with the tool it must call (its focus), so the
 * count and the coverage are in the schema; call names are enums of the batch's tools and
 * arguments are the tools' own parameters, each slot's description stating what the schema
 * subset has no keyword for (pattern, format, lengths, examples: argumentSchema.ts).
 *
 * ## Checks: repair at the argument, refuse by the scenario, re-ask by the slot
 * Each call's arguments are repaired first (`checks/repairCall.ts`, counted `scenarios:<kind>`):
 * a renamed parameter with one close declared name, an extra one dropped, a lossless slip
 * coerced ("5" → 5), an optional value that still fails its schema left out. A scenario is
 * refused only for what is left: an unknown tool, a missing or invalid required value
 * (`scenarios:unknown-tool`, `missing-required`, `invalid-arguments`), or a number the request
 * states for one call reused by another (issue 20, determinacy's `reused-statement`) when that
 * parameter is required; an optional one is left out (`scenarios:reused-statement-dropped`).
 * The batch's other scenarios are accepted as they came (no batch-wide re-ask): each refused
 * scenario is a counted discard, and its slot goes to the batch's top-up with its exact problems
 * in the prompt.
 *
 * ## After acceptance (deterministic)
 * Duplicates within a reply are dropped. Tiers are then set by structure: a "complex" scenario
 * needs at least two calls of two different tools (else it becomes simple); a "simple" one at
 * most four calls (else complex). Tools no scenario uses at the end get an offline scenario only
 * when the run asked for the offline fallback.
 */
import type { Tier } from '../../harness/format';
import { canonicalJson, sha256 } from '../../harness/hash';
import type { Tool } from '../../spec/model';
import { OFFLINE_PROMPT_VERSIONS, scenariosOffline } from '../offline';
import type { PromptValues } from '../../llm/prompts';
import type { AgentCall, Scenario } from '../schemas';
import { planSlots, scenarioRequest, slotKey, type LlmScenarioSlots, type ScenarioSlot } from './scenarioRequest';
import { findTool, validateCall } from '../../checks/validateCall';
import { repairArguments } from '../../checks/repairCall';
import { checkDeterminacy } from '../../checks/determinacy';
import type { DeterminacyFinding } from '../../harness/format';
import { ask, type Problem } from './ask';
import { count, discarded, repaired, settle, STAGES, PRIORITY, type StageContext } from './context';
import { tallyItem } from '../runHealth';
import { apportion, groupPairs, groupTools, type ToolGroup } from './grouping';
import type { InterpretOutcome } from './interpret';
import { compactSummary, estimateTokens, fullSummary } from './summaries';
import { MAX_EXTRA_ROUNDS } from '../../workspace/defaults';

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
  /**
   * Called as soon as a scenario is accepted (the mock stage starts on it right away). When it
   * returns a promise of whether the scenario became a record, a scenario whose record was lost
   * (say, its mock discarded) does not count as covering its tools, so the global rounds cover them again.
   */
  onScenario: (s: AcceptedScenario) => void | Promise<boolean>;
  /** Called when a batch request is planned (`+1` total) and when it is done. */
  onBatch?: (event: 'planned' | 'done') => void;
}

/** What stage 2 did. */
export interface ScenarioStageResult {
  groups: ToolGroup[];
  /** Tools used by kept records (by accepted scenarios when `onScenario` does not say). */
  covered: Set<string>;
  /** Estimated tokens of every scenario prompt sent (for the budget check). */
  promptTokens: number[];
  /** Deepest dependency chain of a batch (for the bench's lower bound). */
  maxDepth: number;
}

/** Most scenarios a coverage batch asks for. */
export const MAX_COVERAGE_COUNT = 10;
/** Added to a batch's round for its top-up (a new sample, never the cached reply of the batch). */
const TOP_UP_ROUND = 100;

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

/** Category of a number the request states for one call and a later call reuses (determinacy's `reused-statement`). */
const REUSED = 'reused-statement';

/** Why a scenario is refused, most telling first (the discard is counted under the first its problems have). */
const REASONS = ['unknown-tool', 'missing-required', 'invalid-arguments', REUSED] as const;

/** A decoded scenario after the repairs: kept (with what was repaired) or refused (with its problems). */
type Checked = { ok: true; scenario: Scenario; repairs: string[] } | { ok: false; problems: Problem[] };

/**
 * One decoded scenario checked against the spec, each call's arguments repaired first
 * (`checks/repairCall.ts`): what is left is an unknown tool or a missing or invalid required
 * value. Then no number the request states for one call may be reused by another (issue 20:
 * "list 25 channels, then all users" does not ask for 25 users; only the scenario can fix that,
 * the mock cannot); a reused optional parameter is left out (the tool's default applies).
 * `where` names each call relative to its slot (`focus_call`), for the messages.
 */
function checkScenario(ctx: StageContext, decoded: Scenario, where: readonly string[]): Checked {
  const problems: Problem[] = [];
  const repairs: string[] = [];
  const calls = decoded.agent_workflow.map((c, wi): AgentCall => {
    const at = `${where[wi] ?? `call ${wi}`} (${c.name})`;
    const tool = findTool(ctx.spec, c.name);
    if (!tool) {
      for (const e of validateCall(ctx.spec, c).errors) problems.push({ category: 'unknown-tool', message: `${at}: ${e.message}` });
      return c;
    }
    const r = repairArguments(tool, c.arguments);
    repairs.push(...r.repairs.map((x) => x.kind));
    const category = r.check.errors.some((e) => e.kind === 'missing-required') ? 'missing-required' : 'invalid-arguments';
    for (const e of r.check.errors) problems.push({ category, message: `${at}: ${e.message}` });
    return { ...c, arguments: r.arguments };
  });
  if (problems.length) return { ok: false, problems };
  const scenario = { ...decoded, agent_workflow: calls };
  const reused = calls.length < 2 ? [] : reusedStatements(ctx, scenario);
  if (!reused.length) return { ok: true, scenario, repairs };
  const fixed = dropReused(ctx, scenario, reused);
  if (fixed) return { ok: true, scenario: fixed, repairs: [...repairs, `${REUSED}-dropped`] };
  return {
    ok: false,
    problems: reused.map((f) => ({
      category: REUSED,
      message: `${where[f.callIndex] ?? `call ${f.callIndex}`} (${calls[f.callIndex]?.name}): ${f.message}. Use it for this call only when the prompt asks for it ("25 of each"), else leave the parameter out (null).`,
    })),
  };
}

/** The request's numbers reused by another call (the user's words alone decide them; no output is needed). */
function reusedStatements(ctx: StageContext, scenario: Scenario): DeterminacyFinding[] {
  const calls = scenario.agent_workflow;
  return checkDeterminacy({ calls, outputs: [], turns: [{ prompt: scenario.prompt, calls: calls.map((_, i) => i) }], spec: ctx.spec }).findings.filter(
    (f) => f.kind === REUSED,
  );
}

/**
 * The deterministic repair of a scenario whose only problems are its reused numbers (`findings`):
 * the reusing calls leave those parameters out (the tool's default applies), when each is an
 * optional top-level parameter; undefined otherwise.
 */
function dropReused(ctx: StageContext, scenario: Scenario, findings: readonly DeterminacyFinding[]): Scenario | undefined {
  const calls = scenario.agent_workflow.map((c) => ({ ...c, arguments: { ...c.arguments } }));
  for (const f of findings) {
    const call = calls[f.callIndex];
    if (!call || f.param.includes('.') || !(f.param in call.arguments)) return undefined;
    delete call.arguments[f.param];
  }
  const fixed = { ...scenario, agent_workflow: calls };
  return fixed.agent_workflow.every((c) => validateCall(ctx.spec, c).ok) && !reusedStatements(ctx, fixed).length ? fixed : undefined;
}

interface Converted {
  category: string;
  scenario: Scenario;
  position: string;
  /** The slot (0-based) it answers. */
  slot: number;
}

/** A planned stage-2 request. */
interface Batch {
  slot: string;
  tier: Tier | undefined;
  template: 'scenarios-simple' | 'scenarios-complex' | 'coverage-followup';
  values: PromptValues;
  /** The tools its calls may use. */
  tools: readonly Tool[];
  /** One per requested scenario, each with the tool it must call. */
  slots: readonly ScenarioSlot[];
  coverage: boolean;
  depth: number;
  /** Coverage round (0 for first rounds): a repeated follow-up is a new sample, not a cache hit. */
  round: number;
  /** Per slot of a top-up: the problems of the scenario an earlier reply gave it (relative to the slot), told to the model. */
  earlier?: readonly (readonly string[])[];
}

/** A slot that got no scenario, with the problems of the one it got (empty when none was refused). */
interface Missing {
  slot: ScenarioSlot;
  problems: string[];
}

/** What one batch gave: the accepted scenarios and the slots that got none (for a top-up). */
interface BatchResult {
  accepted: AcceptedScenario[];
  /** The slot each accepted scenario answered (parallel to `accepted`). */
  answeredSlots: ScenarioSlot[];
  missing: Missing[];
}

/** The slots of a batch as the prompt lists them. */
export function slotList(slots: readonly ScenarioSlot[]): string {
  return slots.map((s, i) => `- ${slotKey(i)}: its focus_call is a call of ${s.focus}`).join('\n');
}

/** The problems an earlier reply had in the slots of a top-up, as the prompt states them (empty when none). */
export function earlierProblems(earlier: readonly (readonly string[])[] | undefined): string {
  const lines = (earlier ?? []).flatMap((ps, i) => ps.slice(0, 5).map((p) => `- ${slotKey(i)}: ${p}`));
  if (!lines.length) return '';
  return `\n\n## Problems of an earlier answer\n\nAn earlier answer for these scenarios was refused. Do not repeat these problems:\n${lines.join('\n')}`;
}

/** Runs one batch: request, repairs and checks, tiers; a refused scenario leaves its slot missing, with its problems. */
async function runBatch(ctx: StageContext, batch: Batch, promptTokens: number[]): Promise<BatchResult> {
  const rendered = ctx.prompts.render(batch.template, { ...batch.values, count: batch.slots.length, slots: slotList(batch.slots) });
  const prompt = `${rendered.text}${earlierProblems(batch.earlier)}`;
  promptTokens.push(estimateTokens(prompt));
  const request = scenarioRequest(batch.tools, batch.slots, batch.tier);
  // Each slot on its own: a refused scenario never costs the others theirs (no batch-wide re-ask);
  // its slot is asked again in a top-up that carries its problems.
  type Collected = { kept: (Converted & { repairs: string[] })[]; bad: Map<number, Problem[]> };
  // accept, repairs and discards read the same reply: repaired and checked once.
  const memo = new WeakMap<LlmScenarioSlots, Collected>();
  const collect = (value: LlmScenarioSlots): Collected => {
    const known = memo.get(value);
    if (known) return known;
    const kept: (Converted & { repairs: string[] })[] = [];
    const bad = new Map<number, Problem[]>();
    batch.slots.forEach((_, i) => {
      const d = request.decode(value, i);
      const prefix = `${slotKey(i)}.`;
      const where = d.where.map((w) => (w.startsWith(prefix) ? w.slice(prefix.length) : w));
      const c = checkScenario(ctx, d.scenario, where);
      if (c.ok) kept.push({ category: d.category, scenario: c.scenario, position: String(i), slot: i, repairs: c.repairs });
      else bad.set(i, c.problems);
    });
    memo.set(value, { kept, bad });
    return { kept, bad };
  };
  const reason = (problems: readonly Problem[]): string => REASONS.find((r) => problems.some((p) => p.category === r)) ?? problems[0]?.category ?? 'invalid';
  const outcome = await ask(ctx, {
    stage: STAGES.scenarios,
    request: {
      priority: PRIORITY.scenarios,
      stage: STAGES.scenarios,
      promptVersion: rendered.version,
      prompt,
      schema: request.schema,
      jsonSchema: request.jsonSchema,
      sampleIndex: ctx.seed,
      cacheInputs: { template: batch.template, tier: batch.tier ?? null, slots: batch.slots, round: batch.round },
    },
    check: () => [],
    accept: (value) => collect(value),
    repairs: (value) => collect(value).kept.flatMap((k) => k.repairs),
    discards: (value) => [...collect(value).bad.values()].map(reason),
  });
  count(ctx, outcome.counts);
  // A reply whose every scenario was refused made nothing: the batch is a discarded item, as when a reply is lost.
  const refused = outcome.ok && !outcome.value.kept.length && outcome.value.bad.size > 0;
  settle(ctx, STAGES.scenarios, refused ? { ok: false, reason: 'semantic' } : outcome, 'discarded');
  if (!outcome.ok) return { accepted: [], answeredSlots: [], missing: batch.slots.map((slot) => ({ slot, problems: [] })) };

  // Duplicates (same request and workflow) within the reply.
  const seen = new Set<string>();
  const unique = outcome.value.kept.filter((c) => {
    const key = canonicalJson({ p: c.scenario.prompt, w: c.scenario.agent_workflow.map((x) => [x.name, x.arguments]) });
    if (seen.has(key)) {
      discarded(ctx, `${STAGES.scenarios}:duplicate`);
      return false;
    }
    seen.add(key);
    return true;
  });
  const answered = new Set(unique.map((c) => c.slot));
  const accepted = unique.map((c): AcceptedScenario => {
    const tier = stratify(batch.tier, c.scenario.agent_workflow);
    if (batch.tier !== undefined && tier !== batch.tier) repaired(ctx, `tier:relabelled-${batch.tier}-to-${tier}`);
    const hash = sha256(`${outcome.key}\u0000${canonicalJson(c.scenario)}`).slice(0, 10);
    return {
      scenario: c.scenario,
      category: c.category,
      tier,
      slot: `${batch.slot}/${c.position}`,
      id: `${tier === 'simple' ? 's' : 'c'}-${slug(c.scenario.title)}-${hash}`,
      coverage: batch.coverage,
      promptVersion: rendered.version,
      depth: batch.depth,
      source: 'llm',
    };
  });
  const bad = outcome.value.bad;
  return {
    accepted,
    answeredSlots: unique.map((c) => batch.slots[c.slot]!),
    missing: batch.slots.flatMap((slot, i) => (answered.has(i) ? [] : [{ slot, problems: (bad.get(i) ?? []).map((p) => p.message) }])),
  };
}

/** Tokens the template takes around its tool list (rendered with empty lists); also the cost estimate's. */
export function overheadTokens(ctx: Pick<StageContext, 'prompts' | 'spec'>): number {
  // The slot list: at most one line per scenario of a batch.
  const slots = slotList(planSlots(['x'.repeat(40)], MAX_COVERAGE_COUNT));
  const base = { server_name: ctx.spec.name, server_tool_count: ctx.spec.tools.length, tool_count: 999, count: 99, tool_summaries: '', slots };
  const texts = [
    ctx.prompts.render('scenarios-simple', { ...base, grouped: true }).text,
    ctx.prompts.render('scenarios-complex', { ...base, grouped: true, cross_group: true, areas: '' }).text,
    ctx.prompts.render('coverage-followup', {
      server_name: ctx.spec.name,
      uncovered_count: 999,
      uncovered_summaries: '',
      context_summaries: 'x',
      count: 99,
      slots,
    }).text,
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

/** Complex scenarios that span two groups: a quarter of the complex ones when the tools are grouped. */
export function crossGroupCount(groups: number, complex: number): number {
  return groups > 1 && complex > 0 ? Math.max(1, Math.round(complex * 0.25)) : 0;
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
  const crossCount = crossGroupCount(groups.length, options.complex);
  const pairs = groupPairs(ctx.spec, groups, Math.min(crossCount, groups.length - 1));
  const crossCounts = apportion(
    crossCount,
    pairs.map(() => 1),
  );
  const sizes = groups.map((g) => g.tools.length);
  const simpleCounts = apportion(Math.max(0, options.simple), sizes);
  const complexCounts = apportion(Math.max(0, options.complex - (pairs.length ? crossCount : 0)), sizes);
  const promptTokens: number[] = [];
  /** Tools used by the kept records (or accepted scenarios, when the caller does not say). */
  const covered = new Set<string>();
  /** Records still being made: coverage is known once they settle. */
  const pending: Promise<unknown>[] = [];
  let maxDepth = 1;

  const interpretations = async (ts: readonly Tool[]): Promise<Map<string, InterpretOutcome>> => {
    const list = ts.map((t) => options.interpretation(t));
    await settleAll(list);
    return new Map(await Promise.all(ts.map(async (t, i) => [t.name, await list[i]!] as const)));
  };
  const runOnce = async (batch: Batch): Promise<BatchResult & { kept: Promise<boolean>[] }> => {
    options.onBatch?.('planned');
    maxDepth = Math.max(maxDepth, batch.depth);
    try {
      const result = await runBatch(ctx, batch, promptTokens);
      const kept = result.accepted.map((a) => {
        const names = a.scenario.agent_workflow.map((c) => c.name);
        const made = options.onScenario(a);
        if (made === undefined) {
          names.forEach((n) => covered.add(n));
          return Promise.resolve(true);
        }
        const record = made.then((ok) => {
          if (ok) names.forEach((n) => covered.add(n));
          return ok;
        });
        pending.push(record);
        return record;
      });
      return { ...result, kept };
    } finally {
      options.onBatch?.('done');
    }
  };
  // A batch that still falls short after its tries gets top-up rounds for the slots it missed,
  // until none is missing or MAX_EXTRA_ROUNDS are spent (a top-up can hit a bad reply too).
  const run = async (batch: Batch): Promise<AcceptedScenario[]> => {
    let last = await runOnce(batch);
    const accepted = [...last.accepted];
    const rounds = [last];
    for (let k = 1; k <= MAX_EXTRA_ROUNDS && last.missing.length && !ctx.signal.aborted; k++) {
      last = await runOnce(topUp(batch, k, last.missing));
      accepted.push(...last.accepted);
      rounds.push(last);
    }
    // For a tier's batch, a slot whose scenario became no record (its restatement, mock or split
    // discarded) is asked again too: the tier's count is the records asked for, not the replies.
    // In the background (with the records in flight), so the group's coverage rounds do not wait.
    if (batch.tier !== undefined) pending.push(lostRecords(batch, rounds, rounds.length));
    return accepted;
  };
  const topUp = (batch: Batch, k: number, missing: readonly Missing[]): Batch => ({
    ...batch,
    slot: `${batch.slot}${'+'.repeat(k)}`,
    slots: missing.map((m) => m.slot),
    earlier: missing.map((m) => m.problems),
    depth: batch.depth + k,
    round: batch.round + k * TOP_UP_ROUND,
  });
  const lostRecords = async (batch: Batch, rounds: (BatchResult & { kept: Promise<boolean>[] })[], next: number): Promise<void> => {
    const unmade = async (r: (typeof rounds)[number]): Promise<Missing[]> => {
      const made = await Promise.all(r.kept);
      return r.accepted.flatMap((_, i) => (made[i] ? [] : [{ slot: r.answeredSlots[i]!, problems: [] }]));
    };
    let lost = (await Promise.all(rounds.map(unmade))).flat();
    for (let k = next; k <= MAX_EXTRA_ROUNDS && lost.length && !ctx.signal.aborted; k++) {
      const r = await runOnce(topUp(batch, k, lost));
      lost = [...r.missing, ...(await unmade(r))];
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
    // One scenario per uncovered tool, at most MAX_COVERAGE_COUNT a batch; only those are listed.
    const focus = uncovered.slice(0, MAX_COVERAGE_COUNT);
    const full = focus.map((t) => fullSummary(t, interp.get(t.name)?.interpretation));
    const uncoveredText = withinBudget(full, listBudget);
    const shown = focus.filter((t) => uncoveredText.includes(`### ${t.name}\n`));
    const listed = shown.length ? shown : focus.slice(0, 1);
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
        uncovered_count: listed.length,
        uncovered_summaries: uncoveredText,
        context_summaries: contextText,
      },
      tools: [...listed, ...context],
      slots: planSlots(
        listed.map((t) => t.name),
        listed.length,
      ).map((slot, i) => ({ ...slot, next: context[i % Math.max(1, context.length)]?.name ?? slot.next })),
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
          values,
          tools: g.tools,
          slots: planSlots(focus, simpleCounts[gi]!),
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
          values: { ...values, cross_group: false, areas: '' },
          tools: g.tools,
          // After the simple batch's focus tools, so the two batches cover different tools first.
          slots: planSlots(focus, complexCounts[gi]!, simpleCounts[gi] ?? 0),
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
      },
      tools: [...a.tools, ...b.tools],
      // Each scenario starts from a tool of one area and goes on with a tool of the other.
      slots: planSlots(
        a.tools.map((t) => t.name),
        n,
      ).map((slot, i) => ({ ...slot, next: b.tools[i % b.tools.length]!.name })),
      coverage: false,
      depth: 2,
      round: 0,
    });
  });
  await settleAll([...groupTasks, ...crossTasks]);

  // Global rounds for whatever is still unused, regrouped within the budget; a round can lose
  // its batch to bad replies, so up to MAX_EXTRA_ROUNDS more follow while tools stay unused.
  for (let round = 1; round <= options.coverageRounds + MAX_EXTRA_ROUNDS; round++) {
    await settleAll(pending.splice(0));
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

  // Only when the run asked for the offline fallback: tools the model never used validly get an
  // offline scenario each. Counted, and marked in the records' provenance. Not after a batch was
  // lost in transport: then the tools are uncovered because the model was not reached, and
  // filling them offline would hide the outage (a re-run asks the model again).
  await settleAll(pending.splice(0));
  const left = tools.filter((t) => !covered.has(t.name));
  const batchLost = Object.keys(ctx.items.failedBy).some((k) => k.startsWith(`${STAGES.scenarios}:`));
  if (left.length && !batchLost && ctx.fallback === 'offline') {
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
        // The last round: whether the record is kept changes nothing here (the caller awaits its records).
        void options.onScenario({
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
