/**
 * Two scripted agents run with the real `agent-seer run` against the fake Gemini and OpenAI
 * servers on one generated harness, two runs each: an oracle, and one that changes the first
 * argument of every call. Both call every expected tool; only argument-level scores tell them
 * apart. Shared by the leaderboard tests of the report core and of the CLI.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HarnessRecord } from '../../src/core/harness/format';
import { readHarness } from '../../src/core/harness/store';
import { harnessFolderName, RUNS_DIR } from '../../src/core/workspace/layout';
import { startFakeGemini } from '../fakes/fakeGemini';
import { startFakeOpenAI } from '../fakes/fakeOpenAI';
import { geminiAgent, openaiAgent, oraclePlan } from '../fakes/scriptedAgent';
import { cli } from './cliRunner';
import { specsDir } from './fixturePaths';

/** What {@link runTwoAgents} made. */
export interface TwoAgentRuns {
  root: string;
  harness: string;
  records: HarnessRecord[];
  /** Agent folder names under runs/. */
  oracle: string;
  changer: string;
  /** `tool␟parameter` of every argument the changer gets wrong. */
  changed: Set<string>;
  cleanup: () => Promise<void>;
}

/** Changes strings and numbers; other values stay (those calls stay exact). */
const change = (v: unknown): unknown => (typeof v === 'string' ? `${v}-x` : typeof v === 'number' ? v + 1 : v);

/** Generates a harness of git-official.json and runs both agents on it twice. */
export async function runTwoAgents(prefix: string): Promise<TwoAgentRuns> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  const harness = join(root, 'h');
  assert.equal((await cli(['generate', join(specsDir, 'git-official.json'), '--out', harness, '--simple', '3', '--complex', '4'])).code, 0);
  const records = (await readHarness(harness)).records;
  const [gemini, openai] = await Promise.all([startFakeGemini({ apiKey: 'k' }), startFakeOpenAI()]);
  try {
    const env = { GEMINI_API_KEY: 'k', OPENAI_API_KEY: 'k' };
    gemini.respondWith(geminiAgent(oraclePlan(records)));
    openai.respondWith(openaiAgent(oraclePlan(records, change)));
    const a = await cli(['run', harness, '--agent', 'gemini:gemini-2.5-flash', '--base-url', gemini.url, '--runs', '2'], root, env);
    assert.equal(a.code, 0, a.err);
    const b = await cli(['run', harness, '--agent', 'openai:agent-model', '--base-url', openai.url, '--runs', '2'], root, env);
    assert.equal(b.code, 0, b.err);
  } finally {
    await Promise.all([gemini.close(), openai.close()]);
  }
  const changed = new Set<string>();
  for (const r of records) {
    for (const c of r.expected_tools) {
      const k = Object.keys(c.arguments)[0];
      if (k !== undefined && change(c.arguments[k]) !== c.arguments[k]) changed.add(`${c.name}\u241f${k}`);
    }
  }
  assert.ok(changed.size > 0, 'the changer changes something');
  return {
    root,
    harness,
    records,
    oracle: harnessFolderName('gemini-gemini-2.5-flash'),
    changer: harnessFolderName('openai-agent-model'),
    changed,
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** The runs folder of an agent of the harness. */
export const agentRunsDir = (t: TwoAgentRuns, agent: string): string => join(t.harness, RUNS_DIR, agent);
