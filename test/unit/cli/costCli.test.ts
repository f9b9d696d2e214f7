/**
 * Cost on the command line: `generate --estimate` and `judge --estimate` call nothing, a real run
 * against the fake Gemini (which reports usage) writes the cost of its tokens at the table's
 * price into the manifest and the summaries, `--prices` overrides the table, and a bad price file
 * is bad input named in one line.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { HarnessManifest } from '../../../src/core/harness/format';
import { BUILT_IN_PRICES } from '../../../src/core/llm/pricing';
import { startFakeGemini } from '../../fakes/fakeGemini';
import type { FakeLlmServer } from '../../fakes/fakeLlmServer';
import { schemaOnlyModel } from '../../fakes/schemaOnly';
import { cli as runCli, type Captured } from '../cliRunner';
import { specsDir } from '../fixturePaths';
import { scriptJudge } from '../judgeFixtures';

const SLACK = join(specsDir, 'slack.json');
const KEY = { GEMINI_API_KEY: 'test-key' };
/** Every reply of the fake says it used this many tokens. */
const USAGE = { input: 1000, output: 100 };

describe('cost on the command line', () => {
  let fake: FakeLlmServer;
  let root: string;
  before(async () => {
    fake = await startFakeGemini({ apiKey: 'test-key' });
    root = await mkdtemp(join(tmpdir(), 'agent-seer-cost-cli-'));
  });
  after(async () => {
    await fake.close();
    await rm(root, { recursive: true, force: true });
  });
  beforeEach(() => fake.reset());
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<Captured> => runCli(args, root, { PATH: process.env.PATH, ...env });
  const useSchemaOnly = (): void => {
    fake.respondWith((r) => ({ ...schemaOnlyModel(r), usage: USAGE }));
  };

  it('generate --estimate prints calls, tokens and both prices and exits 0 without a request (and without a key)', async () => {
    useSchemaOnly();
    const r = await cli(['generate', SLACK, '--provider', 'gemini', '--base-url', fake.url, '--out', 'est', '--estimate']);
    assert.equal(r.code, 0, r.err);
    assert.equal(fake.requests.length, 0);
    assert.match(
      r.out,
      new RegExp(
        `^estimate: \\d+ calls, [\\d.]+k? in / [\\d.]+k? out tokens, ≈\\$[\\d.]+ \\(batch ≈\\$[\\d.]+\\); up to \\d+ calls, [\\d.]+k? in / [\\d.]+k? out tokens, ≈\\$[\\d.]+ \\(batch ≈\\$[\\d.]+\\) with re-asks — gemini-2\\.5-flash-lite, prices of ${BUILT_IN_PRICES.date}$`,
      ),
    );
    const json = await cli(['generate', SLACK, '--provider', 'gemini', '--model', 'gemini-2.5-pro', '--estimate', '--json']);
    assert.equal(json.code, 0, json.err);
    const e = (JSON.parse(json.out) as { estimate: { model: string; calls: number; usd: number; batchUsd: number; stages: Record<string, { calls: number }> } })
      .estimate;
    assert.equal(e.model, 'gemini-2.5-pro');
    assert.equal(e.stages.interpret?.calls, 8, 'one interpretation per tool');
    assert.ok(e.usd > 0 && Math.abs(e.batchUsd - e.usd / 2) < 1e-12);
    assert.equal(fake.requests.length, 0);
  });

  it('a run writes its tokens at the table price into the manifest, the summary and --json; --prices overrides the table', async () => {
    useSchemaOnly();
    const r = await cli(['generate', SLACK, '--provider', 'gemini', '--base-url', fake.url, '--out', 'run', '--simple', '3', '--complex', '3'], KEY);
    assert.equal(r.code, 0, r.err);
    const calls = fake.requests.length;
    assert.ok(calls > 0);
    const m = HarnessManifest.parse(JSON.parse(await readFile(join(root, 'run', 'manifest.json'), 'utf8')));
    assert.deepEqual(m.tokens, { input: USAGE.input * calls, output: USAGE.output * calls, calls });
    const p = BUILT_IN_PRICES.models['gemini-2.5-flash-lite']!;
    const expected = (m.tokens.input * p.input + m.tokens.output * p.output) / 1e6;
    assert.ok(m.cost, 'the manifest has a cost');
    assert.ok(Math.abs((m.cost.actual.usd ?? NaN) - expected) < 1e-9, `${m.cost.actual.usd} vs ${expected}`);
    assert.deepEqual(m.cost.actual.prices, { source: 'built-in', date: BUILT_IN_PRICES.date });
    assert.equal(m.cost.actual.mode, 'sync');
    assert.equal(m.cost.estimate?.calls !== undefined && m.cost.estimate.calls > 0, true);
    const estimateLine = r.err.split('\n').find((l) => l.startsWith('agent-seer: estimate: '));
    assert.ok(estimateLine, r.err);
    assert.match(
      r.out,
      new RegExp(`cost: \\$${expected.toFixed(4).replace('.', '\\.')} \\(sync; gemini-2\\.5-flash-lite, prices of ${BUILT_IN_PRICES.date}\\); estimated ≈\\$`),
    );

    // The same run priced from a file: its model replaces the built-in entry.
    const prices = join(root, 'prices.json');
    await writeFile(
      prices,
      JSON.stringify({
        date: '2027-02-01',
        sources: ['https://example.com/contract'],
        models: { 'gemini-2.5-flash-lite': { provider: 'gemini', input: 1, output: 2, batchInput: 0.5, batchOutput: 1 } },
      }),
    );
    fake.reset();
    useSchemaOnly();
    const again = await cli(
      [
        'generate',
        SLACK,
        '--provider',
        'gemini',
        '--base-url',
        fake.url,
        '--out',
        'run2',
        '--simple',
        '3',
        '--complex',
        '3',
        '--prices',
        'prices.json',
        '--json',
      ],
      KEY,
    );
    assert.equal(again.code, 0, again.err);
    const summary = JSON.parse(again.out) as { cost: NonNullable<HarnessManifest['cost']>; llm: { costUsd: number } };
    const m2 = HarnessManifest.parse(JSON.parse(await readFile(join(root, 'run2', 'manifest.json'), 'utf8')));
    assert.deepEqual(summary.cost, m2.cost);
    assert.ok(Math.abs((m2.cost?.actual.usd ?? NaN) - (m2.tokens.input * 1 + m2.tokens.output * 2) / 1e6) < 1e-9);
    assert.deepEqual(m2.cost?.actual.prices, { source: 'prices.json', date: '2027-02-01' });
    assert.ok(Math.abs(summary.llm.costUsd - (m2.cost?.actual.usd ?? NaN)) < 1e-9, 'the running figures are priced from the same table');
    assert.match(again.err, /agent-seer: estimate: .* prices of 2027-02-01 from prices\.json/);
  });

  it('a bad price file is bad input: exit 2, one line naming the file and the place, nothing sent', async () => {
    const prices = join(root, 'bad-prices.json');
    await writeFile(
      prices,
      JSON.stringify({ date: '2027-02-01', sources: [], models: { 'gpt-4o': { provider: 'openai', input: -1, output: 2, batchInput: 1, batchOutput: 1 } } }),
    );
    const r = await cli(['generate', SLACK, '--provider', 'gemini', '--base-url', fake.url, '--out', 'bad', '--prices', 'bad-prices.json'], KEY);
    assert.equal(r.code, 2);
    assert.match(r.err, /^agent-seer: bad-prices\.json: not a price table: models\.gpt-4o\.input: .+$/);
    assert.equal(r.err.trim().split('\n').length, 1, r.err);
    assert.equal(fake.requests.length, 0);
    const missing = await cli(['judge', join(root, 'run'), '--prices', 'nope.json']);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /^agent-seer: nope\.json: /);
  });

  it('judge --estimate calls nothing; a judge run costs what it reports, and its estimate counted its calls exactly', async () => {
    useSchemaOnly();
    const gen = await cli(['generate', SLACK, '--provider', 'gemini', '--base-url', fake.url, '--out', 'judged', '--simple', '3', '--complex', '3'], KEY);
    assert.equal(gen.code, 0, gen.err);
    fake.reset();
    scriptJudge(fake);
    const dir = join(root, 'judged');
    const est = await cli(['judge', dir, '--judge', 'gemini', '--base-url', fake.url, '--estimate', '--json']);
    assert.equal(est.code, 0, est.err);
    assert.equal(fake.requests.length, 0);
    const estimate = (JSON.parse(est.out) as { estimates: { judge: string; estimate: { calls: number; usd: number } }[] }).estimates[0]!;
    assert.equal(estimate.judge, 'gemini:gemini-2.5-flash');
    assert.ok(estimate.estimate.calls > 0 && estimate.estimate.usd > 0);

    const r = await cli(['judge', dir, '--judge', 'gemini', '--base-url', fake.url, '--json'], KEY);
    assert.equal(r.code, 0, r.err);
    const out = JSON.parse(r.out) as {
      judges: { id: string; llmCalls: number; inputTokens: number; outputTokens: number }[];
      cost: { judge: string; estimate: { calls: number }; actual: { usd: number } }[];
    };
    const g = out.judges.find((j) => j.id === 'gemini:gemini-2.5-flash')!;
    assert.equal(out.cost[0]?.estimate.calls, g.llmCalls, 'one TC call per view, one Coh call per view with replies');
    const p = BUILT_IN_PRICES.models['gemini-2.5-flash']!;
    assert.ok(Math.abs(out.cost[0].actual.usd - (g.inputTokens * p.input + g.outputTokens * p.output) / 1e6) < 1e-12);
    assert.match(r.err, /agent-seer: estimate: \d+ calls, .* — gemini-2\.5-flash, prices of .* \(judge gemini:gemini-2\.5-flash\)/);

    // Everything is judged now: the estimate says so.
    const after = await cli(['judge', dir, '--judge', 'gemini', '--estimate']);
    assert.equal(after.code, 0, after.err);
    assert.match(after.out, /^estimate: 0 calls, 0 in \/ 0 out tokens, ≈\$0\.00/);
  });

  it('the report shows what generation and each LLM judge cost, in Markdown, HTML and JSON', async () => {
    useSchemaOnly();
    const dir = join(root, 'reported');
    assert.equal(
      (await cli(['generate', SLACK, '--provider', 'gemini', '--base-url', fake.url, '--out', dir, '--simple', '2', '--complex', '2'], KEY)).code,
      0,
    );
    fake.reset();
    scriptJudge(fake);
    const judged = await cli(['judge', dir, '--judge', 'gemini', '--base-url', fake.url, '--json'], KEY);
    assert.equal(judged.code, 0, judged.err);
    const judgeCost = (JSON.parse(judged.out) as { cost: { actual: { usd: number } }[] }).cost[0]!.actual.usd;
    const m = HarnessManifest.parse(JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')));
    const generationCost = m.cost!.actual.usd!;

    const json = await cli(['report', dir, '--format', 'json']);
    assert.equal(json.code, 0, json.err);
    const rows = (JSON.parse(json.out) as { cost: { what: string; usd: number; calls: number | null; estimate: unknown }[] }).cost;
    assert.deepEqual(
      rows.map((r) => r.what),
      ['generation', 'gemini:gemini-2.5-flash'],
    );
    assert.equal(rows[0]!.usd, generationCost);
    assert.equal(rows[0]!.calls, m.tokens.calls);
    assert.ok(rows[0]!.estimate);
    assert.ok(Math.abs(rows[1]!.usd - judgeCost) < 1e-12, 'the judge priced from its stored usage = what the judge run reported');

    const md = await cli(['report', dir, '--format', 'md']);
    assert.equal(md.code, 0, md.err);
    assert.match(md.out, /^## Cost$/m);
    const row = md.out.split('\n').find((l) => l.startsWith('| Slack MCP Server | generation | gemini-2.5-flash-lite | '));
    assert.ok(row?.includes(`| ${m.tokens.calls} | `) && row.includes(`| $${generationCost.toFixed(4)} (sync) | ≈$`), row);
    assert.match(md.out, /^\| Slack MCP Server \| gemini:gemini-2\.5-flash \| gemini-2\.5-flash \| — \| /m);
    const html = await cli(['report', dir, '--format', 'html', '--out', join(root, 'report.html')]);
    assert.equal(html.code, 0, html.err);
    const page = await readFile(join(root, 'report.html'), 'utf8');
    assert.ok(page.includes('Cost of generation and judging'));
  });
});
