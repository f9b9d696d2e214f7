/**
 * Stage 2, offline: scenarios built from the spec's data dependencies instead of an LLM.
 *
 * - **Simple** scenarios are 1–2 calls around one target tool: the tool alone, or preceded by
 *   the tool that produces its required reference (`list_channels` → `get_channel_history`),
 *   or by a read of the same entity before a write (read-before-write).
 * - **Complex** scenarios are 3+ calls across tools: producers of the target's references
 *   (two levels deep), a read before a write, the target, then a consumer of what it created
 *   or a verifying read; short chains are filled with tools sharing parameters or entity.
 * - **Coverage**: targets are taken uncovered-first, and `coverageScenarios` adds scenarios for
 *   tools still uncovered (the paper's follow-up round): tools of one entity become a
 *   lifecycle scenario (create → list → get → update → delete).
 *
 * Arguments come from the schema-aware sampler and must pass `validateToolArguments` (up to 6
 * attempts, the last ones with required parameters only). Values a later call reuses (same
 * parameter, same entity) are shared across the scenario, and every ID-like value no earlier
 * call supplies is written into the user's prompt, so referential integrity holds by
 * construction.
 */
import { skipIfDuplicate } from '../duplicateTools';
import type { Tier, SkippedTool } from '../../harness/format';
import type { Spec } from '../../spec/model';
import { schemaKeyword } from '../../checks/grounding';
import { isIdName, nameWords } from '../../checks/integrity';
import { recites, wordRuns } from '../../checks/recitation';
import { isOwnIdParam } from '../../checks/determinacy';
import type { AgentCall, Scenario, ScenarioBatch, ToolInterpretation } from '../schemas';
import { validateToolArguments } from '../../checks/validateCall';
import { chainSources } from './chain';
import { runSteps, type Steps } from './steps';
import { fakerFor, rngFor, type Rng } from './rng';
import { SampleLimitError, sampleSchema, type SampleContext } from './sampler';
import { distinctPhrases, humanParam, listJoin, quote, stepTitle, taskPhrase } from './text';
import { analyzeSpecSteps, plural, type SpecAnalysis, type ToolInfo } from './toolInfo';
import { cap, makeTheme, type Theme } from './values';
import { isRecord } from '../../util/isRecord';
import { pickNames, pickOf, type PickNames } from './picks';
import { hasContentText, LISTED_FILE, LISTED_FOLDERS, listedFolder, listingKind, splitPath } from './listing';

const analyses = new WeakMap<Spec, SpecAnalysis>();

/** The (cached) analysis of a spec. */
export function analysisOf(spec: Spec): SpecAnalysis {
  return runSteps(analysisSteps(spec));
}

/** {@link analysisOf} in steps (none when cached). */
export function* analysisSteps(spec: Spec): Steps<SpecAnalysis> {
  let a = analyses.get(spec);
  if (!a) {
    a = yield* analyzeSpecSteps(spec);
    distinctPhrases(a.tools);
    analyses.set(spec, a);
  }
  return a;
}

/** Maximum attempts at schema-valid arguments for one call. */
export const ARGUMENT_ATTEMPTS = 6;

/** A value shared across a scenario's calls, with the entity of the tool that set it. */
interface Shared {
  value: unknown;
  head: string;
  /** The value names a folder (a listing's or search's path, a `dir` parameter): a file tool takes a file inside it. */
  folder?: boolean;
}

const FOLDER_HEADS = new Set(['directory', 'folder', 'tree']);

/** Whether a tool's path names a folder (it lists, searches or makes one) rather than a file. */
export function takesFolder(info: ToolInfo): boolean {
  return FOLDER_HEADS.has(info.head) || (info.head === 'file' && info.verbClass === 'discover');
}

/** Whether a tool reads or writes one file (so a folder path is no argument for it). */
function takesFile(info: ToolInfo): boolean {
  return info.head === 'file' && info.verbClass !== 'discover';
}

interface ArgsResult {
  ok: true;
  args: Record<string, unknown>;
  /** Attempts beyond the first (each one a repair). */
  resampled: number;
}

/**
 * Schema-valid arguments for a tool: sampled, shared values reused, validated; retried with
 * other random choices and finally with required parameters only.
 */
export function buildArguments(
  info: ToolInfo,
  opts: { seed: number; key: string; callIndex: number; tier: Tier; theme: Theme; shared?: Map<string, Shared> },
): ArgsResult | { ok: false; error: string } {
  const schema = info.tool.inputSchema ?? {};
  let lastError = 'no attempt';
  const declaresNothing =
    !isRecord(schema) ||
    (!isRecord(schema.properties) && !Array.isArray(schema.anyOf) && !Array.isArray(schema.oneOf) && !Array.isArray(schema.allOf) && schema.$ref === undefined);
  for (let attempt = 0; attempt < ARGUMENT_ATTEMPTS; attempt++) {
    const rng = rngFor(opts.seed, info.name, opts.key, opts.callIndex, attempt);
    const ctx: SampleContext = {
      root: schema,
      rng,
      faker: fakerFor(opts.seed, info.name, opts.key, opts.callIndex, attempt),
      theme: opts.theme,
      toolEntity: info.head || undefined,
      fileContext:
        info.entity.some((w) => ['file', 'directory', 'folder', 'path', 'media'].includes(w)) &&
        !info.params.some((p) => /^(repo|repository|owner|project_?id)$/i.test(p.name)),
      repoContext: info.params.some((p) => /^(repo|repository|project_?id)$/i.test(p.name)),
      listing: info.verbClass === 'discover',
      // Few optional parameters: people fill what they need.
      optionalTop: attempt >= 3 ? 0 : opts.tier === 'simple' ? 1 : 2,
      optionalNested: attempt >= 3 ? 0 : 1,
      arrayItems: attempt >= 3 ? [1, 1] : [1, 2],
      preferDefaults: true,
      toolDescription: info.tool.description,
    };
    // A schema that declares no parameters takes none (broken ones like `{"$schema": …}` included).
    let sampled: unknown;
    try {
      sampled = declaresNothing ? {} : sampleSchema(schema, ctx, '', 0);
    } catch (e) {
      // Too big for any attempt only when required: optional parts are dropped from attempt 3 on.
      if (!(e instanceof SampleLimitError)) throw e;
      lastError = e.message;
      if (attempt >= 3) return { ok: false, error: e.message };
      continue;
    }
    const args: Record<string, unknown> = isRecord(sampled) ? sampled : {};
    if (opts.shared && attempt < 2) {
      for (const p of info.params) {
        const s = opts.shared.get(p.name);
        // A value the description says comes from another tool's output is drawn afresh, so it can come from there.
        if (!s || !Object.hasOwn(args, p.name) || p.producedBy) continue;
        // A file tool after a listing works on a file in the listed folder, not on the folder itself.
        if (s.folder && takesFile(info) && typeof s.value === 'string' && typeof args[p.name] === 'string') {
          const file = (args[p.name] as string).split('/').pop() ?? '';
          if (file) args[p.name] = `${s.value.replace(/\/+$/, '')}/${file}`;
          continue;
        }
        // Entity-specific names (`owner`, `channel_id`) carry over; bare ones (`id`, `Sid`) only within one entity.
        if (p.entity.length > 0 || s.head === info.head) args[p.name] = s.value;
      }
    }
    const check = validateToolArguments(info.tool, args);
    if (check.ok) {
      if (opts.shared) {
        for (const [k, v] of Object.entries(args))
          if (!opts.shared.has(k) && (typeof v === 'string' || typeof v === 'number'))
            opts.shared.set(k, { value: v, head: info.head, folder: takesFolder(info) });
      }
      return { ok: true, args, resampled: attempt };
    }
    lastError = check.errors[0]?.message ?? 'invalid';
  }
  return { ok: false, error: `no schema-valid arguments after ${ARGUMENT_ATTEMPTS} attempts (${lastError})` };
}

/** The sampling context of a tool's output (mock outputs are full: generous budgets). */
export function outputContext(
  seed: number,
  info: ToolInfo | undefined,
  key: string,
  index: number,
  theme: Theme,
  root: unknown,
  attempt: number,
): SampleContext {
  return {
    root,
    rng: rngFor(seed, 'mock', key, index, attempt),
    faker: fakerFor(seed, info?.name ?? '?', key, 'mock', index, attempt),
    theme,
    toolEntity: info?.head || undefined,
    optionalTop: 12,
    optionalNested: 8,
    arrayItems: [2, 3],
    preferDefaults: false,
  };
}

/** Why a tool's output schema cannot be sampled within the limits (its mocks could not be built), or undefined. */
function outputLimit(info: ToolInfo, seed: number, theme: Theme): string | undefined {
  if (!info.hasOutputSchema) return undefined;
  const schema = info.tool.outputSchema;
  try {
    sampleSchema(schema, outputContext(seed, info, 'probe', 0, theme, schema, 0), '', 0);
    return undefined;
  } catch (e) {
    if (e instanceof SampleLimitError) return `output ${e.message}`;
    throw e;
  }
}

/** Which tools can be called, and why the others are skipped. Deterministic for a seed. */
export function callability(spec: Spec, seed: number): { callable: ToolInfo[]; skipped: SkippedTool[] } {
  return runSteps(callabilitySteps(spec, seed));
}

/** {@link callability} in steps: one tool probed per step. */
export function* callabilitySteps(spec: Spec, seed: number): Steps<{ callable: ToolInfo[]; skipped: SkippedTool[] }> {
  const analysis = yield* analysisSteps(spec);
  const callable: ToolInfo[] = [];
  const skipped: SkippedTool[] = [];
  const seen = new Set<string>();
  for (const info of analysis.tools) {
    const duplicate = skipIfDuplicate(seen, info.name);
    if (duplicate) {
      skipped.push(duplicate);
      continue;
    }
    if (info.broken) {
      skipped.push({ tool: info.name, reason: info.broken });
      continue;
    }
    const theme = makeTheme(fakerFor(seed, 'probe-theme'), rngFor(seed, 'probe-theme'));
    const probe = buildArguments(info, { seed, key: 'probe', callIndex: 0, tier: 'simple', theme });
    const problem = probe.ok ? outputLimit(info, seed, theme) : probe.error;
    if (problem === undefined) callable.push(info);
    else skipped.push({ tool: info.name, reason: problem });
    yield;
  }
  return { callable, skipped };
}

/** A planned workflow before arguments are chosen. */
export interface Plan {
  tier: Tier;
  /** Seeding key, unique per scenario of a run (`simple:3`). */
  key: string;
  /** The tool the scenario is built around. */
  target: ToolInfo;
  tools: ToolInfo[];
  round: 'requested' | 'coverage';
}

const LIFECYCLE: Record<ToolInfo['verbClass'], number> = { create: 0, discover: 1, read: 2, update: 3, action: 4, delete: 5 };

/** Workflow planning over the callable tools. */
class Planner {
  private readonly callableSet: Set<ToolInfo>;
  /** Callable tools by head noun, in `callable` order (a plan looks at one entity's tools, not at all of them). */
  private readonly callableByHead = new Map<string, ToolInfo[]>();

  constructor(
    private readonly analysis: SpecAnalysis,
    private readonly callable: readonly ToolInfo[],
    private readonly covered: Set<string>,
  ) {
    this.callableSet = new Set(callable);
    for (const t of callable) {
      if (!t.head) continue;
      const list = this.callableByHead.get(t.head);
      if (list) list.push(t);
      else this.callableByHead.set(t.head, [t]);
    }
  }

  /**
   * Best producer of a tool's parameter among callable tools not excluded; uncovered ones win
   * ties. The ranking is best first, so the scan stops at the first lower score.
   */
  private producerFor(consumer: ToolInfo, paramName: string, exclude: ReadonlySet<ToolInfo>): ToolInfo | undefined {
    const p = consumer.params.find((x) => x.name === paramName);
    if (!p) return undefined;
    let top: ToolInfo | undefined;
    let best = 0;
    for (const a of this.analysis.producers(consumer, p)) {
      if (a === consumer || !this.callableSet.has(a) || exclude.has(a)) continue;
      const score = this.analysis.producerScore(a, consumer, p);
      if (!top) {
        top = a;
        best = score;
      } else if (score !== best) break;
      if (!this.covered.has(a.name)) return a;
    }
    return top;
  }

  /** Required reference parameters of a tool. */
  private requiredRefs(info: ToolInfo): string[] {
    return info.params.filter((p) => p.required && p.isRef).map((p) => p.name);
  }

  private sameEntityRead(info: ToolInfo, exclude: ReadonlySet<ToolInfo>, rng: Rng): ToolInfo | undefined {
    if (!info.head) return undefined;
    const reads = (this.callableByHead.get(info.head) ?? []).filter((t) => t !== info && !exclude.has(t) && t.phase === 'read');
    const gets = reads.filter((t) => t.verbClass === 'read');
    return rng.pick(gets.length ? gets : reads);
  }

  simple(target: ToolInfo, rng: Rng): ToolInfo[] {
    for (const ref of this.requiredRefs(target)) {
      const a = this.producerFor(target, ref, new Set([target]));
      if (a) return [a, target];
    }
    if (target.phase === 'act' && rng.chance(0.5)) {
      const r = this.sameEntityRead(target, new Set([target]), rng);
      if (r) return [r, target];
    }
    return [target];
  }

  /** Producers of `info`'s required references, depth-first, in call order. */
  private addProducers(info: ToolInfo, chain: ToolInfo[], depth: number): void {
    for (const ref of this.requiredRefs(info)) {
      // Already supplied by a tool in the chain?
      const p = info.params.find((x) => x.name === ref);
      if (p && chain.some((c) => this.analysis.producerScore(c, info, p) > 0)) continue;
      const a = this.producerFor(info, ref, new Set([info, ...chain]));
      if (!a) continue;
      if (depth < 1) this.addProducers(a, chain, depth + 1);
      if (!chain.includes(a)) chain.push(a);
    }
  }

  complex(target: ToolInfo, rng: Rng): ToolInfo[] {
    const chain: ToolInfo[] = [];
    this.addProducers(target, chain, 0);
    if (target.phase === 'act') {
      const r = this.sameEntityRead(target, new Set([target, ...chain]), rng);
      if (r) chain.push(r);
    }
    chain.push(target);
    if (target.verbClass === 'create') {
      const consumers = this.callable.filter((c) => !chain.includes(c) && c.params.some((p) => p.isRef && this.analysis.producerScore(target, c, p) > 0));
      const c = consumers.find((x) => !this.covered.has(x.name)) ?? rng.pick(consumers);
      if (c) chain.push(c);
    } else if (target.phase === 'act' && !target.destructive) {
      const v = this.sameEntityRead(target, new Set(chain), rng);
      if (v) chain.push(v);
    }
    this.fill(chain, target, rng, 3);
    return this.producersFirst(chain.slice(0, 6));
  }

  /**
   * The chain reordered so that a tool producing another's reference runs before it (stable
   * otherwise): data flows forward, as in a real session (list the channels, then read one).
   */
  private producersFirst(chain: ToolInfo[]): ToolInfo[] {
    const feeds = (a: ToolInfo, b: ToolInfo): boolean => a !== b && b.params.some((p) => p.isRef && this.analysis.producerScore(a, b, p) > 0);
    const out: ToolInfo[] = [];
    const rest = [...chain];
    while (rest.length) {
      // The first tool no other remaining tool feeds (a cycle falls back to the first remaining).
      const i = rest.findIndex((b) => !rest.some((a) => feeds(a, b) && !feeds(b, a)));
      out.push(...rest.splice(Math.max(i, 0), 1));
    }
    return out;
  }

  /** Whether some callable tool produces one of this tool's required references (a complex scenario can carry data into it). */
  fed(info: ToolInfo): boolean {
    return this.requiredRefs(info).some((ref) => this.producerFor(info, ref, new Set([info])) !== undefined);
  }

  /** Pads a chain to `min` calls with related tools (shared parameters, same entity), else repeats. */
  private fill(chain: ToolInfo[], target: ToolInfo, rng: Rng, min: number): void {
    const paramNames = new Set(chain.flatMap((c) => c.params.map((p) => p.name)));
    while (chain.length < min) {
      const candidates = this.callable
        .filter((t) => !chain.includes(t))
        .map((t) => {
          let score = 0;
          if (t.params.some((p) => paramNames.has(p.name) && p.name.length > 2)) score += 2;
          if (t.head && chain.some((c) => c.head === t.head)) score += 2;
          if (!this.covered.has(t.name)) score += 1;
          return { t, score: score + rng.next() * 0.5 };
        })
        .sort((a, b) => b.score - a.score);
      const pick = candidates[0]?.t;
      if (!pick) {
        // Fewer tools than calls needed: repeat the target (a multi-hop pattern of one tool).
        chain.push(target);
        continue;
      }
      if (pick.phase === 'read') chain.unshift(pick);
      else chain.push(pick);
      for (const p of pick.params) paramNames.add(p.name);
    }
  }

  /** A lifecycle workflow over tools of one entity, with the producers they need. */
  lifecycle(members: ToolInfo[]): ToolInfo[] {
    const ordered = [...members].sort((a, b) => LIFECYCLE[a.verbClass] - LIFECYCLE[b.verbClass] || a.index - b.index);
    const chain: ToolInfo[] = [];
    for (const m of ordered) {
      this.addProducers(m, chain, 1);
      if (!chain.includes(m)) chain.push(m);
    }
    return chain.slice(0, 7);
  }

  markCovered(tools: readonly ToolInfo[]): void {
    for (const t of tools) this.covered.add(t.name);
  }
}

/** Plans `count` scenarios of a tier, targeting uncovered tools first. `covered` is updated. */
export function planTier(
  analysis: SpecAnalysis,
  callable: readonly ToolInfo[],
  tier: Tier,
  count: number,
  seed: number,
  covered: Set<string>,
  startIndex = 0,
): Plan[] {
  const planner = new Planner(analysis, callable, covered);
  const order = rngFor(seed, 'order', tier).shuffle(callable);
  // Complex scenarios are built around actions (writes need context) that take data from an
  // earlier call first, then other actions; simple ones around anything.
  const rank = (t: ToolInfo): number => (t.phase === 'act' ? 0 : 2) + (planner.fed(t) ? 0 : 1);
  const preferred = tier === 'complex' ? [...order].sort((a, b) => rank(a) - rank(b)) : order;
  const plans: Plan[] = [];
  for (let k = 0; k < count && preferred.length; k++) {
    const key = `${tier}:${startIndex + k}`;
    const rng = rngFor(seed, 'plan', key);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- needed (noUncheckedIndexedAccess); the rule misreads `??`
    const target = preferred.find((t) => !covered.has(t.name)) ?? (preferred[(startIndex + k) % preferred.length] as ToolInfo);
    const tools = tier === 'simple' ? planner.simple(target, rng) : planner.complex(target, rng);
    planner.markCovered(tools);
    plans.push({ tier, key, target, tools, round: 'requested' });
  }
  return plans;
}

/**
 * The coverage round: scenarios for every callable tool still uncovered. Uncovered tools of one
 * entity are grouped into lifecycle workflows (complex when 3+ calls), others get a simple one.
 */
export function planCoverage(
  analysis: SpecAnalysis,
  callable: readonly ToolInfo[],
  seed: number,
  covered: Set<string>,
  startIndex: { simple: number; complex: number },
): Plan[] {
  const planner = new Planner(analysis, callable, covered);
  const plans: Plan[] = [];
  const next = { ...startIndex };
  // `covered` only grows: the first uncovered tool, overall and per entity, is found by cursors
  // that never move back (one pass over the tools, not one per plan).
  let cursor = 0;
  const headCursors = new Map<string, number>();
  const byHead = new Map<string, ToolInfo[]>();
  for (const t of callable) {
    if (!t.head) continue;
    const list = byHead.get(t.head);
    if (list) list.push(t);
    else byHead.set(t.head, [t]);
  }
  const firstUncovered = (list: readonly ToolInfo[], at: number): number => {
    while (at < list.length && covered.has((list[at] as ToolInfo).name)) at++;
    return at;
  };
  for (;;) {
    cursor = firstUncovered(callable, cursor);
    const first = callable[cursor];
    if (!first) break;
    let family = [first];
    if (first.head) {
      const members = byHead.get(first.head) ?? [];
      const from = firstUncovered(members, headCursors.get(first.head) ?? 0);
      headCursors.set(first.head, from);
      family = [];
      for (let i = from; i < members.length && family.length < 5; i++) if (!covered.has((members[i] as ToolInfo).name)) family.push(members[i] as ToolInfo);
    }
    const rng = rngFor(seed, 'coverage', first.name);
    const tools = family.length >= 2 ? planner.lifecycle(family) : planner.simple(first, rng);
    const tier: Tier = tools.length >= 3 ? 'complex' : 'simple';
    const key = `${tier}:${next[tier]++}`;
    planner.markCovered(tools);
    covered.add(first.name); // guarantees progress even if planning dropped it
    plans.push({ tier, key, target: first, tools, round: 'coverage' });
  }
  return plans;
}

/** A built scenario with what the record needs besides the stage output. */
export interface BuiltScenario {
  plan: Plan;
  category: string;
  scenario: Scenario;
  /** Argument attempts beyond the first, summed over the calls. */
  resampled: number;
}

function categoryOf(info: ToolInfo): string {
  return cap(plural(info.label || info.words.join(' ') || 'general'));
}

/** A parameter capping how many results come back (`limit 25` reads better as "at most 25 results"). */
const LIMIT = /^(limit|max_?results|maxResults|max|count|per_?page|perPage|page_?size|pageSize|top|first|size|n|num_?results)$/i;

/** A parameter that says where the tool works (`path "/x"` reads better as `at "/x"`). */
const LOCATION = /^(path|dir|directory|folder|file_?path|filepath)$/i;

/**
 * Whether the user must state a value for the agent to know it: every string (a short code such
 * as an element ref `e7` too: the exact judge counts it) and number (an ID, an amount, a size, a
 * limit), except those the parameter's own schema offers (its enum, const or default: the
 * judge's rule, `schemaKeyword`), which wording may imply. Booleans are switches the wording
 * implies. `path` is the argument's dotted path.
 */
function mustState(value: unknown, inputSchema: unknown, path: string): value is string | number {
  if ((typeof value !== 'string' || value.trim() === '') && typeof value !== 'number') return false;
  return schemaKeyword(inputSchema, path, value) === undefined;
}

/** Leaves of an arguments object that the user must state, grouped by their parameter (array items together). */
function statedLeaves(args: Record<string, unknown>, inputSchema: unknown): { top: string; name: string; values: (string | number)[] }[] {
  const groups = new Map<string, { top: string; name: string; values: (string | number)[] }>();
  // `path` groups array items together; `at` keeps their indices for the schema lookup.
  const walk = (v: unknown, path: string[], at: string[], name: string): void => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, path, [...at, String(i)], name));
    else if (isRecord(v)) for (const [k, x] of Object.entries(v)) walk(x, [...path, k], [...at, k], k);
    else if (mustState(v, inputSchema, at.join('.'))) {
      const key = path.join('.');
      const g = groups.get(key) ?? { top: path[0] ?? name, name, values: [] };
      if (!g.values.includes(v)) g.values.push(v);
      groups.set(key, g);
    }
  };
  for (const [k, v] of Object.entries(args)) walk(v, [k], [k], k);
  return [...groups.values()];
}

/**
 * Mentions of every value the user must state for one call (see `mustState`), except what an
 * earlier call supplies (`chained`) or the user already said: `at "/x"`, `with pattern "*.md"
 * and urls "a" and "b"`. Grounded by construction: the agent never has to invent a value.
 */
function mentionsFor(info: ToolInfo, args: Record<string, unknown>, chained: ReadonlySet<string>, already: Set<string>): string[] {
  const items: string[] = [];
  let location: string | undefined;
  let most: string | undefined;
  // Required parameters first, then the optional ones the call fills.
  const order = new Map(info.params.map((p, i) => [p.name, p.required ? i : i + info.params.length]));
  const leaves = statedLeaves(args, info.tool.inputSchema ?? {}).sort((a, b) => (order.get(a.top) ?? 0) - (order.get(b.top) ?? 0));
  for (const { top, name, values } of leaves) {
    if (chained.has(top)) continue;
    // An identifier said once serves every call that takes it for the same parameter ("repo path X");
    // said for another one (a branch *type* X) it does not say which branch to switch to. A number
    // (a page size, an amount) is said for each call that takes it.
    const carries = (v: string | number): boolean => typeof v === 'string' || isIdName(name);
    const key = (v: string | number): string => `${humanParam(name)}\u0000${String(v)}`;
    const fresh = values.filter((v) => !carries(v) || !already.has(key(v)));
    if (!fresh.length) continue;
    for (const v of fresh) if (carries(v)) already.add(key(v));
    const only = fresh[0];
    if (fresh.length === 1 && location === undefined && LOCATION.test(name) && typeof only === 'string' && only.includes('/')) location = `at ${quote(only)}`;
    else if (fresh.length === 1 && typeof only === 'number' && LIMIT.test(name)) most = `(at most ${only})`;
    else items.push(`${humanParam(name)} ${listJoin(fresh.map(quote))}`);
  }
  const withItems = items.length ? `with ${listJoin(items)}` : '';
  return [location, withItems, most].filter((m): m is string => !!m);
}

/** The clause asking for one call (used by prompts and turn prompts). */
export function clauseFor(
  info: ToolInfo,
  args: Record<string, unknown>,
  sources: ReadonlyMap<string, number>,
  infos: readonly (ToolInfo | undefined)[],
  already: Set<string>,
  names?: PickNames,
): string {
  // A chained value that is the listed item's own name is said like any value ("branch name "x""), not pointed at.
  const said = (param: string, i: number): boolean => {
    const producer = infos[i];
    const v = args[param];
    return producer !== undefined && (Array.isArray(v) ? v : [v]).every((x) => pickOf(producer, param, x)?.isValue === true);
  };
  const pointed = new Map([...sources].filter(([p, i]) => !said(p, i)));
  const mentions = mentionsFor(info, args, new Set(pointed.keys()), already);
  const phrase = taskPhrase(info);
  let text = phrase;
  if (mentions.length) text += ` ${mentions.join(' ')}`;
  const byProducer = new Map<number, string[]>();
  for (const [param, i] of pointed) byProducer.set(i, [...(byProducer.get(i) ?? []), param]);
  const refs = [...byProducer.entries()].map(([i, params]) => {
    const producer = infos[i];
    const label = producer ? producer.label || producer.name : 'previous';
    // An item of a list is named, as a user who knows it would (`picks.ts`): the mock gives it that name.
    const picked = producer
      ? params.flatMap((p) => {
          const v = args[p];
          return (Array.isArray(v) ? v : [v]).flatMap((x) => pickOf(producer, p, x, names)?.name ?? []);
        })
      : [];
    // A path from a listing is named by its entry ("the file "notes.md""), which the listing shows.
    const entries =
      producer && listingKind(producer)
        ? params.flatMap((p) => {
            const v = args[p];
            return (Array.isArray(v) ? v : [v]).flatMap((x) => (typeof x === 'string' ? (splitPath(x)?.entry ?? []) : []));
          })
        : [];
    if (!picked.length && entries.length) {
      const kind = takesFolder(info) ? 'folder' : 'file';
      return `for the ${entries.length > 1 ? `${kind}s` : kind} ${listJoin([...new Set(entries)].map(quote))}`;
    }
    const unique = [...new Set(picked)];
    if (unique.length) return `for the ${unique.length > 1 ? plural(label) : label} ${listJoin(unique.map(quote))}`;
    if (producer?.verbClass === 'create') return `for the new ${label}`;
    return `using the ${listJoin(params.map(humanParam))} of that ${label}`;
  });
  // "read the file for the file "a.md"" says its noun twice: "read the file "a.md"".
  const named = refs.length === 1 ? /^for the ([a-z ]+?) ("[^"]*"(?:(?:, | and )"[^"]*")*)$/.exec(refs[0] ?? '') : null;
  if (named?.[1] && named[2] && text.endsWith(` ${named[1]}`)) text += ` ${named[2]}`;
  else if (refs.length) text += ` ${listJoin(refs)}`;
  // A clause that recites the description (seven words of it, `checks/recitation.ts`) says the task in the tool's own verb and noun instead.
  if (recites(text, wordRuns([info.tool.description]))) return taskPhrase(info, true) + text.slice(phrase.length);
  return text;
}

const OPENERS = ['Could you', 'Please', 'I need you to', 'Can you'];

/** Joins clauses into one request. */
export function joinClauses(clauses: readonly string[], rng: Rng): string {
  const opener = rng.pick(OPENERS) ?? 'Please';
  const parts = clauses.map((c, i) => (i === 0 ? c : i === clauses.length - 1 && clauses.length > 2 ? `and finally ${c}` : `then ${c}`));
  const end = opener === 'Please' || opener === 'I need you to' ? '.' : '?';
  return `${opener} ${parts.join(', ')}${end}`;
}

/**
 * A path a call takes from an earlier listing names an entry of that listing (`listing.ts`): a
 * folder tool opens one of the folders it lists, a file tool keeps its file name inside the
 * listed folder (the mock stage adds the file to the listing). After a search a folder tool takes
 * the folder searched and a file tool a file in it; after a tree, an entry of the tree. So the
 * path is grounded as the judge reads it: the listed folder, then an entry the listing shows. A
 * value an earlier call already takes is left as it is (it is grounded where that one is), and
 * so are arguments the tool's schema would refuse rewritten.
 */
function openListedEntries(calls: AgentCall[], infos: readonly ToolInfo[], sources: readonly ReadonlyMap<string, number>[], rng: Rng): void {
  calls.forEach((call, j) => {
    const consumer = infos[j];
    if (!consumer || (!takesFolder(consumer) && !takesFile(consumer))) return;
    const earlier = new Set(calls.slice(0, j).flatMap((c) => Object.values(c.arguments).flat()));
    const args = { ...call.arguments };
    for (const [param, i] of sources[j] ?? []) {
      const producer = infos[i];
      const kind = listingKind(producer);
      const folder = listedFolder(calls[i]?.arguments ?? {});
      if (!producer || !kind || !folder || !hasContentText(producer)) continue;
      const open = (v: unknown): unknown => {
        const own = typeof v === 'string' && !earlier.has(v) ? splitPath(v)?.entry : undefined;
        if (own === undefined) return v;
        if (takesFolder(consumer)) {
          if (kind === 'search') return folder;
          return `${folder}/${(LISTED_FOLDERS as readonly string[]).includes(own) ? own : (rng.pick(LISTED_FOLDERS) ?? LISTED_FOLDERS[0])}`;
        }
        return `${folder}/${kind === 'tree' ? LISTED_FILE : own}`;
      };
      const v = args[param];
      args[param] = Array.isArray(v) ? v.map(open) : open(v);
    }
    if (validateToolArguments(consumer.tool, args).ok) call.arguments = args;
  });
}

/**
 * A later call that takes the identifier an earlier call was asked about (retrieve page X, then
 * its markdown) works on that same thing: the earlier call's own value, not a fresh one planted
 * into its output, which would make the page read answer with another page's id.
 */
function sameThing(calls: AgentCall[], infos: readonly ToolInfo[], sources: readonly ReadonlyMap<string, number>[]): void {
  calls.forEach((call, j) => {
    const info = infos[j];
    for (const [param, i] of sources[j] ?? []) {
      const earlier = calls[i];
      // The same parameter, or a bare `Sid` of a fetch of the thing the earlier call named (`ConnectAppSid` → FetchConnectApp's `Sid`).
      const same = earlier
        ? isOwnIdParam(earlier.name, param) && Object.hasOwn(earlier.arguments, param)
          ? param
          : namedFor(earlier.arguments, call.name, param)
        : undefined;
      const v = same === undefined ? undefined : earlier?.arguments[same];
      if (!info || !earlier || (typeof v !== 'string' && typeof v !== 'number')) continue;
      const args = { ...call.arguments, [param]: v };
      if (validateToolArguments(info.tool, args).ok) {
        call.arguments = args;
        continue;
      }
      // The later tool's format is the stricter one (a uuid): the earlier call, and every call before it that was given that value, take the later one's.
      const mine = call.arguments[param];
      const before = calls.slice(0, j).map((c) => (c.arguments[param] === v ? { ...c.arguments, [param]: mine } : undefined));
      if (before.every((a, k) => a === undefined || (infos[k] !== undefined && validateToolArguments(infos[k].tool, a).ok)))
        before.forEach((a, k) => {
          const c = calls[k];
          if (a && c) c.arguments = a;
        });
    }
  });
}

/**
 * The earlier call's parameter that names the thing a later call is about by its bare id
 * (`ConnectAppSid` for `FetchConnectApp(Sid)`): an ID-named parameter whose noun the later tool's
 * name carries; undefined when none does or the later parameter is not its tool's own bare id.
 */
function namedFor(args: Record<string, unknown>, consumer: string, param: string): string | undefined {
  if (nameWords(param).length !== 1 || !isOwnIdParam(consumer, param)) return undefined;
  const tool = ` ${nameWords(consumer).join(' ')} `;
  return Object.keys(args).find((k) => {
    const noun = nameWords(k).slice(0, -1).join(' ');
    return isIdName(k) && noun !== '' && tool.includes(` ${noun} `);
  });
}

/** Builds the scenario text and arguments for a plan. Undefined when a call cannot get valid arguments. */
export function buildScenario(analysis: SpecAnalysis, plan: Plan, seed: number): BuiltScenario | undefined {
  const theme = makeTheme(fakerFor(seed, plan.key, 'theme'), rngFor(seed, plan.key, 'theme'));
  const shared = new Map<string, Shared>();
  const calls: AgentCall[] = [];
  let resampled = 0;
  for (const [j, info] of plan.tools.entries()) {
    const r = buildArguments(info, { seed, key: plan.key, callIndex: j, tier: plan.tier, theme, shared });
    if (!r.ok) return undefined;
    resampled += r.resampled;
    calls.push({ name: info.name, arguments: r.args, explanation: '' });
  }
  const infos = plan.tools;
  sameThing(calls, infos, chainSources(analysis, calls));
  const sources = chainSources(analysis, calls);
  openListedEntries(calls, infos, sources, rngFor(seed, plan.key, 'entries'));
  const rng = rngFor(seed, plan.key, 'text');
  const already = new Set<string>();
  const names = pickNames(infos, calls, sources);
  const clauses = calls.map((c, j) => clauseFor(infos[j] as ToolInfo, c.arguments, sources[j] ?? new Map(), infos, already, names));
  calls.forEach((c, j) => {
    const info = infos[j] as ToolInfo;
    const src = [...(sources[j] ?? new Map<string, number>()).entries()];
    const why = src.length
      ? `${cap(taskPhrase(info))}, taking ${listJoin(src.map(([p, i]) => `${humanParam(p)} from call ${i + 1} (${infos[i]?.name ?? '?'})`))}.`
      : j === 0
        ? `${cap(taskPhrase(info))}, as the user asked.`
        : `${cap(taskPhrase(info))} with the values the user gave.`;
    // Say so when a schema declares nothing at all (a broken capture): the empty call is all it allows.
    const declared = isRecord(info.tool.inputSchema) && (isRecord(info.tool.inputSchema.properties) || info.tool.inputSchema.type === 'object');
    c.explanation = declared ? why : `${why} Its inputSchema declares no parameters, so the call takes none.`;
  });

  const distinct = [...new Set(infos.map((t) => t.name))];
  const titleParts = distinct.slice(0, 3).map((name, i) => {
    const t = analysis.byName.get(name) as ToolInfo;
    return i === 0 ? stepTitle(t) : stepTitle(t).toLowerCase();
  });
  const title = titleParts.length > 1 ? `${titleParts.slice(0, -1).join(', ')} and ${titleParts[titleParts.length - 1]}` : (titleParts[0] ?? plan.target.name);
  const edges = sources.flatMap((m, j) => [...m.entries()].map(([p, i]) => `${infos[i]?.name} → ${infos[j]?.name}.${p}`));
  const novelty =
    plan.tier === 'simple'
      ? `Everyday use of ${plan.target.name}${edges.length ? `; the agent must carry ${edges.join(', ')} from one call to the next` : ''}.`
      : `A ${calls.length}-step workflow across ${distinct.length} tool(s)${edges.length ? ` with data dependencies ${edges.join(', ')}` : ''}; reads come before the actions that depend on them.`;
  const others = plan.target.head ? (analysis.byHead.get(plan.target.head) ?? []).filter((t) => !distinct.includes(t.name) && !t.broken) : [];
  const offer = rng.pick(others);
  const followup = offer
    ? `Would you like me to also ${taskPhrase(offer)}?`
    : `Is there anything else you need for these ${plural(plan.target.label || 'items')}?`;
  return {
    plan,
    category: categoryOf(plan.target),
    resampled,
    scenario: { title, prompt: joinClauses(clauses, rng), agent_workflow: calls, novelty_reason: novelty, agent_followup: followup },
  };
}

/** Groups built scenarios into a stage-2 batch by category (first-appearance order). */
export function toBatch(built: readonly BuiltScenario[]): ScenarioBatch {
  const categories: ScenarioBatch['categories'] = [];
  for (const b of built) {
    let cat = categories.find((c) => c.category === b.category);
    if (!cat) {
      cat = { category: b.category, scenarios: [] };
      categories.push(cat);
    }
    cat.scenarios.push(b.scenario);
  }
  return { categories };
}

/** Options of `scenariosOffline`. */
export interface ScenariosOfflineOptions {
  seed: number;
  tier: Tier;
  count: number;
  /** Tools to target first (e.g. the ones still uncovered); default: all tools count as uncovered. */
  focus?: readonly string[];
}

/**
 * Stage 2 offline, mixable with LLM stages: `count` scenarios of a tier, as the LLM stage
 * returns them. Interpretations are accepted for signature parity; the offline planner reads
 * the spec directly. Tools without valid arguments are left out (see `callability`).
 */
export function scenariosOffline(spec: Spec, interpretations: readonly ToolInterpretation[], options: ScenariosOfflineOptions): ScenarioBatch {
  void interpretations;
  const analysis = analysisOf(spec);
  const { callable } = callability(spec, options.seed);
  const focus = options.focus ? new Set(options.focus) : undefined;
  const covered = new Set(focus ? callable.filter((t) => !focus.has(t.name)).map((t) => t.name) : []);
  const plans = planTier(analysis, callable, options.tier, options.count, options.seed, covered);
  return toBatch(plans.flatMap((p) => buildScenario(analysis, p, options.seed) ?? []));
}
