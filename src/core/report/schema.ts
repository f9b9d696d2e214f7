/**
 * The report model: what `agent-seer report --format json` prints and what the Markdown and HTML
 * renderers read. A public contract (published as `schemas/report.schema.json`): fields are only
 * added, and a change of meaning bumps `reportVersion`.
 *
 * Conventions for every number:
 * - Scores (TC, Coh, dimensions) are in 0–1; shares and rates are in 0–1 (not percent).
 * - A statistic that is undefined for the data (the mean of no scores, the sd of one, a
 *   correlation of fewer than three pairs) is `null`, never `NaN` and never omitted.
 * - Intervals are 95% percentile-bootstrap CIs `[lo, hi]` (level and resamples in `settings`),
 *   seeded: the same harness and settings give byte-identical JSON.
 * - Numbers are unrounded; renderers round for display.
 */
import { z } from 'zod';
import { SpecDrift } from '../harness/format';
import { ScenarioDiff, ScenarioSnapshot } from './compare';
import { AGGREGATIONS, ARGUMENT_SUBDIMENSIONS, REPORT_ASPECT_ORDER, type ArgumentSubdimension, type CohAspect } from '../vocabulary';

/** Version of this report format. */
export const REPORT_VERSION = 2;

const Num = z.number().nullable();
const Count = z.number().int().nonnegative();
const Share = z.number().min(0).max(1).nullable();
const Ci = z.tuple([z.number(), z.number()]).nullable().describe('95% percentile-bootstrap interval [lo, hi]; null without data.');

/** Mean, interval and spread of a set of scores. */
export const ScoreSummary = z
  .object({
    n: Count.describe('Scores that exist (records with a null score are left out).'),
    mean: Num,
    ci: Ci,
    sd: Num.describe('Sample standard deviation (divisor n − 1); null below two scores.'),
    median: Num,
    perfect: Share.describe('Share of scores equal to 1.'),
    belowHalf: Share.describe("Share of scores below 0.5 (the paper's failure rate)."),
  })
  .meta({ id: 'ScoreSummary' });
export type ScoreSummary = z.infer<typeof ScoreSummary>;

/** Perfect / partial / zero rates and the mean of one TC dimension (Tables 4 and 11). */
export const DimensionStats = z
  .object({
    n: Count.describe('Records where the dimension was scored (ordering: multi-call records only).'),
    mean: Num,
    perfect: Share.describe('Share scoring exactly 1.'),
    partial: Share.describe('Share strictly between 0 and 1.'),
    zero: Share.describe('Share scoring exactly 0.'),
  })
  .meta({ id: 'DimensionStats' });
export type DimensionStats = z.infer<typeof DimensionStats>;

const SubdimCounts = z.object(Object.fromEntries(ARGUMENT_SUBDIMENSIONS.map((k) => [k, Count])) as Record<ArgumentSubdimension, typeof Count>);

/** Argument sub-dimension failures (Section 5.3 and Table 14). */
export const ArgumentFailures = z
  .object({
    n: Count.describe('Records with argument sub-dimension scores.'),
    failing: Count.describe('Records where at least one sub-dimension is below 1.'),
    lowest: SubdimCounts.describe(
      'Each failing record counted once, for its lowest sub-dimension (Section 5.3). Ties go to the cascade root: completeness, name, value, type, format, relevancy in that order, because a wrong name or value zeroes the sub-dimensions after it.',
    ),
    anyBelowOne: SubdimCounts.describe("Records with the sub-dimension below 1 (Table 14's looser count; a record may count several times)."),
    means: z
      .object(Object.fromEntries(ARGUMENT_SUBDIMENSIONS.map((k) => [k, Num])) as Record<ArgumentSubdimension, typeof Num>)
      .describe('Mean of each sub-dimension over the records that have it.'),
  })
  .meta({ id: 'ArgumentFailures' });
export type ArgumentFailures = z.infer<typeof ArgumentFailures>;

/** A correlation with its two-sided p-value. */
export const CorrelationStat = z
  .object({
    r: Num.describe('Coefficient; null when undefined (fewer than two pairs, or a constant side).'),
    p: Num.describe('Two-sided p-value (t test, n − 2 df); null below three pairs.'),
    n: Count,
  })
  .meta({ id: 'CorrelationStat' });
export type CorrelationStat = z.infer<typeof CorrelationStat>;

/** One row of the correlation table (Section 5.2, Table 15, Appendix B). */
export const CorrelationRow = z
  .object({
    grain: z.enum(['record', 'tool', 'server']).describe('Unit of analysis: per record, per tool (pooled over servers), or per server.'),
    x: z.string().describe('First variable (e.g. params, optionalRatio, tools, tc).'),
    y: z.string().describe('Second variable (e.g. tc, coh, tcHarmonic, tcMinimum).'),
    method: z.enum(['pearson', 'spearman']),
    r: Num,
    p: Num,
    n: Count,
  })
  .meta({ id: 'CorrelationRow' });
export type CorrelationRow = z.infer<typeof CorrelationRow>;

/** TC under the three aggregation rules across dimensions (Appendix B, Table 16). */
export const Aggregation = z
  .object({
    n: Count.describe('Records with dimension scores.'),
    arithmetic: Num.describe('Mean over records of the arithmetic mean of the dimensions (per turn, then over turns).'),
    harmonic: Num.describe('Same with the harmonic mean (0 when any dimension is 0).'),
    minimum: Num.describe('Same with the minimum across dimensions.'),
  })
  .meta({ id: 'Aggregation' });
export type Aggregation = z.infer<typeof Aggregation>;

/** Records whose coherence issues fall in one group of the paper\'s Table 10 taxonomy. */
export const CoherenceIssue = z
  .object({
    group: z.string().describe('Group label (Table 10).'),
    records: Count.describe('Records with at least one issue of the group.'),
    mentions: Count.describe('Issue mentions of the group (a record may have several).'),
  })
  .meta({ id: 'CoherenceIssue' });
export type CoherenceIssue = z.infer<typeof CoherenceIssue>;

/** Mean of a coherence aspect on the judge\'s raw 1–3 scale (Table 8). */
export const AspectStats = z.object({ n: Count, mean: Num.describe('Mean on the raw 1–3 scale.'), sd: Num }).meta({ id: 'AspectStats' });
export type AspectStats = z.infer<typeof AspectStats>;

/** Scores of one complexity tier. */
export const TierStats = z
  .object({
    records: Count.describe('Records of the tier.'),
    tc: ScoreSummary,
    coh: ScoreSummary,
  })
  .meta({ id: 'TierStats' });
export type TierStats = z.infer<typeof TierStats>;

/** Counts of a histogram over [0, 1] in ten equal bins; the last bin is closed ([0.9, 1.0]). */
const ScoreHistogram = z.array(Count).length(10).describe('Counts in ten equal bins over [0, 1]; the last bin is closed ([0.9, 1.0]).');

/** Where the argument values of the judged calls come from, summed over records (`checks/grounding.ts`). */
export const GroundingTally = z
  .object({
    values: Count.describe('String and number argument values of the judged calls.'),
    user: Count.describe("Values found in the user's words of their turn or an earlier one."),
    output: Count.describe("Values found in an earlier call's output (chained)."),
    schema: Count.describe("Values that are the parameter's own enum member, const or default."),
    none: Count.describe('Values found nowhere the call could see.'),
    findings: Count.describe('Of `none`: identifiers, paths, names, dates and amounts, which are value-accuracy findings.'),
    rate: Share.describe('Grounding rate: (values − none) / values; null without values.'),
  })
  .meta({ id: 'GroundingTally' });
export type GroundingTally = z.infer<typeof GroundingTally>;

/** How many argument values the user's words and the outputs shown pin down, summed over records (`checks/determinacy.ts`). */
export const DeterminacyTally = z
  .object({
    checked: Count.describe("Values grounded in the user's words or an earlier output (judgments from judge-6 on)."),
    determined: Count.describe('Of `checked`: values the user could tell are the ones meant.'),
    fromLists: Count.describe('Values taken from a list of two or more items in an earlier output.'),
    identified: Count.describe("Of `fromLists`: values whose item the user's words pick (or every item holds)."),
    findings: Count.describe('Determinacy findings: undetermined values and outputs that contradict their call.'),
    rate: Share.describe('Determinacy: determined / checked; null when no judgment counted any value.'),
  })
  .meta({ id: 'DeterminacyTally' });
export type DeterminacyTally = z.infer<typeof DeterminacyTally>;

/** One exact argument failure of a record, at the argument at fault. */
export const ExactFailure = z
  .object({
    record: z.string().describe('Record id.'),
    view: z.enum(['single-turn', 'conversation']).describe("Which of the record's views the failure was found in (a multi-turn scenario is judged as both)."),
    call: z.number().int().nullable().describe('Index of the call in expected_tools; null when the failure is about the turn.'),
    tool: z.string().nullable().describe('Tool of the call.'),
    param: z.string().nullable().describe('Dotted path of the argument at fault; null when none is named.'),
    subdimension: z.enum(ARGUMENT_SUBDIMENSIONS).describe('Argument sub-dimension that fails (the report key).'),
    kind: z.string().describe('Finding kind (ungrounded, missing, misnamed, extra, wrong_type, bad_format, other).'),
    reason: z.string(),
  })
  .meta({ id: 'ExactFailure' });
export type ExactFailure = z.infer<typeof ExactFailure>;

/**
 * The exact judge's argument view: what a program decides about the arguments (schema checks and
 * value grounding, with the paper's cascades), whichever judge stored the judgment. Not TC.
 */
export const ExactArguments = z
  .object({
    records: Count.describe('Records with exact argument sub-scores under this judge.'),
    grounding: GroundingTally,
    determinacy: DeterminacyTally,
    means: z
      .object(Object.fromEntries(ARGUMENT_SUBDIMENSIONS.map((k) => [k, Num])) as Record<ArgumentSubdimension, typeof Num>)
      .describe('Mean exact sub-score per argument sub-dimension (0–1), after the cascades the facts set off.'),
    failingRecords: Count.describe('Records with at least one exact argument failure.'),
    failures: z.array(ExactFailure).describe('Exact argument failures, by record id then call; at most `MAX_REPORT_FAILURES` (src/core/bounds.ts).'),
    failuresLeftOut: Count.describe('Failures beyond the listed ones.'),
  })
  .meta({ id: 'ExactArguments' });
export type ExactArguments = z.infer<typeof ExactArguments>;

/** One server (one harness) under one judge: the row of Tables 3, 5, 7, 11, 15 and 16. */
export const ServerReport = z
  .object({
    name: z.string().describe('Server (spec) name; made unique when two harnesses share one.'),
    n: Count.describe(
      "Rows, as the paper counts records (its Table 6: 337 scenarios gave 391 records): every harness record as its single-turn task, plus the conversation of each record that has one. Every score's n is out of this.",
    ),
    records: Count.describe('Harness records (scenarios); multiTurn of them also have a conversation row.'),
    judged: Count.describe(
      "Rows with a score (TC, Coh or exact) from this judge and no aspect it failed on (a score the judge does not give, like the offline judge's TC, is not a failure). The per-score counts are tc.n and coh.n.",
    ),
    notJudged: z
      .object({ tc: Count, coh: Count })
      .describe('Rows whose stored judgment says the judge failed on the score (status not-judged): a re-run of judge asks again.'),
    tc: ScoreSummary.describe("Tool-calling score per record (the judge's aggregate)."),
    coh: ScoreSummary.describe('Coherence score per record.'),
    exact: ScoreSummary.describe(
      'The exact argument score per record: the mean of the six argument sub-scores a program decides (schema checks and value grounding, after cascades); not TC.',
    ),
    simpleTc: Num.describe('Mean TC of simple-tier records (Table 3 "Simp.").'),
    complexTc: Num.describe('Mean TC of complex-tier records (Table 7).'),
    tcDelta: Num.describe('complexTc − simpleTc (Table 7 Δ; negative = degradation).'),
    cohDelta: Num.describe('complex − simple mean coherence.'),
    tiers: z.object({ simple: TierStats, complex: TierStats }),
    meanWorkflowLength: Num.describe('Mean expected calls per record (Table 3 w̄).'),
    maxWorkflowLength: Count,
    multiTurn: Count.describe('Records with a multi-turn conversation (each is also a conversation row).'),
    coverage: Share.describe("Share of the spec's tools used by at least one record (Table 5); null when the tool list is unknown."),
    toolsInSpec: Count.nullable().describe('Tools in the spec; null when unknown (no manifest).'),
    toolsUsed: Count.describe('Spec tools used by at least one record.'),
    gini: Num.describe('Gini coefficient of calls per used tool (Table 5; 0 = uniform).'),
    unknownToolCalls: Count.describe('Expected calls naming a tool that is not in the spec (hallucinated tool names).'),
    categories: Count.describe('Distinct scenario categories.'),
    histograms: z.object({ tc: ScoreHistogram, coh: ScoreHistogram }).describe('Histograms of TC and Coh (Figure 3).'),
    dimensions: z
      .object({ usage: DimensionStats, selection: DimensionStats, ordering: DimensionStats, arguments: DimensionStats })
      .describe('Per-dimension rates and means (Tables 4 and 11).'),
    argumentFailures: ArgumentFailures,
    exactArguments: ExactArguments,
    coherenceAspects: z
      .object(Object.fromEntries(REPORT_ASPECT_ORDER.map((k) => [k, AspectStats])) as Record<CohAspect, typeof AspectStats>)
      .describe('Coherence aspects on the raw 1–3 scale (Table 8).'),
    coherenceIssues: z.array(CoherenceIssue).describe('Coherence issue taxonomy (Table 10), most frequent first; groups with no record left out.'),
    aggregation: Aggregation,
    tcCoh: CorrelationStat.describe('Record-level Pearson correlation of TC and Coh.'),
  })
  .meta({ id: 'ServerReport' });
export type ServerReport = z.infer<typeof ServerReport>;

/** One tool\'s schema metrics and mean scores over the records that call it (the tool-level grain). */
export const ToolScore = z
  .object({
    server: z.string(),
    tool: z.string(),
    params: Count.nullable().describe('Top-level parameters; null when the spec is not available.'),
    optionalRatio: Share,
    records: Count.describe('Records that call the tool.'),
    meanTc: Num,
    meanCoh: Num,
  })
  .meta({ id: 'ToolScore' });
export type ToolScore = z.infer<typeof ToolScore>;

/** Everything computed under one judge. */
export const JudgeReport = z
  .object({
    judge: z.string().nullable().describe("Judge id as stored in the records' judgments; null for a harness nobody judged yet."),
    servers: z.array(ServerReport).describe('One row per server (harness).'),
    corpus: ServerReport.describe("All records of all servers pooled (the paper's corpus figures)."),
    tools: z.array(ToolScore).describe('Per-tool scores, lowest mean TC first.'),
    correlations: z.array(CorrelationRow).describe('Correlations at record, tool and server grain (Section 5.2, Table 15, Appendix B).'),
    aggregationRanks: z
      .array(z.object({ grain: z.enum(['server', 'record']), a: z.enum(AGGREGATIONS), b: z.enum(AGGREGATIONS), rho: Num, p: Num, n: Count }))
      .describe(
        "Spearman rank correlations between aggregation rules (Table 16): over server means (the paper's grain; null below two servers) and over records.",
      ),
  })
  .meta({ id: 'JudgeReport' });
export type JudgeReport = z.infer<typeof JudgeReport>;

/** A weighted edge of a tool graph. */
export const GraphEdge = z.object({ source: z.string(), target: z.string(), weight: z.number().int().positive() }).meta({ id: 'GraphEdge' });
export type GraphEdge = z.infer<typeof GraphEdge>;

/** The schema-complexity profile of a server (Table 15). */
export const ComplexityProfile = z
  .object({
    tools: Count,
    meanParams: z.number(),
    maxParams: Count,
    optionalRatio: z.number().min(0).max(1).describe('Pooled share of optional parameters.'),
    maxDepth: Count,
  })
  .meta({ id: 'ComplexityProfile' });
export type ComplexityProfile = z.infer<typeof ComplexityProfile>;

/** Mock outputs by grounding tier (Table 9). */
export const MockGroundingCounts = z
  .object({
    outputs: Count.describe('Mock outputs of the expected calls, over the records (scenarios).'),
    high: Count.describe("Tier high: the tool's own example outputs were the reference."),
    medium: Count.describe("Tier medium: a similar tool's example outputs were the reference."),
    low: Count.describe('Tier low: no example output (the spec alone).'),
  })
  .meta({ id: 'MockGroundingCounts' });
export type MockGroundingCounts = z.infer<typeof MockGroundingCounts>;

/** What a harness is made of, independent of any judge (Section 5.5, Appendix G). */
export const ServerStructure = z
  .object({
    name: z.string(),
    source: z.string().nullable().describe('Harness folder the row came from.'),
    profile: ComplexityProfile.nullable().describe('Complexity profile (Table 15); null when the spec could not be loaded.'),
    workflowLengths: z.array(z.object({ length: Count, records: Count })).describe('Records per workflow length (calls per record), ascending.'),
    toolUsage: z
      .array(z.object({ tool: z.string(), calls: Count, records: Count, inSpec: z.boolean() }))
      .describe('Calls and records per tool, most called first; spec tools never called are listed with 0.'),
    categories: z.array(z.object({ category: z.string(), simple: Count, complex: Count })).describe('Records per category and tier.'),
    cooccurrence: z.array(GraphEdge).describe('Undirected: two tools in the same record (weight = records).'),
    multiToolRecords: Count.describe('Records with two or more distinct tools.'),
    adjacency: z.array(GraphEdge).describe('Directed: tool A immediately followed by tool B in a workflow (weight = transitions).'),
    expansion: z
      .object({
        multiTurn: Count.describe('Records expanded into a multi-turn conversation.'),
        records: Count.describe('Records of the run.'),
        rate: Share.describe('multiTurn / records; null without records.'),
        paperRate: z.number().describe("The paper's rate: 54 of 337 scenarios (Table 6: 337 scenarios, 391 records), about 16%."),
        source: z.enum(['manifest', 'records']).describe("Counted by the generation run (the manifest's counts) or from the records read."),
      })
      .describe("Multi-turn expansion (stage 4) next to the paper's."),
    mockGrounding: MockGroundingCounts.extend({
      outputSchema: Count.describe('Mock outputs of tools that declare an outputSchema (made to follow it; a schema is not an example, so these can be low).'),
      paper: MockGroundingCounts.describe(
        "The paper's figures (Appendix A.4, which Table 9's tiers belong to): all 871 mock calls of its seven servers were low, their specs having no example outputs.",
      ),
    }).describe("Mock outputs by the grounding tier their record stores (the paper's Table 9), next to the paper's."),
  })
  .meta({ id: 'ServerStructure' });
export type ServerStructure = z.infer<typeof ServerStructure>;

/** Paired record-level agreement of two judges on one score (Appendix A.8, Table 13). */
export const PairedAgreement = z
  .object({
    n: Count.describe('Records scored by both judges.'),
    pearson: CorrelationStat,
    spearman: CorrelationStat,
    mae: Num.describe('Mean absolute difference.'),
    within01: Share.describe('Share of records with |b − a| ≤ 0.1.'),
    meanDiff: Num.describe('Mean of b − a.'),
    meanDiffCi: Ci,
    blandAltman: z
      .object({ meanDiff: Num, sdDiff: Num, lower: Num, upper: Num })
      .describe('Bland–Altman: bias and limits of agreement (bias ± 1.96 sd of b − a).'),
    points: z.array(z.tuple([z.number(), z.number()])).describe('The paired scores [a, b] (for the scatter and Bland–Altman figures).'),
    servers: z
      .array(z.object({ name: z.string(), n: Count, a: Num, aCi: Ci, b: Num, bCi: Ci }))
      .describe('Per-server means of the paired records under each judge (Table 12).'),
    serverRank: CorrelationStat.describe('Spearman ρ of the per-server means of the two judges (rank preservation).'),
  })
  .meta({ id: 'PairedAgreement' });
export type PairedAgreement = z.infer<typeof PairedAgreement>;

/** Agreement of judge `b` with judge `a` (differences are b − a). */
export const JudgePair = z
  .object({
    a: z.string(),
    b: z.string(),
    tc: PairedAgreement,
    coh: PairedAgreement,
    argumentFailures: z
      .array(z.object({ subdimension: z.enum(ARGUMENT_SUBDIMENSIONS), a: Count, b: Count }))
      .describe('Argument sub-dimension failure counts (any below 1) under each judge, all records (Table 14).'),
  })
  .meta({ id: 'JudgePair' });
export type JudgePair = z.infer<typeof JudgePair>;

/** One agent's scores over a set of scenarios (all of them, or one tier). */
export const AgentScores = z
  .object({
    scenarios: Count.describe('Scenarios with at least one scored trajectory.'),
    scenarioRuns: Count.describe('Trajectories scored: a scenario counts once per run.'),
    callScore: ScoreSummary.describe(
      "The headline. Per scenario: expected calls the agent got right at its first attempt, over the scenario's expected calls plus the calls the mock refused, averaged over its runs. Mean and CI over scenarios.",
    ),
    exactCallMatch: ScoreSummary.describe(
      "Per scenario: expected calls whose first attempt was answered (right tool, every argument right, at a moment it could be made), over the scenario's expected calls, averaged over its runs. Mean and CI over scenarios.",
    ),
    nameMatch: ScoreSummary.describe(
      'Per scenario: expected calls whose tool the agent called, over expected calls, averaged over its runs. Mean and CI over scenarios.',
    ),
    argumentAccuracy: ScoreSummary.describe(
      'Per scenario: arguments `ok` of the first attempts over their arguments plus those of missed calls, averaged over its runs. Mean and CI over scenarios.',
    ),
    precision: Share.describe('Per scenario: calls answered over all the calls the agent made, averaged over its runs; mean over scenarios.'),
    orderAccuracy: Share.describe(
      'Per scenario with dependent calls: those never attempted before the call they take a value from, averaged over its runs; mean over those scenarios; null when none has one.',
    ),
    turnAccuracy: Share.describe(
      'Per multi-turn scenario: calls of later turns never attempted before the user asked for them, averaged over its runs; mean over those scenarios; null when none is multi-turn.',
    ),
    tc: ScoreSummary.describe(
      "Per scenario: the LLM judge's tool-calling score in oracle mode (`agent-seer run --judge`), averaged over its judged runs (and judges). Mean and CI over the scenarios judged; n 0 and mean null when none was.",
    ),
    coh: ScoreSummary.describe("Per scenario: the coherence of the agent's replies by the same judge, averaged likewise; n 0 when none was judged."),
    passRate: Share.describe('Per scenario: share of its runs passed (every expected call right at the first attempt, no call refused); mean over scenarios.'),
    passHatK: Share.describe(
      "pass^k (τ-bench) with the row's k: C(passes, k) / C(runs, k) per scenario, mean over scenarios; null when k is 1 (it equals passRate) or nothing was scored.",
    ),
  })
  .meta({ id: 'AgentScores' });
export type AgentScores = z.infer<typeof AgentScores>;

/** Verdicts of the leaderboard's error counts: per parameter (as the scorer gives them) and per call. */
export const AGENT_ERROR_VERDICTS = ['wrong', 'missing', 'extra', 'missed-call', 'extra-call'] as const;

/** How many of an agent's mistakes the leaderboard lists. */
export const TOP_ERRORS = 5;

/** A kind of mistake an agent made, and how often. */
export const AgentError = z
  .object({
    server: z.string(),
    tool: z.string(),
    parameter: z.string().nullable().describe('Top-level parameter; null for a whole call (missed-call, extra-call).'),
    verdict: z
      .enum(AGENT_ERROR_VERDICTS)
      .describe(
        'wrong: a different value; missing: left out (and not its default); extra: a parameter the oracle does not set (and not its default); missed-call: an expected call of the tool never made; extra-call: a call no expected call took.',
      ),
    count: Count.describe('Occurrences over every run of every scenario.'),
  })
  .meta({ id: 'AgentError' });
export type AgentError = z.infer<typeof AgentError>;

/** One agent on the leaderboard. */
export const LeaderboardRow = z
  .object({
    agent: z
      .string()
      .describe(
        "The agent's folder under <harness>/runs/, or mcp:<client name> for serve runs that record their MCP client; the same name in several harnesses is one agent.",
      ),
    ids: z.array(z.string()).describe('Agent ids its trajectories record (provider:model, or mcp-client).'),
    runs: Count.describe(
      'Runs (the most any one harness has for this agent): run folders, a serve folder counting once per session on its most-served scenario.',
    ),
    k: Count.describe('k of pass^k: the fewest runs any of its scored scenarios has.'),
    overall: AgentScores,
    tiers: z.object({ simple: AgentScores, complex: AgentScores }).describe('The same scores over simple-tier and complex-tier scenarios.'),
    topErrors: z.array(AgentError).max(TOP_ERRORS).describe('Its five most frequent mistakes (tool, parameter, verdict), most frequent first.'),
  })
  .meta({ id: 'LeaderboardRow' });
export type LeaderboardRow = z.infer<typeof LeaderboardRow>;

/** What one LLM activity on a harness cost: its generation run, or one LLM judge over its records. */
export const CostRow = z
  .object({
    server: z.string().describe('Server (spec) name, as in structure.'),
    what: z.string().describe('generation, or the judge id (provider:model).'),
    model: z.string(),
    calls: Count.nullable().describe('LLM requests made (generation: from the manifest); null for judging, whose records keep tokens, not requests.'),
    inputTokens: Count,
    outputTokens: Count,
    usd: Num.describe('USD of those tokens at the price of the mode; null when the model has no price.'),
    mode: z.enum(['sync', 'batch']),
    prices: z
      .object({ source: z.string(), date: z.string() })
      .describe('Where the prices came from (generation: as its manifest says; judging: the built-in table).'),
    estimate: z
      .object({ calls: Count, usd: Num, batchUsd: Num })
      .nullable()
      .describe('The estimate made before the run (generation, from the manifest); null when none was kept.'),
  })
  .meta({ id: 'CostRow' });
export type CostRow = z.infer<typeof CostRow>;

/** One of the lowest-scoring scenarios under the primary judge, with what to fix. */
export const WorstScenario = z
  .object({
    server: z.string().describe('Server (spec) name, as in structure.'),
    record: z.string().describe('Record id.'),
    file: z.string().describe("The record's file relative to its harness folder (records/<file>.json)."),
    link: z
      .string()
      .optional()
      .describe(
        'The same file as seen from the folder the report was written to (what the HTML and Markdown link); absent when the report was not told where it goes.',
      ),
    title: z.string(),
    score: z.number().nullable().describe('The score ranked by (see worst.by): the lowest of its views (single-turn task, conversation); null when none.'),
    findings: Count.describe('Exact argument findings over its views.'),
    notes: z.array(z.string()).describe("The judge's notes (an LLM judge's rationale); empty for an exact-only judge."),
    faults: z.array(ExactFailure).describe('Its exact argument failures, at the argument at fault (call, tool, parameter, kind, reason).'),
  })
  .meta({ id: 'WorstScenario' });
export type WorstScenario = z.infer<typeof WorstScenario>;

/** The report's opening: the scenarios to fix first. */
export const WorstScenarios = z
  .object({
    judge: z.string().nullable().describe('The primary judge; null without judgments.'),
    by: z.enum(['tc', 'exact']).nullable().describe('tc when the judge scored TC, else exact; null when it scored neither.'),
    failing: Count.describe('Scenarios with a score below 1 or an exact finding.'),
    scenarios: z.array(WorstScenario).describe('Failing scenarios, lowest score first, then most findings, then by id; at most 10 (MAX_WORST in worst.ts).'),
  })
  .meta({ id: 'WorstScenarios' });
export type WorstScenarios = z.infer<typeof WorstScenarios>;

/** A scenario of the report under the primary judge, as `--previous` compares it (`compare.ts`). */
export const ReportScenario = ScenarioSnapshot.extend({
  server: z.string().describe('Server (spec) name, as in structure.'),
}).meta({ id: 'ReportScenario' });
export type ReportScenario = z.infer<typeof ReportScenario>;

/** The corpus figures the previous-report section sets side by side. */
export const SINCE_SCORES = ['tc', 'coh', 'exact', 'determined'] as const;

/** "Since the previous report": this report against the JSON of an earlier one (`report --previous`). */
export const SinceReport = z
  .object({
    previous: z.string().describe('The previous report JSON, as given to --previous.'),
    judge: z
      .object({ before: z.string().nullable(), after: z.string().nullable() })
      .describe("Each report's primary judge: scores of two different judges are set side by side, but not on one scale."),
    scores: z
      .array(
        z.object({
          score: z.enum(SINCE_SCORES).describe("tc, coh, exact: corpus means under the primary judge; determined: the corpus's determined share of values."),
          before: Num,
          after: Num,
          delta: Num.describe('after − before; null when either is missing.'),
        }),
      )
      .describe('The corpus scores then and now, every score either report has.'),
    counts: z
      .object({
        matchedById: Count,
        matchedByTitle: Count,
        new: Count,
        vanished: Count,
        worse: Count,
        better: Count,
        unchanged: Count,
      })
      .nullable()
      .describe('Scenario counts; null when the previous report lists no scenarios (written before reports did).'),
    scenarios: z
      .array(ScenarioDiff)
      .describe('Scenarios that changed or were paired by title, worst regressions first, then new, then vanished ones (as agent-seer diff lists them).'),
  })
  .meta({ id: 'SinceReport' });
export type SinceReport = z.infer<typeof SinceReport>;

/** The whole report. */
export const ReportModel = z
  .object({
    reportVersion: z.literal(REPORT_VERSION),
    settings: z
      .object({
        resamples: z.number().int().positive().describe('Bootstrap resamples per interval.'),
        seed: z.number().int().describe('Base seed; each interval derives its own seed from it and a label, so adding a server does not move the others.'),
        level: z.number().gt(0).lt(1).describe('Confidence level of the intervals.'),
      })
      .describe('How the numbers were computed.'),
    judgesAvailable: z.array(z.string()).describe('Every judge id found in the records, most records first.'),
    judges: z.array(JudgeReport).min(1).describe('One entry per reported judge; the first is the primary one.'),
    worst: WorstScenarios.describe('The lowest-scoring scenarios under the primary judge, shown first.'),
    structure: z.array(ServerStructure).describe('One entry per server, in the order of judges[i].servers.'),
    agreement: z
      .array(JudgePair)
      .describe(
        'Pairwise judge agreement over the records both judges scored; a pair with no TC or Coh score in common (an exact-only judge such as offline) is left out; empty with fewer than two judges.',
      ),
    leaderboard: z
      .array(LeaderboardRow)
      .describe(
        "Agents run against the harnesses (every trajectory under each harness's runs/, re-scored against its records), by call score, then exact call match, then argument accuracy, then name match; empty when no harness has runs.",
      ),
    specChanges: z
      .array(SpecDrift.extend({ server: z.string().describe('Server (spec) name, as in structure.') }))
      .describe('Harnesses whose last run was a stale-only regeneration: the spec changes it found (from the manifest) and what it did; empty otherwise.'),
    cost: z
      .array(CostRow)
      .describe(
        "What the LLM work on each harness cost: its last generation run (from the manifest's cost) and each LLM judge (the tokens its stored judgments record, at the built-in prices); empty when no model was used.",
      ),
    scenarios: z
      .array(ReportScenario)
      .describe(
        "Every scenario under the primary judge, view by view, with its verdict (from the record's stored checks and judgments; agent-seer diff recomputes the checks against the spec): what a later report's --previous compares. Ids are prefixed with their server ('server/id') when the report has several servers.",
      ),
    since: SinceReport.optional().describe('What changed since a previous report (report --previous FILE); absent without it.'),
    warnings: z.array(z.string()).describe('Things the reader should know (missing specs, unjudged records, unreadable files).'),
  })
  .describe("Agent Seer report: the paper's tables and figures for one or more harnesses.");
export type ReportModel = z.infer<typeof ReportModel>;

/** File name of the published JSON Schema under `schemas/`. */
export const REPORT_SCHEMA_FILE = 'report.schema.json';

/** The JSON Schema of the report (draft-07, like the harness schemas). */
export function reportJsonSchema(): Record<string, unknown> {
  return {
    ...(z.toJSONSchema(ReportModel, { target: 'draft-7', io: 'output', unrepresentable: 'any' }) as Record<string, unknown>),
    title: `Agent Seer report (reportVersion ${REPORT_VERSION})`,
  };
}
