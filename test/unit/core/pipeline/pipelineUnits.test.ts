/**
 * The pure parts of the LLM pipeline: prompt templates, tool summaries, grouping, count
 * apportioning, tier stratification, and `ask`'s re-ask / salvage / ledger replay with an
 * in-process provider.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it, test } from 'node:test';
import { z } from 'zod';
import { MemoryCache, StructuredLlm, type ChatProvider, type ChatRequest } from '../../../../src/core/llm';
import { ask, MemoryLedger, type AskContext } from '../../../../src/core/pipeline/llm';
import { apportion, DEFAULT_GROUPING, groupPairs, groupTools } from '../../../../src/core/pipeline/llm/grouping';
import { stratify } from '../../../../src/core/pipeline/llm/scenarios';
import { compactSummary, estimateTokens, fullSummary, fullSummaryBound, paramSignature, typePhrase } from '../../../../src/core/pipeline/llm/summaries';
import { GENERATION_TEMPLATES } from '../../../../src/core/pipeline/runner';
import { defaultPromptsDir, placeholdersOf, PromptLibrary, renderTemplate } from '../../../../src/core/llm/prompts';
import type { Spec } from '../../../../src/core/spec/model';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { repoRoot, specsDir } from '../../fixturePaths';

async function loadFixture(name: string): Promise<Spec> {
  const file = join(specsDir, name);
  const r = loadSpecText(await readFile(file, 'utf8'), file);
  assert.ok(r.ok);
  return r.spec;
}

describe('prompt templates', () => {
  it('renders placeholders verbatim, once: values are never rendered again', () => {
    assert.equal(renderTemplate('Hi {{ name }}, {{x}}', { name: '{{x}}', x: 'y' }), 'Hi {{x}}, y\n');
  });

  it('keeps or drops sections by the truth of their value', () => {
    const t = 'A\n{{#g}}grouped {{n}}\n{{/g}}{{^g}}alone\n{{/g}}B';
    assert.equal(renderTemplate(t, { g: true, n: 3 }), 'A\ngrouped 3\nB\n');
    assert.equal(renderTemplate(t, { g: false, n: 3 }), 'A\nalone\nB\n');
    assert.equal(renderTemplate(t, { g: '', n: 3 }), 'A\nalone\nB\n');
  });

  it('a missing value is a bug and throws, naming the placeholder', () => {
    assert.throws(() => renderTemplate('x {{who}}', {}, 'prompt t'), /prompt t: no value for \{\{who\}\}/);
  });

  it('finds the package prompts from the compiled module and from a bundle folder', () => {
    assert.equal(defaultPromptsDir(), join(repoRoot, 'prompts'));
    assert.equal(defaultPromptsDir(join(repoRoot, 'dist')), join(repoRoot, 'prompts'));
  });

  it('loads every stage template; versions are the file tag plus a content hash; notes are dropped', async () => {
    const lib = PromptLibrary.load();
    for (const n of GENERATION_TEMPLATES) assert.ok(lib.names().includes(n), n);
    for (const n of lib.names()) {
      assert.match(lib.get(n).version, /^v\d+\+[0-9a-f]{8}$/);
      assert.ok(!lib.get(n).text.includes('#!'), `${n}: maintainer notes removed`);
    }
    assert.deepEqual(placeholdersOf(lib.get('interpret').text), ['tool_json']);
    assert.deepEqual(placeholdersOf(lib.get('mock').text), ['call_count', 'novelty_reason', 'prompt', 'references', 'state', 'workflow_json']);
  });

  it('a folder can hold several versions: the highest wins, and an edit changes the version', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-seer-prompts-'));
    try {
      await writeFile(join(dir, 'interpret.v1.txt'), 'old {{tool_json}}');
      await writeFile(join(dir, 'interpret.v2.txt'), '#! note\nnew {{tool_json}}');
      await writeFile(join(dir, 'README.md'), 'ignored');
      const a = PromptLibrary.load(dir);
      assert.match(a.get('interpret').version, /^v2\+/);
      assert.equal(a.render('interpret', { tool_json: '{}' }).text, 'new {}\n');
      await writeFile(join(dir, 'interpret.v2.txt'), '#! note\nnewer {{tool_json}}');
      assert.notEqual(PromptLibrary.load(dir).get('interpret').version, a.get('interpret').version);
      assert.throws(() => a.get('mock'), /no prompt template "mock"/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('tool summaries', () => {
  it('type phrases carry enums, nullability, bounds, formats and one level of nesting', () => {
    const root = { $defs: { S: { type: 'string', enum: ['open', 'closed'] } } };
    assert.equal(typePhrase({ $ref: '#/$defs/S' }, root), 'one of "open" | "closed"');
    assert.equal(typePhrase({ anyOf: [{ type: 'integer', minimum: 1, maximum: 100 }, { type: 'null' }] }, {}), 'integer, 1..100 or null');
    assert.equal(typePhrase({ type: 'array', items: { type: 'string', format: 'email' } }, {}), 'array of string, email');
    assert.equal(
      typePhrase({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a'] }, {}),
      'object {a*: string; b: number}',
    );
  });

  it('a 205-parameter tool lists its required parameters first and stays bounded', async () => {
    const twilio = await loadFixture('twilio-api-v2010.json');
    const big = twilio.tools.reduce((a, b) => (JSON.stringify(b.inputSchema).length > JSON.stringify(a.inputSchema).length ? b : a));
    const lines = paramSignature(big);
    assert.ok(lines.length <= 25);
    assert.match(lines[lines.length - 1]!, /and \d+ more optional parameters/);
    const required = (big.inputSchema as { required?: string[] }).required ?? [];
    for (const [i, r] of required.entries()) assert.match(lines[i]!, new RegExp(`^- ${r} \\(.*required\\)`));
    const interp = {
      tool_name: big.name,
      what_it_does: 'x'.repeat(5000),
      what_it_needs: 'y'.repeat(5000),
      why_its_used: 'z'.repeat(5000),
      enterprise_context: [],
    };
    assert.ok(estimateTokens(fullSummary(big, interp)) <= fullSummaryBound(big), 'the bound holds whatever the interpretation says');
    assert.match(compactSummary(big, undefined), /^### TwilioApiV2010--\w+\n/);
  });
});

describe('grouping large specs', () => {
  for (const [file, budget] of [
    ['twilio-api-v2010.json', 6000],
    ['github-official-all.json', 6000],
    ['illustrator-ie3jp-1.2.12.json', 6000],
    ['redis-mcp-0.5.0.json', 8000],
  ] as const) {
    it(`${file}: a partition into groups within the budget and the size limit`, async () => {
      const spec = await loadFixture(file);
      const overhead = 900;
      const groups = groupTools(spec, spec.tools, { promptTokenBudget: budget, maxGroupTools: 16, overheadTokens: overhead });
      assert.ok(groups.length > 1);
      const names = groups.flatMap((g) => g.tools.map((t) => t.name));
      assert.equal(names.length, spec.tools.length);
      assert.equal(new Set(names).size, spec.tools.length, 'every tool in exactly one group');
      for (const g of groups) {
        assert.ok(g.tools.length <= 16);
        assert.ok(g.tools.reduce((s, t) => s + fullSummaryBound(t), 0) <= budget - overhead, `${g.label} within budget`);
      }
      // Balanced: no straggler group of one while others are full.
      assert.ok(Math.min(...groups.map((g) => g.tools.length)) >= 3);
    });
  }

  it('related tools land together: a resource lifecycle stays in one group', async () => {
    const groupOf = (groups: ReturnType<typeof groupTools>, name: string): number => groups.findIndex((g) => g.tools.some((t) => t.name === name));
    const twilio = await loadFixture('twilio-api-v2010.json');
    const tg = groupTools(twilio, twilio.tools, { ...DEFAULT_GROUPING, overheadTokens: 900 });
    const queue = ['Create', 'Fetch', 'List', 'Update', 'Delete'].map((v) => groupOf(tg, `TwilioApiV2010--${v}Queue`));
    assert.equal(new Set(queue).size, 1, 'the five Queue tools together');
    const github = await loadFixture('github-official-all.json');
    const gg = groupTools(github, github.tools, { ...DEFAULT_GROUPING, overheadTokens: 900 });
    assert.equal(new Set(['create_gist', 'get_gist', 'list_gists', 'update_gist'].map((n) => groupOf(gg, n))).size, 1, 'the gist tools together');
    assert.equal(new Set(['list_dependabot_alerts', 'get_dependabot_alert'].map((n) => groupOf(gg, n))).size, 1);
  });

  it('a small spec is one group; cross-group pairs are distinct and deterministic', async () => {
    const slack = await loadFixture('slack.json');
    assert.equal(groupTools(slack, slack.tools, { ...DEFAULT_GROUPING, overheadTokens: 900 }).length, 1);
    const github = await loadFixture('github-official-all.json');
    const groups = groupTools(github, github.tools, { ...DEFAULT_GROUPING, overheadTokens: 900 });
    const pairs = groupPairs(github, groups, 3).map(([a, b]) => [a.index, b.index]);
    assert.equal(pairs.length, 3);
    assert.equal(new Set(pairs.map((p) => p.join(':'))).size, 3);
    assert.deepEqual(
      groupPairs(github, groups, 3).map(([a, b]) => [a.index, b.index]),
      pairs,
    );
  });
});

test('apportion: parts sum to the total, follow the weights, break ties to the lower index', () => {
  assert.deepEqual(apportion(10, [16, 16, 15]), [4, 3, 3]);
  assert.deepEqual(apportion(3, [1, 1, 1, 1]), [1, 1, 1, 0]);
  assert.deepEqual(apportion(0, [5, 5]), [0, 0]);
  for (const total of [1, 7, 20, 33])
    assert.equal(
      apportion(total, [3, 9, 1, 12, 5]).reduce((a, b) => a + b, 0),
      total,
    );
});

test('stratify: complex needs two calls of two tools; simple allows at most four calls', () => {
  const c = (...names: string[]): { name: string; arguments: Record<string, unknown>; explanation: string }[] =>
    names.map((name) => ({ name, arguments: {}, explanation: '' }));
  assert.equal(stratify('complex', c('a')), 'simple');
  assert.equal(stratify('complex', c('a', 'a', 'a')), 'simple');
  assert.equal(stratify('complex', c('a', 'b')), 'complex');
  assert.equal(stratify('simple', c('a', 'b', 'c')), 'simple');
  assert.equal(stratify('simple', c('a', 'b', 'c', 'd', 'e')), 'complex');
  assert.equal(stratify(undefined, c('a', 'b')), 'simple');
  assert.equal(stratify(undefined, c('a', 'b', 'a')), 'complex');
});

describe('ask: re-asks, salvage and replay from the cache', () => {
  /** An in-process provider answering from a queue; counts calls. */
  function provider(replies: string[]): ChatProvider & { calls: ChatRequest[] } {
    const calls: ChatRequest[] = [];
    return {
      id: 'test',
      model: 'test-model',
      supportsJsonSchema: true,
      calls,
      async complete(req) {
        calls.push(req);
        return { text: replies.shift() ?? '{}', usage: { inputTokens: 10, outputTokens: 5 } };
      },
    };
  }
  const Schema = z.object({ items: z.array(z.number()) });
  const spec = {
    stage: 'demo',
    request: { stage: 'demo', promptVersion: 'v1', prompt: 'give me small numbers', schema: Schema },
    check: (v: { items: number[] }) => v.items.filter((n) => n > 9).map((n) => ({ category: 'too-big', message: `${n} is more than 9` })),
    accept: (v: { items: number[] }) => v.items,
    salvage: (v: { items: number[] }) => {
      const kept = v.items.filter((n) => n <= 9);
      return kept.length ? { value: kept, counts: { repaired: {}, discarded: { 'demo:too-big': v.items.length - kept.length } } } : undefined;
    },
  };
  const dirs: string[] = [];
  after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  it('a re-asked reply is counted once per category; a cached replay reports the same counts with no call', async () => {
    const cache = new MemoryCache();
    const ledger = new MemoryLedger();
    const p1 = provider(['not json', JSON.stringify({ items: [1, 12] }), JSON.stringify({ items: [1, 2] })]);
    const ctx = (p: ChatProvider): AskContext => ({ llm: new StructuredLlm({ provider: p, cache }), ledger, signal: new AbortController().signal });
    const first = await ask(ctx(p1), spec);
    assert.ok(first.ok);
    assert.deepEqual(first.value, [1, 2]);
    assert.deepEqual(first.counts, { repaired: { 'demo:malformed-reply': 1, 'demo:too-big': 1 }, discarded: {} });
    assert.match(p1.calls[2]!.messages[4]!.content, /- 12 is more than 9/);
    const p2 = provider([]);
    const again = await ask(ctx(p2), spec);
    assert.equal(p2.calls.length, 0);
    assert.ok(again.ok && again.cached);
    assert.deepEqual(again.counts, first.counts);
  });

  it('after three failed replies the salvage keeps the valid part, and a cached replay salvages the same', async () => {
    const cache = new MemoryCache();
    const ledger = new MemoryLedger();
    const bad = JSON.stringify({ items: [3, 40, 4] });
    const p1 = provider([bad, bad, bad]);
    const ctx = (p: ChatProvider): AskContext => ({ llm: new StructuredLlm({ provider: p, cache }), ledger, signal: new AbortController().signal });
    const first = await ask(ctx(p1), spec);
    assert.equal(p1.calls.length, 3);
    assert.ok(first.ok && first.salvaged);
    assert.deepEqual(first.value, [3, 4]);
    assert.deepEqual(first.counts.discarded, { 'demo:too-big': 1 });
    const p2 = provider([]);
    const again = await ask(ctx(p2), spec);
    assert.equal(p2.calls.length, 0);
    assert.ok(again.ok && again.salvaged && again.cached);
    assert.deepEqual(again.value, [3, 4]);
    assert.deepEqual(again.counts, first.counts);
  });

  it("without a usable salvage the item is discarded by the last reply's categories", async () => {
    const bad = JSON.stringify({ items: [40] });
    const p = provider([bad, bad, bad]);
    const out = await ask({ llm: new StructuredLlm({ provider: p }), ledger: new MemoryLedger(), signal: new AbortController().signal }, spec);
    assert.ok(!out.ok);
    assert.equal(out.reason, 'semantic');
    assert.deepEqual(out.counts.discarded, { 'demo:too-big': 1 });
  });

  it('identical steps of one run share one outcome and count once', async () => {
    const p = provider([JSON.stringify({ items: [50] }), JSON.stringify({ items: [5] })]);
    const ctx: AskContext = { llm: new StructuredLlm({ provider: p }), ledger: new MemoryLedger(), signal: new AbortController().signal, steps: new Map() };
    const [a, b] = await Promise.all([ask(ctx, spec), ask(ctx, spec)]);
    assert.equal(p.calls.length, 2);
    assert.deepEqual(a.counts.repaired, { 'demo:too-big': 1 });
    assert.deepEqual(b.counts.repaired, {});
    assert.ok(a.ok && b.ok);
    assert.deepEqual(b.value, [5]);
  });
});
