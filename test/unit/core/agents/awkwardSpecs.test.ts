/**
 * The built-in agent on fixture specs the MCP SDK's client will not take as they are, found by
 * running it over the whole fixture corpus: `everything.json` has a tool that requires task-based
 * execution (the client refuses a plain call of it), and `gitlab-broken-empty-schemas.json` has
 * input schemas the protocol's schema rejects (the client refuses the tool list). Before, either
 * stopped the whole run with the client's raw error; now the run completes, a faithful agent
 * scores 1.0, and the summary says what was done instead.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runHarness } from '../../../../src/core/agents/runHarness';
import { specHash } from '../../../../src/core/harness/hash';
import { readHarness } from '../../../../src/core/harness/store';
import { OpenAICompatibleProvider } from '../../../../src/core/llm';
import { runPipeline } from '../../../../src/core/pipeline/runner';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import { startFakeOpenAI } from '../../../fakes/fakeOpenAI';
import type { FakeLlmServer } from '../../../fakes/fakeLlmServer';
import { openaiAgent, oraclePlan } from '../../../fakes/scriptedAgent';
import { specsDir } from '../../fixturePaths';

describe('the built-in agent on specs the MCP client will not take as they are', () => {
  let root: string;
  let server: FakeLlmServer;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-awkward-'));
    server = await startFakeOpenAI();
  });
  after(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  const runOn = async (file: string) => {
    const load = loadSpecText(await readFile(join(specsDir, file), 'utf8'), file);
    assert.ok(load.ok);
    const spec = load.spec;
    const out = join(root, file);
    await runPipeline({ spec, provider: 'offline', outDir: out, simple: 3, complex: 3 });
    const records = (await readHarness(out)).records;
    server.reset();
    server.respondWith(openaiAgent(oraclePlan(records)));
    const r = await runHarness({
      spec,
      specHash: specHash(spec),
      records,
      provider: new OpenAICompatibleProvider({ model: 'agent-model', apiKey: 'k', baseUrl: server.url }),
      out: join(root, `${file}-runs`),
      limits: { concurrency: 2, retry: { maxRetries: 0 } },
      signal: new AbortController().signal,
    });
    return { r, spec, records };
  };

  it('a tool that requires task-based execution: its calls go to the mock directly, and the summary says so', async () => {
    const { r, spec, records } = await runOn('everything.json');
    const taskOnly = spec.tools.filter((t) => (t.execution as { taskSupport?: string } | undefined)?.taskSupport === 'required').map((t) => t.name);
    assert.ok(taskOnly.length > 0, 'the fixture has a task-only tool');
    assert.ok(
      records.some((x) => x.expected_tools.some((c) => taskOnly.includes(c.name))),
      'a scenario calls it',
    );
    assert.equal(r.summary.callScore, 1);
    for (const name of taskOnly) assert.ok(r.summary.schemaWarnings.some((w) => w.startsWith(`${name}: requires task-based execution`)));
  });

  it("a tool list the client rejects: the spec's tools are offered as they are, and the summary says so", async () => {
    const { r } = await runOn('gitlab-broken-empty-schemas.json');
    assert.equal(r.summary.callScore, 1);
    assert.ok(
      r.summary.schemaWarnings.some((w) => /^tools\/list: the MCP SDK's client rejects this spec's tool list \(\S.*\); the agent is offered/.test(w)),
      JSON.stringify(r.summary.schemaWarnings),
    );
  });
});
