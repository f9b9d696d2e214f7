/**
 * The vocabulary of the judge, in one place: dimension and sub-dimension keys (Table 18),
 * coherence aspects and their failure manifestations (Table 19). Stored judgments, judge replies,
 * findings and reports all use these exact strings.
 */

/** The four tool-calling dimensions (Table 18). */
export const TC_DIMENSIONS = ['usage', 'selection', 'ordering', 'arguments'] as const;
export type TcDimension = (typeof TC_DIMENSIONS)[number];

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
export type TcSubdimension = (typeof TC_SUBDIMENSION_KEYS)[number];

/** The six argument sub-dimensions, without the `arguments.` prefix (what cascades talk about). */
export const ARGUMENT_SUBS = ['completeness', 'name', 'value', 'type', 'format', 'relevancy'] as const;
export type ArgumentSub = (typeof ARGUMENT_SUBS)[number];

/**
 * Sub-dimensions that are recorded but left out of their dimension's score. Overuse is a
 * diagnostic: the paper takes usage from necessity alone ("necessity dominates appropriateness").
 */
export const DIAGNOSTIC_SUBDIMENSIONS: ReadonlySet<TcSubdimension> = new Set(['usage.overuse']);

/** The five coherence sub-aspects (Table 19), in the paper's order. */
export const COH_ASPECTS = ['context_retention', 'logical_flow', 'completeness', 'conciseness', 'topic_relevance'] as const;
export type CohAspect = (typeof COH_ASPECTS)[number];

/** The failure manifestations each coherence aspect checks for (Table 19's lists). */
export const COH_MANIFESTATIONS = {
  context_retention: ['asks_again', 'forgets_preferences', 'pronoun_confusion', 'contradicts_self', 'loses_thread', 'ignores_corrections'],
  logical_flow: ['topic_shift', 'non_sequitur', 'poor_transitions', 'breaks_causality', 'temporal_confusion'],
  completeness: ['cuts_off', 'partial_answer', 'too_shallow', 'ignores_constraints', 'missing_key_info', 'no_actionable_advice'],
  conciseness: ['repeats_directly', 'rephrases_same_point', 'too_much_fluff', 'over_explains', 'excessive_caution'],
  topic_relevance: ['complete_topic_shift', 'misses_main_point', 'too_generic', 'hallucination', 'wrong_question'],
} as const satisfies Record<CohAspect, readonly string[]>;

/** Kinds of a judge finding; `ungrounded` is the one the chained-value rule can waive. */
export const FINDING_KINDS = ['ungrounded', 'incorrect', 'missing', 'misnamed', 'extra', 'wrong_type', 'bad_format', 'redundant', 'wrong_tool', 'order', 'other'] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];
