/**
 * What `agent-seer generate` prints: the progress line, the summary of one run (text and JSON)
 * and the summary of a corpus run (a line per spec and the corpus's total).
 */
import { shownPath } from './format';
import type { CorpusOutcome, CorpusResult } from '../core/pipeline/corpus';
import { corpusTotals } from '../core/pipeline/corpus';
import type { StaleRegeneration } from '../core/pipeline/regenerateStale';
import type { PipelineProgress, PipelineResult } from '../core/pipeline/runner';
import { DEGRADED_SHARE_LIMIT } from '../core/pipeline/runHealth';
import { multiTurnRate, PAPER_EXPANSION_RATE } from '../core/report/multiTurnRate';
import { estimateCalls, formatEstimateUsd, formatUsd } from '../core/llm/pricing';
import type { BatchSummary } from '../core/llm/batch';
import { EXIT, outPaint, worstExit, type Io } from './errors';
import { statusTone, type Paint } from './colour';

function kTokens(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(0)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/** What a progress display shows of a run: the stage under way, its count, then records and the LLM's calls. */
export interface ProgressView {
  stage: string;
  done: number;
  total: number;
  detail: string;
}

const STAGE_ORDER = ['interpret', 'scenarios', 'mock', 'turns', 'write'] as const;

/** The LLM's work so far, for a progress line: calls, cache hits, retries, tokens. */
function llmDetail(llm: PipelineProgress['llm']): string[] {
  if (!llm.calls && !llm.cacheHits) return [];
  return [
    `calls ${llm.calls}${llm.cacheHits ? ` (+${llm.cacheHits} cached)` : ''}`,
    ...(llm.retries ? [`retries ${llm.retries}`] : []),
    `tokens ${kTokens(llm.inputTokens)} in / ${kTokens(llm.outputTokens)} out`,
  ];
}

/**
 * A run's progress as a display shows it: the first stage still under way (the stages overlap;
 * the earliest is what holds the run up), else the stage that moved; records and LLM calls after.
 */
export function pipelineProgressView(p: PipelineProgress): ProgressView {
  const active = STAGE_ORDER.find((s) => p.stages[s].done < p.stages[s].total) ?? p.stage;
  const { done, total } = p.stages[active];
  const detail = [...(active === 'write' ? [] : [`records ${p.records}`]), ...llmDetail(p.llm)].join(' · ');
  return { stage: active, done, total, detail };
}

/**
 * A corpus's progress: specs ended of all specs, with the records written and the LLM's calls
 * summed over the specs' latest progress.
 */
export function corpusProgressView(latest: readonly (PipelineProgress | undefined)[], ended: number): ProgressView {
  let records = 0;
  const llm = { calls: 0, cacheHits: 0, retries: 0, reasks: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
  for (const p of latest) {
    if (!p) continue;
    records += p.records;
    llm.calls += p.llm.calls;
    llm.cacheHits += p.llm.cacheHits;
    llm.retries += p.llm.retries;
    llm.inputTokens += p.llm.inputTokens;
    llm.outputTokens += p.llm.outputTokens;
  }
  return { stage: 'specs', done: ended, total: latest.length, detail: [`records ${records}`, ...llmDetail(llm)].join(' · ') };
}

const percent = (x: number): string => `${Math.round(x * 100)}%`;
const countsText = (c: Record<string, number>): string =>
  Object.entries(c)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || 'none';

/**
 * The multi-turn line: the report's rate (over all scenarios, the paper's base) beside the
 * paper's; the multi-call records (the ones stage 4 may split) as a count, not a second rate.
 */
export function multiTurnLine(multiTurn: number, records: number, multiCall: number): string {
  const rate = multiTurnRate(multiTurn, records);
  return `  multi-turn: ${multiTurn} of ${records} scenarios${rate !== null ? ` (${percent(rate)}; the paper: ${percent(PAPER_EXPANSION_RATE)}, 54 of 337 scenarios)` : ''}; ${multiCall} multi-call scenarios could be split`;
}

/** The JSON summary printed with `--json` (with `drift` after `--only-stale`). */
export function summaryJson(r: PipelineResult | StaleRegeneration): Record<string, unknown> {
  const c = r.counts;
  return {
    ...('diff' in r ? { drift: { ...r.diff, kept: r.kept, stale: r.stale } } : {}),
    outputDir: r.outputDir,
    status: r.status,
    provider: r.manifest.provider,
    model: r.manifest.model,
    records: c.records,
    byTier: c.byTier,
    multiCall: c.multiCall,
    multiTurn: c.multiTurn,
    // The report's definition (over all scenarios, the paper's base), not the pipeline's over multi-call records.
    multiTurnRate: multiTurnRate(c.multiTurn, c.records),
    paperMultiTurnRate: PAPER_EXPANSION_RATE,
    coverage: c.coverage,
    coverageRound: c.coverageRound,
    repaired: c.repaired,
    discarded: c.discarded,
    skipped: c.skipped,
    llm: r.llm,
    ...(r.items ? { items: r.items } : {}),
    ...(r.manifest.cost ? { cost: r.manifest.cost } : {}),
    wallTimeMs: r.wallTimeMs,
    groups: r.groups,
    chainDepth: r.chainDepth,
    ...(r.stopped ? { stopped: r.stopped } : {}),
    ...(r.error ? { error: r.error } : {}),
  };
}

/**
 * What re-running a cancelled offline run does. There is nothing to resume: the generator makes
 * no calls and is deterministic, so a re-run makes every record again from the start.
 */
const OFFLINE_RERUN =
  'the records written so far are kept; re-running the same command makes the harness again from the start (the offline generator is deterministic: the same records, and judgments of unchanged records are kept)';

/** The text summary. */
export function summaryText(r: PipelineResult, io: Io): string {
  const c = r.counts;
  const paint = outPaint(io);
  const where = shownPath(io.cwd, r.outputDir);
  const lines = [
    `${r.status === 'complete' || r.status === 'empty' ? 'Wrote' : 'Kept'} ${c.records} record${c.records === 1 ? '' : 's'} in ${where} (${paint.tone(statusTone(r.status), r.status)}; ${r.manifest.provider} ${r.manifest.model})`,
    `  tiers: ${c.byTier.simple} simple, ${c.byTier.complex} complex${c.coverageRound ? ` (${c.coverageRound} added for coverage)` : ''}`,
    multiTurnLine(c.multiTurn, c.records, c.multiCall),
    `  tool coverage: ${c.coverage.covered}/${c.coverage.tools} (${percent(c.coverage.ratio)})${c.coverage.uncovered.length ? `; not covered: ${c.coverage.uncovered.slice(0, 8).join(', ')}${c.coverage.uncovered.length > 8 ? ', …' : ''}` : ''}`,
    `  repaired: ${countsText(c.repaired)}`,
    `  discarded: ${countsText(c.discarded)}`,
  ];
  if (c.skipped.length) lines.push(`  skipped tools: ${c.skipped.map((s) => `${s.tool} (${s.reason})`).join('; ')}`);
  if (r.items?.offlineRecords) lines.push(`  ${r.items.offlineRecords} of ${c.records} records are offline templates (--fallback offline)`);
  if (r.items) {
    const i = r.items;
    const failedBy = countsText(i.failedBy);
    lines.push(
      `  LLM items: ${i.llm} of ${i.total} made by the model; ${i.failed} failed${i.failed ? ` (${failedBy})` : ''}, ${i.discarded} discarded, ${i.offline} filled offline (${i.offlineRecords} record${i.offlineRecords === 1 ? '' : 's'} with an offline stage); degraded ${percent(i.degradedShare)} (limit ${percent(DEGRADED_SHARE_LIMIT)})`,
    );
  }
  if (r.manifest.provider !== 'offline') {
    lines.push(
      `  LLM: ${r.llm.calls} calls, ${r.llm.cacheHits} cache hits, ${r.llm.retries} retries, ${r.llm.reasks} re-asks, ${r.llm.inputTokens} tokens in, ${r.llm.outputTokens} out`,
    );
    const cost = r.manifest.cost;
    if (cost) lines.push(`  ${costText(cost, r.manifest.model, r.llm.calls)}`);
  }
  lines.push(`  wall time: ${(r.wallTimeMs / 1000).toFixed(1)} s`);
  if (r.status === 'cancelled')
    lines.push(`Cancelled: ${r.manifest.provider === 'offline' ? OFFLINE_RERUN : 're-run the same command to resume (finished LLM calls are cached)'}.`);
  if (r.status === 'pending')
    lines.push(`Pending: ${r.error ?? `batch jobs are still running; run the same command again to collect them, or \`agent-seer status ${where}\``}.`);
  if (r.status === 'empty') lines.push(`Empty: ${r.error ?? '0 records'}. An empty harness is not a success (exit ${EXIT.empty}).`);
  if (r.status === 'partial' || (r.status === 'failed' && r.items)) lines.push(`${r.status === 'partial' ? 'Partial' : 'Failed'}: ${r.error ?? 'see above'}`);
  if (r.stopped === 'quota')
    lines.push('Stopped by the LLM quota: re-run the same command once the quota resets; finished replies are cached and are not asked again.');
  else if (r.stopped === 'outage')
    lines.push(
      'Stopped: the LLM endpoint failed every recent call. Re-run the same command once it answers again; finished replies are cached and are not asked again.',
    );
  else if ((r.status === 'partial' || r.status === 'failed' || r.status === 'complete') && r.items) {
    // A complete run may still have lost a few items (within the degraded limit): the same advice holds.
    const advice = rerunAdvice(r.items);
    if (advice !== undefined) lines.push(advice);
  }
  return lines.join('\n');
}

const itemsText = (n: number): string => `${n} item${n === 1 ? '' : 's'}`;

/**
 * What re-running does, said as it is: failed items (transport faults, never cached) are asked
 * again by the same command; discarded ones are cached as discarded, so the same command makes no
 * call for them and only `--retry-discarded` asks again; with neither there is nothing to advise.
 */
export function rerunAdvice(items: { failed: number; discarded: number }): string | undefined {
  const retry = `--retry-discarded asks for ${items.discarded === 1 ? 'it again as a new sample' : 'them again, each as a new sample'}`;
  if (items.failed > 0)
    return `Re-run the same command to retry the ${itemsText(items.failed)} that failed (finished replies are cached)${items.discarded > 0 ? `; the ${itemsText(items.discarded)} discarded stay discarded: ${retry}` : ''}.`;
  if (items.discarded > 0)
    return `Re-running the same command makes no call: the ${itemsText(items.discarded)} discarded ${items.discarded === 1 ? 'is' : 'are'} cached as discarded. ${retry.charAt(0).toUpperCase()}${retry.slice(1)}.`;
  return undefined;
}

/** `cost: $0.0123 (sync; gemini-2.5-flash-lite, prices of 2026-12-02); estimated ≈$0.0150 (batch ≈$0.0075) for 46 calls` */
export function costText(cost: NonNullable<PipelineResult['manifest']['cost']>, model: string, calls?: number): string {
  const a = cost.actual;
  const prices = a.prices.source === 'built-in' ? `prices of ${a.prices.date}` : `prices of ${a.prices.date} from ${a.prices.source}`;
  const e = cost.estimate;
  const usd = e?.high ? `${formatEstimateUsd(e.usd, null)}–${formatUsd(e.high.usd)}` : e ? formatEstimateUsd(e.usd, e.batchUsd) : '';
  const estimate = e ? `; estimated ${usd} for ${estimateCalls(e)}${calls === undefined ? '' : `, made ${calls.toLocaleString('en-US')}`}` : '';
  return `cost: ${formatUsd(a.usd)} (${a.mode}; ${model}, ${prices})${estimate}`;
}

/** The exit code of one run: 0 complete, 3 partial, 4 pending (batch jobs still running), 5 empty (0 records), 1 failed or cancelled. */
export function runExit(r: PipelineResult): number {
  const byStatus: Partial<Record<PipelineResult['status'], number>> = { complete: EXIT.ok, partial: EXIT.partial, pending: EXIT.pending, empty: EXIT.empty };
  return byStatus[r.status] ?? EXIT.failed;
}

/** The exit code of one spec of a corpus: a refused output folder is bad input (2), a run that threw a failure (1). */
export function outcomeExit(o: CorpusOutcome): number {
  return o.kind === 'run' ? runExit(o.result) : o.kind === 'refused' ? EXIT.badInput : EXIT.failed;
}

/** One spec of a corpus: where it came from and where its harness went. */
export interface CorpusLine {
  /** The spec file as the user can find it. */
  file: string;
  /** Its harness folder's name. */
  harness: string;
  outcome: CorpusOutcome;
}

const llmText = (l: PipelineResult['llm']): string =>
  `${l.calls} calls, ${l.cacheHits} cache hits, ${l.retries} retries, ${l.reasks} re-asks, ${l.inputTokens} tokens in, ${l.outputTokens} out${l.costUsd !== undefined ? `, ~$${l.costUsd.toFixed(4)}` : ''}`;

/** One line for a spec of a corpus. */
function corpusSpecLine(line: CorpusLine, paint: Paint): string {
  const o = line.outcome;
  if (o.kind === 'refused') return `  ${line.harness}: ${paint.bad('not written')} (bad input): ${o.error.message}`;
  if (o.kind === 'error') return `  ${line.harness}: ${paint.bad('failed')}: ${o.message}`;
  const r = o.result;
  const c = r.counts;
  const llm = r.manifest.provider !== 'offline' ? `; LLM ${r.llm.calls} calls, ${r.llm.cacheHits} cache hits` : '';
  const why = r.status !== 'complete' && r.error ? ` (${r.error})` : '';
  return `  ${line.harness}: ${paint.tone(statusTone(r.status), r.status)}${why}, ${c.records} record${c.records === 1 ? '' : 's'} (${c.byTier.simple} simple, ${c.byTier.complex} complex), tool coverage ${c.coverage.covered}/${c.coverage.tools}${llm}`;
}

/** The text summary of a corpus run: a line per spec, then the total. */
export function corpusSummaryText(lines: readonly CorpusLine[], result: CorpusResult, outRoot: string, generator: string, io: Io): string {
  const t = corpusTotals(result.outcomes);
  const where = shownPath(io.cwd, outRoot);
  const statuses = Object.entries(t.byStatus)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  const out = [`Corpus of ${t.specs} spec${t.specs === 1 ? '' : 's'} in ${where} (${generator}):`, ...lines.map((l) => corpusSpecLine(l, outPaint(io)))];
  out.push(`  total: ${t.records} record${t.records === 1 ? '' : 's'} over ${t.specs} spec${t.specs === 1 ? '' : 's'}; ${statuses}`);
  if (generator !== 'the offline generator') out.push(`  LLM: ${llmText(t.llm)}`);
  out.push(`  wall time: ${(result.wallTimeMs / 1000).toFixed(1)} s`);
  if (t.byStatus.empty)
    out.push(
      `Empty: ${t.byStatus.empty} spec${t.byStatus.empty === 1 ? '' : 's'} gave 0 records (see each line, and inspect); an empty harness is not a success.`,
    );
  if (t.byStatus.pending)
    out.push('Pending: batch jobs are still running; run the same command again to collect them (`agent-seer status` on the output folder shows them).');
  else if (generator === 'the offline generator' && t.byStatus.cancelled) out.push(`Cancelled: ${OFFLINE_RERUN}.`);
  else if (t.byStatus.cancelled) out.push('Re-run the same command to resume: finished replies are cached, and complete harnesses make no call.');
  else {
    // The specs' items summed: the same advice as one run's, true to what a re-run would do.
    const items = { failed: 0, discarded: 0 };
    for (const o of result.outcomes)
      if (o.kind === 'run' && o.result.items) {
        items.failed += o.result.items.failed;
        items.discarded += o.result.items.discarded;
      }
    const advice = rerunAdvice(items);
    if (advice !== undefined) out.push(advice);
    else if (t.byStatus.failed || t.byStatus.error)
      out.push('Re-run the same command to retry the failed specs: finished replies are cached, and complete harnesses make no call.');
  }
  return out.join('\n');
}

/** The JSON summary of a corpus run: an object per spec (a single run's summary, with its file and harness) and the total. */
export function corpusSummaryJson(
  lines: readonly CorpusLine[],
  result: CorpusResult,
  outRoot: string,
  skipped: readonly { file: string; reason: string }[],
  batch?: BatchSummary,
): Record<string, unknown> {
  const t = corpusTotals(result.outcomes);
  return {
    outputDir: outRoot,
    exitCode: worstExit(result.outcomes.map(outcomeExit)),
    specs: lines.map((l) => {
      const o = l.outcome;
      const head = { file: l.file, harness: l.harness };
      if (o.kind === 'run') return { ...head, ...summaryJson(o.result) };
      return { ...head, status: o.kind === 'refused' ? 'refused' : 'failed', error: o.kind === 'refused' ? o.error.message : o.message };
    }),
    skipped,
    total: { ...t, wallTimeMs: result.wallTimeMs },
    ...(batch ? { batch } : {}),
  };
}
