/**
 * "Generate Evals" with a VS Code language model: the VsCodeLmProvider adapter against a REAL
 * `vscode.lm` chat model, registered in this extension host by the test-only helper extension
 * test/integration/extensions/fake-lm (loaded by scripts/test-integration.mjs).
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { PipelineResult } from '../../../../src/core/pipeline/runner';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import type { FakeRequest } from '../../../fakes/fakeLlmServer';
import { createResponder, stageOf } from '../../../unit/pipelineResponder';
import { activateApi } from '../../api';
import { workspaceRoot } from '../../helpers';

/** A request as the fake model saw it: its messages' text, roles mapped. */
interface FakeLmRequest {
  model: string;
  messages: { role: 'user' | 'assistant'; content: string }[];
}

/** What test/integration/extensions/fake-lm/extension.js exports. */
interface FakeLmApi {
  vendor: string;
  modelId: string;
  requests: FakeLmRequest[];
  setResponder(fn: (req: FakeLmRequest) => string | Promise<string>): void;
  reset(): void;
}

const FAKE_LM_ID = 'agent-seer-test.fake-lm';
/** What the structured layer appends to the instructions when the provider has no JSON Schema mode. */
const SCHEMA_MARKER = 'Reply with a single JSON value, and nothing else, that conforms to this JSON Schema:\n';

const harnessDir = () => join(workspaceRoot(), 'evals', 'secure-filesystem-server');

function records(): { provenance: { provider: string; model: string } }[] {
  const dir = join(harnessDir(), 'records');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { provenance: { provider: string; model: string } });
}

/**
 * The fake model's request in the fake LLM server's shape, so the pipeline responder can answer
 * it: the adapter sends the instructions (with the JSON Schema appended) as the first user
 * message, then the conversation.
 */
function toFakeRequest(req: FakeLmRequest, index: number): FakeRequest {
  const [first, ...rest] = req.messages;
  const system = first?.content ?? '';
  const at = system.lastIndexOf(SCHEMA_MARKER);
  const jsonSchema: unknown = at >= 0 ? JSON.parse(system.slice(at + SCHEMA_MARKER.length)) : undefined;
  const lastUser = [...rest].reverse().find((m) => m.role === 'user');
  return {
    index,
    method: 'POST',
    path: `/vscode-lm/${req.model}`,
    headers: {},
    rawBody: '',
    body: undefined,
    receivedAt: Date.now(),
    model: req.model,
    system,
    messages: rest,
    lastUserText: lastUser?.content ?? '',
    temperature: undefined,
    jsonSchema,
    apiKey: undefined,
  };
}

describe('VS Code language model', () => {
  it('Generate Evals with a VS Code chat model (fake vscode.lm provider): writes vscode records', async function () {
    this.timeout(120_000);
    await activateApi();
    const ext = vscode.extensions.getExtension<FakeLmApi>(FAKE_LM_ID);
    // Both runners install the helper (test-integration.mjs copies it into the extensions folder,
    // test-electron.mjs loads it as a second development extension).
    assert.ok(ext, `the test helper extension ${FAKE_LM_ID} is loaded`);
    const fake = await ext.activate();
    fake.reset();

    const models = await vscode.lm.selectChatModels({ vendor: fake.vendor });
    assert.deepEqual(
      models.map((m) => m.id),
      [fake.modelId],
    );

    const specFile = join(workspaceRoot(), 'specs', 'filesystem.json');
    const load = loadSpecText(readFileSync(specFile, 'utf8'), specFile);
    assert.ok(load.ok);
    const responder = createResponder({ spec: load.spec });
    const stages: string[] = [];
    fake.setResponder((req) => {
      const fakeReq = toFakeRequest(req, stages.length);
      stages.push(stageOf(fakeReq));
      const reply = responder.respond(fakeReq);
      if ('json' in reply) return JSON.stringify(reply.json);
      if ('text' in reply) return reply.text;
      throw new Error(`fake-lm: the responder could not answer (${JSON.stringify(reply)})`);
    });

    const config = vscode.workspace.getConfiguration('agentSeer');
    const before = {
      simple: config.inspect<number>('generation.simple')?.workspaceValue,
      complex: config.inspect<number>('generation.complex')?.workspaceValue,
    };
    try {
      await config.update('generation.simple', 2, vscode.ConfigurationTarget.Workspace);
      await config.update('generation.complex', 2, vscode.ConfigurationTarget.Workspace);

      const result = await vscode.commands.executeCommand<PipelineResult>('agentSeer.generateEvals', vscode.Uri.file(specFile), {
        provider: { kind: 'vscode', modelId: fake.modelId },
      });
      assert.equal(result.status, 'complete', JSON.stringify(result).slice(0, 500));
      assert.ok(result.llm.calls > 0);
      assert.ok(result.llm.inputTokens > 0 && result.llm.outputTokens > 0, `token counts from provideTokenCount: ${JSON.stringify(result.llm)}`);

      // The fake model answered every stage, and each request carried the JSON Schema in its text.
      assert.ok(fake.requests.length > 0);
      assert.ok(
        fake.requests.every((r) => r.model === fake.modelId && r.messages[0]?.content.includes(SCHEMA_MARKER)),
        'every request puts the JSON Schema instructions first',
      );
      for (const stage of ['interpret', 'scenarios', 'mock', 'turns'])
        assert.ok(stages.includes(stage), `a ${stage} request (saw ${[...new Set(stages)].join(', ')})`);
      assert.ok(!stages.includes('unknown'), `every request's schema names its stage (saw ${stages.join(', ')})`);

      const onDisk = records();
      assert.equal(onDisk.length, result.counts.records);
      assert.ok(onDisk.length > 0);
      assert.ok(
        onDisk.every((r) => r.provenance.provider === 'vscode' && r.provenance.model === `${fake.vendor}/${fake.modelId}`),
        JSON.stringify(onDisk.map((r) => r.provenance)),
      );
    } finally {
      fake.reset();
      await config.update('generation.simple', before.simple, vscode.ConfigurationTarget.Workspace);
      await config.update('generation.complex', before.complex, vscode.ConfigurationTarget.Workspace);
    }
  });
});
