/**
 * The manifest's `cost`: the estimate made before an LLM run and its requests priced after it,
 * from the manifest's own token totals, so the two can never disagree.
 */
import type { HarnessManifest, RunCost } from '../harness/format';
import { BUILT_IN, costOf, priceOf, type CostEstimate, type CostMode, type Prices } from '../llm/pricing';

/** The cost of a run that made `tokens` with the manifest's provider and model. */
export function runCost(
  manifest: Pick<HarnessManifest, 'provider' | 'model'>,
  tokens: HarnessManifest['tokens'],
  options: { prices?: Prices; mode?: CostMode; estimate?: CostEstimate } = {},
): RunCost {
  const prices = options.prices ?? BUILT_IN;
  const mode = options.mode ?? 'sync';
  const price = priceOf(prices.table, manifest.model, manifest.provider);
  const e = options.estimate;
  return {
    ...(e
      ? { estimate: { calls: e.calls, inputTokens: e.inputTokens, outputTokens: e.outputTokens, usd: roundUsd(e.usd), batchUsd: roundUsd(e.batchUsd) } }
      : {}),
    actual: { usd: roundUsd(costOf({ inputTokens: tokens.input, outputTokens: tokens.output }, price, mode)), mode, prices: prices.from },
  };
}

/** Micro-dollars are the finest a manifest keeps (floating sums print as 0.30000000000000004 otherwise). */
function roundUsd(usd: number | null): number | null {
  return usd === null ? null : Math.round(usd * 1e6) / 1e6;
}
