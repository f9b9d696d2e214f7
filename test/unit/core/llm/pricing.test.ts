/**
 * The price table: lookup by model (and provider), the override file merged over the built-in
 * table (bad files named with the place of the problem), the cost of a usage in each mode and the
 * one way costs are written.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readPriceFile } from '../../../../src/core/app/priceFile';
import {
  BUILT_IN_PRICES,
  costOf,
  estimateLine,
  formatEstimateUsd,
  formatUsd,
  parsePriceOverride,
  PRICE_TABLE_SCHEMA_FILE,
  priceEstimate,
  priceOf,
  priceTableJsonSchema,
  pickerCostText,
  BUILT_IN,
} from '../../../../src/core/llm/pricing';
import { repoRoot } from '../../fixturePaths';

describe('price table', () => {
  it('holds every model the issue names, each with its synchronous and batch prices stored (batch = half, as both vendors publish)', () => {
    const names = [
      'gemini-2.5-flash-lite',
      'gemini-2.5-flash',
      'gemini-2.5-pro',
      'gemini-2.0-flash',
      'gpt-4o-mini',
      'gpt-4o',
      'gpt-4.1',
      'gpt-4.1-mini',
      'gpt-4.1-nano',
      'o4-mini',
    ];
    for (const n of names) {
      const p = BUILT_IN_PRICES.models[n];
      assert.ok(p, n);
      assert.ok(Math.abs(p.batchInput - p.input / 2) < 1e-12 && Math.abs(p.batchOutput - p.output / 2) < 1e-12, n);
    }
    assert.match(BUILT_IN_PRICES.date, /^\d{4}-\d{2}-\d{2}$/);
    assert.ok(BUILT_IN_PRICES.sources.some((s) => s.startsWith('https://ai.google.dev/')));
    assert.ok(BUILT_IN_PRICES.sources.some((s) => s.startsWith('https://openai.com/')));
  });

  it('looks models up by longest name, with or without the provider, and leaves unknown models unpriced', () => {
    assert.equal(priceOf(BUILT_IN_PRICES, 'gpt-4o-mini-2024-07-18')?.input, 0.15);
    assert.equal(priceOf(BUILT_IN_PRICES, 'gpt-4.1-mini')?.input, 0.4);
    assert.equal(priceOf(BUILT_IN_PRICES, 'models/gemini-2.5-pro')?.output, 10);
    assert.equal(priceOf(BUILT_IN_PRICES, 'gemini-2.5-flash', 'gemini')?.input, 0.3);
    assert.equal(
      priceOf(BUILT_IN_PRICES, 'gemini-2.5-flash', 'openai'),
      undefined,
      "an OpenAI-compatible server's model named like a Gemini one is not priced as Gemini",
    );
    assert.equal(priceOf(BUILT_IN_PRICES, 'llama3.1:8b', 'openai'), undefined);
  });

  it('prices a usage per mode; an unknown price is null, never 0', () => {
    const p = priceOf(BUILT_IN_PRICES, 'gemini-2.5-flash-lite');
    assert.equal(costOf({ inputTokens: 1_000_000, outputTokens: 1_000_000 }, p, 'sync'), 0.5);
    assert.equal(costOf({ inputTokens: 1_000_000, outputTokens: 1_000_000 }, p, 'batch'), 0.25);
    assert.equal(costOf({ inputTokens: 5, outputTokens: 5 }, undefined, 'sync'), null);
  });

  it('writes costs one way', () => {
    assert.equal(formatUsd(0.0123), '$0.0123');
    assert.equal(formatUsd(0.47), '$0.47');
    assert.equal(formatUsd(1.2), '$1.20');
    assert.equal(formatUsd(1234.5), '$1,234.50');
    assert.equal(formatUsd(0), '$0.00');
    assert.equal(formatUsd(null), 'unknown price');
    assert.equal(formatEstimateUsd(1.2, 0.6), '≈$1.20 (batch ≈$0.60)');
    assert.equal(formatEstimateUsd(null, null), 'unknown price');
    const e = priceEstimate({ interpret: { calls: 1512, inputTokens: 3_100_000, outputTokens: 400_000 } }, 'gemini', 'gemini-2.5-flash-lite', BUILT_IN);
    assert.equal(
      estimateLine(e),
      `estimate: 1,512 calls, 3.1M in / 0.4M out tokens, ≈$0.47 (batch ≈$0.24) — gemini-2.5-flash-lite, prices of ${BUILT_IN_PRICES.date}`,
    );
    assert.equal(pickerCostText(e), '≈$0.47 · batch ≈$0.24');
    const unknown = priceEstimate({ x: { calls: 3, inputTokens: 10, outputTokens: 10 } }, 'openai', 'my-local-model', BUILT_IN);
    assert.equal(unknown.usd, null);
    assert.match(estimateLine(unknown), /, unknown price — my-local-model,/);
    assert.equal(pickerCostText(unknown), '3 calls · unknown price');
    // A generation estimate carries its range (re-asks, rewrites, extra rounds): the picker shows it.
    const ranged = { ...e, high: { ...e, calls: 4536, usd: 1.41, batchUsd: 0.71, stages: e.stages } };
    assert.equal(pickerCostText(ranged), '≈$0.47–$1.41 · batch ≈$0.24–$0.71');
    assert.equal(pickerCostText({ ...unknown, high: { ...unknown, calls: 9, stages: unknown.stages } }), '3–9 calls · unknown price');
  });

  it('merges an override file over the built-in table, model by model', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-seer-prices-'));
    try {
      const file = join(dir, 'prices.json');
      const override = {
        date: '2027-01-15',
        sources: ['https://example.com/our-contract'],
        models: {
          'gpt-4o': { provider: 'openai', input: 1, output: 4, batchInput: 0.5, batchOutput: 2 },
          'my-model': { provider: 'openai', input: 0, output: 0, batchInput: 0, batchOutput: 0 },
        },
      };
      await writeFile(file, JSON.stringify(override));
      const r = await readPriceFile(file);
      assert.ok(r.ok);
      assert.equal(priceOf(r.prices.table, 'gpt-4o')?.input, 1, 'replaced');
      assert.equal(priceOf(r.prices.table, 'gpt-4o-mini')?.input, 0.15, 'kept');
      assert.equal(costOf({ inputTokens: 9, outputTokens: 9 }, priceOf(r.prices.table, 'my-model'), 'sync'), 0, 'a free model is priced 0, not unknown');
      assert.deepEqual(r.prices.from, { source: file, date: '2027-01-15' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a bad override file with one line naming the file and the place', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-seer-prices-'));
    try {
      const file = join(dir, 'prices.json');
      await writeFile(file, '{ not json');
      let r = await readPriceFile(file);
      assert.ok(!r.ok && r.message.startsWith(`${file}: not JSON`), JSON.stringify(r));
      await writeFile(
        file,
        JSON.stringify({
          date: '2027-01-01',
          sources: [],
          models: { 'gpt-4o': { provider: 'openai', input: '2.5', output: 10, batchInput: 1, batchOutput: 5 } },
        }),
      );
      r = await readPriceFile(file);
      assert.ok(!r.ok && r.message.startsWith(`${file}: not a price table: models.gpt-4o.input: `), JSON.stringify(r));
      assert.ok(!r.ok && !r.message.includes('\n'));
      r = await readPriceFile(join(dir, 'missing.json'));
      assert.ok(!r.ok && r.message.startsWith(join(dir, 'missing.json')), JSON.stringify(r));
      assert.equal(
        parsePriceOverride('{"date":"x","sources":[],"models":{},"extra":1}', 'f').ok,
        false,
        'unknown keys are refused (a typo would otherwise be ignored)',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('publishes the price file schema in schemas/', async () => {
    const published = JSON.parse(await readFile(join(repoRoot, 'schemas', PRICE_TABLE_SCHEMA_FILE), 'utf8')) as unknown;
    assert.deepEqual(published, priceTableJsonSchema(), `schemas/${PRICE_TABLE_SCHEMA_FILE} is out of date: npm run gen-schemas`);
  });
});
