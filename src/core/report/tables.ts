/**
 * The report's tables as plain data (title, headers, rows of strings), defined once and drawn
 * twice: as Markdown by `render/markdown.ts` and as DOM tables by the webview script
 * (`media/report/report.ts`, which bundles this file). Pure, no Node or DOM APIs, and no zod
 * (only type imports from the schema), so the browser bundle stays small.
 *
 * Cells are plain text: renderers escape them (Markdown) or set them with `textContent` (DOM).
 */
import {
  ARGUMENT_LABELS,
  ARGUMENT_REPORT_KEYS,
  ARGUMENT_SUBDIMENSIONS,
  ARGUMENT_SUBS,
  ASPECT_LABELS,
  DIMENSION_LABELS,
  REPORT_ASPECT_ORDER,
  TC_DIMENSIONS,
} from '../vocabulary';
import { formatEstimateUsd, formatUsd } from '../llm/usd';
import { EXACT_SCOPE, isExactOnly } from './exactScope';
import { MULTI_TURN_BASE } from './multiTurnRate';
import { CUE_WORDS, PAPER_RANGES, RANGES_NOTE, rangeCue, type RangeCue } from './reference';
import type {
  AgentScores,
  JudgePair,
  JudgeReport,
  LeaderboardRow,
  MockGroundingCounts,
  PairedAgreement,
  ReportModel,
  ScoreSummary,
  ServerReport,
  ServerStructure,
  SinceReport,
  WorstScenarios,
} from './schema';
import { scenarioName, scoreLabel } from './compareNames';

/** One table. */
export interface ReportTable {
  /** Stable id (for anchors and tests). */
  id: string;
  title: string;
  /** What the table shows and where the paper has it. */
  caption: string;
  headers: string[];
  /** Per column: numbers right-aligned. */
  align: ('left' | 'right')[];
  rows: string[][];
  /**
   * What no rows mean, when that is a finding ("every argument passed"); shown instead of the
   * table. A table with no rows and no such text has nothing to say and is left out.
   */
  empty?: string;
  /**
   * Per row, per column: where a score falls against the paper's reference range; the cell's text
   * already ends with the cue's words (the HTML adds a class and a symbol, never colour alone).
   */
  cues?: (RangeCue | null)[][];
  /** Per row: a link for the first cell (a record file, from where the report was written, else relative to its harness folder). */
  links?: (string | null)[];
}

/** A group of tables under one heading. */
export interface ReportSection {
  id: string;
  title: string;
  /** Lines shown under the heading, before the tables (what the section's scores cover). */
  notes?: string[];
  tables: ReportTable[];
}

/** A score to 3 decimals; an em dash for null. */
export const f3 = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : x.toFixed(3));
/** A signed difference to 3 decimals. */
export const signed = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`);
/** A share in whole percent ("<1%" for small non-zero shares). */
export const pct = (x: number | null | undefined): string => {
  if (x === null || x === undefined) return '—';
  const p = x * 100;
  if (p > 0 && p < 0.5) return '<1%';
  if (p < 100 && p > 99.5) return '>99%';
  return `${Math.round(p)}%`;
};
/** An interval to 3 decimals. */
export const interval = (c: [number, number] | null | undefined): string => (c ? `[${c[0].toFixed(3)}, ${c[1].toFixed(3)}]` : '');
/** A p-value ("<0.001" below that). */
export const pValue = (p: number | null | undefined): string => (p === null || p === undefined ? '—' : p < 0.001 ? '<0.001' : p.toFixed(3));
/** A mean with its interval; an em dash alone when there is no mean. */
const meanCi = (m: number | null, ci: [number, number] | null): string => (m === null ? '—' : `${f3(m)} ${interval(ci)}`.trim());
const withCi = (s: ScoreSummary): string => meanCi(s.mean, s.ci);
const count = (n: number): string => String(n);

const R = 'right' as const;
const L = 'left' as const;

function table(id: string, title: string, caption: string, headers: string[], rows: string[][], align?: ('left' | 'right')[], empty?: string): ReportTable {
  return { id, title, caption, headers, align: align ?? headers.map((_, i) => (i === 0 ? L : R)), rows, ...(empty ? { empty } : {}) };
}

/** A column of a table that is shown only when `when` holds (a score no judge gave is not a column of dashes). */
interface Column<T> {
  header: string;
  align?: 'left' | 'right';
  cell: (row: T) => string;
  when?: boolean;
  /** Where the cell's score falls against the paper's reference range (TC and Coh means only). */
  cue?: (row: T) => RangeCue | null;
}

/** A table from column definitions, leaving out the columns whose `when` is false. */
function columns<T>(id: string, title: string, caption: string, cols: readonly Column<T>[], rows: readonly T[], empty?: string): ReportTable {
  const shown = cols.filter((c) => c.when !== false);
  const cues = rows.map((r) => shown.map((c) => c.cue?.(r) ?? null));
  const t = table(
    id,
    title,
    caption,
    shown.map((c) => c.header),
    rows.map((r, i) => shown.map((c, k) => withCue(c.cell(r), cues[i]?.[k] ?? null))),
    shown.map((c, i) => c.align ?? (i === 0 ? L : R)),
    empty,
  );
  return cues.some((row) => row.some((c) => c !== null)) ? { ...t, cues } : t;
}

/** A cell's text followed by its cue's words ("0.912 [0.88, 0.94] (within paper range)"). */
const withCue = (text: string, cue: RangeCue | null): string => (cue ? `${text} (${CUE_WORDS[cue]})` : text);
/** The cue of a server's mean TC and Coh against the paper's Table 3 range. */
const tcCue = (s: ServerReport): RangeCue | null => rangeCue(s.tc.mean, PAPER_RANGES.tc);
const cohCue = (s: ServerReport): RangeCue | null => rangeCue(s.coh.mean, PAPER_RANGES.coh);

/** Correlation variables that are TC or one of its dimensions (a judge without TC has none of them). */
const TC_VARIABLES: ReadonlySet<string> = new Set(['tc', 'tcHarmonic', 'tcMinimum', ...TC_DIMENSIONS]);

/** Which scores a judge gave on any row: a table or column of a score nobody gave is left out. */
interface Scored {
  tc: boolean;
  coh: boolean;
  exact: boolean;
}
const scoredBy = (j: JudgeReport): Scored => ({ tc: j.corpus.tc.n > 0, coh: j.corpus.coh.n > 0, exact: j.corpus.exact.n > 0 });

/** Server rows plus the pooled row when there are several servers. */
const rowsOf = (j: JudgeReport): ServerReport[] => (j.servers.length > 1 ? [...j.servers, j.corpus] : j.servers);

const LABELS: Record<string, string> = {
  // Dimensions, argument sub-dimensions (under the report's keys) and aspects: the vocabulary's labels.
  ...DIMENSION_LABELS,
  ...Object.fromEntries(ARGUMENT_SUBS.map((s) => [ARGUMENT_REPORT_KEYS[s], ARGUMENT_LABELS[s]])),
  ...ASPECT_LABELS,
  params: 'parameters',
  optionalRatio: 'optional ratio',
  tools: 'tool count',
  tc: 'TC',
  coh: 'Coh',
  tcHarmonic: 'TC (harmonic)',
  tcMinimum: 'TC (minimum)',
  arithmetic: 'arithmetic',
  harmonic: 'harmonic',
  minimum: 'minimum',
};
/** Display label of a dimension, sub-dimension, aspect or variable name. */
export const label = (k: string): string => LABELS[k] ?? k;

/** "n of N": scores that exist among the rows that could have one (the judged counts of the score tables). */
const scoredOf = (score: ScoreSummary, of: number): string => `${score.n} of ${of}`;

/**
 * The corpus table's columns (the paper's Table 3 with Table 6's scale and the exact judge's
 * view); a score the judge gave on no row has no column.
 */
const corpusColumns = (k: Scored): Column<ServerReport>[] => [
  { header: 'Server', cell: (s) => s.name },
  { header: 'Tools', cell: (s) => (s.toolsInSpec === null ? '—' : count(s.toolsInSpec)) },
  { header: 'Scenarios', cell: (s) => count(s.records) },
  { header: 'Records', cell: (s) => count(s.n) },
  { header: 'TC scored', cell: (s) => scoredOf(s.tc, s.n), when: k.tc },
  { header: 'TC [95% CI]', cell: (s) => withCi(s.tc), when: k.tc, cue: tcCue },
  { header: 'Coh scored', cell: (s) => scoredOf(s.coh, s.n), when: k.coh },
  { header: 'Coh [95% CI]', cell: (s) => withCi(s.coh), when: k.coh, cue: cohCue },
  { header: 'Exact', cell: (s) => f3(s.exact.mean), when: k.exact },
  { header: 'Grounding', cell: (s) => pct(s.exactArguments.grounding.rate), when: k.exact },
];

/** Exact failures listed in the Markdown and HTML tables (the JSON lists up to `MAX_REPORT_FAILURES`). */
export const FAILURES_SHOWN = 30;

/** The leaderboard's score columns, after the agent (and tier); `agentCells` fills them in this order. */
const AGENT_SCORE_COLUMNS = [
  'Scenarios',
  'Scenario runs',
  'Call score [95% CI]',
  'Exact call match [95% CI]',
  'Name match [95% CI]',
  'Argument accuracy [95% CI]',
  'Precision',
  'Order',
  'Turns',
  'TC (judge) [95% CI]',
  'Coh (judge) [95% CI]',
  'Pass rate',
  'pass^k',
];

/** The exact judge's tables: value grounding, the exact argument score by sub-dimension, and the failing records. */
function exactTables(j: JudgeReport, rows: readonly ServerReport[], id: (s: string) => string): ReportTable[] {
  const failures = j.servers.flatMap((s) => s.exactArguments.failures.map((f) => ({ server: s.name, ...f })));
  const total = j.servers.reduce((n, s) => n + s.exactArguments.failures.length + s.exactArguments.failuresLeftOut, 0);
  const many = j.servers.length > 1;
  const shown = failures.slice(0, FAILURES_SHOWN);
  return [
    table(
      id('grounding'),
      'Value grounding (exact)',
      "Where each string and number argument value of the expected calls comes from: the user's words of its turn or an earlier one, an earlier call's output (chained), the parameter's own enum, const or default, or nowhere. Rate = share found somewhere. Findings = identifiers, paths, names, dates and amounts found nowhere (value-accuracy failures); free text and one-word modes found nowhere lower the rate only. Determinacy = of the values found in the user's words or an earlier output, the share the user could tell are the ones meant: an item of a listing that the user's words pick, a number said for this call, an output about what its call asked for (a value-accuracy failure otherwise).",
      ['Server', 'Values', 'User', 'Earlier output', 'Schema', 'Nowhere', 'Findings', 'Rate', 'Determinacy'],
      rows.map((s) => {
        const g = s.exactArguments.grounding;
        const d = s.exactArguments.determinacy;
        return [s.name, count(g.values), count(g.user), count(g.output), count(g.schema), count(g.none), count(g.findings), pct(g.rate), pct(d.rate)];
      }),
    ),
    table(
      id('exact-arguments'),
      'Exact argument score by sub-dimension',
      `${EXACT_SCOPE} The paper's six argument sub-dimensions as a program decides them, per record then averaged: completeness (required parameters), name accuracy (a passed name close to an unused declared one), value accuracy (value grounding), type and format compliance (the schema), relevancy (parameters the schema lacks); with the paper's cascades (a wrong name or a missing required parameter caps value, type and format; a value found nowhere caps type, format and relevancy). Labelled exact: it is not the paper's TC.`,
      ['Server', 'Records', 'Exact', ...ARGUMENT_SUBDIMENSIONS.map(label), 'Failing records'],
      rows.map((s) => [
        s.name,
        count(s.exactArguments.records),
        f3(s.exact.mean),
        ...ARGUMENT_SUBDIMENSIONS.map((k) => f3(s.exactArguments.means[k])),
        count(s.exactArguments.failingRecords),
      ]),
    ),
    table(
      id('exact-failures'),
      'Failing records (exact)',
      `Each exact argument failure at the argument at fault, in the view it was found in (a multi-turn scenario is judged as its single-turn task and as its conversation); calls numbered from 1${total > shown.length ? `; the first ${shown.length} of ${total} (the JSON report lists more)` : ''}.`,
      [...(many ? ['Server'] : []), 'Record', 'View', 'Call', 'Tool', 'Argument', 'Sub-dimension', 'Reason'],
      shown.map((f) => [
        ...(many ? [f.server] : []),
        f.record,
        f.view,
        f.call === null ? '—' : count(f.call + 1),
        f.tool ?? '—',
        f.param ?? '—',
        label(f.subdimension),
        f.reason,
      ]),
      [...(many ? [L] : []), L, L, R, L, L, L, L],
      'None: every argument of every expected call passed the exact checks.',
    ),
  ];
}

/** Whether a judge's exact figures are the same as another's (both store the same exact facts). */
const sameExact = (a: JudgeReport, b: JudgeReport): boolean =>
  a.servers.length === b.servers.length &&
  [...a.servers, a.corpus].every((s, i) => {
    const t = i < a.servers.length ? b.servers[i] : b.corpus;
    return t !== undefined && JSON.stringify([s.exact, s.exactArguments]) === JSON.stringify([t.exact, t.exactArguments]);
  });

function judgeSection(j: JudgeReport, model: ReportModel): ReportSection {
  const index = model.judges.indexOf(j);
  const id = (s: string) => `${s}-${index}`;
  const rows = rowsOf(j);
  const k = scoredBy(j);
  const title = j.judge === null ? 'Scores (no judgments yet)' : `Scores — judge ${j.judge}`;
  const notes: string[] = [];
  // No judgments: one line saying what fills this section, instead of tables of dashes.
  if (j.judge === null)
    notes.push(
      'No record has a judgment yet: agent-seer judge HARNESS_DIR scores the exact checks (the offline judge); add --judge gemini for TC and coherence too.',
    );
  if (isExactOnly(j.corpus) && k.exact) {
    // An earlier judge (an LLM judge, which stores the same exact facts) already showed these figures: one line, not a copy.
    const shownBy = model.judges.slice(0, index).find((o) => o.corpus.exact.n > 0 && sameExact(j, o));
    if (shownBy)
      return {
        id: id('judge'),
        title,
        notes: [`Judge ${j.judge} scored exact argument checks only; its exact figures are those shown under judge ${shownBy.judge} above.`],
        tables: [],
      };
    notes.push(
      `Judge ${j.judge} scored exact argument checks only: no TC and no coherence, which need an LLM judge. What the exact score covers and cannot see is said at its table.`,
    );
  }
  // The paper's ranges beside the scores they cue; an exact-only judge gets no cue and no range.
  if (k.tc || k.coh) notes.push(RANGES_NOTE);
  const tables: ReportTable[] = [];
  const level = Math.round(model.settings.level * 100);

  if (k.tc || k.coh)
    tables.push(
      columns(
        id('scores'),
        'Scores by server',
        `Table 3. n = records as the paper counts them (its Table 6: 337 scenarios, 391 records): every scenario as its single-turn task plus the conversation of each multi-turn scenario (Views); ${k.tc ? 'TC scored' : 'Coh scored'}${k.tc && k.coh ? ' and Coh scored' : ''} = records with that score, from the stored judgments. ${k.tc ? 'TC = tool calling' : ''}${k.tc && k.coh ? ', ' : ''}${k.coh ? 'Coh = coherence' : ''} (record means, ${level}% percentile bootstrap, B = ${model.settings.resamples})${k.tc ? '; σ = sample sd; Simp. = simple-tier TC' : ''}; w̄ = mean calls per scenario.${k.exact ? ` ${EXACT_SCOPE}` : ''}`,
        [
          { header: 'Server', cell: (s) => s.name },
          { header: 'n', cell: (s) => count(s.n) },
          { header: 'Views', cell: (s) => `${s.records} single-turn + ${s.multiTurn} conversation` },
          { header: 'TC scored', cell: (s) => scoredOf(s.tc, s.n), when: k.tc },
          { header: 'TC [95% CI]', cell: (s) => withCi(s.tc), when: k.tc, cue: tcCue },
          { header: 'σ', cell: (s) => f3(s.tc.sd), when: k.tc },
          { header: 'Coh scored', cell: (s) => scoredOf(s.coh, s.n), when: k.coh },
          { header: 'Coh [95% CI]', cell: (s) => withCi(s.coh), when: k.coh, cue: cohCue },
          { header: 'Simp.', cell: (s) => f3(s.simpleTc), when: k.tc },
          { header: 'w̄', cell: (s) => (s.meanWorkflowLength === null ? '—' : s.meanWorkflowLength.toFixed(1)) },
          { header: 'Exact', cell: (s) => f3(s.exact.mean), when: k.exact },
        ],
        rows,
      ),
    );

  if (k.exact) tables.push(...exactTables(j, rows, id));

  if (k.tc || k.coh)
    tables.push(
      columns(
        id('tiers'),
        'Simple vs complex',
        `Table 7. Mean ${k.tc ? 'TC' : ''}${k.tc && k.coh ? ' and ' : ''}${k.coh ? 'Coh' : ''} by complexity tier; Δ = complex − simple (negative = degradation).`,
        [
          { header: 'Server', cell: (s) => s.name },
          { header: 'Simple TC', cell: (s) => withCi(s.tiers.simple.tc), when: k.tc },
          { header: 'Complex TC', cell: (s) => withCi(s.tiers.complex.tc), when: k.tc },
          { header: 'Δ TC', cell: (s) => signed(s.tcDelta), when: k.tc },
          { header: 'Simple Coh', cell: (s) => f3(s.tiers.simple.coh.mean), when: k.coh },
          { header: 'Complex Coh', cell: (s) => f3(s.tiers.complex.coh.mean), when: k.coh },
          { header: 'Δ Coh', cell: (s) => signed(s.cohDelta), when: k.coh },
        ],
        rows,
      ),
    );

  const c = j.corpus;
  // The TC tables: a judge without TC (the offline judge) stores its exact argument score as the
  // arguments dimension, which the exact tables above already show; here it would pass for TC.
  if (k.tc) {
    tables.push(
      table(
        id('failure-rates'),
        'Dimension failure rates',
        'Table 4. Share of records scoring 1 (perfect), between 0 and 1 (partial) and 0 (zero) per TC dimension, all servers. Ordering is scored only for records with two or more calls.',
        ['Dimension', 'n', 'Perfect', 'Partial', 'Zero', 'Mean'],
        TC_DIMENSIONS.filter((d) => c.dimensions[d].n > 0).map((d) => {
          const s = c.dimensions[d];
          return [label(d), count(s.n), pct(s.perfect), pct(s.partial), pct(s.zero), f3(s.mean)];
        }),
      ),
    );

    tables.push(
      columns(
        id('dimensions'),
        'Mean dimension scores',
        'Table 11. Mean TC dimension scores by server.',
        [
          { header: 'Server', cell: (s: ServerReport) => s.name },
          ...TC_DIMENSIONS.map((d) => ({ header: label(d), cell: (s: ServerReport) => f3(s.dimensions[d].mean), when: c.dimensions[d].n > 0 })),
        ],
        rows,
      ),
    );

    const af = c.argumentFailures;
    if (af.n > 0)
      tables.push(
        table(
          id('argument-failures'),
          'Argument sub-dimension failures',
          `Section 5.3 and Table 14. "Lowest" counts each failing record once, for its lowest sub-dimension (ties go to the cascade root); "Any below 1.0" counts every sub-dimension below 1. ${af.failing} of ${af.n} records with argument scores fail at least one.`,
          ['Sub-dimension', 'Lowest', 'Any below 1.0', 'Mean'],
          ARGUMENT_SUBDIMENSIONS.map((sub) => [label(sub), count(af.lowest[sub]), count(af.anyBelowOne[sub]), f3(af.means[sub])]),
        ),
      );

    tables.push(
      table(
        id('aggregation'),
        'Aggregation sensitivity',
        'Table 16. TC re-aggregated across the four dimensions per turn (then averaged over turns and records) by arithmetic mean, harmonic mean and minimum.',
        ['Server', 'n', 'Arithmetic', 'Harmonic', 'Minimum'],
        rows.map((s) => [s.name, count(s.aggregation.n), f3(s.aggregation.arithmetic), f3(s.aggregation.harmonic), f3(s.aggregation.minimum)]),
      ),
      table(
        id('aggregation-ranks'),
        'Rank agreement of aggregation rules',
        "Appendix B. Spearman ρ between aggregation rules, over server means (the paper's grain) and over records; a grain with fewer than three servers or records (no ρ) is left out.",
        ['Grain', 'Rules', 'ρ', 'p', 'n'],
        j.aggregationRanks.filter((a) => a.rho !== null).map((a) => [a.grain, `${label(a.a)} vs ${label(a.b)}`, f3(a.rho), pValue(a.p), count(a.n)]),
        [L, L, R, R, R],
      ),
    );
  }

  // Only correlations there are: a pair of scores nobody gave, or fewer than three pairs, has no r.
  const gave = (v: string): boolean => (TC_VARIABLES.has(v) ? k.tc : v === 'coh' ? k.coh : true);
  tables.push(
    table(
      id('correlations'),
      'Schema complexity and scores',
      "Section 5.2 and Table 15. Pearson r with two-sided p (t test, n − 2 df). Tool grain: each in-spec tool's parameter count and optional ratio against the mean scores of the records that call it. Pairs with fewer than three points (no r) are left out.",
      ['Grain', 'x', 'y', 'r', 'p', 'n'],
      j.correlations.filter((r) => r.r !== null && gave(r.x) && gave(r.y)).map((r) => [r.grain, label(r.x), label(r.y), f3(r.r), pValue(r.p), count(r.n)]),
      [L, L, L, R, R, R],
    ),
  );

  if (k.coh)
    tables.push(
      table(
        id('coherence-aspects'),
        'Coherence aspects',
        'Table 8. Mean and sd of each coherence aspect on the raw 1–3 scale, all servers.',
        ['Aspect', 'n', 'Mean', 'sd'],
        REPORT_ASPECT_ORDER.filter((a) => c.coherenceAspects[a].n > 0).map((a) => {
          const s = c.coherenceAspects[a];
          return [label(a), count(s.n), s.mean === null ? '—' : s.mean.toFixed(2), s.sd === null ? '—' : s.sd.toFixed(2)];
        }),
      ),
      table(
        id('coherence-issues'),
        'Coherence issue taxonomy',
        'Table 10. Records with at least one coherence manifestation of each group (mentions: every manifestation counted), all servers.',
        ['Issue group', 'Records', 'Mentions'],
        c.coherenceIssues.map((i) => [i.group, count(i.records), count(i.mentions)]),
        undefined,
        `No coherence issue in the ${c.coh.n} records with a coherence score.`,
      ),
    );

  if (k.tc)
    tables.push(
      table(
        id('tools'),
        'Lowest-scoring tools',
        'The 15 tools with the lowest mean TC over the records that call them.',
        ['Server', 'Tool', 'Params', 'Optional', 'Records', 'TC', 'Coh'],
        j.tools
          .filter((t) => t.meanTc !== null)
          .slice(0, 15)
          .map((t) => [t.server, t.tool, t.params === null ? '—' : count(t.params), pct(t.optionalRatio), count(t.records), f3(t.meanTc), f3(t.meanCoh)]),
        [L, L, R, R, R, R, R],
      ),
    );

  return { id: id('judge'), title, ...(notes.length ? { notes } : {}), tables };
}

/** "n (p%)" of a count out of a total. */
const countShare = (n: number, of: number): string => (of ? `${n} (${pct(n / of)})` : count(n));

/**
 * The paper's Table 9 for these harnesses: mock outputs by the grounding tier their record
 * stores, a row per server (and the total over several), then the paper's own figures.
 */
function mockGroundingTable(structure: readonly ServerStructure[]): ReportTable {
  const total = (key: keyof MockGroundingCounts | 'outputSchema'): number => structure.reduce((n, st) => n + st.mockGrounding[key], 0);
  const row = (name: string, g: MockGroundingCounts, schema: string): string[] => [
    name,
    count(g.outputs),
    countShare(g.high, g.outputs),
    countShare(g.medium, g.outputs),
    countShare(g.low, g.outputs),
    schema,
  ];
  const paper = structure[0]?.mockGrounding.paper;
  const rows = structure.map((st) => row(st.name, st.mockGrounding, countShare(st.mockGrounding.outputSchema, st.mockGrounding.outputs)));
  if (structure.length > 1)
    rows.push(
      row(
        'All servers',
        { outputs: total('outputs'), high: total('high'), medium: total('medium'), low: total('low') },
        countShare(total('outputSchema'), total('outputs')),
      ),
    );
  if (paper && rows.length) rows.push(row('The paper (Appendix A.4; 7 servers)', paper, '—'));
  return table(
    'mock-grounding',
    'Mock-output grounding tiers',
    "Table 9's tiers, one count per mock output of the expected calls: high = the tool's own example outputs were the reference; medium = a similar tool's; low = no example output (the spec alone). An outputSchema is not an example: outputs made to follow one are counted apart and can be low. The paper's row is from its Appendix A.4, where Table 9 defines the tiers: its seven specs have no example outputs, so all 871 mock calls are low. A low output is made up from the spec: what an agent reads back from it is plausible, not what the real tool returns.",
    ['Server', 'Mock outputs', 'High', 'Medium', 'Low', 'With outputSchema'],
    rows,
  );
}

function structureSection(model: ReportModel): ReportSection {
  const primary = model.judges[0];
  const servers = primary?.servers ?? [];
  const tables: ReportTable[] = [];
  tables.push(
    table(
      'coverage',
      'Tool coverage and usage uniformity',
      `Table 5. Spec = tools in the spec, Used = spec tools in at least one record, Gini over calls per used tool (0 = uniform). Unknown = calls naming a tool the spec does not have. Multi-turn = scenarios expanded into a conversation: ${MULTI_TURN_BASE}; the CLI's generate summary says the same rate.`,
      ['Server', 'Spec', 'Used', 'Coverage', 'Gini', 'Unknown', 'Categories', 'Multi-tool records', 'Co-occurring pairs', 'Multi-turn (paper 16%)'],
      servers.map((s, i) => {
        const st = model.structure[i];
        const e = st?.expansion;
        return [
          s.name,
          s.toolsInSpec === null ? '—' : count(s.toolsInSpec),
          count(s.toolsUsed),
          pct(s.coverage),
          f3(s.gini),
          count(s.unknownToolCalls),
          count(s.categories),
          st ? count(st.multiToolRecords) : '—',
          st ? count(st.cooccurrence.length) : '—',
          e ? `${e.multiTurn} of ${e.records} (${pct(e.rate)})` : '—',
        ];
      }),
    ),
  );
  const k: Scored = primary ? scoredBy(primary) : { tc: false, coh: false, exact: false };
  const under = primary?.judge ?? 'no judge';
  tables.push(
    columns(
      'profile',
      'Schema complexity profile',
      `Table 15. |T| = tools, p̄ = mean parameters per tool, p_max = most parameters, Opt% = pooled optional share, depth = deepest nesting, w̄ = mean calls per record${k.tc || k.coh ? `; ${k.tc ? 'TC' : ''}${k.tc && k.coh ? ' and ' : ''}${k.coh ? 'Coh' : ''} under ${under}` : ''}.`,
      [
        { header: 'Server', cell: ({ st }) => st.name },
        { header: '|T|', cell: ({ st }) => (st.profile ? count(st.profile.tools) : '—') },
        { header: 'p̄', cell: ({ st }) => (st.profile ? st.profile.meanParams.toFixed(1) : '—') },
        { header: 'p_max', cell: ({ st }) => (st.profile ? count(st.profile.maxParams) : '—') },
        { header: 'Opt%', cell: ({ st }) => (st.profile ? pct(st.profile.optionalRatio) : '—') },
        { header: 'Depth', cell: ({ st }) => (st.profile ? count(st.profile.maxDepth) : '—') },
        { header: 'w̄', cell: ({ s }) => (s?.meanWorkflowLength === null || s?.meanWorkflowLength === undefined ? '—' : s.meanWorkflowLength.toFixed(1)) },
        { header: 'TC', cell: ({ s }) => f3(s?.tc.mean), when: k.tc },
        { header: 'Coh', cell: ({ s }) => f3(s?.coh.mean), when: k.coh },
      ],
      model.structure.map((st, i) => ({ st, s: servers[i] })),
    ),
  );
  tables.push(mockGroundingTable(model.structure));
  model.structure.forEach((st, i) => {
    tables.push(
      table(
        `categories-${i}`,
        `Categories — ${st.name}`,
        'Records per scenario category and tier (Appendix G).',
        ['Category', 'Simple', 'Complex'],
        st.categories.map((c) => [c.category, count(c.simple), count(c.complex)]),
      ),
      table(
        `pairs-${i}`,
        `Most frequent tool pairs — ${st.name}`,
        'Top co-occurring pairs (same record, undirected) and sequential transitions (A immediately before B).',
        ['Kind', 'Tools', 'Records / transitions'],
        // No rows: every record calls one tool (the coverage table counts multi-tool records).
        [
          ...st.cooccurrence.slice(0, 10).map((e) => ['co-occurrence', `${e.source} + ${e.target}`, count(e.weight)]),
          ...st.adjacency.slice(0, 10).map((e) => ['transition', `${e.source} → ${e.target}`, count(e.weight)]),
        ],
        [L, L, R],
      ),
    );
  });
  return { id: 'structure', title: 'Harness structure', tables };
}

function agreementRows(name: string, a: PairedAgreement): string[] {
  const ba = a.blandAltman;
  return [
    name,
    count(a.n),
    f3(a.pearson.r),
    f3(a.spearman.r),
    f3(a.mae),
    pct(a.within01),
    `${signed(a.meanDiff)} ${interval(a.meanDiffCi)}`.trim(),
    ba.lower === null || ba.upper === null ? '—' : `[${ba.lower.toFixed(3)}, ${ba.upper.toFixed(3)}]`,
  ];
}

function agreementSection(p: JudgePair, i: number): ReportSection {
  return {
    id: `agreement-${i}`,
    title: `Judge agreement — ${p.b} vs ${p.a}`,
    tables: [
      table(
        `agreement-records-${i}`,
        'Record-level agreement',
        `Table 13 and Appendix A.8. Records scored by both judges, paired by (server, record id). Δμ = mean of ${p.b} − ${p.a} with its bootstrap CI; LoA = Bland–Altman limits (Δμ ± 1.96 sd).`,
        ['Score', 'n', 'Pearson r', 'Spearman ρ', 'MAE', '±0.1', 'Δμ [95% CI]', 'LoA'],
        [agreementRows('Tool calling', p.tc), agreementRows('Coherence', p.coh)],
      ),
      table(
        `agreement-servers-${i}`,
        'Per-server means under each judge',
        `Table 12. Means of the paired records with bootstrap CIs. Server-rank Spearman ρ: TC ${f3(p.tc.serverRank.r)} (n = ${p.tc.serverRank.n}), Coh ${f3(p.coh.serverRank.r)} (n = ${p.coh.serverRank.n}).`,
        ['Server', 'n', `TC ${p.a}`, `TC ${p.b}`, `Coh ${p.a}`, `Coh ${p.b}`],
        p.tc.servers.map((s, k) => {
          const coh = p.coh.servers[k];
          return [
            s.name,
            count(Math.max(s.n, coh?.n ?? 0)),
            meanCi(s.a, s.aCi),
            meanCi(s.b, s.bCi),
            coh ? meanCi(coh.a, coh.aCi) : '—',
            coh ? meanCi(coh.b, coh.bCi) : '—',
          ];
        }),
      ),
      table(
        `agreement-arguments-${i}`,
        'Argument sub-dimension failures under each judge',
        'Table 14. Records with the sub-dimension below 1.0, all records.',
        ['Sub-dimension', p.a, p.b],
        p.argumentFailures.map((f) => [label(f.subdimension), count(f.a), count(f.b)]),
      ),
    ],
  };
}

const passK = (row: LeaderboardRow, s: AgentScores): string => (s.passHatK === null ? '—' : `${f3(s.passHatK)} (k = ${row.k})`);
const agentCells = (row: LeaderboardRow, s: AgentScores): string[] => [
  count(s.scenarios),
  count(s.scenarioRuns),
  withCi(s.callScore),
  withCi(s.exactCallMatch),
  withCi(s.nameMatch),
  withCi(s.argumentAccuracy),
  s.precision === null ? '—' : f3(s.precision),
  s.orderAccuracy === null ? '—' : f3(s.orderAccuracy),
  s.turnAccuracy === null ? '—' : f3(s.turnAccuracy),
  s.tc.n ? withCi(s.tc) : '—',
  s.coh.n ? withCi(s.coh) : '—',
  pct(s.passRate),
  passK(row, s),
];

function leaderboardSection(model: ReportModel): ReportSection {
  const level = Math.round(model.settings.level * 100);
  const board = model.leaderboard;
  return {
    id: 'leaderboard',
    title: 'Agent leaderboard',
    tables: [
      table(
        'leaderboard',
        'Agents by call score',
        `Every trajectory under each harness's runs/ folder, re-scored against the harness's records by replaying its calls through the mock's rules. Per scenario (averaged over its runs): call score (the headline) = expected calls right at the first attempt over expected calls plus calls the mock refused, so retrying until accepted, calling out of order or calling what nobody asked for all lower it; exact = expected calls right at the first attempt; name = expected calls whose tool was called at all (what most tools report); arguments = the first attempts' arguments right; precision = answered calls over all calls; order = dependent calls never made before their source; turns = calls never made before the user asked for them (— when no scenario has such a constraint); means with ${level}% bootstrap CIs over scenarios (B = ${model.settings.resamples}). TC and Coh = the LLM judge in oracle mode (agent-seer run --judge), over the scenarios it judged; — without judgments. Pass = runs with every call right at the first attempt and no call refused; pass^k = all k runs of a scenario pass. Ordered by call score, then exact call match, then argument accuracy.`,
        ['Agent', ...AGENT_SCORE_COLUMNS],
        board.map((r) => [r.agent, ...agentCells(r, r.overall)]),
      ),
      table(
        'leaderboard-tiers',
        'Agents by tier',
        'The same scores over simple-tier and complex-tier scenarios.',
        ['Agent', 'Tier', ...AGENT_SCORE_COLUMNS],
        board.flatMap((r) => (['simple', 'complex'] as const).map((t) => [r.agent, t, ...agentCells(r, r.tiers[t])])),
        [L, L, ...AGENT_SCORE_COLUMNS.map(() => R)],
      ),
      table(
        'leaderboard-errors',
        'Most frequent mistakes',
        `Each agent's most frequent mistakes over every run: wrong = another value, missing = left out, extra = a parameter the oracle does not set, missed call = an expected call never made, extra call = a call no expected call took. Parameter "—" = the whole call.`,
        ['Agent', 'Server', 'Tool', 'Parameter', 'Verdict', 'Count'],
        board.flatMap((r) => r.topErrors.map((e) => [r.agent, e.server, e.tool, e.parameter ?? '—', e.verdict.replace('-', ' '), count(e.count)])),
        [L, L, L, L, L, R],
      ),
    ],
  };
}

/**
 * The corpus at a glance (a report over several harnesses): one row per server and the corpus
 * total, under the first judge; the paper's Table 3 (scores by MCP) with its Table 6 (scenarios
 * and records by MCP).
 */
function corpusSection(model: ReportModel, j: JudgeReport): ReportSection {
  const k = scoredBy(j);
  const scores = [
    k.tc || k.coh
      ? `${[k.tc ? 'TC' : '', k.coh ? 'Coh' : ''].filter(Boolean).join(' and ')} scored = records with that score under ${j.judge ?? 'no judge'} (record means, ${Math.round(model.settings.level * 100)}% percentile bootstrap, B = ${model.settings.resamples})`
      : '',
    k.exact ? "Grounding = share of argument values found in the user's words, an earlier output or the schema. " + EXACT_SCOPE.replace(/\.$/, '') : '',
  ].filter(Boolean);
  return {
    id: 'corpus',
    title: 'Corpus',
    tables: [
      columns(
        'corpus',
        'Servers of the corpus',
        `Tables 3 and 6, one row per server and the corpus total (all servers pooled). Tools = tools in the spec; Scenarios = harness records; Records = records as the paper counts them (every scenario as its single-turn task plus the conversation of each multi-turn scenario)${scores.map((x) => `; ${x}`).join('')}.`,
        corpusColumns(k),
        [...j.servers, j.corpus],
      ),
    ],
  };
}

/** The faults of a scenario shown in its cell; the JSON report has them all. */
const FAULTS_SHOWN = 5;

/** One argument at fault: "call 2 create_message · body: ungrounded (reason)". */
function faultText(f: WorstScenarios['scenarios'][number]['faults'][number]): string {
  const where = [f.call === null ? 'the turn' : `call ${f.call + 1}${f.tool ? ` ${f.tool}` : ''}`, f.param ?? '—'].join(' · ');
  return `${where}: ${f.kind}${f.view === 'conversation' ? ' (conversation)' : ''} — ${f.reason}`;
}

/**
 * The scenarios to fix first (the report's opening): the lowest scores under the primary judge
 * with the judge's notes and the arguments at fault; one line when nothing fails.
 */
function worstSection(w: WorstScenarios): ReportSection {
  const base = { id: 'worst', title: 'Worst scenarios' };
  if (w.judge === null || w.by === null)
    return { ...base, notes: ['No judged scenario yet: agent-seer judge HARNESS_DIR scores them, and the report then opens on the ones to fix.'], tables: [] };
  if (!w.scenarios.length)
    return {
      ...base,
      notes: [`Nothing fails: every scenario scores 1 under judge ${w.judge}${w.by === 'tc' ? ' (TC)' : ' (exact)'} with no exact argument finding.`],
      tables: [],
    };
  const many = new Set(w.scenarios.map((x) => x.server)).size > 1;
  // A column nobody has is left out (a judge that stores no exact facts has no argument at fault).
  const faults = w.scenarios.some((x) => x.faults.length > 0);
  const notes = w.by === 'tc' && w.scenarios.some((x) => x.notes.length > 0);
  type Row = WorstScenarios['scenarios'][number];
  const t = columns<Row>(
    'worst',
    'Scenarios to fix first',
    `${w.failing} failing ${w.failing === 1 ? 'scenario' : 'scenarios'} under judge ${w.judge}${w.failing > w.scenarios.length ? `, the ${w.scenarios.length} lowest shown` : ''}; by ${w.by === 'tc' ? 'TC' : 'exact argument score'} (the lowest of the single-turn task and the conversation), then by the number of exact findings, ties by id. Record = its file under the harness folder's records/ (linked from where the report was written).${faults ? ' Arguments at fault: call (from 1), tool, parameter, finding kind and reason.' : ''}${notes ? " Judge's notes = the LLM judge's rationale." : ''}${w.by === 'exact' ? ` ${EXACT_SCOPE}` : ''}`,
    [
      { header: 'Record', cell: (x) => x.record },
      { header: 'Server', cell: (x) => x.server, align: L, when: many },
      { header: 'Title', cell: (x) => x.title, align: L },
      { header: w.by === 'tc' ? 'TC' : 'Exact', cell: (x) => f3(x.score) },
      { header: 'Findings', cell: (x) => count(x.findings) },
      { header: "Judge's notes", cell: (x) => x.notes.join(' ') || '—', align: L, when: notes },
      {
        header: 'Arguments at fault',
        cell: (x) =>
          x.faults.length
            ? x.faults.slice(0, FAULTS_SHOWN).map(faultText).join('; ') +
              (x.faults.length > FAULTS_SHOWN ? `; and ${x.faults.length - FAULTS_SHOWN} more (JSON report)` : '')
            : '—',
        align: L,
        when: faults,
      },
    ],
    w.scenarios,
  );
  return { ...base, tables: [{ ...t, links: w.scenarios.map((x) => x.link ?? x.file) }] };
}

/** Scenarios the previous-report section lists at most (the JSON has them all). */
const SINCE_SHOWN = 50;

/** "Since the previous report" (`report --previous`): the corpus scores then and now, and the scenarios that changed, worst first. */
function sinceSection(since: SinceReport): ReportSection {
  const notes = [`Compared with the previous report ${since.previous}.`];
  if (since.judge.before !== since.judge.after)
    notes.push(
      `Its primary judge was ${since.judge.before ?? '(none)'}, this report's is ${since.judge.after ?? '(none)'}: their scores are side by side, not on one scale.`,
    );
  if (!since.counts) notes.push('The previous report lists no scenarios (an older agent-seer wrote it): only the scores are compared.');
  const scores = table(
    'since-scores',
    'Scores then and now',
    "Corpus figures of each report's primary judge: mean TC and Coh (an LLM judge's), the exact score, and the determined share of argument values.",
    ['Score', 'Then', 'Now', 'Change'],
    since.scores.map((x) => [
      x.score === 'determined' ? 'determined share' : x.score === 'tc' ? 'TC' : x.score === 'coh' ? 'Coh' : 'exact',
      f3(x.before),
      f3(x.after),
      signed(x.delta),
    ]),
  );
  const tables = [scores];
  const c = since.counts;
  if (c) {
    const change = (names: readonly string[], s: SinceReport['scenarios'][number]): string =>
      names
        .map((n) => {
          if (n === 'verdict') return `verdict ${s.verdict.before} → ${s.verdict.after}`;
          const sc = s.scores.find((x) => scoreLabel(x) === n);
          return sc ? `${n} ${f3(sc.before)} → ${f3(sc.after)}` : n;
        })
        .join('; ') || '—';
    const shownRows = since.scenarios.slice(0, SINCE_SHOWN);
    tables.push(
      table(
        'since-scenarios',
        'Scenarios since the previous report',
        `${c.worse} worse, ${c.better} better, ${c.unchanged} unchanged; ${c.new} new, ${c.vanished} vanished (paired by id, ${c.matchedByTitle} by title). Worse first (a pass turned fail, then the largest drop), then new, then vanished${since.scenarios.length > SINCE_SHOWN ? `; the first ${SINCE_SHOWN} of ${since.scenarios.length} shown (the JSON has all)` : ''}. Scores of the conversation view are named so.`,
        ['Scenario', 'Title', 'Change', 'Worse', 'Better', 'Verdict', 'Fails now because'],
        shownRows.map((s) => [
          scenarioName(s),
          s.title,
          s.status === 'matched' ? (s.matchedBy === 'title' ? 'paired by title' : 'changed') : s.status,
          change(s.worse, s),
          change(s.better, s),
          `${s.verdict.before ?? '—'} → ${s.verdict.after ?? '—'}`,
          s.failures.slice(0, 2).join('; ') + (s.failures.length > 2 ? `; and ${s.failures.length - 2} more` : '') || '—',
        ]),
        [L, L, L, L, L, L, L],
        'No scenario changed: every scenario of the previous report is here, with the same scores and verdict.',
      ),
    );
  }
  return { id: 'since', title: 'Since the previous report', notes, tables };
}

/** What changed in the spec of harnesses regenerated with --only-stale (from their manifests). */
function specChangesSection(model: ReportModel): ReportSection {
  const names = (xs: readonly string[]): string => xs.join(', ') || '—';
  return {
    id: 'spec-changes',
    title: 'Spec changes',
    tables: [
      table(
        'spec-changes',
        'Spec changes since the harness was generated',
        'Tools added, removed and changed (with the fields that differ) between the spec a harness was generated from and the one its stale records were regenerated for; records of unchanged tools were kept as they were.',
        ['Server', 'Added', 'Removed', 'Changed', 'Kept', 'Regenerated', 'New records'],
        model.specChanges.map((d) => [
          d.server,
          names(d.added),
          names(d.removed),
          names(d.changed.map((c) => `${c.name} (${c.parts.join(', ')})`)),
          count(d.kept),
          count(d.regenerated),
          count(d.written),
        ]),
        [L, L, L, L, R, R, R],
      ),
    ],
  };
}

/** What the LLM work on each harness cost (generation from its manifest, judges from their stored usage). */
function costSection(model: ReportModel): ReportSection {
  const tokens = (n: number): string => n.toLocaleString('en-US');
  type Cost = ReportModel['cost'][number];
  // Judges' rows have no call count or estimate: without a generation row those columns are left out.
  const calls = model.cost.some((c) => c.calls !== null);
  const estimate = model.cost.some((c) => c.estimate !== null);
  return {
    id: 'cost',
    title: 'Cost',
    tables: [
      columns<Cost>(
        'cost',
        'Cost of generation and judging',
        `USD of the tokens each activity used, at the price of its mode (sync or batch) from the table named${estimate ? '; the estimate is the one made before the generation run (batch price in parentheses)' : ''}. Judges are priced at the built-in table from the tokens their judgments record.`,
        [
          { header: 'Server', cell: (c) => c.server },
          { header: 'What', cell: (c) => c.what, align: L },
          { header: 'Model', cell: (c) => c.model, align: L },
          { header: 'Calls', cell: (c) => (c.calls === null ? '—' : count(c.calls)), when: calls },
          { header: 'Tokens in', cell: (c) => tokens(c.inputTokens) },
          { header: 'Tokens out', cell: (c) => tokens(c.outputTokens) },
          { header: 'Cost', cell: (c) => `${formatUsd(c.usd)} (${c.mode})` },
          {
            header: 'Estimate',
            cell: (c) => (c.estimate ? `${formatEstimateUsd(c.estimate.usd, c.estimate.batchUsd)}, ${count(c.estimate.calls)} calls` : '—'),
            align: L,
            when: estimate,
          },
          { header: 'Prices', cell: (c) => (c.prices.source === 'built-in' ? `built-in, ${c.prices.date}` : `${c.prices.source}, ${c.prices.date}`), align: L },
        ],
        model.cost,
      ),
    ],
  };
}

/**
 * Whether a table has something to show: rows, or a text saying what no rows mean. A table of
 * no rows (a score nobody gave, pairs of a one-tool harness) is left out, and so is a section
 * left with no table and no note.
 */
const shown = (t: ReportTable): boolean => t.rows.length > 0 || t.empty !== undefined;

/** Every table of a report, grouped into sections, in reading order; nothing empty. */
export function reportTables(model: ReportModel): ReportSection[] {
  return allSections(model)
    .map((s) => ({ ...s, tables: s.tables.filter(shown) }))
    .filter((s) => s.tables.length > 0 || (s.notes?.length ?? 0) > 0);
}

function allSections(model: ReportModel): ReportSection[] {
  return [
    // What to fix first: the report opens on it.
    worstSection(model.worst),
    // A CI reader's next question: what this change made worse.
    ...(model.since ? [sinceSection(model.since)] : []),
    // The leaderboard first when agents were run: it is what a report over runs is for.
    ...(model.leaderboard.length ? [leaderboardSection(model)] : []),
    // Then, for a corpus, its servers side by side: a single harness's report is unchanged.
    ...(model.judges[0] && model.judges[0].servers.length > 1 ? [corpusSection(model, model.judges[0])] : []),
    ...model.judges.map((j) => judgeSection(j, model)),
    structureSection(model),
    ...(model.specChanges.length ? [specChangesSection(model)] : []),
    ...(model.cost.length ? [costSection(model)] : []),
    ...model.agreement.map(agreementSection),
  ];
}

/**
 * A one-line summary of the primary judge's numbers per server (for the CLI and headers): the
 * scores it gave and nothing it did not; an exact score is followed by what it covers.
 */
export function headline(model: ReportModel): string[] {
  const j = model.judges[0];
  if (!j) return [];
  const k = scoredBy(j);
  const lines = rowsOf(j).map((s) => {
    const parts = [`n=${s.n}`];
    if (k.tc) parts.push(withCue(`TC ${withCi(s.tc)}`, tcCue(s)));
    if (k.coh) parts.push(withCue(`Coh ${withCi(s.coh)}`, cohCue(s)));
    if (s.exact.n) {
      const d = s.exactArguments.determinacy;
      const determined = d.checked ? `, determined ${pct(d.rate)}` : '';
      parts.push(
        `exact ${f3(s.exact.mean)}${s.exactArguments.grounding.values ? ` (values grounded ${pct(s.exactArguments.grounding.rate)}${determined})` : ''}`,
      );
    }
    return `${s.name}: ${parts.join(', ')}`;
  });
  return [...lines, ...(k.tc || k.coh ? [RANGES_NOTE] : []), ...(k.exact ? [EXACT_SCOPE] : [])];
}
