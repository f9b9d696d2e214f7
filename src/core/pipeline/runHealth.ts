/**
 * Whether an LLM run may call itself complete. Every LLM item (see `ItemOutcomes` in the harness
 * format) ends as made by the model, failed (transport), discarded (content) or filled offline;
 * the share of the last three decides the verdict, so an outage that left the offline generator
 * to write everything is never reported as a success.
 *
 * The one place for the thresholds (documented in docs/cli.md, "agent-seer generate").
 */
import type { ItemOutcomes } from '../harness/format';
import { bump } from './llm/counts';
import { round4 } from '../util/round4';

/** Above this share of degraded items (failed + discarded + offline) a finished run is `partial`. */
export const DEGRADED_SHARE_LIMIT = 0.1;

/** How one item ended. */
export type ItemOutcome = 'llm' | 'failed' | 'discarded' | 'offline';

/** Running tally of item outcomes (the manifest's `items` without the derived fields). */
export type ItemTally = Omit<ItemOutcomes, 'degradedShare' | 'offlineRecords'>;

/** An empty tally. */
export function emptyTally(): ItemTally {
  return { total: 0, llm: 0, failed: 0, discarded: 0, offline: 0, failedBy: {} };
}

/** Counts one item; `failedKey` (`<stage>:<reason>`) says why a failed one failed. */
export function tallyItem(tally: ItemTally, outcome: ItemOutcome, failedKey?: string): void {
  tally.total++;
  tally[outcome]++;
  if (outcome === 'failed') bump(tally.failedBy, failedKey ?? 'unknown');
}

/**
 * Re-counts one item the model made as discarded: its record failed a final gate (`llmRun.ts`
 * `keep`) after the stage had counted it made, and a discard the verdict does not see would let
 * a run that lost records call itself complete.
 */
export function demoteItem(tally: ItemTally): void {
  if (tally.llm <= 0) return;
  tally.llm--;
  tally.discarded++;
}

/** Degraded items over all items (0 without items). */
export function degradedShare(t: ItemTally): number {
  return t.total === 0 ? 0 : (t.failed + t.discarded + t.offline) / t.total;
}

/** The manifest's `items`. */
export function itemOutcomes(t: ItemTally, offlineRecords: number): ItemOutcomes {
  return { ...t, failedBy: Object.fromEntries(Object.entries(t.failedBy).sort()), degradedShare: round4(degradedShare(t)), offlineRecords };
}

/** The verdict on a run that ended without being cancelled. */
export interface RunVerdict {
  status: 'complete' | 'partial' | 'failed' | 'empty';
  /** Why it is not complete (one line). */
  reason?: string;
}

const pct = (x: number): string => `${Math.round(x * 100)}%`;

/**
 * Judges a finished run from its tally: `failed` when items existed and none was made by the
 * model; `partial` when the degraded share exceeds {@link DEGRADED_SHARE_LIMIT}; `empty` when it
 * otherwise ended well with 0 records; else `complete`.
 * A run the provider stopped (`stopped`: its quota ran out or its endpoint is down) is `partial`
 * when the model made records before it, else `failed`.
 */
export function runVerdict(t: ItemTally, options: { records: number; stopped?: string; emptyReason?: string }): RunVerdict {
  const failedText = Object.entries(t.failedBy)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const why = `${t.failed} failed${failedText ? ` (${failedText})` : ''}, ${t.discarded} discarded, ${t.offline} filled offline`;
  if (options.stopped !== undefined) {
    return {
      status: options.records > 0 && t.llm > 0 ? 'partial' : 'failed',
      reason: `stopped after ${t.total} items (${t.llm} made by the model): ${options.stopped}`,
    };
  }
  if (t.total > 0 && t.llm === 0) return { status: 'failed', reason: `no LLM item succeeded: ${why} of ${t.total}` };
  const share = degradedShare(t);
  if (share > DEGRADED_SHARE_LIMIT)
    return { status: 'partial', reason: `${pct(share)} of ${t.total} LLM items degraded (limit ${pct(DEGRADED_SHARE_LIMIT)}): ${why}` };
  if (options.records === 0) return { status: 'empty', reason: options.emptyReason ?? '0 records' };
  return { status: 'complete' };
}

/**
 * Why a run that ended well wrote 0 records, in one line for the summary and the manifest's
 * `error`: a spec without tools, every tool skipped (with the first reasons), nothing requested,
 * or scenarios that could not be built.
 */
export function emptyReason(o: {
  tools: number;
  skipped: readonly { tool: string; reason: string }[];
  requested: { simple: number; complex: number };
  discarded?: Readonly<Record<string, number>>;
}): string {
  if (o.tools === 0) return '0 records: the spec has no tools';
  if (o.skipped.length >= o.tools) {
    const first = o.skipped
      .slice(0, 2)
      .map((s) => `${s.tool}: ${s.reason}`)
      .join('; ');
    return `0 records: every tool was skipped (${o.skipped.length}; ${first}${o.skipped.length > 2 ? '; …' : ''}) — see inspect`;
  }
  if (o.requested.simple + o.requested.complex === 0) return '0 records: none were requested (--simple 0 --complex 0)';
  const discarded = Object.entries(o.discarded ?? {})
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return `0 records: no scenario could be built${discarded ? ` (discarded: ${discarded})` : ''} — see inspect`;
}
