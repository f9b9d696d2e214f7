/**
 * What an agent did with one scenario: every call it made, in order, with the mock's answer.
 * Written by `agent-seer serve` (and the agent loop) beside the harness, one file per scenario
 * (serve: per MCP session).
 */
import { z } from 'zod';

/**
 * Why the mock refused a call: `unknown-tool`, `malformed-arguments` (not a JSON object),
 * `invalid-arguments` (fail the tool's input schema), `before-source` (an expected call made
 * before the call whose output it takes a value from), `before-turn` (an expected call of a user
 * turn not given yet), `not-expected` (valid, but no expected call; also any call once the
 * scenario is complete).
 */
export const RefusalKind = z.enum(['unknown-tool', 'malformed-arguments', 'invalid-arguments', 'before-source', 'before-turn', 'not-expected']);
export type RefusalKind = z.infer<typeof RefusalKind>;

/** Format version of trajectory files. */
export const TRAJECTORY_FORMAT_VERSION = 1;

/** One call the agent made. */
export const TrajectoryCall = z.object({
  name: z.string().describe('Tool the agent called.'),
  arguments: z.unknown().describe('Arguments as the agent sent them.'),
  expectedIndex: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .describe("Index into the record's expected_tools of the call this matched; null when the mock refused it."),
  error: z.string().describe('What the mock told the agent when it refused the call (absent when answered); it names no expected value.').optional(),
  refusal: z
    .enum(RefusalKind.options)
    .describe(
      'Why the mock refused the call: unknown-tool, malformed-arguments, invalid-arguments (fail the input schema), before-source (made before the call it takes a value from), before-turn (of a user turn not given yet), not-expected. Absent when answered and in older files.',
    )
    .optional(),
  at: z.string().describe('ISO time of the call.'),
});
export type TrajectoryCall = z.infer<typeof TrajectoryCall>;

/** What an LLM judge in oracle mode made of one trajectory (the record's judge keeps the full detail; this is its summary). */
export const TrajectoryJudgment = z.object({
  tc: z.number().min(0).max(1).nullable().describe("The paper's tool-calling score (0..1) against the oracle, exact facts winning; null when not judged."),
  coh: z.number().min(0).max(1).nullable().describe("Coherence of the agent's replies (0..1); null when not judged or there was no reply."),
  status: z
    .object({ tc: z.enum(['scored', 'not-judged', 'not-scored']), coh: z.enum(['scored', 'not-judged', 'not-scored']) })
    .describe('scored; not-judged (the judge failed: see notes); not-scored (nothing to judge).'),
  notes: z.array(z.string()).describe("The judge's notes: why something was not judged, where exact facts overruled it."),
  inputHash: z.string().describe('Hash of what the judgment depends on (record, spec, judge, prompts, trajectory).'),
});
export type TrajectoryJudgment = z.infer<typeof TrajectoryJudgment>;

/** One scenario's trajectory. */
export const Trajectory = z
  .object({
    formatVersion: z.literal(TRAJECTORY_FORMAT_VERSION).describe('Format version of this file.'),
    scenarioId: z.string().describe('Id of the harness record replayed.'),
    specHash: z.string().describe('Hash of the spec the harness was generated from.'),
    agent: z.string().describe('Who made the calls: a model id, or "mcp-client" for an external client of agent-seer serve.'),
    client: z
      .object({ name: z.string(), version: z.string() })
      .describe(
        "The MCP client's clientInfo from its initialize (agent-seer serve); the leaderboard groups serve runs by its name. Absent for the built-in agent and in older files.",
      )
      .optional(),
    calls: z.array(TrajectoryCall).describe('Every call, in the order made.'),
    complete: z.boolean().describe('Every expected call was made.'),
    outcome: z
      .object({
        stoppedBy: z.enum(['answered', 'step-limit']).describe('The agent answered every user turn, or the run stopped it at the step limit.'),
        steps: z.number().int().nonnegative().describe('Model turns used.'),
        replies: z.array(z.string()).describe("The agent's text at the end of each user turn."),
        callsPerTurn: z
          .array(z.number().int().nonnegative())
          .describe('Calls the agent made in each user turn, in order (they split `calls` into turns for the judge); absent in older files.')
          .optional(),
      })
      .describe('How the built-in agent ended the scenario (absent while it runs, and for external clients).')
      .optional(),
    judgments: z
      .record(z.string(), TrajectoryJudgment)
      .describe('LLM judgments of these calls and replies in oracle mode, by judge id (`agent-seer run --judge`); dropped when the scenario is run again.')
      .optional(),
  })
  .describe('Agent Seer trajectory: the calls an agent made on one scenario.');
export type Trajectory = z.infer<typeof Trajectory>;

/** File name of the published JSON Schema of trajectory files (under `schemas/`). */
export const TRAJECTORY_SCHEMA_FILE = 'trajectory.schema.json';

/** The JSON Schema of a trajectory file, from the zod schema (what `schemas/trajectory.schema.json` holds). */
export function trajectoryJsonSchema(): Record<string, unknown> {
  return {
    ...(z.toJSONSchema(Trajectory, { target: 'draft-7', io: 'output', unrepresentable: 'any' }) as Record<string, unknown>),
    title: `Agent Seer trajectory (formatVersion ${TRAJECTORY_FORMAT_VERSION})`,
  };
}
