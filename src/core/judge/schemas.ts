/**
 * The judge's contracts: what an LLM judge must reply (`TcReply`, `CohReply`, sent as the
 * structured-output schema), what a trajectory to judge looks like (`Trajectory`), and what is
 * stored under `judgments[<judge id>]` of a record (`StoredJudgment`, a superset of the harness
 * format's loose `Judgment`).
 *
 * Reply objects are strict with every field required (absent things are `null`), so OpenAI's
 * strict JSON-schema mode accepts them and Gemini gets a closed shape; arguments are never
 * free-form objects in a reply. Each record is asked with its own reply schema
 * (`tcReplySchema`, `cohReplySchema`): the exact number of turns, its call numbers as an enum,
 * scores as enums of their scale. What a schema cannot say (a finding's call outside its turn, a
 * coherence score that disagrees with its manifestations) is fixed in `reconcile.ts`, with a note.
 */
import { z } from 'zod';
import { Judgment } from '../harness/format';
import {
  ARGUMENT_REPORT_KEYS,
  ARGUMENT_SUBS,
  COH_MANIFESTATIONS,
  FINDING_KINDS,
  TC_SUBDIMENSION_KEYS,
  type ArgumentSub,
  type ArgumentSubdimension,
  type CohAspect,
} from '../vocabulary';

/** What the judge checks for each argument sub-dimension (the reply schema's descriptions). */
const ARGUMENT_CHECKS: Record<ArgumentSub, string> = {
  completeness: 'All required parameters present',
  name: 'Parameter names match the schema exactly',
  value: 'Values correct and grounded in the user messages or earlier outputs',
  type: 'Values have the declared types',
  format: 'Values follow the expected formats',
  relevancy: 'No extra or invalid parameters',
};

/** The judge's tool-calling scale: whole points 0–10 (Table 18). */
export const TC_SCORE_VALUES: readonly number[] = Array.from({ length: 11 }, (_, i) => i);
/** The coherence scale (Table 19): 1 poor, 2 adequate, 3 good. */
export const COH_SCORE_VALUES = [1, 2, 3] as const;

/**
 * An enum of whole numbers, as both structured-output modes accept it (`{type: number, enum: [...]}`).
 * A single value is the range [v, v]: zod writes a one-value literal as `const`, which not every
 * provider takes.
 */
const numberEnum = (values: readonly number[]): z.ZodType<number> =>
  values.length === 1
    ? z
        .number()
        .int()
        .min(values[0] as number)
        .max(values[0] as number)
    : z.literal(values as [number, ...number[]]);

const score10 = (what: string): z.ZodType<number> => numberEnum(TC_SCORE_VALUES).describe(`${what} (0 = entirely wrong, 10 = flawless)`);

/**
 * What a reply schema is built from: the judged view's number of turns and its call numbers.
 * Each record gets its own schema, so the model is told, not asked in prose, how many turns to
 * score and which call numbers exist.
 */
export interface ReplyShape {
  /** Turns of the judged view. */
  turns: number;
  /** Call numbers of the judged view (what findings may cite). */
  calls: readonly number[];
}

/** No particular view: any turn count from 1, any call number. The exported static schemas (types, fixtures) use it. */
const LOOSE_SHAPE: ReplyShape = { turns: 0, calls: [] };

const turnNumber = (shape: ReplyShape): z.ZodType<number> =>
  (shape.turns > 0 ? numberEnum(Array.from({ length: shape.turns }, (_, i) => i)) : z.number().int().min(0)).describe('Turn number, from 0.');

const turnsOf = <T extends z.ZodType>(item: T, shape: ReplyShape, what: string) => {
  const base = z.array(item);
  return (shape.turns > 0 ? base.length(shape.turns) : base.min(1)).describe(what);
};

/** One problem the judge found, located at a call and parameter where it can be. */
export function tcFindingSchema(shape: ReplyShape) {
  const call = shape === LOOSE_SHAPE ? z.number().int().min(0).nullable() : shape.calls.length ? numberEnum(shape.calls).nullable() : z.null();
  return z.strictObject({
    call: call.describe(
      'Call number as shown in the transcript (one of the calls of this turn); null when the problem concerns the whole turn (e.g. a tool that was never called).',
    ),
    param: z.string().nullable().describe('Parameter path such as "limit" or "filter.status"; null when the problem is not about one parameter.'),
    subdimension: z.enum(TC_SUBDIMENSION_KEYS).describe('The sub-dimension the problem lowers.'),
    score: score10('The score this problem deserves on that sub-dimension'),
    kind: z
      .enum(FINDING_KINDS)
      .describe('ungrounded: the value appears neither in the user messages nor in any earlier tool output; incorrect: a wrong value; the others as named.'),
    reason: z.string().describe('What is wrong and what would be right, in one actionable sentence.'),
  });
}
export const TcFinding = tcFindingSchema(LOOSE_SHAPE);
export type TcFinding = z.infer<typeof TcFinding>;

/** The judge's scores of one turn (Table 18's sub-dimensions, 0–10). */
export function tcTurnReplySchema(shape: ReplyShape) {
  return z.strictObject({
    turn: turnNumber(shape),
    reasoning: z.string().describe('One or two sentences on the calls of this turn, written before scoring.'),
    usage: z.strictObject({
      necessity: score10('Was a tool needed at all'),
      overuse: score10('Absence of redundant or unnecessary calls'),
    }),
    selection: z.strictObject({
      correctness: score10('The chosen tools match the task'),
      specificity: score10('The most specific tool was chosen'),
      completeness: score10('All tools needed were called'),
    }),
    ordering: z
      .strictObject({
        sequence_logic: score10('The order is logical'),
        dependency_handling: score10('Output-to-input dependencies are respected'),
        execution_efficiency: score10('No better order or fewer round trips'),
      })
      .nullable()
      .describe('Null when the turn has fewer than two calls.'),
    arguments: z
      .strictObject(
        // Keyed by the paper's Table 14 names, as the report is; the vocabulary maps them to the stored `arguments.<sub>` keys.
        Object.fromEntries(ARGUMENT_SUBS.map((s) => [ARGUMENT_REPORT_KEYS[s], score10(ARGUMENT_CHECKS[s])])) as Record<ArgumentSubdimension, z.ZodType<number>>,
      )
      .nullable()
      .describe('Null when the turn has no calls.'),
    findings: z.array(tcFindingSchema(shape)).describe('One entry per problem; every sub-score below 10 needs at least one.'),
  });
}
export const TcTurnReply = tcTurnReplySchema(LOOSE_SHAPE);
export type TcTurnReply = z.infer<typeof TcTurnReply>;

/** The tool-calling judge's reply for a view of this shape: exactly one entry per turn. */
export function tcReplySchema(shape: ReplyShape) {
  return z.strictObject({ turns: turnsOf(tcTurnReplySchema(shape), shape, 'One entry per turn, in order.') });
}
export const TcReply = tcReplySchema(LOOSE_SHAPE);
export type TcReply = z.infer<typeof TcReply>;

const aspect = <A extends CohAspect>(a: A, what: string) =>
  z.strictObject({
    score: numberEnum(COH_SCORE_VALUES).describe(`${what}: 3 good (no manifestation), 2 adequate (1–2 minor), 1 poor (3+ or critical)`),
    manifestations: z.array(z.enum(COH_MANIFESTATIONS[a])).describe('The manifestations detected; empty exactly when the score is 3.'),
  });

/** The coherence judge's scores of one turn (Table 19, 1–3). */
export function cohTurnReplySchema(shape: ReplyShape) {
  return z.strictObject({
    turn: turnNumber(shape),
    reasoning: z.string().describe('One or two sentences on the reply of this turn, written before scoring.'),
    logical_flow: aspect('logical_flow', 'Follows from the request and earlier turns'),
    completeness: aspect('completeness', 'Addresses every part of the request'),
    conciseness: aspect('conciseness', 'No repetition or waste'),
    topic_relevance: aspect('topic_relevance', 'Stays on the request'),
    context_retention: aspect('context_retention', 'Keeps and uses what was established earlier').nullable().describe('Null for the first turn (no history).'),
  });
}
export const CohTurnReply = cohTurnReplySchema(LOOSE_SHAPE);
export type CohTurnReply = z.infer<typeof CohTurnReply>;

/** The coherence judge's reply for a view of this shape: exactly one entry per turn. */
export function cohReplySchema(shape: ReplyShape) {
  return z.strictObject({ turns: turnsOf(cohTurnReplySchema(shape), shape, 'One entry per turn, in order.') });
}
export const CohReply = cohReplySchema(LOOSE_SHAPE);
export type CohReply = z.infer<typeof CohReply>;

/** One call an agent made (oracle mode), with what the replay returned when known. */
export const TrajectoryCall = z.object({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  /** The tool output the agent received (the record's mock output in a replay); absent when unknown. */
  output: z.unknown().optional(),
});
export type TrajectoryCall = z.infer<typeof TrajectoryCall>;

/**
 * What an agent did on a record, turn by turn: one turn for the single-turn task (`prompt`),
 * or exactly as many turns as the record's conversation.
 */
export const Trajectory = z.object({
  turns: z.array(z.object({ calls: z.array(TrajectoryCall), response: z.string().optional() })).min(1),
});
export type Trajectory = z.infer<typeof Trajectory>;

/** Where a stored finding came from. */
export const FindingSource = z.enum(['judge', 'exact', 'oracle']);

/**
 * One locatable problem: what the editor turns into a diagnostic at the call (or argument).
 * `callIndex` indexes `expected_tools` in unsupervised mode and the trajectory's calls
 * (flattened over turns) in oracle mode.
 */
export const StoredFinding = z.object({
  turn: z.number().int(),
  callIndex: z.number().int().nullable(),
  param: z.string().nullable(),
  subdimension: z.string(),
  /** 0–1. */
  score: z.number(),
  reason: z.string(),
  source: FindingSource,
  kind: z.string().optional(),
  /** Set when the finding was set aside by an exact fact (e.g. a chained value); says why. */
  waived: z.string().optional(),
});
export type StoredFinding = z.infer<typeof StoredFinding>;

/** Where the judge's reply and an exact fact disagreed; the fact's value was kept. */
export const Disagreement = z.object({
  turn: z.number().int(),
  subdimension: z.string(),
  /** The judge's score, 0–1. */
  judge: z.number(),
  /** The score kept, 0–1. */
  final: z.number(),
  callIndex: z.number().int().nullable().optional(),
  param: z.string().nullable().optional(),
  /** The facts that decided it. */
  reason: z.string(),
});
export type Disagreement = z.infer<typeof Disagreement>;

/** A cascade that lowered sub-scores of a turn. */
export const StoredCascade = z.object({
  rule: z.enum(['wrong-name', 'missing-required', 'wrong-value']),
  capped: z.array(z.object({ sub: z.string(), from: z.number(), to: z.number() })),
});

/** Scores of one turn. Sub-dimension and dimension maps use the same keys as the record level. */
export const TurnDetail = z.object({
  turn: z.number().int(),
  /** Indices of the judged calls of this turn (see `StoredFinding.callIndex`). */
  calls: z.array(z.number().int()),
  tc: z.number().nullable(),
  coh: z.number().nullable(),
  dimensions: z.record(z.string(), z.number().nullable()),
  subdimensions: z.record(z.string(), z.number().nullable()),
  cascades: z.array(StoredCascade),
  /** Coherence manifestations seen in this turn, by aspect. */
  manifestations: z.record(z.string(), z.array(z.string())),
  /** The judge's own short reasoning for this turn, when it gave one. */
  rationale: z.object({ tc: z.string().optional(), coh: z.string().optional() }).optional(),
});
export type TurnDetail = z.infer<typeof TurnDetail>;

/** Whether an aspect was scored: `not-judged` means the judge failed (a note says why), `not-scored` that this judge does not score it. */
export const AspectStatus = z.enum(['scored', 'not-judged', 'not-scored']);
export type AspectStatus = z.infer<typeof AspectStatus>;

/** The judgment of one view of a record, with its details. */
export const StoredViewJudgment = Judgment.extend({
  dimensions: z.record(z.string(), z.number().nullable()),
  subdimensions: z.record(z.string(), z.number().nullable()),
  judge: z.object({
    id: z.string(),
    provider: z.string(),
    model: z.string(),
    temperature: z.number().nullable(),
    mode: z.enum(['unsupervised', 'oracle']),
    /** Which view of the record was judged. */
    view: z.enum(['single-turn', 'multi-turn']),
    /** Prompt template version per judge stage. */
    promptVersions: z.record(z.string(), z.string()),
  }),
  /** Hash of everything the judgment depends on; equal hash → the judgment is current. */
  inputHash: z.string(),
  status: z.object({ tc: AspectStatus, coh: AspectStatus }),
  /**
   * Mean (0–1) of the argument sub-scores exact checks decide (completeness, name, value
   * grounding, type, format, relevancy), after cascades. Not TC: the offline judge's headline number.
   */
  exact: z.number().nullable(),
  /**
   * The six argument sub-scores behind `exact` (`arguments.value`, …, 0–1, means over turns), from
   * exact checks alone whichever judge this is. Optional: judgments before judge-4 lack it.
   */
  exactArguments: z.record(z.string(), z.number().nullable()).nullable().optional(),
  /**
   * Where the argument values of the judged calls come from (`checks/grounding.ts`): counts by
   * source; null when the record could not be laid out. Optional: judgments before judge-4 lack it.
   */
  grounding: z
    .object({ values: z.number(), user: z.number(), output: z.number(), schema: z.number(), none: z.number(), findings: z.number() })
    .nullable()
    .optional(),
  /**
   * Determinacy of the judged calls (`checks/determinacy.ts`): values grounded in the user's words
   * or an earlier output (`checked`), the ones the user's words and the outputs shown pin down
   * (`determined`), values taken from a list of several items (`fromLists`) and of those the ones
   * whose item the user identified (`identified`), and the findings (outputs contradicting their
   * call included). Null in oracle mode and when the record could not be laid out; optional:
   * judgments before judge-6 lack it.
   */
  determinacy: z
    .object({ checked: z.number(), determined: z.number(), fromLists: z.number(), identified: z.number(), findings: z.number() })
    .nullable()
    .optional(),
  turns: z.array(TurnDetail),
  findings: z.array(StoredFinding),
  disagreements: z.array(Disagreement),
  /** Coherence manifestations over all turns, by aspect (unique codes; the issue taxonomy). */
  manifestations: z.record(z.string(), z.array(z.string())),
  /** Tokens the judge calls took (also when served from the cache: what they cost once). */
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }),
});
export type StoredViewJudgment = z.infer<typeof StoredViewJudgment>;

/**
 * A stored judgment (what `judgeRecord` returns and the editor reads). As the paper counts
 * records (its Table 6: 337 scenarios gave 391 records), a scenario with a conversation is judged
 * twice, unsupervised: the top level is its single-turn view (the prompt, every call, the expected
 * response), `conversation` its multi-turn view. Single-turn scenarios and oracle judgments have
 * one view only.
 */
export const StoredJudgment = StoredViewJudgment.extend({
  conversation: StoredViewJudgment.optional(),
});
export type StoredJudgment = z.infer<typeof StoredJudgment>;
