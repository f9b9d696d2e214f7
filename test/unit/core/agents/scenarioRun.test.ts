/**
 * One scenario at a time, as the editor's Testing view runs them: `runScenario` through the real
 * `@google/genai` client against a fake Gemini whose scripted agent changes one argument, and
 * `scenarioFailures` placing what went wrong in the real record file's text.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Ajv from 'ajv';
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { runScenario, trajectoryFile } from '../../../../src/core/agents/runHarness';
import { scenarioFailures } from '../../../../src/core/agents/scenarioFailures';
import { Trajectory, TRAJECTORY_SCHEMA_FILE, trajectoryJsonSchema } from '../../../../src/core/agents/trajectory';
import type { HarnessRecord } from '../../../../src/core/harness/format';
import { specHash } from '../../../../src/core/harness/hash';
import { readHarness, recordFile, type HarnessRead } from '../../../../src/core/harness/store';
import { CallGuard, GeminiProvider } from '../../../../src/core/llm';
import { runPipeline } from '../../../../src/core/pipeline/runner';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import type { Spec } from '../../../../src/core/spec/model';
import { startFakeGemini } from '../../../fakes/fakeGemini';
import type { FakeLlmServer } from '../../../fakes/fakeLlmServer';
import { geminiAgent, planFrom } from '../../../fakes/scriptedAgent';
import { repoRoot, specsDir } from '../../fixturePaths';

describe('one scenario run and its failures in the record file', () => {
  let root: string;
  let spec: Spec;
  let harness: HarnessRead & { dir: string };
  let gemini: FakeLlmServer;
  let target: HarnessRecord;
  let param: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-scenario-'));
    const file = join(specsDir, 'git-official.json');
    const load = loadSpecText(await readFile(file, 'utf8'), file);
    assert.ok(load.ok);
    spec = load.spec;
    const dir = join(root, 'h');
    await runPipeline({ spec, provider: 'offline', outDir: dir, simple: 4, complex: 2 });
    harness = { ...(await readHarness(dir)), dir };
    target = harness.records.find((r) => r.expected_tools.some((c) => Object.keys(c.arguments).length >= 2))!;
    assert.ok(target, 'a record with a call of two or more arguments');
    gemini = await startFakeGemini({ apiKey: 'k' });
  });
  after(async () => {
    await gemini.close();
    await rm(root, { recursive: true, force: true });
  });

  const run = (rerun: boolean) =>
    runScenario({
      spec,
      specHash: specHash(spec),
      record: target,
      provider: new GeminiProvider({ apiKey: 'k', baseUrl: gemini.url, model: 'gemini-2.5-flash' }),
      dir: join(root, 'runs', '1'),
      guard: new CallGuard({ retry: { maxRetries: 0 } }),
      rerun,
      signal: new AbortController().signal,
    });

  it('a changed argument fails at that argument: the diff differs there only and the range is its key in the record file', async () => {
    const callIndex = target.expected_tools.findIndex((c) => Object.keys(c.arguments).length >= 2);
    param = Object.keys(target.expected_tools[callIndex]!.arguments)[0]!;
    gemini.reset();
    gemini.respondWith(
      geminiAgent(
        planFrom(harness.records, (c, r, i) =>
          r.id === target.id && i === callIndex ? { ...c, arguments: { ...(c.arguments as object), [param]: 'changed-by-agent' } } : c,
        ),
      ),
    );
    const done = await run(false);
    assert.equal(done.skipped, false);
    assert.equal(done.score.passed, false);
    // The file on disk is what the published JSON Schema describes (schemas/trajectory.schema.json).
    const published = JSON.parse(await readFile(join(repoRoot, 'schemas', TRAJECTORY_SCHEMA_FILE), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(published, trajectoryJsonSchema(), `schemas/${TRAJECTORY_SCHEMA_FILE} is out of date: npm run gen-schemas`);
    const validate = new Ajv({ strict: false }).compile(published);
    const onDisk = JSON.parse(await readFile(trajectoryFile(join(root, 'runs', '1'), target.id), 'utf8')) as unknown;
    assert.ok(validate(onDisk), JSON.stringify(validate.errors));
    const text = await readFile(recordFile(harness, target), 'utf8');
    const failures = scenarioFailures(done.score, done.trajectory.calls, text);
    const call = failures.filter((f) => f.kind === 'call');
    // The changed call, then only calls that take a value from its output (never answered, so
    // made before their source).
    assert.ok(call.length >= 1, JSON.stringify(failures));
    for (const later of call.slice(1)) assert.match(later.message, /: made before the call it takes a value from$/);
    const f = call[0]!;
    assert.match(f.message, new RegExp(`^expected call ${callIndex + 1} ${target.expected_tools[callIndex]!.name}: ${param} wrong$`));
    const expected = JSON.parse(f.expected!) as Record<string, unknown>;
    const actual = JSON.parse(f.actual!) as Record<string, unknown>;
    assert.deepEqual(
      Object.keys({ ...expected, ...actual }).filter((k) => JSON.stringify(expected[k]) !== JSON.stringify(actual[k])),
      [param],
    );
    assert.equal(actual[param], 'changed-by-agent');
    // The range is the argument's key, inside the expected call's object.
    const lines = text.split('\n');
    assert.ok(f.range);
    assert.equal(lines[f.range.start.line]!.slice(f.range.start.character, f.range.end.character), JSON.stringify(param));
    const callNode = findNodeAtLocation(parseTree(text)!, ['expected_tools', callIndex])!;
    const before = text.slice(0, callNode.offset).split('\n').length - 1;
    const after = text.slice(0, callNode.offset + callNode.length).split('\n').length - 1;
    assert.ok(f.range.start.line >= before && f.range.start.line <= after, 'inside the expected call');
    // The mock refused the changed call with the neutral error the agent saw; that is reported too.
    const refused = failures.filter((x) => x.kind === 'refused');
    assert.ok(refused.length >= 1);
    assert.match(refused[0]!.message, /: Error calling \S+: the request could not be completed\.$/);
  });

  it('a run again replaces the trajectory even when the agent makes no call this time', async () => {
    assert.ok(Trajectory.parse(JSON.parse(await readFile(trajectoryFile(join(root, 'runs', '1'), target.id), 'utf8'))).calls.length > 0);
    gemini.reset();
    gemini.respondWith(geminiAgent(() => []));
    // Without rerun, the finished trajectory is scored as it is, with no model call.
    const resumed = await run(false);
    assert.equal(resumed.skipped, true);
    assert.equal(gemini.requests.length, 0);
    const again = await run(true);
    assert.equal(again.skipped, false);
    assert.deepEqual(again.trajectory.calls, [], "the last run's calls are not scored again");
    assert.ok(again.score.calls.every((c) => c.actual === null));
    const failures = scenarioFailures(again.score, again.trajectory.calls, await readFile(recordFile(harness, target), 'utf8'));
    assert.ok(failures.length >= 1 && failures.every((f) => f.kind === 'call' && f.actual === '' && /was not made$/.test(f.message)));
  });

  it('cancelling while the model hangs stops the scenario promptly', async () => {
    gemini.reset();
    gemini.respondWith({ hang: true });
    const abort = new AbortController();
    const started = Date.now();
    const running = runScenario({
      spec,
      specHash: specHash(spec),
      record: target,
      provider: new GeminiProvider({ apiKey: 'k', baseUrl: gemini.url, model: 'gemini-2.5-flash' }),
      dir: join(root, 'runs', 'cancel'),
      guard: new CallGuard({ retry: { maxRetries: 0 } }),
      rerun: true,
      signal: abort.signal,
    });
    await new Promise<void>((r) => {
      const wait = () => (gemini.inFlight > 0 ? r() : setTimeout(wait, 10));
      wait();
    });
    abort.abort(new Error('cancelled'));
    await assert.rejects(running);
    assert.ok(Date.now() - started < 5000, `stopped after ${Date.now() - started} ms`);
  });
});
