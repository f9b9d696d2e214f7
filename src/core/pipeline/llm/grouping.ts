/**
 * Splitting a large tool set into groups of related tools, so that every scenario prompt stays
 * within a token budget and lists few enough tools for the model to cover them all (the paper's
 * coverage fell to 56% at 64 tools in one prompt).
 *
 * Relatedness is a cosine similarity over weighted features, IDF-scaled so that what every tool
 * shares (a server prefix, a `limit` parameter) counts for little:
 * - the resource nouns of the name (`create_pull_request` → pull, request), the head noun most;
 * - the other name words (the verb excluded) — `hset`/`hget` share nothing here, but…;
 * - parameter names (the Redis hash tools all take `name` and `key`);
 * - content words of the description's first sentence ("hash", "stream").
 *
 * Groups grow greedily from the first unassigned tool (spec order), adding the tool most
 * similar to the group so far, until the balanced size or the budget is reached. Deterministic.
 */
import type { Spec, Tool } from '../../spec/model';
import { nameWords, singular } from '../../checks/integrity';
import { analysisOf } from '../offline/scenarios';
import { fullSummaryBound, toolParams } from './summaries';

/** One group of related tools. */
export interface ToolGroup {
  /** 0-based position among the groups. */
  index: number;
  tools: Tool[];
  /** The most common resource nouns of its tools (`call, recording`), for prompts and logs. */
  label: string;
  /** Upper bound of the tokens of its tools' full summaries. */
  tokens: number;
}

/** Limits that shape the groups. */
export interface GroupingOptions {
  /** Most tokens (≈ chars / 4) a whole scenario prompt may take. */
  promptTokenBudget: number;
  /** Most tools per group. */
  maxGroupTools: number;
  /** Tokens of the prompt around the tool list (template, instructions). */
  overheadTokens: number;
}

/** Defaults of {@link GroupingOptions}: about 8k tokens per prompt, at most 16 tools. */
export const DEFAULT_GROUPING = { promptTokenBudget: 8000, maxGroupTools: 16 } as const;

const STOP = new Set(
  'a an and are as at be by for from get gets given in into is it its of on or set sets that the this to use used uses using with without will can all any one new list lists returns return value values specified specific id ids name names'.split(
    ' ',
  ),
);

type Features = Map<string, number>;

function add(f: Features, key: string, w: number): void {
  if (key) f.set(key, (f.get(key) ?? 0) + w);
}

/** Raw features of one tool (before IDF). */
function featuresOf(tool: Tool, spec: Spec): Features {
  const f: Features = new Map();
  const info = analysisOf(spec).byName.get(tool.name);
  const entity = info?.entity ?? [];
  for (const w of entity) add(f, `n:${w}`, 3);
  if (info?.head) add(f, `n:${info.head}`, 2);
  const words = info?.words ?? nameWords(tool.name);
  for (const w of words) if (w !== info?.verb && !entity.includes(singular(w))) add(f, `w:${singular(w)}`, 1);
  for (const p of toolParams(tool)) add(f, `p:${p.name.toLowerCase().replace(/[^a-z0-9]/g, '')}`, 1);
  const sentence = (tool.description ?? '').split(/(?<=[.!?])\s/)[0] ?? '';
  for (const raw of sentence.toLowerCase().match(/[a-z][a-z0-9]{2,}/g) ?? []) {
    const w = singular(raw);
    if (!STOP.has(w)) add(f, `d:${w}`, 0.5);
  }
  return f;
}

/** Pairwise cosine similarities of the tools' IDF-weighted features. */
export function similarityMatrix(tools: readonly Tool[], spec: Spec): number[][] {
  const raw = tools.map((t) => featuresOf(t, spec));
  const df = new Map<string, number>();
  for (const f of raw) for (const k of f.keys()) df.set(k, (df.get(k) ?? 0) + 1);
  const n = tools.length;
  const vecs = raw.map((f) => {
    const v = new Map<string, number>();
    let norm = 0;
    for (const [k, w] of f) {
      const d = df.get(k) ?? 1;
      if (d === n && n > 1) continue; // shared by all: says nothing
      const x = w * Math.log(1 + n / d);
      v.set(k, x);
      norm += x * x;
    }
    return { v, norm: Math.sqrt(norm) };
  });
  const m: number[][] = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const a = vecs[i]!;
      const b = vecs[j]!;
      if (!a.norm || !b.norm) continue;
      const [small, large] = a.v.size <= b.v.size ? [a.v, b.v] : [b.v, a.v];
      let dot = 0;
      for (const [k, x] of small) dot += x * (large.get(k) ?? 0);
      const s = dot / (a.norm * b.norm);
      m[i]![j] = s;
      m[j]![i] = s;
    }
  }
  return m;
}

function labelOf(tools: readonly Tool[], spec: Spec): string {
  const counts = new Map<string, number>();
  for (const t of tools) {
    const head = analysisOf(spec).byName.get(t.name)?.head;
    if (head) counts.set(head, (counts.get(head) ?? 0) + 1);
  }
  const top = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 3)
    .map(([k]) => k);
  return (
    top.join(', ') ||
    tools
      .slice(0, 2)
      .map((t) => t.name)
      .join(', ')
  );
}

/**
 * Groups `tools` (callable tools of `spec`, in spec order). One group when everything fits;
 * otherwise balanced groups of related tools, each within the budget. A tool too large for
 * the budget on its own gets a group of its own.
 */
export function groupTools(spec: Spec, tools: readonly Tool[], options: GroupingOptions): ToolGroup[] {
  const costs = tools.map(fullSummaryBound);
  const available = Math.max(1, options.promptTokenBudget - options.overheadTokens);
  const total = costs.reduce((a, b) => a + b, 0);
  if (tools.length === 0) return [];
  if (total <= available && tools.length <= options.maxGroupTools) {
    return [{ index: 0, tools: [...tools], label: labelOf(tools, spec), tokens: total }];
  }
  const sim = similarityMatrix(tools, spec);
  let groupsWanted = Math.max(Math.ceil(tools.length / options.maxGroupTools), Math.ceil(total / available));
  for (;;) {
    const targetSize = Math.max(1, Math.ceil(tools.length / groupsWanted));
    const groups = greedyGroups(spec, tools, sim, costs, available, targetSize);
    // A group cut short by the budget leaves a straggler; smaller groups pack evenly.
    const smallest = Math.min(...groups.map((g) => g.tools.length));
    if (smallest >= Math.max(2, Math.floor(targetSize / 2)) || groupsWanted >= tools.length || groups.length > groupsWanted + 1) return groups;
    groupsWanted++;
  }
}

function greedyGroups(spec: Spec, tools: readonly Tool[], sim: number[][], costs: readonly number[], available: number, targetSize: number): ToolGroup[] {
  const unassigned = new Set(tools.map((_, i) => i));
  const groups: ToolGroup[] = [];
  while (unassigned.size) {
    const seed = Math.min(...unassigned);
    unassigned.delete(seed);
    const members = [seed];
    let cost = costs[seed] ?? 0;
    // Running sums of similarity to the members, so each addition is linear in the candidates.
    const sum = new Map<number, number>();
    for (const u of unassigned) sum.set(u, sim[u]![seed] ?? 0);
    while (members.length < targetSize) {
      let best = -1;
      let bestScore = -1;
      for (const u of unassigned) {
        if (cost + (costs[u] ?? 0) > available) continue;
        const score = (sum.get(u) ?? 0) / members.length;
        if (score > bestScore || (score === bestScore && u < best)) {
          best = u;
          bestScore = score;
        }
      }
      if (best < 0) break;
      unassigned.delete(best);
      sum.delete(best);
      members.push(best);
      cost += costs[best] ?? 0;
      for (const u of unassigned) sum.set(u, (sum.get(u) ?? 0) + (sim[u]![best] ?? 0));
    }
    members.sort((a, b) => a - b);
    const groupTools = members.map((i) => tools[i]!);
    groups.push({ index: groups.length, tools: groupTools, label: labelOf(groupTools, spec), tokens: cost });
  }
  return groups;
}

/**
 * Splits `total` over weights by largest remainder (ties to the lower index), so the parts sum
 * to `total` exactly and equal inputs give equal outputs.
 */
export function apportion(total: number, weights: readonly number[]): number[] {
  const sumW = weights.reduce((a, b) => a + b, 0);
  if (total <= 0 || sumW <= 0) return weights.map(() => 0);
  const exact = weights.map((w) => (total * w) / sumW);
  const out = exact.map(Math.floor);
  let left = total - out.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    out[i] = (out[i] ?? 0) + 1;
    left--;
  }
  return out;
}

/**
 * Pairs of groups for cross-group scenarios, most related first (mean tool similarity), each
 * group used at most once until every group has been, then again. Deterministic.
 */
export function groupPairs(spec: Spec, groups: readonly ToolGroup[], count: number): [ToolGroup, ToolGroup][] {
  if (groups.length < 2 || count <= 0) return [];
  const all = groups.flatMap((g) => g.tools);
  const sim = similarityMatrix(all, spec);
  const offset: number[] = [];
  let at = 0;
  for (const g of groups) {
    offset.push(at);
    at += g.tools.length;
  }
  const affinity = (a: number, b: number): number => {
    const ga = groups[a]!;
    const gb = groups[b]!;
    let s = 0;
    for (let i = 0; i < ga.tools.length; i++) for (let j = 0; j < gb.tools.length; j++) s += sim[offset[a]! + i]![offset[b]! + j] ?? 0;
    return s / (ga.tools.length * gb.tools.length);
  };
  const candidates: { a: number; b: number; s: number }[] = [];
  for (let a = 0; a < groups.length; a++) for (let b = a + 1; b < groups.length; b++) candidates.push({ a, b, s: affinity(a, b) });
  candidates.sort((x, y) => y.s - x.s || x.a - y.a || x.b - y.b);
  const out: [ToolGroup, ToolGroup][] = [];
  const used = new Set<number>();
  const taken = new Set<string>();
  while (out.length < count && taken.size < candidates.length) {
    const fresh = candidates.find((c) => !taken.has(`${c.a}:${c.b}`) && !used.has(c.a) && !used.has(c.b));
    const pick = fresh ?? candidates.find((c) => !taken.has(`${c.a}:${c.b}`));
    if (!pick) break;
    if (!fresh) used.clear();
    taken.add(`${pick.a}:${pick.b}`);
    used.add(pick.a);
    used.add(pick.b);
    out.push([groups[pick.a]!, groups[pick.b]!]);
  }
  return out;
}
