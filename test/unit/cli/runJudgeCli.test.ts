/**
 * `agent-seer run --judge`: the LLM judge in oracle mode on each trajectory, through a second fake
 * Gemini server (the real `@google/genai` client): a scripted judge that calls everything perfect
 * (exact facts must still win over it for an agent that skips calls), and the schema-only
 * adversary (its replies must not become scores by accident). A re-run asks neither model again.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { HarnessRecord } from '../../../src/core/harness/format';
import type { ReportModel } from '../../../src/core/report/schema';
import { readHarness } from '../../../src/core/harness/store';
import { startFakeGemini } from '../../fakes/fakeGemini';
import type { FakeLlmServer } from '../../fakes/fakeLlmServer';
import { schemaOnlyModel } from '../../fakes/schemaOnly';
import { geminiAgent, oraclePlan } from '../../fakes/scriptedAgent';
import { cli } from '../cliRunner';
import { specsDir } from '../fixturePaths';
import { scriptJudge } from '../judgeFixtures';

interface RunOut {
  summary: { tc: number | null; coh: number | null; judge: { id: string; judged: number; notJudged: number } | null; exactCallMatch: number };
  records: { id: string; tc: number | null; coh: number | null }[];
  requests: number;
}

describe('agent-seer run --judge (LLM judge in oracle mode)', () => {
  let root: string;
  let harness: string;
  let records: HarnessRecord[];
  let agent: FakeLlmServer;
  let judge: FakeLlmServer;
  const env = { GEMINI_API_KEY: 'k' };
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-run-judge-'));
    harness = join(root, 'h');
    assert.equal((await cli(['generate', join(specsDir, 'git-official.json'), '--out', harness, '--simple', '3', '--complex', '3'])).code, 0);
    records = (await readHarness(harness)).records;
    [agent, judge] = await Promise.all([startFakeGemini({ apiKey: 'k' }), startFakeGemini({ apiKey: 'k' })]);
  });
  after(async () => {
    await Promise.all([agent.close(), judge.close()]);
    await rm(root, { recursive: true, force: true });
  });

  /** `run --judge` into `out`, the judge at the judge server. */
  const run = (out: string | undefined, judgeModel = 'gemini', agentModel = 'agent-model') => {
    const judgeArgs = ['--judge', judgeModel, '--judge-base-url', judge.url];
    const outArgs = out ? ['--out', out] : [];
    return cli(['run', harness, '--agent', `gemini:${agentModel}`, '--base-url', agent.url, ...judgeArgs, ...outArgs, '--json'], root, env);
  };

  it('a perfect-scoring judge: the oracle agent gets tc 1; an agent that skips calls gets less (exact facts win); judgments are in the trajectory files; a re-run asks no model', async () => {
    scriptJudge(judge);
    agent.respondWith(geminiAgent(oraclePlan(records)));
    const oracleOut = join(root, 'oracle');
    const a = await run(oracleOut);
    assert.equal(a.code, 0, a.err);
    const oracle = JSON.parse(a.out) as RunOut;
    assert.deepEqual(oracle.summary.judge, { id: 'gemini:gemini-2.5-flash', judged: records.length, notJudged: 0 });
    assert.equal(oracle.summary.tc, 1);
    assert.equal(oracle.summary.coh, 1, 'every reply judged coherent');
    assert.ok(oracle.records.every((r) => r.tc === 1));
    assert.ok(judge.requests.some((r) => r.model === 'gemini-2.5-flash'));

    // Stored beside the calls, under the judge's id.
    const files = (await readdir(join(oracleOut, '1'))).filter((f) => f.endsWith('.json'));
    for (const f of files) {
      const t = JSON.parse(await readFile(join(oracleOut, '1', f), 'utf8')) as { judgments?: Record<string, { tc: number | null; status: { tc: string } }> };
      assert.equal(t.judgments?.['gemini:gemini-2.5-flash']?.status.tc, 'scored', f);
    }

    agent.reset();
    // An agent that skips the last call of every turn: the judge still says 10 everywhere, the
    // oracle's exact comparison (a reference call never made) caps selection.
    const oracle2 = oraclePlan(records);
    agent.respondWith(geminiAgent((first, turn) => oracle2(first, turn).slice(0, -1)));
    // Another model name: the harness's per-turn cache holds the oracle agent's replies.
    const b = await run(join(root, 'skipper'), 'gemini', 'skipper-model');
    assert.equal(b.code, 0, b.err);
    const skipper = JSON.parse(b.out) as RunOut;
    assert.ok(skipper.summary.exactCallMatch < 1);
    assert.ok(skipper.summary.tc !== null && skipper.summary.tc < 1, `exact facts overrule the judge's 10s: tc ${skipper.summary.tc}`);

    agent.reset();
    judge.reset();
    scriptJudge(judge);
    const again = await run(oracleOut);
    assert.equal(again.code, 0, again.err);
    assert.equal(JSON.parse(again.out).summary.tc, 1);
    assert.equal(agent.requests.length + judge.requests.length, 0, 'a finished, judged run asks no model');
  });

  it('the schema-only judge scores every scenario run, single- and multi-turn: the per-record reply schema states the turn count', async () => {
    judge.reset();
    judge.respondWith(schemaOnlyModel);
    agent.reset();
    agent.respondWith(geminiAgent(oraclePlan(records)));
    // Another judge model: the replies the first test's judge gave are in the harness's cache.
    const r = await run(join(root, 'schema-only'), 'gemini:schema-only-judge');
    assert.equal(r.code, 0, r.err);
    const out = JSON.parse(r.out) as RunOut;
    const j = out.summary.judge!;
    const multi = records.filter((x) => x.conversation.length >= 2).length;
    assert.ok(multi > 0 && multi < records.length, 'the harness has both kinds');
    // A reply that follows the schema and nothing else fits multi-turn scenarios too (exact turns, enums).
    assert.deepEqual([j.judged, j.notJudged], [records.length, 0]);
    assert.ok(out.summary.tc !== null && out.summary.tc >= 0 && out.summary.tc <= 1);
    for (const rec of out.records) assert.ok(rec.tc !== null && rec.tc >= 0 && rec.tc <= 1, `${rec.id}: judged`);
  });

  it('a judge that never answers with JSON: every scenario run said not judged, tc null, exit 1 — never a silent number', async () => {
    judge.reset();
    judge.respondWith(() => ({ text: 'not json' }));
    agent.reset();
    agent.respondWith(geminiAgent(oraclePlan(records)));
    const r = await run(join(root, 'garbage'), 'gemini:garbage-judge');
    assert.equal(r.code, 1, r.err);
    const out = JSON.parse(r.out) as RunOut;
    assert.deepEqual([out.summary.judge!.judged, out.summary.judge!.notJudged], [0, records.length]);
    assert.match(r.err, new RegExp(`could not judge ${records.length} of ${records.length} scenario runs`));
    assert.equal(out.summary.tc, null);
    for (const rec of out.records) assert.equal(rec.tc, null, `${rec.id}: not judged, no number`);
  });

  it("the leaderboard shows the judge's tc and coh with CIs for a judged agent, and none (n 0) for an unjudged one", async () => {
    judge.reset();
    scriptJudge(judge);
    agent.reset();
    agent.respondWith(geminiAgent(oraclePlan(records)));
    assert.equal((await run(undefined)).code, 0);
    const plain = await cli(['run', harness, '--agent', 'gemini:unjudged-model', '--base-url', agent.url], root, env);
    assert.equal(plain.code, 0, plain.err);
    const r = await cli(['report', harness, '--format', 'json', '--resamples', '200'], root);
    assert.equal(r.code, 0, r.err);
    const board = (JSON.parse(r.out) as ReportModel).leaderboard;
    const judgedRow = board.find((row) => row.ids.includes('gemini:agent-model'))!;
    assert.equal(judgedRow.overall.tc.n, records.length);
    assert.equal(judgedRow.overall.tc.mean, 1);
    assert.equal(judgedRow.overall.coh.mean, 1);
    assert.deepEqual(judgedRow.overall.tc.ci, [1, 1]);
    const unjudged = board.find((row) => row.ids.includes('gemini:unjudged-model'))!;
    assert.deepEqual([unjudged.overall.tc.n, unjudged.overall.tc.mean], [0, null]);
    const md = await cli(['report', harness, '--resamples', '200'], root);
    assert.match(md.out, /\| TC \(judge\) .*\n.*\n\| gemini-agent-model( \| [^|]+){5} \| 1\.000 /);
  });

  it('bad input: --judge offline, an unknown judge', async () => {
    const off = await cli(['run', harness, '--agent', 'gemini', '--base-url', agent.url, '--judge', 'offline'], root, env);
    assert.equal(off.code, 2);
    assert.match(off.err, /--judge needs an LLM judge/);
    assert.equal((await cli(['run', harness, '--agent', 'gemini', '--base-url', agent.url, '--judge', 'claude'], root, env)).code, 2);
  });
});
