/**
 * The report's cost rows: a harness's generation run (its manifest's `cost`, priced when it was
 * made) and each LLM judge over its records (the tokens its stored judgments record, priced now at
 * the built-in table: a judgment keeps its usage, not a price).
 */
import type { HarnessManifest, HarnessRecord } from '../harness/format';
import { BUILT_IN, costOf, priceOf } from '../llm/pricing';
import { StoredJudgment } from '../judge/schemas';
import type { CostRow } from './schema';
import { byCodeUnit } from '../util/byCodeUnit';

/** Cost rows of one harness: generation first, then its LLM judges by id. */
export function costRowsOf(server: string, manifest: HarnessManifest | undefined, records: readonly HarnessRecord[]): CostRow[] {
  const rows: CostRow[] = [];
  if (manifest?.cost) {
    const c = manifest.cost;
    const e = c.estimate;
    rows.push({
      server,
      what: 'generation',
      model: manifest.model,
      calls: manifest.tokens.calls,
      inputTokens: manifest.tokens.input,
      outputTokens: manifest.tokens.output,
      usd: c.actual.usd,
      mode: c.actual.mode,
      prices: c.actual.prices,
      estimate: e ? { calls: e.calls, usd: e.usd, batchUsd: e.batchUsd } : null,
    });
  }
  const judges = new Map<string, { provider: string; model: string; inputTokens: number; outputTokens: number }>();
  for (const record of records) {
    for (const [id, raw] of Object.entries(record.judgments ?? {})) {
      const parsed = StoredJudgment.safeParse(raw);
      if (!parsed.success || parsed.data.judge.provider === 'offline') continue;
      const j = parsed.data;
      const t = judges.get(id) ?? { provider: j.judge.provider, model: j.judge.model, inputTokens: 0, outputTokens: 0 };
      for (const view of [j, ...(j.conversation ? [j.conversation] : [])]) {
        t.inputTokens += view.usage.inputTokens;
        t.outputTokens += view.usage.outputTokens;
      }
      judges.set(id, t);
    }
  }
  for (const [id, t] of [...judges].sort(([a], [b]) => byCodeUnit(a, b))) {
    rows.push({
      server,
      what: id,
      model: t.model,
      calls: null,
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
      usd: costOf(t, priceOf(BUILT_IN.table, t.model, t.provider), 'sync'),
      mode: 'sync',
      prices: BUILT_IN.from,
      estimate: null,
    });
  }
  return rows;
}
