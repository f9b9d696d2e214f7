/**
 * The LLM judge end to end: the real `@google/genai` (and `openai`) client against the fake
 * servers, the real prompt templates, the real record files. Stored numbers, re-asks and "not
 * judged", oracle-grounded mode, and the two cache levels (current judgments skipped; replies
 * served from the disk cache).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { writeHarness, readHarness, recordFileStem, writeRecord } from '../../../../src/core/harness/store';
import type { HarnessRecord } from '../../../../src/core/harness/format';
import { judgeHarness, judgeRecord, StoredJudgment, type Trajectory } from '../../../../src/core/judge';
import { DEFAULT_GEMINI_JUDGE_MODEL, DiskCache, GeminiProvider, OpenAICompatibleProvider, StructuredLlm } from '../../../../src/core/llm';
import { startFakeGemini } from '../../../fakes/fakeGemini';
import type { FakeLlmServer } from '../../../fakes/fakeLlmServer';
import { startFakeOpenAI } from '../../../fakes/fakeOpenAI';
import {
  cohReply,
  cohTurns,
  fileSpec,
  isTcPrompt,
  makeManifest,
  makeRecord,
  perfectTc,
  perfectTcTurn,
  promptOf,
  scriptJudge,
  turnPlan,
} from '../../judgeFixtures';

const spec = fileSpec();
const JUDGE_ID = `gemini:${DEFAULT_GEMINI_JUDGE_MODEL}`;
const fast = { retry: { baseDelayMs: 5, maxDelayMs: 10 }, timeoutMs: 5_000 };

function geminiJudge(fake: FakeLlmServer, cacheDir?: string, apiKey = 'test-key'): StructuredLlm {
  const provider = new GeminiProvider({ apiKey, baseUrl: fake.url, model: DEFAULT_GEMINI_JUDGE_MODEL });
  return new StructuredLlm({ provider, ...(cacheDir ? { cache: new DiskCache(cacheDir) } : {}), limits: fast });
}

const reportCalls = [
  { name: 'list_files', arguments: { path: '/srv' } },
  { name: 'read_file', arguments: { path: '/srv/report-2026-05.txt' } },
];
const reportOutputs = [
  {
    files: [
      { path: '/srv/report-2026-05.txt', size: 1200 },
      { path: '/srv/notes.txt', size: 80 },
    ],
  },
  { text: 'Revenue is up 4% on April.' },
];
const single = (): HarnessRecord =>
  makeRecord({
    id: 's001-report',
    prompt: 'Show me the newest report in /srv.',
    calls: reportCalls,
    outputs: reportOutputs,
    response: 'The newest report, /srv/report-2026-05.txt, says revenue is up 4% on April.',
  });
const multi = (): HarnessRecord =>
  makeRecord({
    id: 'c001-report-turns',
    prompt: 'List /srv and read the report.',
    calls: reportCalls,
    outputs: reportOutputs,
    turns: [
      { prompt: 'What is in /srv?', calls: [0], followup: 'There are two files: report-2026-05.txt (1200 bytes) and notes.txt (80 bytes).' },
      { prompt: 'Read the report, please.', calls: [1], followup: 'The report says revenue is up 4% on April.' },
    ],
  });

async function harness(records: HarnessRecord[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-seer-judge-'));
  await writeHarness(dir, makeManifest(spec, records), records);
  return dir;
}

async function stored(dir: string, id: string, judgeId = JUDGE_ID): Promise<StoredJudgment> {
  const raw = JSON.parse(await readFile(join(dir, 'records', `${recordFileStem(id)}.json`), 'utf8')) as HarnessRecord;
  return StoredJudgment.parse(raw.judgments?.[judgeId]);
}

const approx = (a: number | null | undefined, b: number, what: string): void =>
  assert.ok(a != null && Math.abs(a - b) < 1e-3, `${what}: expected ${b}, got ${a}`);

describe('the LLM judge through the fake Gemini', () => {
  let fake: FakeLlmServer;
  const dirs: string[] = [];
  before(async () => {
    fake = await startFakeGemini({ apiKey: 'test-key' });
  });
  after(async () => {
    await fake.close();
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });
  beforeEach(() => fake.reset());
  const newHarness = async (records: HarnessRecord[]): Promise<string> => {
    const d = await harness(records);
    dirs.push(d);
    return d;
  };

  it('good replies become stored judgments with the right numbers', async () => {
    const dir = await newHarness([single(), multi()]);
    scriptJudge(fake, {
      tc: (p) => {
        if (!p.includes('Show me the newest report')) return { json: perfectTc(p), usage: { input: 900, output: 150 } };
        const t = perfectTcTurn(0, 2);
        t.selection.specificity = 8;
        t.ordering = { sequence_logic: 10, dependency_handling: 10, execution_efficiency: 7 };
        t.arguments = { completeness: 10, name_accuracy: 10, value_accuracy: 9, type_compliance: 10, format_compliance: 10, relevancy: 10 };
        t.findings = [
          { call: 1, param: 'path', subdimension: 'arguments.value', score: 9, kind: 'other', reason: 'newest should be decided by date, not by name' },
          { call: null, param: null, subdimension: 'ordering.efficiency', score: 7, kind: 'order', reason: 'a search would need one call' },
        ];
        return { json: { turns: [t] }, usage: { input: 900, output: 150 } };
      },
      coh: (p) =>
        p.includes('Show me the newest report')
          ? { json: cohReply(1, (_t, a) => (a === 'conciseness' ? { score: 2, manifestations: ['over_explains'] } : { score: 3, manifestations: [] })) }
          : { json: cohReply(cohTurns(p)) },
    });
    const result = await judgeHarness(dir, { judges: [{ id: JUDGE_ID, llm: geminiJudge(fake) }], spec, concurrency: 2 });

    const j = await stored(dir, 's001-report');
    const tc = (1 + (10 + 8 + 10) / 30 + (10 + 10 + 7) / 30 + (10 + 10 + 9 + 10 + 10 + 10) / 60) / 4;
    approx(j.tc, tc, 'tc');
    approx(j.coh, (3 + 3 + 2 + 3) / 3 / 4, 'coh (no history: context retention left out; aspects ÷ 3)');
    assert.deepEqual(j.status, { tc: 'scored', coh: 'scored' });
    approx(j.dimensions.ordering ?? null, 0.9, 'ordering');
    assert.equal(j.subdimensions['arguments.value'], 0.9);
    assert.equal(j.subdimensions['coherence.context_retention'], null);
    assert.deepEqual(j.manifestations, { conciseness: ['over_explains'] });
    assert.deepEqual(j.judge, {
      id: JUDGE_ID,
      provider: 'gemini',
      model: DEFAULT_GEMINI_JUDGE_MODEL,
      temperature: 0,
      mode: 'unsupervised',
      view: 'single-turn',
      promptVersions: j.judge.promptVersions,
    });
    assert.match(j.judge.promptVersions['judge-tc'] ?? '', /^v1\+[0-9a-f]{8}$/);
    const finding = j.findings.find((f) => f.subdimension === 'arguments.value');
    assert.deepEqual(
      { turn: finding?.turn, call: finding?.callIndex, param: finding?.param, score: finding?.score, source: finding?.source },
      { turn: 0, call: 1, param: 'path', score: 0.9, source: 'judge' },
    );
    assert.deepEqual(j.disagreements, []);
    assert.ok(j.usage.inputTokens > 900 && j.usage.outputTokens > 150, 'tokens of both calls');

    // A scenario with a conversation is judged twice, as the paper counts records: its single-turn task and its conversation.
    const st = await stored(dir, 'c001-report-turns');
    assert.equal(st.judge.view, 'single-turn');
    assert.equal(st.turns.length, 1);
    assert.deepEqual(st.turns[0]?.calls, [0, 1]);
    assert.equal(st.tc, 1);
    const m = st.conversation;
    assert.ok(m);
    assert.equal(m.tc, 1);
    assert.equal(m.coh, 1);
    assert.equal(m.judge.view, 'multi-turn');
    assert.equal(m.turns.length, 2);
    assert.equal(m.turns[0]?.dimensions.ordering, null, 'one call per turn: ordering n/a');
    assert.equal(m.turns[0]?.subdimensions['coherence.context_retention'], null);
    assert.equal(m.turns[1]?.subdimensions['coherence.context_retention'], 1);

    // What went over the wire: the paper's judge at temperature 0, a schema, the facts.
    assert.equal(fake.requests.length, 6);
    for (const r of fake.requests) {
      assert.equal(r.temperature, 0);
      assert.equal(r.model, DEFAULT_GEMINI_JUDGE_MODEL);
      assert.ok(r.jsonSchema?.properties?.turns, 'structured output schema sent');
    }
    const tcPrompt = fake.requests.map(promptOf).find((p) => isTcPrompt(p) && p.includes('Show me the newest report')) ?? '';
    assert.match(tcPrompt, /call 0 list_files: passes every schema check/);
    assert.match(tcPrompt, /call 1 'path' = "\/srv\/report-2026-05\.txt" occurs in the output of call 0/);
    assert.match(tcPrompt, /- Turn 0: 2 calls \(call 0, call 1\); score ordering and arguments\./);

    const s = result.judges[0];
    assert.equal(s?.judged, 2);
    assert.equal(s?.notJudged, 0);
    assert.equal(s?.llmCalls, 6);
    assert.equal(s?.views, 3);
    assert.equal(s?.scoredTc, 3);
    approx(s?.meanTc, (tc + 1 + 1) / 3, 'mean TC over the three views');
    assert.ok((s?.inputTokens ?? 0) >= 3600);
  });

  it('malformed replies are re-asked, then the record is marked not judged (tc null), never scored', async () => {
    const dir = await newHarness([single()]);
    let tcCalls = 0;
    scriptJudge(fake, {
      tc: (p) => {
        tcCalls++;
        if (tcCalls === 1) return { text: 'The calls look fine to me.' };
        const bad = perfectTc(p);
        if (tcCalls === 2) {
          (bad.turns[0]!.usage as { necessity: number }).necessity = 14;
          return { json: bad };
        }
        return { json: { turns: [...bad.turns, ...bad.turns] } }; // one turn: the schema says exactly one entry
      },
    });
    const result = await judgeHarness(dir, { judges: [{ id: JUDGE_ID, llm: geminiJudge(fake) }], spec });
    const j = await stored(dir, 's001-report');
    assert.equal(j.tc, null);
    assert.equal(j.status.tc, 'not-judged');
    assert.equal(j.dimensions.usage, null);
    assert.ok(
      j.notes.some((n) => /^tool calling not judged: schema after 3 replies \(at \$\.turns: /.test(n)),
      j.notes.join('\n'),
    );
    // Coherence was fine; the exact part is kept; nothing is scored by accident.
    assert.equal(j.status.coh, 'scored');
    assert.equal(j.coh, 1);
    assert.equal(j.subdimensions['arguments.name'], 1);
    assert.equal(j.exact, 1);
    // Three replies, each re-ask carrying the errors of the one before.
    const tcRequests = fake.requests.filter((r) => isTcPrompt(promptOf(r)));
    assert.equal(tcRequests.length, 3);
    assert.equal(tcRequests[1]?.messages.length, 3);
    assert.match(tcRequests[1]?.lastUserText ?? '', /not valid JSON/);
    assert.match(tcRequests[2]?.lastUserText ?? '', /necessity/);
    assert.equal(result.judges[0]?.notJudged, 1);
    assert.equal(result.judges[0]?.reasks, 2);
  });

  it('a reply with the wrong number of turns is re-asked and the corrected one is used', async () => {
    const record = multi();
    let n = 0;
    scriptJudge(fake, {
      tc: (p) => {
        // The conversation view (two turns) is first answered with one turn.
        if (turnPlan(p).length !== 2) return { json: perfectTc(p) };
        n++;
        return n === 1 ? { json: { turns: [perfectTcTurn(0, 1)] } } : { json: perfectTc(p) };
      },
    });
    const j = await judgeRecord(record, spec, { llm: geminiJudge(fake) });
    assert.equal(j.conversation?.tc, 1);
    assert.equal(n, 2);
    const reask = fake.requests.filter((r) => isTcPrompt(promptOf(r)) && r.messages.length > 1)[0]?.lastUserText ?? '';
    assert.match(reask, /at \$\.turns: .*2/);
    // The reply schema sent says so first: exactly two turns, the record's call numbers as an enum.
    const schema = fake.requests.find((r) => isTcPrompt(promptOf(r)) && turnPlan(promptOf(r)).length === 2)?.jsonSchema as {
      properties: {
        turns: { minItems: number; maxItems: number; items: { properties: { findings: { items: { properties: { call: { anyOf: unknown } } } } } } };
      };
    };
    assert.equal(schema.properties.turns.minItems, 2);
    assert.equal(schema.properties.turns.maxItems, 2);
    assert.deepEqual(schema.properties.turns.items.properties.findings.items.properties.call.anyOf, [{ type: 'number', enum: [0, 1] }, { type: 'null' }]);
  });

  describe('oracle-grounded mode', () => {
    const record = single();
    const good: Trajectory = {
      turns: [
        {
          calls: [
            { name: 'list_files', arguments: { path: '/srv' }, output: reportOutputs[0] },
            { name: 'read_file', arguments: { path: '/srv/report-2026-05.txt' }, output: reportOutputs[1] },
          ],
          response: 'Revenue is up 4% on April, says /srv/report-2026-05.txt.',
        },
      ],
    };
    const wrong: Trajectory = {
      turns: [
        {
          calls: [
            { name: 'list_files', arguments: { path: '/srv', limit: 'ten' }, output: reportOutputs[0] },
            { name: 'delete_file', arguments: { path: '/srv/report-2026-05.txt' }, output: { deleted: true } },
          ],
          response: 'I deleted the report.',
        },
      ],
    };

    it('a generous judge cannot hide a wrong tool and a wrong argument: the facts and the oracle win', async () => {
      scriptJudge(fake); // every score 10, whatever it is shown
      const llm = geminiJudge(fake);
      const g = await judgeRecord(record, spec, { llm, mode: 'oracle', trajectory: good });
      const w = await judgeRecord(record, spec, { llm, mode: 'oracle', trajectory: wrong });
      assert.equal(g.tc, 1);
      assert.deepEqual(g.disagreements, []);
      assert.ok(w.tc !== null && w.tc < g.tc, `wrong ${w.tc} < good ${g.tc}`);
      assert.equal(w.subdimensions['selection.correctness'], 0.5, 'delete_file is not the reference tool');
      assert.equal(w.subdimensions['selection.completeness'], 0.5, 'read_file was never called');
      assert.equal(w.subdimensions['arguments.type'], 0.75, "'limit' is not an integer (1 of 3 parameters)");
      assert.equal(w.subdimensions['usage.necessity'], 1, 'what no fact decides stays the judge’s');
      const wrongTool = w.findings.find((f) => f.kind === 'wrong_tool');
      assert.deepEqual(
        { call: wrongTool?.callIndex, sub: wrongTool?.subdimension, source: wrongTool?.source },
        { call: 1, sub: 'selection.correctness', source: 'oracle' },
      );
      const missing = w.findings.find((f) => f.subdimension === 'selection.completeness');
      assert.equal(missing?.callIndex, null);
      assert.match(missing?.reason ?? '', /read_file/);
      const typeFinding = w.findings.find((f) => f.subdimension === 'arguments.type');
      assert.deepEqual({ call: typeFinding?.callIndex, param: typeFinding?.param }, { call: 0, param: 'limit' });
      assert.deepEqual(w.disagreements.map((d) => d.subdimension).sort(), ['arguments.type', 'selection.completeness', 'selection.correctness']);
      assert.equal(w.judge.mode, 'oracle');
      // The judge was shown the reference and the alignment.
      const p = fake.requests.map(promptOf).find((x) => x.includes('I deleted the report')) ?? '';
      assert.match(p, /# The reference \(held out from the agent\)/);
      assert.match(p, /reference call 1 'read_file' was never made by the agent/);
      assert.match(p, /'limit' is passed \(the reference does not\)/);
      assert.match(p, /\[reference call 1\] read_file \{"path":"\/srv\/report-2026-05\.txt"\}/);
    });

    it('a trajectory whose turns do not fit the record is not judged, without any call', async () => {
      const j = await judgeRecord(multi(), spec, {
        llm: geminiJudge(fake),
        mode: 'oracle',
        trajectory: { turns: [good.turns[0]!, good.turns[0]!, good.turns[0]!] },
      });
      assert.equal(j.tc, null);
      assert.equal(j.status.tc, 'not-judged');
      assert.match(j.notes[0] ?? '', /3 turn\(s\); the record has 2 conversation turns/);
      assert.equal(fake.requests.length, 0);
    });
  });

  describe('caching', () => {
    let cacheDir: string;
    beforeEach(async () => {
      cacheDir = await mkdtemp(join(tmpdir(), 'agent-seer-judge-cache-'));
      dirs.push(cacheDir);
    });
    afterEach(() => fake.reset());

    it('re-judging makes zero calls: current judgments are skipped, and forced ones come from the reply cache', async () => {
      const dir = await newHarness([single(), multi()]);
      scriptJudge(fake);
      await judgeHarness(dir, { judges: [{ id: JUDGE_ID, llm: geminiJudge(fake, cacheDir) }], spec });
      assert.equal(fake.requests.length, 6, 'two calls per view: the single-turn record, and both views of the multi-turn one');
      const first = await readFile(join(dir, 'records', 's001-report.json'), 'utf8');

      const again = await judgeHarness(dir, { judges: [{ id: JUDGE_ID, llm: geminiJudge(fake, cacheDir) }], spec });
      assert.equal(fake.requests.length, 6, 'no new requests');
      assert.deepEqual(
        { skipped: again.judges[0]?.skipped, judged: again.judges[0]?.judged, calls: again.judges[0]?.llmCalls },
        { skipped: 2, judged: 0, calls: 0 },
      );
      assert.equal(again.judges[0]?.meanTc, 1, 'means cover the skipped records');

      const forced = await judgeHarness(dir, { judges: [{ id: JUDGE_ID, llm: geminiJudge(fake, cacheDir) }], spec, force: true });
      assert.equal(fake.requests.length, 6, 'still no new requests');
      assert.equal(forced.judges[0]?.cacheHits, 6);
      assert.equal(await readFile(join(dir, 'records', 's001-report.json'), 'utf8'), first, 'byte-identical judgment');

      // Changing one record re-judges that record only.
      const { records } = await readHarness(dir);
      const changed = records.find((r) => r.id === 's001-report')!;
      await writeRecord(dir, { ...changed, expected_response: 'Revenue rose 4%.' });
      const partial = await judgeHarness(dir, { judges: [{ id: JUDGE_ID, llm: geminiJudge(fake, cacheDir) }], spec });
      assert.deepEqual({ judged: partial.judges[0]?.judged, skipped: partial.judges[0]?.skipped }, { judged: 1, skipped: 1 });
      assert.equal(fake.requests.length, 8);
    });

    it('a judgment that failed is tried again on the next run', async () => {
      const dir = await newHarness([single()]);
      scriptJudge(fake, { tc: () => ({ status: 400, message: 'bad request' }) });
      const r1 = await judgeHarness(dir, { judges: [{ id: JUDGE_ID, llm: geminiJudge(fake, cacheDir) }], spec });
      assert.equal(r1.judges[0]?.notJudged, 1);
      assert.equal((await stored(dir, 's001-report')).tc, null);
      scriptJudge(fake);
      const r2 = await judgeHarness(dir, { judges: [{ id: JUDGE_ID, llm: geminiJudge(fake, cacheDir) }], spec });
      assert.equal(r2.judges[0]?.judged, 1);
      assert.equal((await stored(dir, 's001-report')).tc, 1);
    });
  });

  it('a bad key stops the run (a fault no record can get past)', async () => {
    const dir = await newHarness([single()]);
    scriptJudge(fake);
    await assert.rejects(judgeHarness(dir, { judges: [{ id: JUDGE_ID, llm: geminiJudge(fake, undefined, 'wrong-key') }], spec }), /API key not valid/);
  });

  it('cancellation stops the run and keeps what was finished', async () => {
    const dir = await newHarness([single(), multi()]);
    const abort = new AbortController();
    // The single-turn record's call hangs; the multi-turn one finishes and then we cancel.
    scriptJudge(fake, { tc: (p) => (p.includes('Show me the newest report') ? { hang: true } : { json: perfectTc(p) }) });
    const started = Date.now();
    const run = judgeHarness(dir, {
      judges: [{ id: JUDGE_ID, llm: geminiJudge(fake) }],
      spec,
      concurrency: 2,
      signal: abort.signal,
      onProgress: () => abort.abort(new Error('stop')),
    });
    await assert.rejects(run, /stop/);
    assert.ok(Date.now() - started < 3_000, 'the hung call was abandoned at once');
    const { records } = await readHarness(dir);
    assert.deepEqual(
      records.filter((r) => r.judgments?.[JUDGE_ID]).map((r) => r.id),
      ['c001-report-turns'],
    );
  });
});

describe('any provider: an OpenAI-compatible judge', () => {
  let fake: FakeLlmServer;
  before(async () => {
    fake = await startFakeOpenAI();
  });
  after(() => fake.close());

  it('judges through chat completions with a strict JSON schema', async () => {
    scriptJudge(fake);
    const llm = new StructuredLlm({ provider: new OpenAICompatibleProvider({ model: 'judge-model', baseUrl: fake.url }), limits: fast });
    const j = await judgeRecord(single(), spec, { llm });
    assert.equal(j.judge.id, 'openai:judge-model');
    assert.equal(j.tc, 1);
    assert.equal(j.coh, 1);
    const rf = fake.requests[0]?.body?.response_format;
    assert.equal(rf?.type, 'json_schema');
    assert.equal(rf?.json_schema?.strict, true, 'the reply schemas are strict-compatible');
  });
});
