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
  options: { prices?: Prices; mode?: CostMode; estimate?: CostEstimate; syncTokens?: { input: number; output: number } } = {},
): RunCost {
  const prices = options.prices ?? BUILT_IN;
  const mode = options.mode ?? 'sync';
  const price = priceOf(prices.table, manifest.model, manifest.provider);
  // A batch run's synchronous retries are part of `tokens` but billed at the full price.
  const sync = mode === 'batch' ? options.syncTokens : undefined;
  const atMode = sync
    ? { inputTokens: tokens.input - sync.input, outputTokens: tokens.output - sync.output }
    : { inputTokens: tokens.input, outputTokens: tokens.output };
  const usd = sync
    ? sumUsd(costOf(atMode, price, 'batch'), costOf({ inputTokens: sync.input, outputTokens: sync.output }, price, 'sync'))
    : costOf(atMode, price, mode);
  const e = options.estimate;
  return {
    ...(e
      ? {
          estimate: {
            calls: e.calls,
            inputTokens: e.inputTokens,
            outputTokens: e.outputTokens,
            usd: roundUsd(e.usd),
            batchUsd: roundUsd(e.batchUsd),
            ...(e.high
              ? {
                  high: {
                    calls: e.high.calls,
                    inputTokens: e.high.inputTokens,
                    outputTokens: e.high.outputTokens,
                    usd: roundUsd(e.high.usd),
                    batchUsd: roundUsd(e.high.batchUsd),
                  },
                }
              : {}),
          },
        }
      : {}),
    actual: { usd: roundUsd(usd), mode, prices: prices.from },
  };
}

function sumUsd(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}

/** Micro-dollars are the finest a manifest keeps (floating sums print as 0.30000000000000004 otherwise). */
function roundUsd(usd: number | null): number | null {
  return usd === null ? null : Math.round(usd * 1e6) / 1e6;
}
