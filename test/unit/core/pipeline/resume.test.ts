/**
 * Resume and re-run: a run cancelled after a few records, re-run with the same inputs, ends with
 * exactly the harness an uninterrupted run writes, having repeated no finished LLM call; an
 * unchanged re-run makes no call at all and reports the same counts (replayed from the ledger);
 * a changed tool is interpreted again, alone.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readHarness } from '../../../../src/core/harness/store';
import { GeminiProvider } from '../../../../src/core/llm';
import { runPipeline, type PipelineResult, type RunPipelineOptions } from '../../../../src/core/pipeline/runner';
import type { Spec } from '../../../../src/core/spec/model';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { startFakeGemini } from '../../../fakes/fakeGemini';
import type { FakeLlmServer, FakeReply, FakeRequest } from '../../../fakes/fakeLlmServer';
import { DiskCache, ORPHAN_TMP_AGE_MS } from '../../../../src/core/llm';
import { repoRoot, specsDir } from '../../fixturePaths';
import { killResumeTrial, reaskingResponder } from '../../killResume';
import { createResponder, firstPrompt, scenarioKind, stageOf, type Responder } from '../../pipelineResponder';
import { MAX_EXTRA_ROUNDS } from '../../../../src/core/workspace/defaults';

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) await walk(join(d, e.name));
      else if (e.name.endsWith('.json')) out.push(join(d, e.name));
    }
  };
  await walk(dir);
  return out.sort();
}

/** Record file name → content. */
async function recordFiles(dir: string): Promise<Map<string, string>> {
  const names = (await readdir(join(dir, 'records'))).filter((n) => n.endsWith('.json')).sort();
  return new Map(await Promise.all(names.map(async (n) => [n, await readFile(join(dir, 'records', n), 'utf8')] as const)));
}

describe('resume', () => {
  let fake: FakeLlmServer;
  let spec: Spec;
  let responder: Responder;
  const dirs: string[] = [];
  const tmp = async (): Promise<string> => {
    const d = await mkdtemp(join(tmpdir(), 'agent-seer-resume-'));
    dirs.push(d);
    return d;
  };
  before(async () => {
    fake = await startFakeGemini();
    const file = join(specsDir, 'redis-mcp-0.5.0.json');
    const r = loadSpecText(await readFile(file, 'utf8'), file);
    assert.ok(r.ok);
    spec = r.spec;
    responder = createResponder({ spec });
  });
  after(async () => {
    await fake.close();
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  const run = (outDir: string, over: Partial<RunPipelineOptions> = {}): Promise<PipelineResult> =>
    runPipeline({
      spec,
      provider: { chat: new GeminiProvider({ apiKey: 'k', baseUrl: fake.url }), limits: { concurrency: 4 } },
      outDir,
      simple: 4,
      complex: 4,
      ...over,
    });

  it('cancel after a few records, re-run: nothing lost, nothing duplicated, no finished call repeated; then zero calls', async () => {
    // A little latency, as a real model has, so the cancellation lands while calls are pending.
    const slow = (req: FakeRequest): FakeReply => ({ ...responder.respond(req), delayMs: 40 });
    fake.reset();
    fake.respondWith(slow);
    const baselineDir = await tmp();
    const baseline = await run(baselineDir);
    assert.equal(baseline.status, 'complete');
    const total = fake.requests.length;
    const baselineFiles = await recordFiles(baselineDir);
    assert.ok(baselineFiles.size > 20);

    // Run 1: cancelled once 5 records are on disk.
    fake.reset();
    fake.respondWith(slow);
    const dir = await tmp();
    const ctl = new AbortController();
    const first = await run(dir, { signal: ctl.signal, onProgress: (p) => p.records >= 5 && ctl.abort() });
    assert.equal(first.status, 'cancelled');
    const h1 = await readHarness(dir);
    assert.deepEqual(h1.problems, [], 'the manifest names exactly the records on disk');
    assert.equal(h1.manifest?.status, 'cancelled');
    assert.ok(h1.records.length >= 5 && h1.records.length < baselineFiles.size, `${h1.records.length} records kept`);
    const run1Files = await recordFiles(dir);
    for (const [name, text] of run1Files) assert.equal(text, baselineFiles.get(name), `${name} as an uninterrupted run writes it`);
    const finished = (await filesUnder(join(dir, '.cache', 'llm'))).length;
    assert.ok(finished > 0 && finished < total);

    // Run 2: resumes.
    fake.reset();
    fake.respondWith(slow);
    const second = await run(dir);
    assert.equal(second.status, 'complete');
    assert.equal(fake.requests.length, total - finished, 'exactly the unfinished calls were made');
    assert.equal(second.llm.cacheHits, finished);
    const h2 = await readHarness(dir);
    assert.deepEqual(h2.problems, []);
    assert.equal(h2.manifest?.status, 'complete');
    const run2Files = await recordFiles(dir);
    assert.deepEqual([...run2Files.keys()], [...baselineFiles.keys()], 'same records, none duplicated');
    for (const [name, text] of run2Files) assert.equal(text, baselineFiles.get(name));
    assert.deepEqual(h2.manifest?.recordIds, baseline.manifest.recordIds, 'same order as the uninterrupted run');
    assert.deepEqual(second.counts, baseline.counts);

    // Run 3: unchanged inputs, zero calls.
    fake.reset();
    fake.respondWith(responder.respond);
    const third = await run(dir);
    assert.equal(third.status, 'complete');
    assert.equal(fake.requests.length, 0);
    assert.equal(third.llm.calls, 0);
    assert.equal(third.llm.inputTokens, 0);
    assert.deepEqual(await recordFiles(dir), run2Files);
  });

  it('an unchanged re-run replays repairs and discards from the ledger: zero calls, same counts, same records', async () => {
    const hallucinate = (req: FakeRequest): FakeReply => {
      const batch = responder.batchFor(req);
      batch.scenario_1!.focus_call.name = 'hmset_all';
      return { json: batch };
    };
    let garbled = '';
    fake.reset();
    fake.respondWith((req) => {
      // A persistent hallucination in the first simple batch (salvaged), and one garbled interpretation (re-asked).
      if (stageOf(req) === 'scenarios' && scenarioKind(firstPrompt(req)) === 'simple' && firstPrompt(req).includes('### hset')) return hallucinate(req);
      if (stageOf(req) === 'interpret' && req.messages.length === 1 && (garbled ||= firstPrompt(req)) === firstPrompt(req)) return { text: '{"tool_name": ' };
      return responder.respond(req);
    });
    const dir = await tmp();
    const first = await run(dir);
    assert.equal(first.status, 'complete');
    // The batch and its top-up rounds for the missing scenario, all answered with the same hallucination.
    assert.equal(first.counts.discarded['scenarios:unknown-tool'], 1 + MAX_EXTRA_ROUNDS);
    assert.equal(first.counts.repaired['interpret:malformed-reply'], 1);
    const files = await recordFiles(dir);

    fake.reset();
    fake.respondWith(responder.respond);
    const again = await run(dir);
    assert.equal(fake.requests.length, 0);
    assert.deepEqual(again.counts, first.counts);
    assert.deepEqual(await recordFiles(dir), files);
  });

  it('a changed tool is interpreted again, alone; unchanged tools come from the cache', async () => {
    fake.reset();
    fake.respondWith(responder.respond);
    const dir = await tmp();
    await run(dir, { simple: 2, complex: 2 });
    const changed: Spec = {
      ...spec,
      tools: spec.tools.map((t) => (t.name === 'lpush' ? { ...t, description: `${t.description ?? ''} Returns the new length.` } : t)),
    };
    fake.reset();
    fake.respondWith(createResponder({ spec: changed }).respond);
    const res = await run(dir, { spec: changed, simple: 2, complex: 2 });
    assert.equal(res.status, 'complete');
    const interprets = fake.requests.filter((r) => stageOf(r) === 'interpret');
    assert.equal(interprets.length, 1);
    assert.match(firstPrompt(interprets[0]!), /"name": "lpush"/);
    assert.ok(res.llm.cacheHits > spec.tools.length - 1);
    const h = await readHarness(dir);
    assert.deepEqual(h.problems, []);
    const withLpush = h.records.filter((r) => r.expected_tools.some((c) => c.name === 'lpush'));
    assert.ok(withLpush.length > 0);
    assert.ok(
      withLpush.every((r) => r.provenance.toolHashes.lpush === res.manifest.spec.toolHashes.lpush),
      'records carry the new tool hash',
    );
  });

  it('a run killed between re-asks (SIGKILL, then SIGINT) resumes without sending again any reply it had received', async () => {
    const slackFile = join(specsDir, 'slack.json');
    const loaded = loadSpecText(await readFile(slackFile, 'utf8'), slackFile);
    assert.ok(loaded.ok);
    fake.reset();
    // Re-asks are slow until the kill, so the kill finds conversations half done.
    let killing = false;
    fake.respondWith(reaskingResponder(createResponder({ spec: loaded.spec }), (req) => (killing && req.messages.length > 1 ? 1000 : 20)));
    const cli = join(repoRoot, 'out', 'src', 'cli', 'main.js');
    for (const signal of ['SIGKILL', 'SIGINT'] as const) {
      const dir = await tmp();
      // Kill a little after the first re-ask reaches the server: the reply it answers is by then
      // well past the grace window, so it must come from the cache on resume.
      const killWhen = async (): Promise<void> => {
        killing = true;
        while (!fake.requests.some((r) => r.index >= seen && r.messages.length > 1)) await new Promise((r) => setTimeout(r, 5));
        await new Promise((r) => setTimeout(r, 250));
        killing = false;
      };
      const seen = fake.requests.length;
      const trial = await killResumeTrial({
        fake,
        cli,
        args: ['generate', slackFile, '--provider', 'gemini', '--base-url', fake.url, '--simple', '3', '--complex', '3', '--out', join(dir, 'out'), '--json'],
        env: { ...process.env, GEMINI_API_KEY: 'k' },
        signal,
        killWhen,
      });
      assert.equal(trial.resumedExit, 0, trial.resumedStderr);
      assert.ok(trial.answeredBeforeKill > 0 && trial.resumedRequests > 0, JSON.stringify(trial));
      assert.equal(
        trial.repeated,
        0,
        `${signal}: ${trial.repeated} replies received before the kill were asked again (${JSON.stringify({ ...trial, resumedStderr: undefined })})`,
      );
    }
  });

  it("temp files a killed writer left in the cache are removed when the cache is next opened; a live writer's are kept", async () => {
    const dir = await tmp();
    const sub = join(dir, 'ab');
    await mkdir(sub, { recursive: true });
    const deadPid = 2 ** 22 + 12345; // above Linux's pid_max default: no such process
    const orphan = join(sub, `${'ab'.padEnd(64, '0')}.json.${deadPid}.0a1b2c.tmp`);
    const live = join(sub, `${'ab'.padEnd(64, '1')}.json.${process.pid}.0a1b2c.tmp`);
    const stale = join(sub, `${'ab'.padEnd(64, '2')}.json.${process.pid}.0a1b2d.tmp`);
    for (const f of [orphan, live, stale]) await writeFile(f, '{"half":');
    const old = (Date.now() - ORPHAN_TMP_AGE_MS - 60_000) / 1000;
    await utimes(stale, old, old);
    const cache = new DiskCache(dir);
    assert.equal(await cache.get('ab'.padEnd(64, '0')), undefined);
    assert.deepEqual((await readdir(sub)).sort(), [live.slice(sub.length + 1)]);
  });
});
