/**
 * The harness file format, version 1: one record per scenario (`records/<id>.json`) plus a run
 * manifest (`manifest.json`). The field names of a record are a public contract (Table 1 of the
 * paper, our spelling): agents, judges and other tools read these files, so changes bump
 * `formatVersion`. The JSON Schemas in `schemas/` are generated from these zod schemas
 * (`harnessJsonSchemas`), never edited by hand.
 *
 * Records hold no wall-clock time, so an offline run with the same seed writes byte-identical
 * files; run times live in the manifest.
 */
import { z } from 'zod';
import { CostMode } from '../llm/pricing';

/** The one format version this code writes and reads. */
export const FORMAT_VERSION = 1;

/** Complexity tier of a scenario (the paper's two generation prompts). */
export const Tier = z.enum(['simple', 'complex']).describe('Scenario complexity tier: simple (everyday, short chains) or complex (multi-step, multi-tool).');
export type Tier = z.infer<typeof Tier>;

/** How much reference material backed a mock output (the paper's confidence level). */
export const Grounding = z
  .enum(['high', 'medium', 'low'])
  .describe(
    "The paper's Table 9 tiers. high: concrete example outputs of this very tool were the reference; medium: example outputs of a similar tool; low: no example (an outputSchema is not an example: it is recorded in outputSchema).",
  );
export type Grounding = z.infer<typeof Grounding>;

/** One expected tool call: the oracle an agent's call is scored against. */
export const ExpectedCall = z.object({
  name: z.string().describe('Tool name exactly as the spec lists it.'),
  arguments: z.record(z.string(), z.unknown()).describe("Arguments as a JSON object, valid against the tool's inputSchema."),
  explanation: z.string().describe('Why the call is made at this point of the workflow.'),
});
export type ExpectedCall = z.infer<typeof ExpectedCall>;

/** The synthetic response of one expected call (same index as in `expected_tools`). */
export const MockOutput = z.object({
  name: z.string().describe('Tool name; equals expected_tools[i].name.'),
  output: z.unknown().describe('The JSON the tool returns in the replay; valid against its outputSchema when it declares one.'),
  grounding: Grounding.describe('Reference material behind the output.'),
  outputSchema: z
    .boolean()
    .optional()
    .describe(
      'Whether the tool declares an outputSchema, which the output was made to follow. Recorded apart from grounding: a schema is not an example (Table 9).',
    ),
});
export type MockOutput = z.infer<typeof MockOutput>;

/** One user turn of a multi-turn conversation. */
export const ConversationTurn = z.object({
  prompt: z.string().describe('What the user says in this turn.'),
  calls: z.array(z.number().int().nonnegative()).describe('Indices into expected_tools of the calls the agent makes in this turn, in order.'),
  followup: z.string().describe('What the agent reports back at the end of the turn (concrete results).'),
});
export type ConversationTurn = z.infer<typeof ConversationTurn>;

/** Where a record came from: enough to reproduce it and to tell when it went stale. */
export const Provenance = z.object({
  provider: z.string().describe('Provider id (offline, gemini, openai-compatible, vscode-lm).'),
  model: z.string().describe('Model id as the provider names it (offline for the offline generator).'),
  temperature: z.number().nullable().describe('Sampling temperature of the generation calls; null when not applicable.'),
  seed: z.number().int().nullable().describe('Seed of the run; null when the provider is not seedable.'),
  promptVersions: z.record(z.string(), z.string()).describe("Version of each stage's prompt template (or generator) that produced the record, keyed by stage."),
  stageProviders: z
    .record(z.string(), z.string())
    .describe(
      'Which provider produced each stage when a run mixes providers, keyed by stage (offline: filled by the offline generator; none: the stage failed and nothing stands in for it).',
    )
    .optional(),
  toolHashes: z
    .record(z.string(), z.string())
    .describe('sha256 of the canonical JSON of every tool the record uses, keyed by tool name: a change marks the record stale.'),
  statedValues: z
    .number()
    .int()
    .positive()
    .describe(
      "How many argument values the model's request left unsaid, when there were some: the request was then rewritten by the model as text around slots that the code filled with every value the calls need (promptVersions.restate names the template), so the prompt states them all. Absent when the request already stated every value.",
    )
    .optional(),
  integrity: z
    .enum(['re-asked', 'repaired'])
    .describe(
      "How the mock outputs came to contain every value a later call uses, when the model's first reply did not: re-asked (a later reply did), repaired (the code added the missing values to earlier outputs). Absent when the first reply was consistent; records whose values stay unsupplied are discarded.",
    )
    .optional(),
  determinacy: z
    .enum(['re-asked', 'repaired', 'unresolved'])
    .describe(
      "How the mock outputs came to pin down every value a later call takes from them (one item of a list the user's words pick, outputs about their call's own values), when the model's first reply did not: re-asked (a later reply did), repaired (the code cut a list to the item used, or set an output's field to its call's value), unresolved (kept only with --fallback offline; checks.determinacy lists the findings). Absent when the first reply passed; without the fallback, records with findings are discarded.",
    )
    .optional(),
  response: z
    .literal('not-grounded')
    .describe(
      'The expected response quotes no value of the mock outputs even after a re-ask: kept as the model wrote it and labelled here (not counted as a repair). Absent when it quotes them (by construction when the outputs hold pinned values).',
    )
    .optional(),
});
export type Provenance = z.infer<typeof Provenance>;

/** Kinds of argument errors `validateCall` reports. */
export const CallErrorKind = z.enum(['unknown-tool', 'missing-required', 'unknown-param', 'type', 'enum', 'format', 'other']);
export type CallErrorKind = z.infer<typeof CallErrorKind>;

/** One exact argument error of one call. */
export const CallError = z.object({
  kind: CallErrorKind,
  param: z.string().describe('Dotted path of the parameter (owner, filter.status, items.0.id) when the error is about one.').optional(),
  message: z.string(),
});
export type CallError = z.infer<typeof CallError>;

/** An ID-like argument value that no earlier mock output and no user prompt contains. */
export const IntegrityViolation = z.object({
  callIndex: z.number().int().nonnegative().describe('Index of the call in expected_tools.'),
  param: z.string().describe('Dotted path of the argument.'),
  value: z.union([z.string(), z.number()]).describe('The value that came from nowhere.'),
});
export type IntegrityViolation = z.infer<typeof IntegrityViolation>;

/** A value a fair test could not ask for as it stands (`checks/determinacy.ts`). */
export const DeterminacyFinding = z.object({
  callIndex: z.number().int().nonnegative().describe('Index of the call in expected_tools.'),
  param: z.string().describe('Dotted path of the argument.'),
  value: z.union([z.string(), z.number()]).describe('The argument value.'),
  kind: z
    .enum(['item-not-identified', 'reused-statement', 'read-mismatch', 'output-contradicts-call'])
    .describe(
      "item-not-identified: taken from one item of a list of several that the user's words do not pick; reused-statement: a number the user stated for another call; read-mismatch: the call's output is about another identifier; output-contradicts-call: an output field named like the argument holds another value.",
    ),
  message: z.string().describe('What is wrong, in words.'),
});
export type DeterminacyFinding = z.infer<typeof DeterminacyFinding>;

/** A problem with a multi-turn split. */
export const TurnProblem = z.object({
  kind: z.enum(['missing-call', 'duplicate-call', 'bad-index', 'unknown-tool', 'single-turn', 'order', 'no-turns']),
  turn: z.number().int().describe('Turn index, when the problem is in one turn.').optional(),
  callIndex: z.number().int().describe('Workflow call index, when the problem is about one call.').optional(),
  message: z.string(),
});
export type TurnProblem = z.infer<typeof TurnProblem>;

/** Results of the checks a program can make exactly; recomputed whenever a record is (re)generated. */
export const RecordChecks = z.object({
  schemaValid: z.boolean().describe("Every expected call names a real tool and its arguments validate against the tool's inputSchema."),
  callErrors: z
    .array(z.object({ callIndex: z.number().int().nonnegative(), name: z.string(), errors: z.array(CallError) }))
    .describe('Argument errors per call (empty when schemaValid).'),
  unknownTools: z.array(z.string()).describe('Names of expected calls that are not tools of the spec.'),
  integrityViolations: z.array(IntegrityViolation).describe('Referential integrity: ID-like values of later calls that nothing earlier supplied.'),
  mockOutputsValid: z.boolean().nullable().describe("Mock outputs valid against the tools' outputSchemas; null when no tool used declares one."),
  outputErrors: z
    .array(z.object({ callIndex: z.number().int().nonnegative(), message: z.string() }))
    .describe('Output errors per call, for tools that declare an outputSchema.'),
  turnCoverage: z.number().min(0).max(1).nullable().describe('Share of workflow calls placed in exactly one turn; null for single-turn records.'),
  turnProblems: z.array(TurnProblem).describe('Problems of the multi-turn split (empty for single-turn records).'),
  determinacy: z
    .array(DeterminacyFinding)
    .describe(
      "Values the user's words and the outputs shown do not pin down, and outputs that contradict their call (single-turn and multi-turn views). Optional: records made before the check lack it.",
    )
    .optional(),
});
export type RecordChecks = z.infer<typeof RecordChecks>;

/**
 * One judge's verdict on a record (filled by the judge stage). Deliberately loose for now:
 * dimension and sub-dimension maps are keyed by the names of the paper's Tables 18 and 19.
 */
export const Judgment = z.looseObject({
  tc: z.number().nullable().describe('Tool-calling correctness in 0–1; null when not scored.'),
  coh: z.number().nullable().describe('Conversational coherence in 0–1; null when not scored.'),
  dimensions: z.record(z.string(), z.unknown()).describe('Dimension scores (usage, selection, ordering, arguments; coherence aspects).'),
  subdimensions: z.record(z.string(), z.unknown()).describe('Sub-dimension scores (e.g. arguments.value).'),
  notes: z.array(z.string()).describe('Free-text remarks of the judge.'),
});
export type Judgment = z.infer<typeof Judgment>;

/** The headline numbers of one judgment; null when absent or not a number. */
export interface JudgmentScores {
  tc: number | null;
  coh: number | null;
  /** The offline judge's exact argument score (0–1): not declared by the loose format, written by the judge. */
  exact: number | null;
}

/** Reads a judgment's headline numbers without casting (the format keeps judgments loose). */
export function judgmentScores(j: Judgment): JudgmentScores {
  const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
  return { tc: num(j.tc), coh: num(j.coh), exact: num(j.exact) };
}

/** One evaluation scenario: what the agent is asked, the oracle, and the replay data. */
export const HarnessRecord = z
  .object({
    formatVersion: z.literal(FORMAT_VERSION).describe('Format version of this file.'),
    id: z.string().min(1).describe('Stable id, also the file name (records/<id>.json).'),
    tier: Tier,
    category: z.string().describe('Scenario category (a business area or entity family).'),
    title: z.string().describe('Short title of the scenario.'),
    prompt: z.string().describe("The user's task in natural language; what the agent is shown in single-turn mode."),
    expected_tools: z.array(ExpectedCall).describe('The oracle: ordered expected tool calls. Held out from the agent.'),
    mock_outputs: z.array(MockOutput).describe('Synthetic output per expected call, aligned by index with expected_tools.'),
    expected_response: z.string().describe('The answer a good agent gives after the workflow; cites concrete mock values.'),
    conversation: z.array(ConversationTurn).describe('Multi-turn dialogue over the same workflow; empty for single-turn records.'),
    novelty_reason: z.string().describe('Why the scenario is worth evaluating (a reasoning field of the generator).'),
    agent_followup: z.string().describe('A natural follow-up the agent could offer at the end.'),
    provenance: Provenance,
    checks: RecordChecks,
    judgments: z.record(z.string(), Judgment).describe('Verdicts keyed by judge id (e.g. gemini-2.5-flash@judge-v1, deterministic).').optional(),
  })
  .describe('Agent Seer harness record (one evaluation scenario).');
export type HarnessRecord = z.infer<typeof HarnessRecord>;

/** A tool that got no scenario, and why. */
export const SkippedTool = z.object({ tool: z.string(), reason: z.string() });
export type SkippedTool = z.infer<typeof SkippedTool>;

/** Counts of a run (what the report's coverage and funnel figures read). */
export const ManifestCounts = z.object({
  records: z.number().int().nonnegative().describe('Records written.'),
  byTier: z.object({ simple: z.number().int().nonnegative(), complex: z.number().int().nonnegative() }).describe('Records per tier.'),
  multiCall: z.number().int().nonnegative().describe('Records with two or more calls.'),
  multiTurn: z.number().int().nonnegative().describe('Records with a multi-turn conversation.'),
  multiTurnRate: z
    .number()
    .min(0)
    .max(1)
    .nullable()
    .describe('Expansion rate: multiTurn / multiCall (the multi-call scenarios stage 4 may split; the paper reports 16%); null without multi-call records.')
    .optional(),
  coverageRound: z.number().int().nonnegative().describe("Scenarios added after the requested ones to reach tool coverage (the paper's follow-up round)."),
  /** Tool coverage: tools of the spec that appear in at least one record. */
  coverage: z.object({
    tools: z.number().int().nonnegative(),
    covered: z.number().int().nonnegative(),
    ratio: z.number().min(0).max(1).describe('covered / tools (1 for an empty spec).'),
    uncovered: z.array(z.string()),
  }),
  repaired: z.record(z.string(), z.number().int().nonnegative()).describe('Items fixed after a failed check, keyed by reason (e.g. args-resampled).'),
  discarded: z
    .record(z.string(), z.number().int().nonnegative())
    .describe('Items dropped, keyed by reason (e.g. turns:single-turn, schema-invalid-after-retries).'),
  skipped: z.array(SkippedTool).describe('Tools deliberately left out, with the reason.'),
});
export type ManifestCounts = z.infer<typeof ManifestCounts>;

/**
 * Status of a run; a manifest is rewritten as the run progresses. `partial`: the run ended, but
 * too many LLM items failed or were not made by the model (or a quota stopped it after some
 * records) for the harness to count as complete; `failed`: no usable result; `empty`: the run
 * ended without an error but wrote 0 records (every tool skipped, no scenario buildable), which is
 * never a success.
 */
export const RunStatus = z
  .enum(['running', 'complete', 'partial', 'failed', 'cancelled', 'pending', 'empty'])
  .describe(
    'running; complete; partial (ended with too many LLM items failed, discarded or filled offline, or stopped by a quota after some records); failed; cancelled; pending (batch mode with --no-wait: jobs were submitted and are still running; run the same command again to collect them); empty (the run ended but wrote 0 records, e.g. every tool was skipped: `error` says why).',
  );
export type RunStatus = z.infer<typeof RunStatus>;

/**
 * What became of the LLM items of a run (one per stage request: a tool's interpretation, a
 * scenario batch, a scenario's mock outputs, a turn split; plus each scenario the offline
 * generator wrote for coverage). Every item ends in exactly one outcome.
 */
export const ItemOutcomes = z
  .object({
    total: z.number().int().nonnegative().describe('Items of the run.'),
    llm: z.number().int().nonnegative().describe('Made by the model (cached replies included).'),
    failed: z.number().int().nonnegative().describe('Lost to transport faults after the retries (429, 5xx, timeouts); nothing was filled in.'),
    discarded: z.number().int().nonnegative().describe('Dropped after the re-asks (replies still invalid), with nothing filled in.'),
    offline: z
      .number()
      .int()
      .nonnegative()
      .describe('Filled by the offline generator (after invalid replies, or for coverage); their records say so in provenance.stageProviders.'),
    failedBy: z.record(z.string(), z.number().int().nonnegative()).describe('Failed items by <stage>:<reason>.'),
    degradedShare: z.number().min(0).max(1).describe('(failed + discarded + offline) / total; 0 when there are no items.'),
    offlineRecords: z.number().int().nonnegative().describe('Records with at least one stage written by the offline generator.'),
  })
  .describe('What became of the LLM items of a run.');
export type ItemOutcomes = z.infer<typeof ItemOutcomes>;

/** What a stale-only regeneration found changed in the spec (a diff of the two snapshots) and what it did. */
export const SpecDrift = z
  .object({
    fromHash: z.string().describe('Hash of the spec the harness was generated from before this run (spec.hash of the earlier manifest).'),
    added: z.array(z.string()).describe('Tools in the new spec that the earlier one did not have.'),
    removed: z.array(z.string()).describe('Tools of the earlier spec that the new one no longer has.'),
    changed: z
      .array(
        z.object({
          name: z.string(),
          parts: z.array(z.string()).describe('The fields of the tool that differ (inputSchema, description, annotations, …).'),
        }),
      )
      .describe('Tools whose definition differs.'),
    kept: z.number().int().nonnegative().describe('Records of unchanged tools, kept as they were (no LLM call).'),
    regenerated: z.number().int().nonnegative().describe('Stale records (using a changed or removed tool) this run replaced.'),
    written: z.number().int().nonnegative().describe('Records this run wrote for the changed and added tools.'),
  })
  .describe('What a stale-only regeneration (generate --only-stale) found changed in the spec and what it did.');
export type SpecDrift = z.infer<typeof SpecDrift>;

/** What a run was expected to cost before it started, and what its requests cost. */
export const RunCost = z
  .object({
    estimate: z
      .object({
        calls: z.number().int().nonnegative().describe('LLM requests expected.'),
        inputTokens: z.number().int().nonnegative().describe('Input tokens expected (characters ÷ 4 of the prompts).'),
        outputTokens: z.number().int().nonnegative().describe('Output tokens expected.'),
        usd: z.number().nonnegative().nullable().describe('Expected USD with synchronous calls; null when the model has no price.'),
        batchUsd: z.number().nonnegative().nullable().describe('Expected USD as a batch job; null when the model has no price.'),
        high: z
          .object({
            calls: z.number().int().nonnegative(),
            inputTokens: z.number().int().nonnegative(),
            outputTokens: z.number().int().nonnegative(),
            usd: z.number().nonnegative().nullable(),
            batchUsd: z.number().nonnegative().nullable(),
          })
          .describe(
            'The top of the range: the same figures with the re-asks, rewrites and extra rounds a model that does not follow its schemas costs, at the rate the corpus bench measured (src/core/pipeline/estimate.ts). Absent in older manifests.',
          )
          .optional(),
      })
      .describe('The estimate made before the run (absent when none was made): the figures a model that follows its schemas takes, and the top of the range.')
      .optional(),
    actual: z.object({
      usd: z
        .number()
        .nonnegative()
        .nullable()
        .describe("The run's requests priced: tokens.input and tokens.output at the model's price for the mode; null when the model has no price."),
      mode: CostMode.describe('How the requests were made: sync (one by one) or batch (a batch job, priced at its batch prices).'),
      prices: z
        .object({
          source: z.string().describe('built-in (the table in src/core/llm/pricing.ts), or the price file given.'),
          date: z.string().describe('The date of the price table.'),
        })
        .describe('Where the prices came from.'),
    }),
  })
  .describe('Cost of an LLM run in USD: the estimate before, the requests made after.');
export type RunCost = z.infer<typeof RunCost>;

/** The run manifest (`manifest.json`): everything about a run that is not one record. */
export const HarnessManifest = z
  .object({
    formatVersion: z.literal(FORMAT_VERSION),
    /** The spec the harness was generated from. */
    spec: z.object({
      name: z.string().describe('Display name of the spec (server name).'),
      source: z.string().describe('File or config#server it came from.').optional(),
      serverVersion: z.string().describe('Server version when the server reported one.').optional(),
      hash: z.string().describe('sha256 of the canonical JSON of the whole tool list.'),
      toolHashes: z
        .record(z.string(), z.string())
        .describe('sha256 per tool (canonical JSON), keyed by tool name; also the list of tools the agent is offered.'),
    }),
    provider: z.string().describe('The generation provider.'),
    model: z.string(),
    temperature: z.number().nullable(),
    promptVersions: z.record(z.string(), z.string()).describe('Prompt template (or generator) version per stage.'),
    seed: z.number().int().nullable(),
    requested: z.object({ simple: z.number().int().nonnegative(), complex: z.number().int().nonnegative() }).describe('Scenarios requested per tier.'),
    counts: ManifestCounts,
    /** Token use of the LLM calls (zero for offline runs). */
    tokens: z.object({
      input: z.number().int().nonnegative(),
      output: z.number().int().nonnegative(),
      calls: z.number().int().nonnegative().describe('LLM requests made (cache hits excluded).'),
    }),
    /** Wall-clock times: the only place they are kept. */
    timings: z.object({
      startedAt: z.string().describe('ISO time the run started.'),
      finishedAt: z.string().describe('ISO time the run ended (absent while running).').optional(),
      durationMs: z.number().nonnegative().optional(),
      stages: z.record(z.string(), z.number().nonnegative()).describe('Milliseconds spent per stage.').optional(),
    }),
    status: RunStatus,
    recordIds: z.array(z.string()).describe('Ids of the records of this run, in generation order.'),
    earlierRecordIds: z
      .array(z.string())
      .describe('Ids of records earlier runs wrote to this folder that this run has not replaced (yet); a complete run removes them and drops this field.')
      .optional(),
    items: ItemOutcomes.describe('LLM runs: what became of the items (absent for offline runs).').optional(),
    error: z.string().describe('Why the run failed, is partial or is empty, when it is.').optional(),
    drift: SpecDrift.describe('Set by a stale-only regeneration: the spec changes it found and what it did; a full run drops it.').optional(),
    cost: RunCost.describe('LLM runs: the cost estimate and the cost of the requests made (absent for offline runs and older manifests).').optional(),
  })
  .describe('Agent Seer harness run manifest.');
export type HarnessManifest = z.infer<typeof HarnessManifest>;
