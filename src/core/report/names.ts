/**
 * Names shared by the report model, the analysis and the browser script. Kept free of imports so
 * the webview bundle can use them without pulling in zod.
 */

/** Argument sub-dimensions (the paper's Table 14 names, in cascade order: roots first). */
export const ARGUMENT_SUBDIMENSIONS = ['completeness', 'name_accuracy', 'value_accuracy', 'type_compliance', 'format_compliance', 'relevancy'] as const;
/** One argument sub-dimension. */
export type ArgumentSubdimension = (typeof ARGUMENT_SUBDIMENSIONS)[number];

/** Tool-calling dimensions (Tables 4 and 11). */
export const TC_DIMENSIONS = ['usage', 'selection', 'ordering', 'arguments'] as const;
/** One tool-calling dimension. */
export type TcDimension = (typeof TC_DIMENSIONS)[number];

/** Coherence aspects (Tables 8 and 19). */
export const COHERENCE_ASPECTS = ['logical_flow', 'completeness', 'conciseness', 'topic_relevance', 'context_retention'] as const;
/** One coherence aspect. */
export type CoherenceAspect = (typeof COHERENCE_ASPECTS)[number];

/** Aggregation rules across the TC dimensions (Appendix B). */
export const AGGREGATIONS = ['arithmetic', 'harmonic', 'minimum'] as const;
/** One aggregation rule. */
export type AggregationRule = (typeof AGGREGATIONS)[number];
