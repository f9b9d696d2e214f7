/**
 * `agent-seer run` killed mid-scenario (SIGKILL, then SIGINT) resumes without asking the model
 * again any turn it had been answered: the agent's replies are cached per turn under the
 * conversation so far. The real CLI as a child process against a fake Gemini on 127.0.0.1.
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
import { geminiAgent, oraclePlan } from '../../fakes/scriptedAgent';
import { cli } from '../cliRunner';
import { repoRoot, specsDir } from '../fixturePaths';
import { killResumeTrial } from '../killResume';

/** Contents of a Gemini request: more than one means a conversation past its first turn. */
const turnsOf = (body: unknown): number => ((body as { contents?: unknown[] } | undefined)?.contents ?? []).length;

describe('agent-seer run: kill and resume mid-scenario', () => {
  let root: string;
  let harness: string;
  let records: HarnessRecord[];
  let fake: FakeLlmServer;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-run-resume-'));
    harness = join(root, 'h');
    assert.equal((await cli(['generate', join(specsDir, 'git-official.json'), '--out', harness, '--simple', '2', '--complex', '4'])).code, 0);
    records = (await readHarness(harness)).records;
    assert.ok(
      records.some((r) => r.expected_tools.length >= 2),
      'scenarios of several calls',
    );
    fake = await startFakeGemini({ apiKey: 'k' });
  });
  after(async () => {
    await fake.close();
    await rm(root, { recursive: true, force: true });
  });

  it('resumes without sending again any turn whose reply had arrived', async () => {
    const agent = geminiAgent(oraclePlan(records));
    // Turns past a scenario's first are slow once the kill is coming, so it finds a scenario half done.
    let killing = false;
    fake.respondWith((req) => ({ ...agent(req), delayMs: killing && turnsOf(req.body) > 1 ? 1000 : 20 }));
    const main = join(repoRoot, 'out', 'src', 'cli', 'main.js');
    for (const signal of ['SIGKILL', 'SIGINT'] as const) {
      const out = join(root, `runs-${signal}`);
      const seen = fake.requests.length;
      const killWhen = async (): Promise<void> => {
        killing = true;
        // A conversation past its first turn has reached the server: its earlier replies arrived.
        const deadline = Date.now() + 30_000;
        while (!fake.requests.some((r) => r.index >= seen && turnsOf(r.body) > 2) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
        await new Promise((r) => setTimeout(r, 250));
        killing = false;
      };
      const trial = await killResumeTrial({
        fake,
        cli: main,
        // A model per trial: the harness's cache holds the other trial's replies.
        args: ['run', harness, '--agent', `gemini:agent-${signal}`, '--base-url', fake.url, '--concurrency', '1', '--out', out, '--json'],
        env: { ...process.env, GEMINI_API_KEY: 'k' },
        signal,
        killWhen,
      });
      assert.equal(trial.resumedExit, 0, trial.resumedStderr);
      assert.ok(trial.answeredBeforeKill > 0 && trial.resumedRequests > 0, JSON.stringify({ ...trial, resumedStderr: undefined }));
      assert.equal(
        trial.repeated,
        0,
        `${signal}: ${trial.repeated} turns answered before the kill were asked again (${JSON.stringify({ ...trial, resumedStderr: undefined })})`,
      );
    }
  });
});
