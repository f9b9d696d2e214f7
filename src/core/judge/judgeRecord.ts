/**
 * Judging one record: lay it out (`buildView`), decide what a program can (`viewFacts`), ask the
 * LLM judge for tool calling and coherence (two structured calls, re-asked on malformed replies
 * by `StructuredLlm`), enforce the exact facts and the cascades on the replies, and aggregate.
 * Without an LLM it is the offline judge: only what the exact checks decide is scored.
 *
 * Each record is asked with its own reply schema (turn count, call numbers, scales); what a valid
 * reply still gets wrong and the code can decide is fixed with a note (`reconcile.ts`). A judge
 * that fails (a reply still malformed after the re-asks, a transport fault) leaves that aspect
 * `null` with `status: 'not-judged'` and a note: a record is never scored 0 or 1 by accident.
 * Rejected replies are never cached, so a re-run asks again for every record not yet judged.
 */
import { canonicalJson, sha256, specHashOnce } from '../harness/hash';
import { groundingCounts } from '../checks/grounding';
import { findTool, uncheckedConstraints } from '../checks/validateCall';
import type { HarnessRecord } from '../harness/format';
import type { StructuredLlm, StructuredResult } from '../llm';
import { PromptLibrary, type RenderedPrompt } from '../llm/prompts';
import type { Spec } from '../spec/model';
import { aggregate, scoreCohTurn, scoreTcTurn, type ScoredCohTurn, type ScoredTcTurn } from './aggregate';
import { reconcileCohReply, reconcileTcReply } from './reconcile';
import { cohTurnPlan, factsText, referenceText, tcTurnPlan, toolCatalog, toolSchemas, transcript } from './render';
import {
  cohReplySchema,
  tcReplySchema,
  type AspectStatus,
  type CohReply,
  type ReplyShape,
  type TcReply,
  type StoredJudgment,
  type StoredViewJudgment,
  type Trajectory,
  type TurnDetail,
} from './schemas';
import { buildView, viewFacts, type JudgeMode, type JudgeView, type RecordView, type ViewFacts } from './view';

/** Version of the judging logic (facts, reconciliation, cascades, aggregation); part of every input hash. */
export const JUDGE_VERSION = 'judge-6';
/** The judge samples at temperature 0, as the paper does, for repeatable scores. */
export const JUDGE_TEMPERATURE = 0;
/** Judge id of the offline judge. */
export const OFFLINE_JUDGE_ID = 'offline';

/** Template names of the judge prompts (`prompts/<name>.v<N>.txt`). */
export const JUDGE_PROMPTS = { tc: 'judge-tc', tcOracle: 'judge-tc-oracle', coh: 'judge-coh' } as const;

/** The judge id of an LLM judge: `provider:model` (e.g. `gemini:gemini-2.5-flash`). */
export function judgeIdOf(llm: StructuredLlm): string {
  return `${llm.provider.id}:${llm.provider.model}`;
}

/** Options of {@link judgeRecord}. */
export interface JudgeRecordOptions {
  /** The LLM judge; absent → the offline judge. */
  llm?: StructuredLlm;
  /** Default `'unsupervised'`. */
  mode?: JudgeMode;
  /** Oracle mode: what the agent did. */
  trajectory?: Trajectory;
  signal?: AbortSignal;
  /** Prompt templates; loaded from `prompts/` when absent. */
  prompts?: PromptLibrary;
  /** Stored as `judge.id`; defaults to {@link judgeIdOf} or `offline`. */
  judgeId?: string;
}

/** The prompt versions a judge uses (template versions, or the offline logic version). */
export function judgePromptVersions(prompts: PromptLibrary | undefined, mode: JudgeMode): Record<string, string> {
  if (!prompts) return { offline: JUDGE_VERSION };
  const tc = mode === 'oracle' ? JUDGE_PROMPTS.tcOracle : JUDGE_PROMPTS.tc;
  return { [tc]: prompts.get(tc).version, [JUDGE_PROMPTS.coh]: prompts.get(JUDGE_PROMPTS.coh).version };
}

/**
 * Hash of everything a judgment depends on: the record's judged content, the spec, the judge,
 * its prompts and temperature, the mode and trajectory, and the judging logic version. A stored
 * judgment with the same hash is current and is not redone.
 */
export function judgmentInputHash(record: HarnessRecord, spec: Spec, judge: JudgeIdentity): string {
  return judgmentInputHashOf(record, specHashOnce(spec), judge);
}

/** What a judgment's input hash is made of besides the record and the spec. */
type JudgeIdentity = { id: string; promptVersions: Record<string, string>; temperature: number | null; mode: JudgeMode; trajectory?: Trajectory };

/**
 * {@link judgmentInputHash} with the spec's hash already known: a caller checking many records
 * of one spec (the trees' staleness) hashes the spec once, not once per record.
 */
export function judgmentInputHashOf(record: HarnessRecord, specHashValue: string, judge: JudgeIdentity): string {
  return sha256(
    canonicalJson({
      v: JUDGE_VERSION,
      judge,
      spec: specHashValue,
      record: {
        prompt: record.prompt,
        expected_tools: record.expected_tools,
        mock_outputs: record.mock_outputs,
        expected_response: record.expected_response,
        conversation: record.conversation,
      },
    }),
  );
}

const failureNote = (what: string, r: Extract<StructuredResult<unknown>, { ok: false }>): string =>
  `${what} not judged: ${r.reason} after ${r.attempts} repl${r.attempts === 1 ? 'y' : 'ies'}${r.errors[0] ? ` (${r.errors[0]})` : ''}`;

const pct = (x: number): string => String(Math.round(x * 100) / 100);

/**
 * Judges one record: its single-turn view, and (unsupervised, when it has a conversation) its
 * conversation view as `conversation`. Rejects only on cancellation and on faults no record can
 * get past (bad key, unreachable server).
 */
export async function judgeRecord(record: HarnessRecord, spec: Spec, options: JudgeRecordOptions = {}): Promise<StoredJudgment> {
  const mode = options.mode ?? 'unsupervised';
  if (mode !== 'unsupervised' || record.conversation.length < 2) return judgeView(record, spec, options);
  const [single, conversation] = await Promise.all([judgeView(record, spec, options, 'single-turn'), judgeView(record, spec, options, 'multi-turn')]);
  return { ...single, conversation };
}

/** Whether a judgment left an aspect not judged, in any of its views. */
export function hasNotJudged(j: StoredJudgment): boolean {
  const views = [j, ...(j.conversation ? [j.conversation] : [])];
  return views.some((v) => v.status.tc === 'not-judged' || v.status.coh === 'not-judged');
}

/** The judge's prompts for one view: tool calling always, coherence when the view has assistant replies (also what the cost estimate renders). */
export function judgePrompts(
  view: JudgeView,
  spec: Spec,
  facts: ViewFacts,
  mode: JudgeMode,
  prompts: PromptLibrary,
): { tcName: string; tc: RenderedPrompt; coh: RenderedPrompt | undefined } {
  const tcName = mode === 'oracle' ? JUDGE_PROMPTS.tcOracle : JUDGE_PROMPTS.tc;
  const toolNames = [...view.calls.map((c) => c.name), ...(view.reference?.calls.map((c) => c.name) ?? [])];
  const tc = prompts.render(tcName, {
    turn_count: view.turns.length,
    turn_plan: tcTurnPlan(view),
    tool_catalog: toolCatalog(spec),
    tool_schemas: toolSchemas(spec, toolNames),
    transcript: transcript(view),
    facts: factsText(view, facts),
    reference: mode === 'oracle' ? referenceText(view) : '',
  });
  const hasReplies = view.turns.some((t) => t.response.trim() !== '');
  const coh = hasReplies
    ? prompts.render(JUDGE_PROMPTS.coh, { turn_count: view.turns.length, turn_plan: cohTurnPlan(view), transcript: transcript(view) })
    : undefined;
  return { tcName, tc, coh };
}

async function judgeView(record: HarnessRecord, spec: Spec, options: JudgeRecordOptions, as?: RecordView): Promise<StoredViewJudgment> {
  const mode = options.mode ?? 'unsupervised';
  const llm = options.llm;
  const prompts = llm ? (options.prompts ?? PromptLibrary.load()) : undefined;
  const promptVersions = judgePromptVersions(prompts, mode);
  const judgeId = options.judgeId ?? (llm ? judgeIdOf(llm) : OFFLINE_JUDGE_ID);
  const temperature = llm ? JUDGE_TEMPERATURE : null;
  const inputHash = judgmentInputHash(record, spec, { id: judgeId, promptVersions, temperature, mode, trajectory: options.trajectory });
  const notes: string[] = [];
  const usage = { inputTokens: 0, outputTokens: 0 };

  const built = buildView(record, mode, options.trajectory, as);
  const base = {
    judge: {
      id: judgeId,
      provider: llm ? llm.provider.id : OFFLINE_JUDGE_ID,
      model: llm ? llm.provider.model : JUDGE_VERSION,
      temperature,
      mode,
      view: built.ok ? built.view.view : (as ?? (record.conversation.length >= 2 ? ('multi-turn' as const) : ('single-turn' as const))),
      promptVersions,
    },
    inputHash,
  };
  if (!built.ok) {
    return {
      ...base,
      tc: null,
      coh: null,
      dimensions: {},
      subdimensions: {},
      notes: [`not judged: ${built.error}`],
      status: { tc: 'not-judged', coh: 'not-judged' },
      exact: null,
      exactArguments: null,
      grounding: null,
      determinacy: null,
      turns: [],
      findings: [],
      disagreements: [],
      manifestations: {},
      usage,
    };
  }
  const view = built.view;
  notes.push(...view.notes);
  const facts = viewFacts(view, spec);
  // A pattern the linear-time engine refuses is passed, not failed: the judgment says so.
  for (const name of new Set(view.calls.map((c) => c.name))) {
    const tool = findTool(spec, name);
    if (tool) for (const u of uncheckedConstraints(tool)) notes.push(`'${name}': ${u}`);
  }

  let tcReply: TcReply | null = null;
  let cohReply: CohReply | null = null;
  let tcStatus: AspectStatus = llm ? 'not-judged' : 'not-scored';
  const hasReplies = view.turns.some((t) => t.response.trim() !== '');
  let cohStatus: AspectStatus = llm && hasReplies ? 'not-judged' : 'not-scored';
  if (llm && !hasReplies) notes.push('coherence not scored: there is no assistant reply to judge');

  if (llm && prompts) {
    const signal = options.signal;
    const rendered = judgePrompts(view, spec, facts, mode, prompts);
    const tcName = rendered.tcName;
    const tcPrompt = rendered.tc;
    // The rendered prompt is hashed into the key already; this adds what shapes the reading of the reply.
    const cacheInputs = { logic: JUDGE_VERSION, mode };
    const shape: ReplyShape = { turns: view.turns.length, calls: view.calls.map((c) => c.index) };
    const tcCall = llm.generate(
      {
        stage: tcName,
        promptVersion: tcPrompt.version,
        prompt: tcPrompt.text,
        schema: tcReplySchema(shape),
        temperature: JUDGE_TEMPERATURE,
        cacheInputs,
        cacheRejected: false,
      },
      signal,
    );
    const cohPrompt = rendered.coh;
    const cohCall = cohPrompt
      ? (() => {
          return llm.generate(
            {
              stage: JUDGE_PROMPTS.coh,
              promptVersion: cohPrompt.version,
              prompt: cohPrompt.text,
              schema: cohReplySchema(shape),
              temperature: JUDGE_TEMPERATURE,
              cacheInputs,
              cacheRejected: false,
            },
            signal,
          );
        })()
      : undefined;
    const [tc, coh] = await Promise.all([tcCall, cohCall]);
    for (const r of [tc, coh]) {
      if (!r) continue;
      usage.inputTokens += r.usage.inputTokens;
      usage.outputTokens += r.usage.outputTokens;
    }
    if (tc.ok) {
      const fixed = reconcileTcReply(tc.value, view);
      tcReply = fixed.reply;
      notes.push(...fixed.notes);
      tcStatus = 'scored';
    } else notes.push(failureNote('tool calling', tc));
    if (coh?.ok) {
      const fixed = reconcileCohReply(coh.value, view);
      cohReply = fixed.reply;
      notes.push(...fixed.notes);
      cohStatus = 'scored';
    } else if (coh) notes.push(failureNote('coherence', coh));
  }

  // A failed TC reply still gets the exact part, like the offline judge; tc stays null.
  const tcTurns: ScoredTcTurn[] = facts.turns.map((ctx, i) => scoreTcTurn(ctx, tcReply?.turns[i] ?? null));
  const cohTurns: ScoredCohTurn[] = cohReply ? view.turns.map((t, i) => scoreCohTurn(t.index, t.index > 0, cohReply?.turns[i] ?? null)) : [];
  const scores = aggregate(tcTurns, cohTurns);

  const disagreements = tcTurns.flatMap((t) => t.disagreements);
  for (const d of disagreements) {
    notes.push(
      `turn ${d.turn} ${d.subdimension}${d.callIndex !== undefined && d.callIndex !== null ? ` (call ${d.callIndex}${d.param ? ` '${d.param}'` : ''})` : ''}: judge ${pct(d.judge)}, kept ${pct(d.final)}: ${d.reason}`,
    );
  }
  for (const t of tcTurns) {
    for (const c of t.cascades) {
      if (c.capped.length) notes.push(`turn ${t.turn}: ${c.rule} cascade capped ${c.capped.map((x) => x.sub).join(', ')}`);
    }
  }
  if (!llm)
    notes.push(
      'offline judge: only what exact checks decide is scored (argument completeness, names, value grounding, types, formats, relevancy); TC and coherence need an LLM judge',
    );

  const turns: TurnDetail[] = view.turns.map((t, i) => {
    const tcT = tcTurns[i];
    const cohT = cohTurns[i];
    const rationale = { ...(tcT?.rationale ? { tc: tcT.rationale } : {}), ...(cohT?.rationale ? { coh: cohT.rationale } : {}) };
    return {
      turn: t.index,
      calls: [...t.calls],
      tc: tcT?.tc ?? null,
      coh: cohT?.coh ?? null,
      dimensions: { ...(tcT?.dimensions ?? {}) },
      subdimensions: { ...(tcT?.subdimensions ?? {}), ...(cohT?.subdimensions ?? {}) },
      cascades: (tcT?.cascades ?? []).map((c) => ({
        rule: c.rule,
        capped: c.capped.map((x) => ({ sub: `arguments.${x.sub}`, from: x.from / 10, to: x.to / 10 })),
      })),
      manifestations: { ...(cohT?.manifestations ?? {}) },
      ...(Object.keys(rationale).length ? { rationale } : {}),
    };
  });

  return {
    ...base,
    tc: tcStatus === 'scored' ? scores.tc : null,
    coh: cohStatus === 'scored' ? scores.coh : null,
    dimensions: scores.dimensions,
    subdimensions: scores.subdimensions,
    notes,
    status: { tc: tcStatus, coh: cohStatus },
    exact: scores.exact,
    exactArguments: scores.exactArguments,
    grounding: groundingCounts(facts.grounding),
    determinacy: facts.determinacy
      ? {
          checked: facts.determinacy.checked,
          determined: facts.determinacy.determined,
          fromLists: facts.determinacy.fromLists,
          identified: facts.determinacy.identified,
          findings: facts.determinacy.findings.length,
        }
      : null,
    turns,
    findings: tcTurns.flatMap((t) => t.findings),
    disagreements,
    manifestations: scores.manifestations,
    usage,
  };
}
