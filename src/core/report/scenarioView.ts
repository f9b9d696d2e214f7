/**
 * The scenario panel's view model: one record laid out for a person to read (turns, each call's
 * arguments beside its mock output, the expected response, the exact checks, every judgment with
 * its dimensions, argument sub-dimensions, cascades and findings, and the agents' runs of this
 * scenario), plus its place among its siblings. Pure and JSON-safe: the extension posts it to
 * the webview as is, and unit tests read it without VS Code.
 */
import { runsByClient, type AgentRuns } from '../agents/readRuns';
import { scoreTrajectory } from '../agents/score';
import type { HarnessRecord } from '../harness/format';
import { recordVerdict, storedJudgments, type VerdictState } from '../judge/verdict';
import type { Spec } from '../spec/model';
import { ARGUMENT_LABELS, ARGUMENT_SUBS, DIMENSION_LABELS, TC_DIMENSIONS, subdimensionLabel } from '../vocabulary';

/** A finding of a judgment, placed at a call (and argument) when it names one. */
export interface ScenarioFinding {
  judge: string;
  callIndex: number | null;
  param: string | null;
  /** Words for the sub-dimension (`type compliance`). */
  label: string;
  /** 0–1. */
  score: number;
  reason: string;
  source: string;
  /** Why an exact fact set it aside, when it did. */
  waived?: string;
}

/** One expected call with its replay data. */
export interface ScenarioCall {
  index: number;
  name: string;
  explanation: string;
  arguments: unknown;
  output: unknown;
  /** How much reference material backed the mock output ('' when there is none). */
  grounding: string;
  /** Exact argument and output errors of this call. */
  errors: string[];
  findings: ScenarioFinding[];
}

/** A labelled number (null when not scored). */
export interface ScoreRow {
  key: string;
  label: string;
  value: number | null;
}

/** One judge's verdict, laid out. */
export interface ScenarioJudgment {
  judge: string;
  mode: string;
  tc: number | null;
  coh: number | null;
  exact: number | null;
  stale: boolean | null;
  /** The four tool-calling dimensions. */
  dimensions: ScoreRow[];
  /** The six argument sub-dimensions. */
  argumentSubs: ScoreRow[];
  /** "turn 0: wrong-value capped arguments.value 1.00 → 0.30". */
  cascades: string[];
  notes: string[];
  /** Findings about no call (the whole turn or the prompt). */
  findings: ScenarioFinding[];
}

/** One agent run of this scenario. */
export interface ScenarioRun {
  agent: string;
  run: string;
  calls: { name: string; arguments: unknown; error?: string }[];
  replies: string[];
  /** Scored against the record when the spec is known. */
  passed: boolean | null;
  exactCallMatch: number | null;
  /** The headline call score (see agents/score.ts); null without the spec. */
  callScore: number | null;
}

/** Everything the scenario page draws. */
export interface ScenarioViewModel {
  /** Where the record lives: the harness folder and the record id (what the page keeps to be restored). */
  harnessDir: string;
  id: string;
  title: string;
  tier: string;
  category: string;
  state: VerdictState;
  failures: string[];
  scoreLabel: string | null;
  /** The whole task in one message (what an agent is shown in single-turn mode). */
  prompt: string;
  /** The user's turns; a single-turn record has one, its prompt, answered by the expected response. */
  turns: { index: number; prompt: string; followup: string; calls: number[] }[];
  calls: ScenarioCall[];
  expectedResponse: string;
  agentFollowup: string;
  checks: { label: string; ok: boolean | null; detail: string }[];
  judgments: ScenarioJudgment[];
  runs: ScenarioRun[];
  position: { index: number; total: number; previous: string | null; next: string | null };
}

/**
 * The badge's score: TC and Coh as the judge gave them; an exact score (no judge gave TC) says it
 * is exact checks only, so "Passed · exact 1.00" is not read as a good scenario.
 */
function scoreLabelOf(score: { label: string; judge: string; value: number }): string {
  const exactOnly = score.label.startsWith('exact ');
  return `${score.label} (${score.judge}${exactOnly ? '; exact argument checks only: realism, coherence and tool choice not scored' : ''})`;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Lays a record out for the panel; `siblings` are the record ids in the order previous/next walk. */
export function scenarioViewModel(input: {
  harnessDir: string;
  record: HarnessRecord;
  siblings: readonly string[];
  spec?: Spec;
  runs?: readonly AgentRuns[];
}): ScenarioViewModel {
  const { record, spec } = input;
  const verdict = recordVerdict(record, spec ? { spec } : {});
  const checks = verdict.checks;
  const judged = storedJudgments(record);
  const findings: ScenarioFinding[] = judged.flatMap(([judge, j]) =>
    j.judge.mode !== 'unsupervised'
      ? []
      : j.findings
          .filter((f) => f.score < 1)
          .map((f) => ({
            judge,
            callIndex: f.callIndex,
            param: f.param,
            label: subdimensionLabel(f.subdimension),
            score: f.score,
            reason: f.reason,
            source: f.source,
            ...(f.waived ? { waived: f.waived } : {}),
          })),
  );
  const calls: ScenarioCall[] = record.expected_tools.map((c, index) => {
    const mock = record.mock_outputs[index];
    const errors = [
      ...checks.callErrors.filter((e) => e.callIndex === index).flatMap((e) => e.errors.map((x) => x.message)),
      ...checks.outputErrors.filter((e) => e.callIndex === index).map((e) => `mock output: ${e.message}`),
      ...checks.integrityViolations
        .filter((v) => v.callIndex === index)
        .map((v) => `${v.param} = ${JSON.stringify(v.value)} comes from no earlier output or prompt`),
    ];
    return {
      index,
      name: c.name,
      explanation: c.explanation,
      arguments: c.arguments,
      output: mock?.output ?? null,
      grounding: mock?.grounding ?? '',
      errors,
      findings: findings.filter((f) => f.callIndex === index),
    };
  });
  const turns = record.conversation.length
    ? record.conversation.map((t, index) => ({ index, prompt: t.prompt, followup: t.followup, calls: [...t.calls] }))
    : [{ index: 0, prompt: record.prompt, followup: record.expected_response, calls: calls.map((c) => c.index) }];
  const judgments: ScenarioJudgment[] = judged.map(([judge, j]) => ({
    judge,
    mode: j.judge.mode,
    tc: num(j.tc),
    coh: num(j.coh),
    exact: num(j.exact),
    stale: verdict.staleJudges ? verdict.staleJudges.includes(judge) : null,
    dimensions: TC_DIMENSIONS.map((d) => ({ key: d, label: DIMENSION_LABELS[d], value: num(j.dimensions[d]) })),
    argumentSubs: ARGUMENT_SUBS.map((s) => ({ key: `arguments.${s}`, label: ARGUMENT_LABELS[s], value: num(j.subdimensions[`arguments.${s}`]) })),
    cascades: j.turns.flatMap((t) =>
      t.cascades
        .filter((c) => c.capped.length)
        .map(
          (c) => `turn ${t.turn}: ${c.rule} capped ${c.capped.map((x) => `${subdimensionLabel(x.sub)} ${x.from.toFixed(2)} → ${x.to.toFixed(2)}`).join(', ')}`,
        ),
    ),
    notes: [...j.notes],
    findings: j.judge.mode === 'unsupervised' ? findings.filter((f) => f.judge === judge && f.callIndex === null) : [],
  }));
  // As the leaderboard counts them: serve runs under their client, each session a run.
  const runs: ScenarioRun[] = runsByClient(input.runs ?? []).flatMap((a) =>
    a.runs.flatMap((r) =>
      r.trajectories
        .filter((t) => t.scenarioId === record.id)
        .map((t) => {
          const score = spec ? scoreTrajectory(spec, record, t) : undefined;
          return {
            agent: a.agent,
            run: r.run,
            calls: t.calls.map((c) => ({ name: c.name, arguments: c.arguments, ...(c.error ? { error: c.error } : {}) })),
            replies: [...(t.outcome?.replies ?? [])],
            passed: score ? score.passed : null,
            exactCallMatch: score ? score.exactCallMatch : null,
            callScore: score ? score.callScore : null,
          };
        }),
    ),
  );
  const at = input.siblings.indexOf(record.id);
  return {
    harnessDir: input.harnessDir,
    id: record.id,
    title: record.title,
    tier: record.tier,
    category: record.category,
    state: verdict.state,
    failures: verdict.failures,
    scoreLabel: verdict.score ? scoreLabelOf(verdict.score) : null,
    prompt: record.prompt,
    turns,
    calls,
    expectedResponse: record.expected_response,
    agentFollowup: record.agent_followup,
    checks: [
      {
        label: 'Arguments valid against the schemas',
        ok: checks.schemaValid && !checks.callErrors.length,
        detail: `${checks.callErrors.length} call(s) with errors`,
      },
      { label: 'Every tool exists', ok: !checks.unknownTools.length, detail: checks.unknownTools.join(', ') },
      { label: 'Referential integrity', ok: !checks.integrityViolations.length, detail: `${checks.integrityViolations.length} value(s) from nowhere` },
      {
        label: 'Mock outputs valid against output schemas',
        ok: checks.mockOutputsValid,
        detail: checks.mockOutputsValid === null ? 'no tool used declares an outputSchema' : `${checks.outputErrors.length} error(s)`,
      },
      {
        label: 'Turn split',
        ok: record.conversation.length ? !checks.turnProblems.length : null,
        detail: record.conversation.length ? checks.turnProblems.map((p) => p.message).join('; ') : 'single-turn',
      },
    ],
    judgments,
    runs,
    position: {
      index: at,
      total: input.siblings.length,
      previous: at > 0 ? (input.siblings[at - 1] ?? null) : null,
      next: at >= 0 && at < input.siblings.length - 1 ? (input.siblings[at + 1] ?? null) : null,
    },
  };
}
