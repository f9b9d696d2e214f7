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
import { createResponder, stageOf } from '../../../unit/pipelineResponder';
import { activateApi } from '../../api';
import { FAKE_LM_ID, SCHEMA_MARKER, toFakeRequest, type FakeLmApi } from '../../fakeLm';
import { workspaceRoot } from '../../helpers';

const harnessDir = () => join(workspaceRoot(), 'evals', 'secure-filesystem-server');

function records(): { provenance: { provider: string; model: string } }[] {
  const dir = join(harnessDir(), 'records');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { provenance: { provider: string; model: string } });
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
