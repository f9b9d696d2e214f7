/**
 * One LLM-backed step: a structured request whose reply is checked by deterministic rules
 * (call validity, integrity, turn structure); failed checks go back to the model with their
 * exact messages (the `StructuredLlm` re-ask loop, at most 3 replies), and what each step
 * repaired or dropped is counted under `<stage>:<category>`.
 *
 * When the last reply still fails, a step may *salvage* it (keep the valid scenarios of a
 * batch, plant missing IDs into mock outputs) instead of losing everything. The value a salvage
 * used and the counts go to the {@link Ledger}, so a re-run served from the cache rebuilds the
 * same result and reports the same counts without calling the model.
 */
import type { DiscardReason, StructuredLlm, StructuredRequest } from '../../llm';
import { bump, emptyStepCounts, mergeCounts, type StepCounts } from './counts';
import type { Ledger } from './ledger';
import { MAX_EXTRA_ROUNDS } from '../../workspace/defaults';

/** A failed check: a category for the counters and a message for the model. */
export interface Problem {
  category: string;
  message: string;
}

/** What a step does with the model's replies. */
export interface AskSpec<T, R> {
  /** Counter prefix (usually the LLM stage name). */
  stage: string;
  /** The request, without `validate` (built from `check`). */
  request: Omit<StructuredRequest<T>, 'validate'>;
  /** Deterministic checks of a schema-valid reply; empty means accepted. Must be pure. */
  check: (value: T) => Problem[];
  /** Builds the step's result from an accepted reply. */
  accept: (value: T) => R;
  /**
   * Makes what it can of the last reply after the re-asks ran out (`problems` are its failed
   * checks); undefined when nothing is usable, or `{discard}` to name why when the reason is not
   * one of the last reply's problems (a repair that made a new problem). Must be pure: it is
   * re-run on cached replies.
   */
  salvage?: (value: T, problems: readonly Problem[]) => { value: R; counts: StepCounts } | { discard: string } | undefined;
  /** Categories of what `accept` fixed deterministically in an accepted reply (counted as repairs, one each). Must be pure. */
  repairs?: (value: T) => readonly string[];
  /**
   * Categories of the parts `accept` left out of an accepted reply (a batch's refused scenarios,
   * counted as discards, one each), when a step takes the valid parts of a reply as they come
   * instead of re-asking for the whole. Must be pure.
   */
  discards?: (value: T) => readonly string[];
}

/** What a step produced. */
export type AskOutcome<R> =
  | { ok: true; value: R; counts: StepCounts; cached: boolean; salvaged: boolean; key: string }
  | { ok: false; reason: DiscardReason; errors: string[]; counts: StepCounts; cached: boolean; key: string };

/** What `ask` needs from the run. */
export interface AskContext {
  llm: StructuredLlm;
  ledger: Ledger;
  signal: AbortSignal;
  /**
   * Steps of this run by request key. Identical requests (two scenarios with the same workflow)
   * share one outcome; only the first counts its repairs, as only one reply was repaired. A
   * discarded outcome is not shared: the later request is a new sample (see {@link ask}).
   */
  steps?: Map<string, Promise<AskOutcome<unknown>>>;
}

const isEmpty = (c: StepCounts): boolean => Object.keys(c.repaired).length === 0 && Object.keys(c.discarded).length === 0;

/**
 * Runs one step. Resolves with the outcome (a discard is a value); rejects only on cancellation
 * and on faults that stop the run (bad key, unreachable server), as `StructuredLlm.generate`.
 */
export async function ask<T, R>(ctx: AskContext, spec: AskSpec<T, R>): Promise<AskOutcome<R>> {
  if (!ctx.steps) return askOnce(ctx, spec);
  for (let k = 0; ; k++) {
    // A discarded reply is not shared: the next identical step (a coverage round's scenario that
    // came back the same) asks again as a new sample, up to MAX_EXTRA_ROUNDS times, and counts
    // its own discard; otherwise one bad reply would silently sink every later identical item.
    const request = k === 0 ? spec.request : { ...spec.request, sampleIndex: (spec.request.sampleIndex ?? 0) + k * RESAMPLE_STRIDE };
    const key = ctx.llm.keyOf(request);
    const earlier = ctx.steps.get(key) as Promise<AskOutcome<R>> | undefined;
    if (!earlier) {
      const run = askOnce(ctx, { ...spec, request });
      ctx.steps.set(key, run);
      return run;
    }
    const shared = await earlier;
    if (shared.ok || isTransportFailure(shared.reason) || k >= MAX_EXTRA_ROUNDS) return { ...shared, counts: emptyStepCounts() };
  }
}

/** Whether a discard was a transport fault (after the retries) rather than the reply's content. */
export function isTransportFailure(reason: DiscardReason): boolean {
  return reason === 'http' || reason === 'timeout';
}

/** Added to a request's sample index for each new sample of a discarded step (apart from the seeds runs use). */
const RESAMPLE_STRIDE = 1000;

async function askOnce<T, R>(ctx: AskContext, spec: AskSpec<T, R>): Promise<AskOutcome<R>> {
  const log: Problem[][] = [];
  let last: T | undefined;
  const request: StructuredRequest<T> = {
    ...spec.request,
    validate: (value) => {
      const problems = spec.check(value);
      log.push(problems);
      last = value;
      return problems.map((p) => p.message);
    },
  };
  const r = await ctx.llm.generate(request, ctx.signal);
  const prefix = spec.stage;

  if (r.ok) {
    const value = spec.accept(r.value);
    if (r.cached) return { ok: true, value, counts: (await ctx.ledger.get(r.key))?.counts ?? emptyStepCounts(), cached: true, salvaged: false, key: r.key };
    const counts = emptyStepCounts();
    // Replies that never reached the checks were not JSON or broke the schema.
    if (r.attempts > log.length) bump(counts.repaired, `${prefix}:malformed-reply`);
    for (const category of new Set(log.slice(0, -1).flatMap((ps) => ps.map((p) => p.category)))) bump(counts.repaired, `${prefix}:${category}`);
    for (const fix of spec.repairs?.(r.value) ?? []) bump(counts.repaired, `${prefix}:${fix}`);
    for (const lost of spec.discards?.(r.value) ?? []) bump(counts.discarded, `${prefix}:${lost}`);
    if (!isEmpty(counts)) await ctx.ledger.set(r.key, { counts });
    return { ok: true, value, counts, cached: false, salvaged: false, key: r.key };
  }

  // A discard. Cached ones replay what the ledger recorded.
  if (r.cached) {
    const entry = await ctx.ledger.get(r.key);
    if (entry?.salvage !== undefined && spec.salvage) {
      const again = spec.salvage(entry.salvage as T, spec.check(entry.salvage as T));
      if (again && 'value' in again) return { ok: true, value: again.value, counts: entry.counts, cached: true, salvaged: true, key: r.key };
    }
    const counts = entry?.counts ?? { repaired: {}, discarded: { [`${prefix}:${r.reason}`]: 1 } };
    return { ok: false, reason: r.reason, errors: r.errors, counts, cached: true, key: r.key };
  }

  const counts = emptyStepCounts();
  let discardAs: string | undefined;
  if (r.reason === 'semantic' && last !== undefined && spec.salvage) {
    const lastProblems = log[log.length - 1] ?? [];
    const saved = spec.salvage(last, lastProblems);
    if (saved && 'discard' in saved) discardAs = saved.discard;
    else if (saved) {
      mergeCounts(counts.repaired, saved.counts.repaired);
      mergeCounts(counts.discarded, saved.counts.discarded);
      // A re-ask repaired only what the last reply no longer gets wrong; what it still did, the salvage counts (or labels) itself.
      const still = new Set(lastProblems.map((p) => p.category));
      for (const category of new Set(log.slice(0, -1).flatMap((ps) => ps.map((p) => p.category))))
        if (!still.has(category)) bump(counts.repaired, `${prefix}:${category}`);
      await ctx.ledger.set(r.key, { counts, salvage: last });
      return { ok: true, value: saved.value, counts, cached: false, salvaged: true, key: r.key };
    }
  }
  if (r.reason === 'semantic') {
    const categories = new Set(discardAs !== undefined ? [discardAs] : (log[log.length - 1] ?? []).map((p) => p.category));
    for (const c of categories.size ? categories : ['semantic']) bump(counts.discarded, `${prefix}:${c}`);
  } else bump(counts.discarded, `${prefix}:${r.reason}`);
  // Transport discards are not cached (a re-run tries again), so they need no ledger entry.
  if (r.reason !== 'http' && r.reason !== 'timeout') await ctx.ledger.set(r.key, { counts });
  return { ok: false, reason: r.reason, errors: r.errors, counts, cached: false, key: r.key };
}
