/**
 * `agent-seer run`: the built-in agent against fake Gemini and OpenAI servers whose scripted
 * agents replay the oracle or change arguments; scores, resumption and pass^k.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { HarnessRecord } from '../../../src/core/harness/format';
import { readHarness } from '../../../src/core/harness/store';
import { startFakeGemini } from '../../fakes/fakeGemini';
import type { FakeLlmServer } from '../../fakes/fakeLlmServer';
import { startFakeOpenAI } from '../../fakes/fakeOpenAI';
import { geminiAgent, openaiAgent, oraclePlan } from '../../fakes/scriptedAgent';
import { cli } from '../cliRunner';
import { specsDir } from '../fixturePaths';

describe('agent-seer run', () => {
  let root: string;
  let harness: string;
  let records: HarnessRecord[];
  let gemini: FakeLlmServer;
  let openai: FakeLlmServer;
  const env = { GEMINI_API_KEY: 'k', OPENAI_API_KEY: 'k' };
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-run-'));
    harness = join(root, 'h');
    assert.equal((await cli(['generate', join(specsDir, 'git-official.json'), '--out', harness, '--simple', '3', '--complex', '4'])).code, 0);
    records = (await readHarness(harness)).records;
    [gemini, openai] = await Promise.all([startFakeGemini({ apiKey: 'k' }), startFakeOpenAI()]);
  });
  after(async () => {
    await Promise.all([gemini.close(), openai.close()]);
    await rm(root, { recursive: true, force: true });
  });

  it('an oracle agent (Gemini) scores 1.0 and passes every scenario; a re-run makes no request', async () => {
    gemini.reset();
    gemini.respondWith(geminiAgent(oraclePlan(records)));
    const args = ['run', harness, '--agent', 'gemini:gemini-2.5-flash', '--base-url', gemini.url, '--json'];
    const r = await cli(args, root, env);
    assert.equal(r.code, 0, r.err);
    const out = JSON.parse(r.out) as {
      agent: string;
      summary: { exactCallMatch: number; nameMatch: number; argumentAccuracy: number; passRate: number; scenarios: number; tc: null };
      records: { id: string; calls: { name: boolean; arguments: Record<string, string> }[] }[];
      requests: number;
    };
    assert.equal(out.agent, 'gemini:gemini-2.5-flash');
    assert.equal(out.summary.scenarios, records.length);
    assert.deepEqual([out.summary.exactCallMatch, out.summary.nameMatch, out.summary.argumentAccuracy, out.summary.passRate], [1, 1, 1, 1]);
    assert.equal(out.summary.tc, null, 'the LLM judge in oracle mode is not run by `run`: said, not faked');
    assert.ok(out.requests > records.length);
    const again = await cli(args, root, env);
    assert.equal(JSON.parse(again.out).requests, 0, 'a finished run is not run again');
  });

  it('an agent that changes one argument per call (OpenAI-compatible) keeps name match 1.0; the text summary says so', async () => {
    openai.reset();
    openai.respondWith(openaiAgent(oraclePlan(records, (v) => (typeof v === 'string' ? `${v}-x` : typeof v === 'number' ? v + 1 : v))));
    const r = await cli(['run', harness, '--agent', 'openai:agent-model', '--base-url', openai.url, '--json'], root, env);
    assert.equal(r.code, 0, r.err);
    // The progress (cli/progress.ts) as plain lines: the stage's start and its end, no more for a short run.
    const progress = r.err.split('\n').filter((l) => l.startsWith('run: '));
    assert.ok(progress.length >= 1 && progress.length <= 12, r.err);
    assert.match(progress.at(-1)!, /^run: scenarios (\d+)\/\1 \(100%\) · \d+ s · \S+ · (passed|failed)$/);
    const s = JSON.parse(r.out).summary as { nameMatch: number; exactCallMatch: number; argumentAccuracy: number };
    assert.equal(s.nameMatch, 1);
    assert.ok(s.exactCallMatch < 1 && s.argumentAccuracy < 1 && s.argumentAccuracy > 0, JSON.stringify(s));
    const text = await cli(['run', harness, '--agent', 'openai:agent-model', '--base-url', openai.url], root, env);
    assert.match(text.out, /^Ran openai:agent-model on \d+ scenarios × 1 run/);
    assert.match(text.out, /name match 1\.000/);
  });

  it('--runs 2 with an agent right only on its first run of each scenario: pass^2 is 0 while the pass rate is 0.5', async () => {
    const right = oraclePlan(records);
    const wrong = oraclePlan(records, () => 'nonsense');
    // Runs go one after the other: a scenario's second fresh conversation belongs to run 2.
    const fresh = new Map<string, number>();
    gemini.reset();
    gemini.respondWith((req) => {
      const key = JSON.stringify(req.body.contents?.[0] ?? '');
      if ((req.body.contents?.length ?? 0) === 1) fresh.set(key, (fresh.get(key) ?? 0) + 1);
      return geminiAgent((fresh.get(key) ?? 1) >= 2 ? wrong : right)(req);
    });
    const out = join(root, 'runs2');
    const r = await cli(
      ['run', harness, '--agent', 'gemini', '--base-url', gemini.url, '--runs', '2', '--concurrency', '1', '--out', out, '--json'],
      root,
      env,
    );
    assert.equal(r.code, 0, r.err);
    const s = JSON.parse(r.out).summary as { passRate: number; passAtK: number; runs: number };
    assert.equal(s.runs, 2);
    assert.equal(s.passRate, 0.5);
    assert.equal(s.passAtK, 0);
  });

  it('bad input: no --agent, an unknown provider, a folder with no scenarios', async () => {
    assert.equal((await cli(['run', harness], root, env)).code, 2);
    assert.match((await cli(['run', harness, '--agent', 'claude'], root, env)).err, /--agent takes gemini\[:MODEL\] or openai:MODEL/);
    assert.equal((await cli(['run', root, '--agent', 'gemini'], root, env)).code, 2);
  });
});
