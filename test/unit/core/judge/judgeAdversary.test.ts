/**
 * The judge against the adversary: a fake model that answers with the smallest value each
 * response schema accepts (`test/fakes/schemaOnly.ts`), through the real `@google/genai` client
 * and the OpenAI wire, over offline harnesses of real fixture specs. Whatever the judge needs
 * must be in the reply schema, and whatever the code can derive must not cost the reply: it
 * scores tool calling and coherence on at least 95% of records. With injected faults (malformed
 * JSON, schema violations, 429s) the first run scores fewer, nothing rejected is cached, and a
 * clean second run scores the rest.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readHarness, writeHarness } from '../../../../src/core/harness/store';
import { judgeHarness, StoredJudgment } from '../../../../src/core/judge';
import { analyzeHarnesses } from '../../../../src/core/report/analyze';
import { buildView, cohReplySchema, tcReplySchema } from '../../../../src/core/judge';
import {
  DiskCache,
  GeminiProvider,
  isStrictCompatible,
  OpenAICompatibleProvider,
  StructuredLlm,
  toGeminiSchema,
  zodToJsonSchema,
  type ChatProvider,
} from '../../../../src/core/llm';
import { generateOffline, offlineManifest } from '../../../../src/core/pipeline/offline';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import type { Spec } from '../../../../src/core/spec/model';
import { startFakeGemini } from '../../../fakes/fakeGemini';
import type { FakeLlmServer, FakeReply, FakeRequest } from '../../../fakes/fakeLlmServer';
import { startFakeOpenAI } from '../../../fakes/fakeOpenAI';
import { minimalValue, schemaOnlyModel } from '../../../fakes/schemaOnly';
import { specsDir } from '../../fixturePaths';

const fast = { retry: { baseDelayMs: 1, maxDelayMs: 5 }, timeoutMs: 10_000 };

interface Built {
  dir: string;
  spec: Spec;
  records: number;
}

async function offlineHarness(file: string, counts: { simple: number; complex: number }): Promise<Built> {
  const path = join(specsDir, file);
  const loaded = loadSpecText(await readFile(path, 'utf8'), path);
  assert.ok(loaded.ok);
  const options = { seed: 7, ...counts, cover: false };
  const result = generateOffline(loaded.spec, options);
  const dir = await mkdtemp(join(tmpdir(), 'agent-seer-judge-adversary-'));
  await writeHarness(dir, offlineManifest(loaded.spec, options, result, { startedAt: '2026-01-01T00:00:00Z' }), result.records);
  return { dir, spec: loaded.spec, records: result.records.length };
}

/**
 * Faults keyed by the record (the hash of the request's first message), so a faulty record stays
 * faulty over its re-asks and retries: about `share` of records get malformed JSON, as many a
 * reply that violates the schema, as many a 429 on every try; the rest the schema-only answer.
 */
function faultyRecords(share: number): (req: FakeRequest) => FakeReply {
  return (req) => {
    const x =
      parseInt(
        createHash('sha256')
          .update(req.messages[0]?.content ?? '')
          .digest('hex')
          .slice(0, 8),
        16,
      ) /
      2 ** 32;
    if (x < share) return { text: '{"turns": [' };
    if (x < 2 * share) return { json: { turns: [] } };
    if (x < 3 * share) return { status: 429, message: 'quota' };
    return { json: minimalValue(req.jsonSchema) };
  };
}

/** Shares of views (the paper's records: a record with a conversation counts twice) with a TC and a Coh score, from the stored judgments. */
async function scoredShares(dir: string, judgeId: string): Promise<{ tc: number; coh: number; n: number; records: number }> {
  const { records } = await readHarness(dir);
  const views = records.flatMap((r) => {
    const p = StoredJudgment.safeParse(r.judgments?.[judgeId]);
    const expected = r.conversation.length >= 2 ? 2 : 1;
    const got = p.success ? [p.data, ...(p.data.conversation ? [p.data.conversation] : [])] : [];
    return Array.from({ length: expected }, (_, i) => got[i] ?? null);
  });
  const tc = views.filter((v) => v !== null && v.tc !== null).length;
  const coh = views.filter((v) => v !== null && v.coh !== null).length;
  return { tc: tc / views.length, coh: coh / views.length, n: views.length, records: records.length };
}

/** Every cache file: what it holds. */
async function cacheFiles(dir: string): Promise<{ entry?: { ok: boolean }; reply?: unknown }[]> {
  const out: { entry?: { ok: boolean }; reply?: unknown }[] = [];
  for (const sub of await readdir(dir).catch(() => [] as string[])) {
    for (const f of await readdir(join(dir, sub))) {
      if (f.endsWith('.json')) out.push(JSON.parse(await readFile(join(dir, sub, f), 'utf8')) as { entry?: { ok: boolean } });
    }
  }
  return out;
}

/**
 * Keywords both structured-output modes take: Gemini's `responseJsonSchema` subset and OpenAI's
 * strict mode. A local check (the shared schema-rules checker is not on this branch).
 */
const SHARED_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'anyOf',
  'description',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  '$ref',
  '$defs',
]);

/** Every rule a reply schema breaks: keywords outside the shared set, mixed or empty enums, non-strict objects. */
function ruleBreaks(schema: Record<string, unknown>): string[] {
  const out: string[] = [];
  const walk = (node: unknown, path: string): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${path}[${i}]`));
    for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
      if (k === 'properties' || k === '$defs') {
        for (const [name, sub] of Object.entries(v as Record<string, unknown>)) walk(sub, `${path}.${name}`);
        continue;
      }
      if (!SHARED_KEYWORDS.has(k)) out.push(`${path}: ${k}`);
      if (k === 'enum') {
        const values = v as unknown[];
        if (!values.length || !(values.every((x) => typeof x === 'number') || values.every((x) => typeof x === 'string')))
          out.push(`${path}: enum ${JSON.stringify(v)}`);
      }
      if (k === 'items' || k === 'anyOf') walk(v, `${path}.${k}`);
    }
  };
  walk(schema, '$');
  if (!isStrictCompatible(schema)) out.push('$: not accepted by OpenAI strict mode');
  if (JSON.stringify(toGeminiSchema(schema)) !== JSON.stringify(schema)) out.push("$: Gemini's conversion drops or changes part of it");
  return out;
}

describe('per-record judge reply schemas', () => {
  it('state the turn count, the call numbers and the scales, within what Gemini and OpenAI strict mode accept', async () => {
    const h = await offlineHarness('filesystem.json', { simple: 4, complex: 6 });
    try {
      const { records } = await readHarness(h.dir);
      let multi = 0;
      for (const record of records) {
        const built = buildView(record, 'unsupervised');
        assert.ok(built.ok);
        const shape = { turns: built.view.turns.length, calls: built.view.calls.map((c) => c.index) };
        if (shape.turns > 1) multi++;
        for (const [name, schema] of [
          ['tc', zodToJsonSchema(tcReplySchema(shape))],
          ['coh', zodToJsonSchema(cohReplySchema(shape))],
        ] as const) {
          assert.deepEqual(ruleBreaks(schema), [], `${record.id} ${name}`);
          const turns = (schema.properties as Record<string, { minItems: number; maxItems: number; items: { properties: Record<string, unknown> } }>).turns!;
          assert.equal(turns.minItems, shape.turns);
          assert.equal(turns.maxItems, shape.turns);
          const turn = turns.items.properties.turn as { enum?: number[]; minimum?: number; maximum?: number };
          if (shape.turns > 1)
            assert.deepEqual(
              turn.enum,
              Array.from({ length: shape.turns }, (_, i) => i),
            );
          else assert.deepEqual([turn.minimum, turn.maximum], [0, 0], 'one value: the range [0, 0]');
        }
        const tc = zodToJsonSchema(tcReplySchema(shape)) as { properties: { turns: { items: { properties: Record<string, any> } } } }; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON Schema read by path
        const props = tc.properties.turns.items.properties;
        const call = props.findings.items.properties.call.anyOf[0];
        if (shape.calls.length > 1) assert.deepEqual(call.enum, shape.calls);
        else assert.deepEqual([call.minimum, call.maximum], [shape.calls[0], shape.calls[0]]);
        assert.deepEqual(props.usage.properties.necessity.enum, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        const coh = zodToJsonSchema(cohReplySchema(shape)) as typeof tc;
        assert.deepEqual(coh.properties.turns.items.properties.logical_flow.properties.score.enum, [1, 2, 3]);
      }
      assert.ok(records.length >= 8, `${records.length} records`);
      assert.ok(multi > 0, 'some multi-turn record');
    } finally {
      await rm(h.dir, { recursive: true, force: true });
    }
  });
});

const providers: { name: string; start: () => Promise<FakeLlmServer>; make: (fake: FakeLlmServer) => ChatProvider }[] = [
  {
    name: '@google/genai',
    start: () => startFakeGemini(),
    make: (fake) => new GeminiProvider({ apiKey: 'k', baseUrl: fake.url, model: 'gemini-2.5-flash' }),
  },
  {
    name: 'the OpenAI wire',
    start: () => startFakeOpenAI(),
    make: (fake) => new OpenAICompatibleProvider({ apiKey: 'k', baseUrl: fake.url, model: 'judge-model' }),
  },
];

for (const p of providers) {
  describe(`the judge against the schema-only model through ${p.name}`, () => {
    let fake: FakeLlmServer;
    const dirs: string[] = [];
    before(async () => {
      fake = await p.start();
    });
    after(async () => {
      await fake.close();
      await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
    });
    const judge = (cacheDir: string): { id: string; llm: StructuredLlm } => {
      const provider = p.make(fake);
      return { id: `${provider.id}:${provider.model}`, llm: new StructuredLlm({ provider, cache: new DiskCache(cacheDir), limits: fast }) };
    };

    for (const [file, counts] of [
      ['filesystem.json', { simple: 6, complex: 6 }],
      ['illustrator-ie3jp-1.2.12.json', { simple: 8, complex: 8 }],
    ] as const) {
      it(`scores tool calling and coherence on at least 95% of the records of ${file}`, async () => {
        const h = await offlineHarness(file, counts);
        dirs.push(h.dir);
        fake.reset();
        fake.respondWith(schemaOnlyModel);
        const j = judge(join(h.dir, '.cache'));
        const result = await judgeHarness(h.dir, { judges: [j], spec: h.spec, concurrency: 4 });
        const shares = await scoredShares(h.dir, j.id);
        assert.ok(shares.records >= 10 && shares.n > shares.records, `a harness of ${shares.records} records, ${shares.n} views`);
        assert.ok(shares.tc >= 0.95, `tool calling scored on ${(shares.tc * 100).toFixed(0)}% of ${shares.n} records`);
        assert.ok(shares.coh >= 0.95, `coherence scored on ${(shares.coh * 100).toFixed(0)}% of ${shares.n} records`);
        assert.equal(result.judges[0]?.scoredTc, Math.round(shares.tc * shares.n));
        assert.equal(result.judges[0]?.views, shares.n);
      });
    }

    it('with faults the first run scores fewer, caches nothing rejected, and a clean second run scores the rest', async () => {
      const h = await offlineHarness('filesystem.json', { simple: 8, complex: 8 });
      dirs.push(h.dir);
      const cacheDir = join(h.dir, '.cache');
      fake.reset();
      fake.respondWith(faultyRecords(0.1));
      const first = await judgeHarness(h.dir, { judges: [judge(cacheDir)], spec: h.spec, concurrency: 4 });
      const s1 = first.judges[0];
      assert.ok(s1);
      assert.ok(s1.notJudged > 0, 'the faults leave some record not judged');
      assert.ok(s1.scoredTc < s1.views, `the first run scores tool calling on ${s1.scoredTc} of ${s1.views}`);
      // The report counts what the stored judgments say, and warns.
      const read = await readHarness(h.dir);
      const model = analyzeHarnesses([{ dir: h.dir, manifest: read.manifest, records: read.records, spec: h.spec }], { judges: [s1.id], resamples: 50 });
      const row = model.judges[0]?.servers[0];
      const stored = read.records.flatMap((r) => {
        const j = StoredJudgment.parse(r.judgments?.[s1.id]);
        return j.conversation ? [j, j.conversation] : [j];
      });
      assert.deepEqual(
        { n: row?.n, tc: row?.tc.n, coh: row?.coh.n, notJudgedTc: row?.notJudged.tc },
        {
          n: stored.length,
          tc: stored.filter((j) => j.tc !== null).length,
          coh: stored.filter((j) => j.coh !== null).length,
          notJudgedTc: stored.filter((j) => j.status.tc === 'not-judged').length,
        },
      );
      assert.equal(row?.tc.n, s1.scoredTc);
      const warning = model.warnings.find((w) => w.startsWith(`Unscored: tool calling scored on ${s1.scoredTc} of ${s1.views} records`));
      assert.ok(warning && /not judged: the judge failed on them; re-run agent-seer judge/.test(warning), model.warnings.join('\n'));

      for (const f of await cacheFiles(cacheDir)) {
        assert.equal(f.reply, undefined, 'no rejected reply is kept for replay');
        assert.equal(f.entry?.ok, true, 'only valid replies are cached');
      }

      fake.reset();
      fake.respondWith(schemaOnlyModel);
      const second = await judgeHarness(h.dir, { judges: [judge(cacheDir)], spec: h.spec, concurrency: 4 });
      const s2 = second.judges[0];
      assert.ok(s2);
      assert.equal(s2.skipped, s1.judged, 'records judged in the first run are not redone');
      assert.equal(s2.notJudged, 0);
      const shares = await scoredShares(h.dir, s2.id);
      assert.ok(shares.tc >= 0.95 && shares.coh >= 0.95, `after the second run: tc ${shares.tc}, coh ${shares.coh}`);

      // --force judges every record again: valid replies come from the cache, nothing is lost.
      fake.reset();
      fake.respondWith(faultyRecords(0.3));
      const forced = await judgeHarness(h.dir, { judges: [judge(cacheDir)], spec: h.spec, force: true });
      assert.equal(forced.judges[0]?.notJudged, 0, 'every record is answered from the cache of valid replies');
      assert.equal(fake.requests.length, 0);
    });
  });
}
