/**
 * The vocabulary of judging and reporting, in one place and one spelling: tool-calling dimensions
 * and sub-dimensions (the paper's Table 18), coherence aspects and their failure manifestations
 * (Table 19), finding kinds, aggregation rules, their display labels, and the other spellings a
 * stored judgment may use. Stored judgments, judge replies, findings, reports and the report page
 * all take their keys from here.
 *
 * Import-free on purpose: the report webview bundle (`media/report/`) uses it without pulling in
 * zod or Node.
 *
 * Two key sets meet here. The judge stores argument sub-dimensions as `arguments.<sub>` with short
 * subs (`arguments.name`); the report's JSON contract (`schemas/report.schema.json`) names them
 * after the paper's Table 14 (`name_accuracy`). {@link ARGUMENT_REPORT_KEYS} is the one mapping
 * between the two.
 */

/** The four tool-calling dimensions (Table 18), in the judge's and the report's order. */
export const TC_DIMENSIONS = ['usage', 'selection', 'ordering', 'arguments'] as const;
/** One tool-calling dimension. */
export type TcDimension = (typeof TC_DIMENSIONS)[number];

/** Display label of each tool-calling dimension. */
export const DIMENSION_LABELS: Readonly<Record<TcDimension, string>> = {
  usage: 'Usage',
  selection: 'Selection',
  ordering: 'Ordering',
  arguments: 'Arguments',
};

/** Sub-dimensions of each TC dimension, as `dimension.sub` keys. */
export const TC_SUBDIMENSIONS = {
  usage: ['usage.necessity', 'usage.overuse'],
  selection: ['selection.correctness', 'selection.specificity', 'selection.completeness'],
  ordering: ['ordering.sequence_logic', 'ordering.dependency_handling', 'ordering.efficiency'],
  arguments: ['arguments.completeness', 'arguments.name', 'arguments.value', 'arguments.type', 'arguments.format', 'arguments.relevancy'],
} as const satisfies Record<TcDimension, readonly string[]>;

/** Every TC sub-dimension key. */
export const TC_SUBDIMENSION_KEYS = [
  ...TC_SUBDIMENSIONS.usage,
  ...TC_SUBDIMENSIONS.selection,
  ...TC_SUBDIMENSIONS.ordering,
  ...TC_SUBDIMENSIONS.arguments,
] as const;
/** One TC sub-dimension key (`arguments.value`). */
export type TcSubdimension = (typeof TC_SUBDIMENSION_KEYS)[number];

/** The six argument sub-dimensions, without the `arguments.` prefix (what cascades talk about), roots of the cascade first. */
export const ARGUMENT_SUBS = ['completeness', 'name', 'value', 'type', 'format', 'relevancy'] as const;
/** One argument sub-dimension as the judge names it. */
export type ArgumentSub = (typeof ARGUMENT_SUBS)[number];

/** The report's key of each argument sub-dimension (the paper's Table 14 names): the one judge ↔ report mapping. */
export const ARGUMENT_REPORT_KEYS = {
  completeness: 'completeness',
  name: 'name_accuracy',
  value: 'value_accuracy',
  type: 'type_compliance',
  format: 'format_compliance',
  relevancy: 'relevancy',
} as const satisfies Record<ArgumentSub, string>;
/** One argument sub-dimension as the report names it. */
export type ArgumentSubdimension = (typeof ARGUMENT_REPORT_KEYS)[ArgumentSub];

/** The report's argument sub-dimension keys, in {@link ARGUMENT_SUBS} order (cascade order: roots first). */
export const ARGUMENT_SUBDIMENSIONS = ARGUMENT_SUBS.map((s) => ARGUMENT_REPORT_KEYS[s]) as unknown as ReportKeysOf<typeof ARGUMENT_SUBS>;
/** A tuple of judge sub-dimensions mapped to the report's keys, element by element (keeps the tuple type for zod's enums). */
type ReportKeysOf<T extends readonly ArgumentSub[]> = { readonly [I in keyof T]: T[I] extends ArgumentSub ? (typeof ARGUMENT_REPORT_KEYS)[T[I]] : never };

/** Display label of each argument sub-dimension. */
export const ARGUMENT_LABELS: Readonly<Record<ArgumentSub, string>> = {
  completeness: 'Completeness',
  name: 'Name accuracy',
  value: 'Value accuracy',
  type: 'Type compliance',
  format: 'Format compliance',
  relevancy: 'Relevancy',
};

/**
 * Sub-dimensions that are recorded but left out of their dimension's score. Overuse is a
 * diagnostic: the paper takes usage from necessity alone ("necessity dominates appropriateness").
 */
export const DIAGNOSTIC_SUBDIMENSIONS: ReadonlySet<TcSubdimension> = new Set(['usage.overuse']);

/** The five coherence sub-aspects in Table 19's order: the order the judge asks and stores them in. */
export const COH_ASPECTS = ['context_retention', 'logical_flow', 'completeness', 'conciseness', 'topic_relevance'] as const;
/** One coherence aspect. */
export type CohAspect = (typeof COH_ASPECTS)[number];

/**
 * The top of the coherence scale (Table 19, 1–3). An aspect's 0–1 score is its 1–3 score divided
 * by it, the paper's normalisation: its Table 8 aspect means average 2.566 and its reported
 * coherence is 0.855 = 2.566 / 3.
 */
export const COH_SCALE_MAX = 3;

/** The same five aspects in Table 8's order: the order of the report's tables and JSON. */
export const REPORT_ASPECT_ORDER = [
  'logical_flow',
  'completeness',
  'conciseness',
  'topic_relevance',
  'context_retention',
] as const satisfies readonly CohAspect[];

/** Display label of each coherence aspect. */
export const ASPECT_LABELS: Readonly<Record<CohAspect, string>> = {
  context_retention: 'Context retention',
  logical_flow: 'Logical flow',
  completeness: 'Completeness',
  conciseness: 'Conciseness',
  topic_relevance: 'Topic relevance',
};

/** The failure manifestations each coherence aspect checks for (Table 19's lists). */
export const COH_MANIFESTATIONS = {
  context_retention: ['asks_again', 'forgets_preferences', 'pronoun_confusion', 'contradicts_self', 'loses_thread', 'ignores_corrections'],
  logical_flow: ['topic_shift', 'non_sequitur', 'poor_transitions', 'breaks_causality', 'temporal_confusion'],
  completeness: ['cuts_off', 'partial_answer', 'too_shallow', 'ignores_constraints', 'missing_key_info', 'no_actionable_advice'],
  conciseness: ['repeats_directly', 'rephrases_same_point', 'too_much_fluff', 'over_explains', 'excessive_caution'],
  topic_relevance: ['complete_topic_shift', 'misses_main_point', 'too_generic', 'hallucination', 'wrong_question'],
} as const satisfies Record<CohAspect, readonly string[]>;

/**
 * Kinds of a judge finding; `ungrounded` is the one the chained-value rule can waive;
 * `undetermined` is a value the user's words and the outputs shown do not pin down.
 */
export const FINDING_KINDS = [
  'ungrounded',
  'undetermined',
  'incorrect',
  'missing',
  'misnamed',
  'extra',
  'wrong_type',
  'bad_format',
  'redundant',
  'wrong_tool',
  'order',
  'other',
] as const;
/** One kind of judge finding. */
export type FindingKind = (typeof FINDING_KINDS)[number];

/** Aggregation rules across the TC dimensions (Appendix B). */
export const AGGREGATIONS = ['arithmetic', 'harmonic', 'minimum'] as const;
/** One aggregation rule. */
export type AggregationRule = (typeof AGGREGATIONS)[number];

/** A key as the alias tables compare it: lower case, letters and digits only (`Name-Accuracy` → `nameaccuracy`). */
export const normaliseKey = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Every spelling of a TC dimension a stored judgment may use (normalised), e.g. `tool_usage`, `args`. */
export const DIMENSION_ALIASES: Readonly<Record<string, TcDimension>> = {
  ...Object.fromEntries(
    TC_DIMENSIONS.flatMap((d) => [
      [d, d],
      [`tool${d}`, d],
    ]),
  ),
  args: 'arguments',
};

/** Namespaces (normalised) under which short keys (`value`, `completeness`) are argument sub-dimensions. */
export const ARGUMENT_NAMESPACES: ReadonlySet<string> = new Set(['arguments', 'args', 'argument', 'toolarguments']);

/** Every spelling of an argument sub-dimension (normalised): the judge's (`name`), the report's (`name_accuracy`), and `relevance`. */
export const ARGUMENT_ALIASES: Readonly<Record<string, ArgumentSub>> = {
  ...Object.fromEntries(
    ARGUMENT_SUBS.flatMap((s) => [
      [s, s],
      [normaliseKey(ARGUMENT_REPORT_KEYS[s]), s],
    ]),
  ),
  relevance: 'relevancy',
};

/** Namespaces (normalised) under which keys are coherence aspects. */
export const COHERENCE_NAMESPACES: ReadonlySet<string> = new Set(['coherence', 'coh']);

/** Every spelling of a coherence aspect (normalised): `logical_flow`, `logicalFlow`, … */
export const ASPECT_ALIASES: Readonly<Record<string, CohAspect>> = Object.fromEntries(COH_ASPECTS.map((a) => [normaliseKey(a), a]));

/**
 * Words for a stored sub-dimension key in messages: `arguments.value` → `value accuracy`,
 * `arguments.completeness` → `argument completeness` (so it is not taken for the coherence
 * aspect), `ordering.dependency_handling` → `dependency handling`.
 */
export function subdimensionLabel(key: string): string {
  const [dim, sub] = key.split('.');
  if (dim === 'arguments' && sub !== undefined && (ARGUMENT_SUBS as readonly string[]).includes(sub)) {
    return sub === 'completeness' ? 'argument completeness' : ARGUMENT_LABELS[sub as ArgumentSub].toLowerCase();
  }
  return (sub ?? key).replace(/_/g, ' ');
}
