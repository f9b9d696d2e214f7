/**
 * Harnesses (one per server) and judge ids → the report model: the paper's Section 5 tables,
 * Appendix A/B analyses and the data of the Appendix G figures, for the user's own spec. Pure
 * and deterministic: bootstrap intervals are seeded per label (judge, server, statistic), so the
 * same input gives byte-identical JSON and adding a server does not move another server's CI.
 */
import { analyzeSpec, type ServerProfile } from '../complexity';
import type { HarnessManifest, HarnessRecord } from '../harness/format';
import { describeOfflineTemplates } from '../harness/offlineStages';
import type { AgentRuns } from '../agents/readRuns';
import { specHash } from '../harness/hash';
import type { Spec } from '../spec/model';
import { leaderboardOf } from './leaderboard';
import { costRowsOf } from './cost';
import { exactArgumentsOf, modelJudgeHint } from './exactArguments';
import { agreementOf } from './agreement';
import { worstScenariosOf } from './worst';
import { multiTurnRate, PAPER_EXPANSION_RATE } from './multiTurnRate';
import { isExactOnly } from './exactScope';
import { finite, summarize, type Bootstrap } from './common';
import { mean } from '../util/mean';
import { issueGroupOf, judgeIdsOf, rowsOfRecord, type DimensionScores, type JudgedRow, type JudgmentView } from './judgments';
import {
  AGGREGATIONS,
  ARGUMENT_SUBDIMENSIONS,
  REPORT_ASPECT_ORDER,
  TC_DIMENSIONS,
  type AggregationRule,
  type ArgumentSubdimension,
  type CohAspect,
  type TcDimension,
} from '../vocabulary';
import {
  REPORT_VERSION,
  type ArgumentFailures,
  type CorrelationRow,
  type CorrelationStat,
  type DimensionStats,
  type GraphEdge,
  type JudgeReport,
  type ReportModel,
  type ReportScenario,
  type ServerReport,
  type ServerStructure,
  type ToolScore,
} from './schema';
import { DEFAULT_RESAMPLES, gini, harmonicMean, minimum, pearson, sd, spearman, type Correlation } from './stats';
import { byCodeUnit } from '../util/byCodeUnit';
import { recordSnapshot } from './compare';

/** One harness to report on. */
export interface HarnessInput {
  /** Folder the harness was read from (shown as its source). */
  dir?: string;
  manifest?: HarnessManifest;
  records: readonly HarnessRecord[];
  /** The spec the harness was generated from, for the complexity profile and tool-level correlations. */
  spec?: Spec;
  /** Agents' runs against the harness (`readRuns`), for the leaderboard. */
  runs?: readonly AgentRuns[];
}

/** Options of {@link analyzeHarnesses}. */
export interface ReportOptions {
  /** Judges to report, first = primary. Default: every judge found, most records first. */
  judges?: readonly string[];
  /** Bootstrap resamples per interval (default 10,000). */
  resamples?: number;
  /** Base seed of the bootstrap (default 1). */
  seed?: number;
  /** Confidence level (default 0.95). */
  level?: number;
  /** Extra warnings to carry into the report (e.g. files the reader skipped). */
  warnings?: readonly string[];
  /**
   * Per input, its harness folder as seen from the folder the report is written to (`/`
   * separators; `.` when it is written there): the worst scenarios link their record files
   * through it. Without it they link `records/…`, which resolves only from the harness folder.
   */
  harnessLinks?: readonly string[];
}

/** A requested judge id that no record has. */
export class UnknownJudgeError extends Error {
  override readonly name = 'UnknownJudgeError';
  constructor(
    readonly unknown: readonly string[],
    readonly available: readonly string[],
  ) {
    super(
      `unknown judge ${unknown.map((j) => JSON.stringify(j)).join(', ')}; available: ${available.length ? available.join(', ') : '(no judgments in these harnesses)'}`,
    );
  }
}

/** Every judge id in the harnesses, most records first. */
export function availableJudges(inputs: readonly HarnessInput[]): string[] {
  return judgeIdsOf(inputs.flatMap((i) => i.records));
}

const corr = (c: Correlation): CorrelationStat => ({ r: finite(c.r), p: finite(c.p), n: c.n });
const EPS = 1e-9;
const present = (xs: readonly (number | null)[]): number[] => xs.filter((x): x is number => x !== null);

function histogram(scores: readonly number[]): number[] {
  const bins = new Array<number>(10).fill(0);
  for (const s of scores) {
    // +EPS: 0.7·10 must land in bin 7 even when it computes as 6.999…
    const b = Math.min(9, Math.max(0, Math.floor(s * 10 + EPS)));
    bins[b] = (bins[b] ?? 0) + 1;
  }
  return bins;
}

function dimensionStats(scores: readonly number[]): DimensionStats {
  const n = scores.length;
  const perfect = scores.filter((s) => s >= 1 - EPS).length;
  const zero = scores.filter((s) => s <= EPS).length;
  return {
    n,
    mean: finite(mean(scores)),
    perfect: n ? perfect / n : null,
    partial: n ? (n - perfect - zero) / n : null,
    zero: n ? zero / n : null,
  };
}

const zeroCounts = (): Record<ArgumentSubdimension, number> =>
  Object.fromEntries(ARGUMENT_SUBDIMENSIONS.map((k) => [k, 0])) as Record<ArgumentSubdimension, number>;

function argumentFailures(views: readonly JudgmentView[]): ArgumentFailures {
  const lowest = zeroCounts();
  const anyBelowOne = zeroCounts();
  const values = new Map<ArgumentSubdimension, number[]>(ARGUMENT_SUBDIMENSIONS.map((k) => [k, []]));
  let n = 0;
  let failing = 0;
  for (const v of views) {
    const scored = ARGUMENT_SUBDIMENSIONS.filter((k) => v.args[k] !== null);
    if (!scored.length) continue;
    n++;
    let low: ArgumentSubdimension | undefined;
    for (const k of scored) {
      const s = v.args[k] as number;
      values.get(k)?.push(s);
      if (s < 1 - EPS) {
        anyBelowOne[k]++;
        // Strictly lower only: ties stay with the earlier (cascade-root) sub-dimension.
        if (low === undefined || s < (v.args[low] as number) - EPS) low = k;
      }
    }
    if (low !== undefined) {
      failing++;
      lowest[low]++;
    }
  }
  const means = Object.fromEntries(ARGUMENT_SUBDIMENSIONS.map((k) => [k, finite(mean(values.get(k) ?? []))])) as ArgumentFailures['means'];
  return { n, failing, lowest, anyBelowOne, means };
}

/** One turn's TC under an aggregation rule, over the dimensions it has (ordering drops out when N/A). */
function aggregateTurn(d: DimensionScores, rule: AggregationRule): number {
  const xs = present(TC_DIMENSIONS.map((k) => d[k]));
  return rule === 'arithmetic' ? (mean(xs) ?? NaN) : rule === 'harmonic' ? harmonicMean(xs) : minimum(xs);
}

/** A record's TC under a rule: per turn, then the arithmetic mean over turns (as the judge aggregates). */
function aggregateRecord(v: JudgmentView, rule: AggregationRule): number | null {
  return finite(mean(v.turns.map((t) => aggregateTurn(t, rule)).filter(Number.isFinite)));
}

/** What the analysis knows about one server, independent of judges. */
interface ServerInput {
  name: string;
  source: string | null;
  records: readonly HarnessRecord[];
  /** Tool names of the spec; null when unknown. */
  toolNames: string[] | null;
  profile: ServerProfile | null;
  /** The run's own counts of records and multi-turn records, when its manifest has them. */
  runCounts: { records: number; multiTurn: number } | null;
}

export { PAPER_EXPANSION_RATE } from './multiTurnRate';

/**
 * Every scenario under the primary judge, as a later report's `--previous` compares them
 * (`compare.ts`); over several servers an id is prefixed with its server, so two harnesses'
 * records of one id stay apart.
 */
function reportScenarios(inputs: readonly HarnessInput[], servers: readonly ServerInput[], judge: string | null): ReportScenario[] {
  const many = servers.length > 1;
  return inputs.flatMap((input, i) => {
    const server = servers[i]?.name ?? '';
    return input.records.map((r) => {
      // The verdict from the record's stored checks, not recomputed against the spec (as diff does):
      // that was most of the analysis time (1–3 ms a record on a 200-record harness), and a report is of
      // the harness as judged.
      const s = recordSnapshot(r, undefined, judge);
      return { server, ...s, id: many ? `${server}/${s.id}` : s.id };
    });
  });
}

/** The paper's mock outputs by grounding tier (Appendix A.4, the section of Table 9): all 871 low. */
export const PAPER_MOCK_GROUNDING = { outputs: 871, high: 0, medium: 0, low: 871 } as const;

/** A manifest's record and multi-turn counts, read defensively (older or hand-made manifests may lack them). */
function runCountsOf(manifest: HarnessManifest | undefined): ServerInput['runCounts'] {
  const counts = manifest?.counts as { records?: unknown; multiTurn?: unknown } | undefined;
  const ok = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0;
  return counts && ok(counts.records) && ok(counts.multiTurn) && counts.multiTurn <= counts.records
    ? { records: counts.records, multiTurn: counts.multiTurn }
    : null;
}

function serverReport(name: string, rows: readonly JudgedRow[], toolNames: readonly string[] | null, boot: Bootstrap, label: string): ServerReport {
  const views = rows.map((r) => r.view).filter((v): v is JudgmentView => v !== undefined);
  // What a harness is made of (workflow lengths, tool usage, categories) counts each record once: its single-turn row.
  const scenarios = rows.filter((r) => r.kind === 'single-turn');
  const tcOf = (rs: readonly JudgedRow[]) => present(rs.map((r) => r.view?.tc ?? null));
  const cohOf = (rs: readonly JudgedRow[]) => present(rs.map((r) => r.view?.coh ?? null));
  const tierRows = (tier: 'simple' | 'complex') => rows.filter((r) => r.record.tier === tier);
  const tier = (t: 'simple' | 'complex') => {
    const rs = tierRows(t);
    return { records: rs.length, tc: summarize(tcOf(rs), boot, `${label}|${t}|tc`), coh: summarize(cohOf(rs), boot, `${label}|${t}|coh`) };
  };
  const simple = tier('simple');
  const complex = tier('complex');
  const delta = (a: number | null, b: number | null) => (a === null || b === null ? null : b - a);

  const lengths = scenarios.map((r) => r.record.expected_tools.length);
  const inSpec = toolNames ? new Set(toolNames) : null;
  const calls = new Map<string, number>();
  let unknownToolCalls = 0;
  for (const r of scenarios) {
    for (const c of r.record.expected_tools) {
      const key = `${r.server}\u241f${c.name}`;
      if (inSpec && !inSpec.has(key)) {
        unknownToolCalls++;
        continue;
      }
      calls.set(key, (calls.get(key) ?? 0) + 1);
    }
  }

  const dim = (k: TcDimension) => dimensionStats(present(views.map((v) => v.dims[k])));
  const aspects = Object.fromEntries(
    REPORT_ASPECT_ORDER.map((a: CohAspect) => {
      const xs = present(views.map((v) => v.aspects[a]));
      return [a, { n: xs.length, mean: finite(mean(xs)), sd: finite(sd(xs)) }];
    }),
  ) as ServerReport['coherenceAspects'];

  const issueRecords = new Map<string, number>();
  const issueMentions = new Map<string, number>();
  for (const v of views) {
    const groups = v.issues.map(issueGroupOf);
    for (const g of groups) issueMentions.set(g, (issueMentions.get(g) ?? 0) + 1);
    for (const g of new Set(groups)) issueRecords.set(g, (issueRecords.get(g) ?? 0) + 1);
  }
  const coherenceIssues = [...issueRecords]
    .map(([group, records]) => ({ group, records, mentions: issueMentions.get(group) ?? 0 }))
    .sort((a, b) => b.records - a.records || b.mentions - a.mentions || (a.group < b.group ? -1 : 1));

  const agg = Object.fromEntries(AGGREGATIONS.map((rule) => [rule, present(views.map((v) => aggregateRecord(v, rule)))])) as Record<AggregationRule, number[]>;
  const paired = views.filter((v) => v.tc !== null && v.coh !== null);

  return {
    name,
    n: rows.length,
    records: scenarios.length,
    judged:
      views.length -
      rows.filter((r) => r.view && (r.notJudged?.tc || r.notJudged?.coh || (r.view.tc === null && r.view.coh === null && r.view.exact === null))).length,
    notJudged: { tc: rows.filter((r) => r.notJudged?.tc).length, coh: rows.filter((r) => r.notJudged?.coh).length },
    tc: summarize(tcOf(rows), boot, `${label}|tc`),
    coh: summarize(cohOf(rows), boot, `${label}|coh`),
    exact: summarize(present(rows.map((r) => r.view?.exact ?? null)), boot, `${label}|exact`),
    simpleTc: simple.tc.mean,
    complexTc: complex.tc.mean,
    tcDelta: delta(simple.tc.mean, complex.tc.mean),
    cohDelta: delta(simple.coh.mean, complex.coh.mean),
    tiers: { simple, complex },
    meanWorkflowLength: finite(mean(lengths)),
    maxWorkflowLength: lengths.length ? Math.max(...lengths) : 0,
    multiTurn: rows.filter((r) => r.kind === 'conversation').length,
    coverage: inSpec ? (inSpec.size ? calls.size / inSpec.size : 1) : null,
    toolsInSpec: inSpec ? inSpec.size : null,
    toolsUsed: calls.size,
    gini: finite(gini([...calls.values()])),
    unknownToolCalls,
    categories: new Set(scenarios.map((r) => `${r.server}\u241f${r.record.category}`)).size,
    histograms: { tc: histogram(tcOf(rows)), coh: histogram(cohOf(rows)) },
    dimensions: { usage: dim('usage'), selection: dim('selection'), ordering: dim('ordering'), arguments: dim('arguments') },
    argumentFailures: argumentFailures(views),
    exactArguments: exactArgumentsOf(rows),
    coherenceAspects: aspects,
    coherenceIssues,
    aggregation: {
      n: agg.arithmetic.length,
      arithmetic: finite(mean(agg.arithmetic)),
      harmonic: finite(mean(agg.harmonic)),
      minimum: finite(mean(agg.minimum)),
    },
    tcCoh: corr(
      pearson(
        paired.map((v) => v.tc as number),
        paired.map((v) => v.coh as number),
      ),
    ),
  };
}

function structureOf(s: ServerInput): ServerStructure {
  const lengthCounts = new Map<number, number>();
  const calls = new Map<string, number>();
  const recordsPerTool = new Map<string, number>();
  const categories = new Map<string, { simple: number; complex: number }>();
  const co = new Map<string, number>();
  const adj = new Map<string, number>();
  let multiToolRecords = 0;
  const SEP = '\u241f';
  for (const r of s.records) {
    const names = r.expected_tools.map((c) => c.name);
    lengthCounts.set(names.length, (lengthCounts.get(names.length) ?? 0) + 1);
    for (const n of names) calls.set(n, (calls.get(n) ?? 0) + 1);
    const distinct = [...new Set(names)].sort();
    for (const n of distinct) recordsPerTool.set(n, (recordsPerTool.get(n) ?? 0) + 1);
    if (distinct.length >= 2) multiToolRecords++;
    for (let i = 0; i < distinct.length; i++) {
      for (let j = i + 1; j < distinct.length; j++) {
        const key = `${distinct[i]}${SEP}${distinct[j]}`;
        co.set(key, (co.get(key) ?? 0) + 1);
      }
    }
    for (let i = 0; i + 1 < names.length; i++) {
      const key = `${names[i]}${SEP}${names[i + 1]}`;
      adj.set(key, (adj.get(key) ?? 0) + 1);
    }
    const c = categories.get(r.category) ?? { simple: 0, complex: 0 };
    c[r.tier]++;
    categories.set(r.category, c);
  }
  const edges = (m: Map<string, number>): GraphEdge[] =>
    [...m]
      .map(([k, weight]) => {
        const [source = '', target = ''] = k.split(SEP);
        return { source, target, weight };
      })
      .sort((a, b) => b.weight - a.weight || byCodeUnit(a.source, b.source) || byCodeUnit(a.target, b.target));
  const inSpec = new Set(s.toolNames ?? []);
  const toolUsage = [...new Set([...calls.keys(), ...inSpec])]
    .map((tool) => ({ tool, calls: calls.get(tool) ?? 0, records: recordsPerTool.get(tool) ?? 0, inSpec: s.toolNames ? inSpec.has(tool) : true }))
    .sort((a, b) => b.calls - a.calls || byCodeUnit(a.tool, b.tool));
  return {
    name: s.name,
    source: s.source,
    profile: s.profile
      ? {
          tools: s.profile.tools,
          meanParams: s.profile.meanParams,
          maxParams: s.profile.maxParams,
          optionalRatio: s.profile.optionalRatio,
          maxDepth: s.profile.maxDepth,
        }
      : null,
    workflowLengths: [...lengthCounts].sort((a, b) => a[0] - b[0]).map(([length, records]) => ({ length, records })),
    toolUsage,
    categories: [...categories]
      .map(([category, c]) => ({ category, ...c }))
      .sort((a, b) => b.simple + b.complex - (a.simple + a.complex) || byCodeUnit(a.category, b.category)),
    cooccurrence: edges(co),
    multiToolRecords,
    adjacency: edges(adj),
    expansion: expansionOf(s),
    mockGrounding: mockGroundingOf(s.records),
  };
}

/** Mock outputs by the grounding tier their record stores (Table 9); one count per expected call of each scenario. */
function mockGroundingOf(records: readonly HarnessRecord[]): ServerStructure['mockGrounding'] {
  const out = { outputs: 0, high: 0, medium: 0, low: 0, outputSchema: 0, paper: { ...PAPER_MOCK_GROUNDING } };
  for (const r of records) {
    for (const m of r.mock_outputs) {
      out.outputs++;
      // The reader validates records; a hand-built one without a known tier counts as an output only.
      if (m.grounding === 'high' || m.grounding === 'medium' || m.grounding === 'low') out[m.grounding]++;
      if (m.outputSchema) out.outputSchema++;
    }
  }
  return out;
}

function expansionOf(s: ServerInput): ServerStructure['expansion'] {
  const counted = s.runCounts;
  const records = counted ? counted.records : s.records.length;
  const multiTurn = counted ? counted.multiTurn : s.records.filter((r) => r.conversation.length >= 2).length;
  return { multiTurn, records, rate: multiTurnRate(multiTurn, records), paperRate: PAPER_EXPANSION_RATE, source: counted ? 'manifest' : 'records' };
}

function toolScores(servers: readonly ServerInput[], rowsByServer: readonly (readonly JudgedRow[])[]): ToolScore[] {
  const out: ToolScore[] = [];
  servers.forEach((s, i) => {
    const rows = rowsByServer[i] ?? [];
    const metrics = new Map((s.profile?.perTool ?? []).map((m) => [m.name, m] as const));
    const inSpec = s.toolNames ? new Set(s.toolNames) : null;
    const byTool = new Map<string, JudgedRow[]>();
    for (const r of rows) {
      for (const name of new Set(r.record.expected_tools.map((c) => c.name))) {
        // Tool-level analysis is over in-spec tools (Section 5.2): hallucinated names have no schema.
        if (inSpec && !inSpec.has(name)) continue;
        const list = byTool.get(name) ?? [];
        list.push(r);
        byTool.set(name, list);
      }
    }
    for (const [tool, rs] of byTool) {
      const m = metrics.get(tool);
      out.push({
        server: s.name,
        tool,
        params: m ? m.params : null,
        optionalRatio: m ? m.optionalRatio : null,
        records: rs.length,
        meanTc: finite(mean(present(rs.map((r) => r.view?.tc ?? null)))),
        meanCoh: finite(mean(present(rs.map((r) => r.view?.coh ?? null)))),
      });
    }
  });
  // Lowest TC first (the paper's "bottom tools"); unscored tools last.
  return out.sort((a, b) => (a.meanTc ?? Infinity) - (b.meanTc ?? Infinity) || byCodeUnit(a.server, b.server) || byCodeUnit(a.tool, b.tool));
}

function correlationRows(
  servers: readonly ServerInput[],
  reports: readonly ServerReport[],
  tools: readonly ToolScore[],
  corpus: ServerReport,
): CorrelationRow[] {
  const rows: CorrelationRow[] = [];
  const add = (
    grain: CorrelationRow['grain'],
    x: string,
    y: string,
    xs: (number | null)[],
    ys: (number | null)[],
    method: 'pearson' | 'spearman' = 'pearson',
  ) => {
    const keep = xs.map((v, i) => (v !== null && ys[i] !== null && ys[i] !== undefined ? i : -1)).filter((i) => i >= 0);
    const c = (method === 'pearson' ? pearson : spearman)(
      keep.map((i) => xs[i] as number),
      keep.map((i) => ys[i] as number),
    );
    rows.push({ grain, x, y, method, r: finite(c.r), p: finite(c.p), n: c.n });
  };
  rows.push({ grain: 'record', x: 'tc', y: 'coh', method: 'pearson', ...corpus.tcCoh });
  const tp = tools.map((t) => t.params);
  const to = tools.map((t) => t.optionalRatio);
  const tTc = tools.map((t) => t.meanTc);
  const tCoh = tools.map((t) => t.meanCoh);
  add('tool', 'params', 'tc', tp, tTc);
  add('tool', 'optionalRatio', 'tc', to, tTc);
  add('tool', 'params', 'coh', tp, tCoh);
  add('tool', 'optionalRatio', 'coh', to, tCoh);
  add('tool', 'tc', 'coh', tTc, tCoh);
  const sp = servers.map((s) => s.profile?.meanParams ?? null);
  const so = servers.map((s) => s.profile?.optionalRatio ?? null);
  const st = servers.map((s) => s.profile?.tools ?? s.toolNames?.length ?? null);
  const sTc = reports.map((r) => r.tc.mean);
  add('server', 'params', 'tc', sp, sTc);
  add('server', 'optionalRatio', 'tc', so, sTc);
  add('server', 'tools', 'tc', st, sTc);
  add(
    'server',
    'tc',
    'coh',
    sTc,
    reports.map((r) => r.coh.mean),
  );
  // Appendix B: the schema correlation under the other aggregation rules and per dimension.
  add(
    'server',
    'params',
    'tcHarmonic',
    sp,
    reports.map((r) => r.aggregation.harmonic),
  );
  add(
    'server',
    'params',
    'tcMinimum',
    sp,
    reports.map((r) => r.aggregation.minimum),
  );
  for (const d of TC_DIMENSIONS)
    add(
      'server',
      'params',
      d,
      sp,
      reports.map((r) => r.dimensions[d].mean),
    );
  return rows;
}

function aggregationRanks(reports: readonly ServerReport[], views: readonly JudgmentView[]): JudgeReport['aggregationRanks'] {
  const out: JudgeReport['aggregationRanks'] = [];
  const pairs: [AggregationRule, AggregationRule][] = [
    ['arithmetic', 'harmonic'],
    ['arithmetic', 'minimum'],
    ['harmonic', 'minimum'],
  ];
  for (const [a, b] of pairs) {
    const keep = reports.filter((r) => r.aggregation[a] !== null && r.aggregation[b] !== null);
    const c = spearman(
      keep.map((r) => r.aggregation[a] as number),
      keep.map((r) => r.aggregation[b] as number),
    );
    out.push({ grain: 'server', a, b, rho: finite(c.r), p: finite(c.p), n: c.n });
  }
  for (const [a, b] of pairs) {
    const xs: number[] = [];
    const ys: number[] = [];
    for (const v of views) {
      const x = aggregateRecord(v, a);
      const y = aggregateRecord(v, b);
      if (x !== null && y !== null) {
        xs.push(x);
        ys.push(y);
      }
    }
    const c = spearman(xs, ys);
    out.push({ grain: 'record', a, b, rho: finite(c.r), p: finite(c.p), n: c.n });
  }
  return out;
}

/**
 * The rows of every server under one judge: each record's single-turn task, plus its conversation
 * when it has one (the paper's records). Which rows exist depends on the records only, so judges
 * pair row by row; a view without that judge's verdict has no `view`.
 */
function rowsFor(servers: readonly ServerInput[], judge: string | null): JudgedRow[][] {
  return servers.map((s) => s.records.flatMap((record) => rowsOfRecord(s.name, record, judge === null ? undefined : record.judgments?.[judge])));
}

/** Name-spaced tool names (`server␟tool`), so pooled coverage and Gini keep servers apart. */
const spaced = (s: ServerInput): string[] | null => (s.toolNames ? s.toolNames.map((t) => `${s.name}\u241f${t}`) : null);

function judgeReport(servers: readonly ServerInput[], judge: string | null, boot: Bootstrap): { report: JudgeReport; rows: JudgedRow[][] } {
  const rows = rowsFor(servers, judge);
  const label = judge ?? '';
  const reports = servers.map((s, i) => serverReport(s.name, rows[i] ?? [], spaced(s), boot, `${label}|server|${s.name}`));
  const all = rows.flat();
  const pooledTools = servers.every((s) => s.toolNames) ? servers.flatMap((s) => spaced(s) ?? []) : null;
  const corpus = serverReport('All servers', all, pooledTools, boot, `${label}|corpus`);
  const tools = toolScores(servers, rows);
  const views = all.map((r) => r.view).filter((v): v is JudgmentView => v !== undefined);
  return {
    report: {
      judge,
      servers: reports,
      corpus,
      tools,
      correlations: correlationRows(servers, reports, tools, corpus),
      aggregationRanks: aggregationRanks(reports, views),
    },
    rows,
  };
}

/** Server rows from the inputs: names made unique, specs analysed. */
function serverInputs(inputs: readonly HarnessInput[]): ServerInput[] {
  const used = new Map<string, number>();
  return inputs.map((input, i) => {
    const base =
      input.manifest?.spec.name || input.spec?.name || (input.dir ? input.dir.split(/[\\/]/).filter(Boolean).pop() : undefined) || `harness ${i + 1}`;
    const k = (used.get(base) ?? 0) + 1;
    used.set(base, k);
    const name = k === 1 ? base : `${base} (${k})`;
    const toolNames = input.manifest ? Object.keys(input.manifest.spec.toolHashes) : input.spec ? [...new Set(input.spec.tools.map((t) => t.name))] : null;
    return {
      name,
      source: input.dir ?? null,
      records: input.records,
      toolNames,
      profile: input.spec ? analyzeSpec(input.spec) : null,
      runCounts: runCountsOf(input.manifest),
    };
  });
}

/** Judges that scored TC or coherence on some record of the harnesses. */
function modelJudgesIn(inputs: readonly HarnessInput[]): string[] {
  const ids = new Set<string>();
  for (const input of inputs) {
    for (const r of input.records) {
      for (const [id, j] of Object.entries(r.judgments ?? {})) if (typeof j.tc === 'number' || typeof j.coh === 'number') ids.add(id);
    }
  }
  return [...ids].sort(byCodeUnit);
}

/** How the warnings about unscored records begin (the CLI repeats them on stderr). */
export const UNSCORED_WARNING = 'Unscored: ';

/**
 * The warning of a server whose rows are not all scored: "n scored of N" per score, counted from
 * the stored judgments, and how many of the rest the judge failed on (a re-run of `judge` tries
 * those again).
 */
function unscoredWarnings(s: ServerReport, judge: string): string[] {
  const out: string[] = [];
  for (const [what, n, failed] of [
    ['tool calling', s.tc.n, s.notJudged.tc],
    ['coherence', s.coh.n, s.notJudged.coh],
  ] as const) {
    if (n >= s.n) continue;
    const why = failed ? ` (${failed} not judged: the judge failed on them; re-run agent-seer judge to try again)` : '';
    out.push(`${UNSCORED_WARNING}${what} scored on ${n} of ${s.n} records of ${s.name} by judge ${judge}${why}.`);
  }
  return out;
}

/**
 * The report model for one or more harnesses (one server row each). Throws
 * {@link UnknownJudgeError} when a requested judge id appears in no record.
 */
export function analyzeHarnesses(inputs: readonly HarnessInput[], options: ReportOptions = {}): ReportModel {
  const boot: Bootstrap = {
    resamples: Math.max(1, Math.trunc(options.resamples ?? DEFAULT_RESAMPLES)),
    seed: Math.trunc(options.seed ?? 1),
    level: options.level ?? 0.95,
  };
  const available = availableJudges(inputs);
  const requested = options.judges?.length ? [...new Set(options.judges)] : available;
  const unknown = requested.filter((j) => !available.includes(j));
  if (unknown.length) throw new UnknownJudgeError(unknown, available);

  const servers = serverInputs(inputs);
  const judges: (string | null)[] = requested.length ? requested : [null];
  const perJudge = judges.map((j) => judgeReport(servers, j, boot));

  const warnings = [...(options.warnings ?? [])];
  if (!available.length) warnings.push('No record has a judgment yet: scores are empty; structure, coverage and graphs are shown.');
  // Advice to run a model judge only when none has scored these records: not for a judge that already ran.
  const modelJudged = perJudge.some((p) => p.report.corpus.tc.n > 0 || p.report.corpus.coh.n > 0);
  const unreported = modelJudged ? [] : modelJudgesIn(inputs).filter((j) => !requested.includes(j));
  for (const { report } of perJudge) {
    if (report.judge === null) continue;
    const exactOnly = isExactOnly(report.corpus);
    if (exactOnly && !modelJudged) {
      const hint = unreported.length
        ? `Judge ${report.judge} scores exact argument checks only (labelled exact, not TC). TC and coherence by ${unreported.join(', ')} are in these records: report with --judge ${unreported[0]}.`
        : modelJudgeHint(report.judge, report.corpus);
      if (hint) warnings.push(hint);
    }
    for (const s of report.servers) {
      // A judge that gives exact scores only (the offline judge) was never asked for TC or
      // coherence; "unscored" is for records a judge failed on.
      if (exactOnly && s.notJudged.tc === 0 && s.notJudged.coh === 0) continue;
      warnings.push(...unscoredWarnings(s, report.judge));
    }
  }
  for (const s of servers) {
    const offline = describeOfflineTemplates(s.records, s.name);
    if (offline) warnings.push(offline);
    if (!s.profile) warnings.push(`No spec for ${s.name}: the complexity profile and tool-level correlations leave it out.`);
    if (!s.toolNames) warnings.push(`No manifest for ${s.name}: tool coverage is unknown.`);
  }

  const agreement = [];
  for (let a = 0; a < perJudge.length; a++) {
    for (let b = a + 1; b < perJudge.length; b++) {
      const A = perJudge[a];
      const B = perJudge[b];
      if (!A || !B || A.report.judge === null || B.report.judge === null) continue;
      // Agreement needs scores of both: an exact-only judge (offline) pairs with nothing.
      if (isExactOnly(A.report.corpus) || isExactOnly(B.report.corpus)) continue;
      const pair = agreementOf(
        { judge: A.report.judge, rows: A.rows, corpus: A.report.corpus },
        { judge: B.report.judge, rows: B.rows, corpus: B.report.corpus },
        servers.map((s) => s.name),
        boot,
      );
      if (pair.tc.n > 0 || pair.coh.n > 0) agreement.push(pair);
    }
  }

  const board = leaderboardOf(
    inputs.map((input, i) => ({
      name: servers[i]?.name ?? '',
      records: input.records,
      spec: input.spec,
      specHash: input.manifest?.spec.hash ?? (input.spec ? specHash(input.spec) : undefined),
      runs: input.runs ?? [],
    })),
    boot,
  );
  warnings.push(...board.warnings);

  return {
    reportVersion: REPORT_VERSION,
    settings: { resamples: boot.resamples, seed: boot.seed, level: boot.level },
    judgesAvailable: available,
    judges: perJudge.map((p) => p.report),
    worst: worstScenariosOf(perJudge[0]?.report.judge ?? null, perJudge[0]?.rows ?? [], options.harnessLinks),
    structure: servers.map(structureOf),
    agreement,
    leaderboard: board.rows,
    specChanges: inputs.flatMap((input, i) => (input.manifest?.drift ? [{ server: servers[i]?.name ?? '', ...input.manifest.drift }] : [])),
    cost: inputs.flatMap((input, i) => costRowsOf(servers[i]?.name ?? '', input.manifest, input.records)),
    scenarios: reportScenarios(inputs, servers, perJudge[0]?.report.judge ?? null),
    warnings,
  };
}
