/**
 * What LLM calls cost: the price table (built in, overridable by a JSON file of the same shape),
 * the cost of a usage, and the one way costs are written for people (`$0.0123`,
 * `≈$1.20 (batch ≈$0.60)`).
 *
 * Prices are USD per 1M tokens. Synchronous and batch prices are both stored, not a discount
 * derived from one another, so a vendor changing either is one edit. Thinking tokens bill as
 * output (Gemini reports them apart; `gemini.ts` adds them to the output tokens), so output
 * prices apply to them too. Where a vendor tiers by prompt length (Gemini 2.5 Pro above 200k
 * prompt tokens), the table holds the ≤200k tier: no request of ours comes near 200k.
 */
import { z } from 'zod';
import { formatEstimateUsd, formatUsd } from './usd';

// The words for amounts live in usd.ts (import-free, for the report page); re-exported here.
export { formatEstimateUsd, formatUsd };

/** Synchronous or batch calls. */
export const CostMode = z.enum(['sync', 'batch']);
export type CostMode = z.infer<typeof CostMode>;

/** The price of one model, USD per 1M tokens. */
export const ModelPrice = z
  .object({
    provider: z.enum(['gemini', 'openai']).describe('Whose model: gemini (Google AI Studio) or openai (OpenAI and compatible servers).'),
    input: z.number().nonnegative().describe('USD per 1M input (prompt) tokens, synchronous calls.'),
    output: z.number().nonnegative().describe('USD per 1M output tokens (thinking tokens included), synchronous calls.'),
    batchInput: z.number().nonnegative().describe('USD per 1M input tokens in a batch job.'),
    batchOutput: z.number().nonnegative().describe('USD per 1M output tokens in a batch job.'),
  })
  .strict();
export type ModelPrice = z.infer<typeof ModelPrice>;

/** A price table: the built-in one, or a user's override file (same shape; its models merge over the built-in ones). */
export const PriceTable = z
  .object({
    date: z.string().min(1).describe('When the prices were read from their sources (YYYY-MM-DD).'),
    sources: z.array(z.string()).describe('Where the prices come from (URLs).'),
    models: z
      .record(z.string().min(1), ModelPrice)
      .describe('Prices by model name; a model is priced by the longest name here that its own name starts with (gpt-4o-mini-2024-07-18 → gpt-4o-mini).'),
  })
  .strict()
  .describe('Agent Seer price table (USD per 1M tokens, synchronous and batch).');
export type PriceTable = z.infer<typeof PriceTable>;

/** File name of the price table's JSON Schema under `schemas/`. */
export const PRICE_TABLE_SCHEMA_FILE = 'price-table.schema.json';

/** The JSON Schema of a price file, from the zod schema (what `schemas/price-table.schema.json` holds). */
export function priceTableJsonSchema(): Record<string, unknown> {
  return { ...(z.toJSONSchema(PriceTable, { target: 'draft-7', io: 'output' }) as Record<string, unknown>), title: 'Agent Seer price table' };
}

const price = (provider: ModelPrice['provider'], input: number, output: number, batchInput: number, batchOutput: number): ModelPrice => ({
  provider,
  input,
  output,
  batchInput,
  batchOutput,
});

/**
 * The built-in table, read on 2026-12-02. The vendors' own pages (first two sources) could not be
 * read from here; every figure was cross-checked against copies of them:
 * - Gemini: 2.5 Flash-Lite $0.10/$0.40, 2.5 Flash $0.30/$2.50, 2.5 Pro $1.25/$10 (prompts ≤200k)
 *   in deploybase.ai (Gemini 2.5 pricing, 2026) and nicolalazzari.ai (2026); batch "50% of the
 *   standard rate" on input and output in Google's announcement (developers.googleblog.com,
 *   2025-07-07). 2.0 Flash $0.10/$0.40 only from resellers quoting Google (openrouter.ai); 2.0
 *   Flash-Lite $0.075/$0.30 not verified (a reseller shows $0.07).
 * - OpenAI: GPT-4o $2.50/$10 (batch $1.25/$5), GPT-4o mini $0.15/$0.60 (batch $0.075/$0.30),
 *   o4-mini $1.10/$4.40 (batch $0.55/$2.20), GPT-4.1 $2/$8 (batch $1/$4) in apicalculators.com
 *   (2026); GPT-4.1 mini $0.40/$1.60 (batch $0.20/$0.80) and nano $0.10/$0.40 (batch $0.05/$0.20)
 *   in deploybase.ai (GPT-4.1 pricing, March 2026). The GPT-5 rows were not verified here.
 */
export const BUILT_IN_PRICES: PriceTable = {
  date: '2026-12-02',
  sources: [
    'https://ai.google.dev/gemini-api/docs/pricing',
    'https://openai.com/api/pricing/',
    'https://developers.googleblog.com/scale-your-ai-workloads-batch-mode-gemini-api',
  ],
  models: {
    'gemini-2.5-flash-lite': price('gemini', 0.1, 0.4, 0.05, 0.2),
    'gemini-2.5-flash': price('gemini', 0.3, 2.5, 0.15, 1.25),
    'gemini-2.5-pro': price('gemini', 1.25, 10, 0.625, 5),
    'gemini-2.0-flash-lite': price('gemini', 0.075, 0.3, 0.0375, 0.15),
    'gemini-2.0-flash': price('gemini', 0.1, 0.4, 0.05, 0.2),
    'gpt-4o-mini': price('openai', 0.15, 0.6, 0.075, 0.3),
    'gpt-4o': price('openai', 2.5, 10, 1.25, 5),
    'gpt-4.1-nano': price('openai', 0.1, 0.4, 0.05, 0.2),
    'gpt-4.1-mini': price('openai', 0.4, 1.6, 0.2, 0.8),
    'gpt-4.1': price('openai', 2, 8, 1, 4),
    'o4-mini': price('openai', 1.1, 4.4, 0.55, 2.2),
    'gpt-5-nano': price('openai', 0.05, 0.4, 0.025, 0.2),
    'gpt-5-mini': price('openai', 0.25, 2, 0.125, 1),
    'gpt-5': price('openai', 1.25, 10, 0.625, 5),
  },
};

/** Where a run's prices came from, as manifests and summaries name it. */
export interface PriceSource {
  /** `built-in`, or the override file as given. */
  source: string;
  /** The table's date (the override's when it has one). */
  date: string;
}

/** A table ready to price with, and where it came from. */
export interface Prices {
  table: PriceTable;
  from: PriceSource;
}

/** The built-in prices. */
export const BUILT_IN: Prices = { table: BUILT_IN_PRICES, from: { source: 'built-in', date: BUILT_IN_PRICES.date } };

/**
 * An override file's text merged over the built-in table: its models replace or add entries,
 * its date and sources replace the table's. `{ ok: false, message }` names the first problem
 * with its place in the file (`models.gpt-4o.input: …`).
 */
export function parsePriceOverride(
  text: string,
  source: string,
  base: PriceTable = BUILT_IN_PRICES,
): { ok: true; prices: Prices } | { ok: false; message: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `not JSON (${(e as Error).message})` };
  }
  const parsed = PriceTable.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    return { ok: false, message: `not a price table: ${at}${issue?.message ?? 'invalid'}` };
  }
  const table: PriceTable = { date: parsed.data.date, sources: parsed.data.sources, models: { ...base.models, ...parsed.data.models } };
  return { ok: true, prices: { table, from: { source, date: table.date } } };
}

/** The price of `model` (longest matching name, a `models/` prefix ignored), if the table has one; of `provider`'s models only when given. */
export function priceOf(table: PriceTable, model: string, provider?: string): ModelPrice | undefined {
  const name = model.replace(/^models\//, '');
  const family = provider === undefined ? undefined : provider === 'gemini' ? 'gemini' : provider.startsWith('openai') ? 'openai' : provider;
  let best: string | undefined;
  for (const [key, p] of Object.entries(table.models)) {
    if (family !== undefined && p.provider !== family) continue;
    if (name.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table.models[best];
}

/** Token counts to price. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/** USD of `usage` at `price` in `mode`; null when the price is unknown (never 0 for an unknown price). */
export function costOf(usage: TokenUsage, price: ModelPrice | undefined, mode: CostMode): number | null {
  if (!price) return null;
  const [i, o] = mode === 'batch' ? [price.batchInput, price.batchOutput] : [price.input, price.output];
  return (usage.inputTokens * i + usage.outputTokens * o) / 1e6;
}

/** What one stage of a run is expected to take. */
export interface StageEstimate {
  calls: number;
  inputTokens: number;
  outputTokens: number;
}

/** What a run is expected to take and cost, before it is made. */
export interface CostEstimate {
  provider: string;
  model: string;
  /** Totals over the stages. */
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** USD for synchronous calls and for a batch job; null when the model has no price. */
  usd: number | null;
  batchUsd: number | null;
  /** Per stage (interpret, scenarios, mock, turns; judge-tc, judge-coh). */
  stages: Record<string, StageEstimate>;
  prices: PriceSource;
  /**
   * The top of the range, when the estimate has one: the totals above are what a model that
   * follows its schemas takes; this adds the re-asks, rewrites and extra rounds a model that
   * does not can cost (generation: `pipeline/estimate.ts` says at which measured rates).
   */
  high?: { calls: number; inputTokens: number; outputTokens: number; usd: number | null; batchUsd: number | null; stages: Record<string, StageEstimate> };
}

/** The same estimate priced for another provider and model (the calls and tokens do not change), its range with it. */
export function repriceEstimate(e: CostEstimate, provider: string, model: string, prices: Prices): CostEstimate {
  const low = priceEstimate(e.stages, provider, model, prices);
  if (!e.high) return low;
  const h = priceEstimate(e.high.stages, provider, model, prices);
  return { ...low, high: { calls: h.calls, inputTokens: h.inputTokens, outputTokens: h.outputTokens, usd: h.usd, batchUsd: h.batchUsd, stages: h.stages } };
}

/** Sums stages into an estimate priced for `model`. */
export function priceEstimate(stages: Record<string, StageEstimate>, provider: string, model: string, prices: Prices): CostEstimate {
  const total = Object.values(stages).reduce(
    (a, s) => ({ calls: a.calls + s.calls, inputTokens: a.inputTokens + s.inputTokens, outputTokens: a.outputTokens + s.outputTokens }),
    {
      calls: 0,
      inputTokens: 0,
      outputTokens: 0,
    },
  );
  const p = priceOf(prices.table, model, provider);
  return { provider, model, ...total, usd: costOf(total, p, 'sync'), batchUsd: costOf(total, p, 'batch'), stages, prices: prices.from };
}

/** `3.1M in / 0.4M out`, `412k in / 50k out`, `950 in / 120 out`: both in the unit of the larger. */
function tokensPair(input: number, output: number): string {
  const top = Math.max(input, output);
  const f =
    top >= 1e6
      ? (n: number): string => `${(n / 1e6).toFixed(1)}M`
      : top >= 1e4
        ? (n: number): string => `${Math.round(n / 1e3)}k`
        : top >= 1e3
          ? (n: number): string => `${(n / 1e3).toFixed(1)}k`
          : (n: number): string => String(Math.round(n));
  return `${f(input)} in / ${f(output)} out`;
}

/** `estimate: 1,512 calls, 3.1M in / 0.4M out tokens, ≈$0.47 (batch ≈$0.24) — gemini-2.5-flash-lite, prices of 2026-12-02` */
export function estimateLine(e: CostEstimate): string {
  const prices = e.prices.source === 'built-in' ? `prices of ${e.prices.date}` : `prices of ${e.prices.date} from ${e.prices.source}`;
  const h = e.high;
  const range = h
    ? `; up to ${h.calls.toLocaleString('en-US')} calls, ${tokensPair(h.inputTokens, h.outputTokens)} tokens, ${formatEstimateUsd(h.usd, h.batchUsd)} with re-asks`
    : '';
  return `estimate: ${e.calls.toLocaleString('en-US')} calls, ${tokensPair(e.inputTokens, e.outputTokens)} tokens, ${formatEstimateUsd(e.usd, e.batchUsd)}${range} — ${e.model}, ${prices}`;
}

/** `46–92 calls` or `46 calls`: an estimate's call count, as a range when it has one. */
export function estimateCalls(e: { calls: number; high?: { calls: number } }): string {
  const low = e.calls.toLocaleString('en-US');
  return e.high && e.high.calls !== e.calls ? `${low}–${e.high.calls.toLocaleString('en-US')} calls` : `${low} calls`;
}

/** `≈$0.47 · batch ≈$0.24`, or with a range `≈$0.47–$1.40 · batch ≈$0.24–$0.70` (the editor's model picker). */
export function pickerCostText(e: CostEstimate): string {
  if (e.usd === null) return `${estimateCalls(e)} · unknown price`;
  const range = (low: number, high: number | null | undefined): string => `≈${formatUsd(low)}${high != null && high !== low ? `–${formatUsd(high)}` : ''}`;
  return `${range(e.usd, e.high?.usd)}${e.batchUsd === null ? '' : ` · batch ${range(e.batchUsd, e.high?.batchUsd)}`}`;
}
