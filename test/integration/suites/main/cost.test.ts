/**
 * Cost in the editor: Generate Evals with Gemini (fake server on 127.0.0.1, real client) asks
 * before a run estimated above `agentSeer.cost.confirmAbove`; cancelling makes no call, continuing
 * runs and writes the cost into the manifest. The question is answered through the command's
 * `answerCost` argument (as `provider` skips the picker), which receives the modal's text.
 */
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { PipelineResult } from '../../../../src/core/pipeline/runner';
import { startFakeGemini } from '../../../fakes/fakeGemini';
import { activateApi } from '../../api';
import { fakeModelFor, screenshot, workspaceRoot } from '../../helpers';

describe('Cost', () => {
  it('asks before a run estimated above agentSeer.cost.confirmAbove: Cancel sends nothing, Continue runs and records the cost', async function () {
    this.timeout(120_000);
    const api = await activateApi();
    const { specFile, responder } = fakeModelFor('filesystem.json');
    const fake = await startFakeGemini({ apiKey: 'integration-test-key' });
    const config = vscode.workspace.getConfiguration('agentSeer');
    try {
      fake.respondWith((req) => responder.respond(req));
      await config.update('gemini.baseUrl', fake.url, vscode.ConfigurationTarget.Workspace);
      await config.update('generation.simple', 2, vscode.ConfigurationTarget.Workspace);
      await config.update('generation.complex', 2, vscode.ConfigurationTarget.Workspace);
      // Any real estimate is above a millionth of a dollar.
      await config.update('cost.confirmAbove', 0.000001, vscode.ConfigurationTarget.Workspace);
      await api.secrets.store('agentSeer.geminiApiKey', 'integration-test-key');

      const questions: string[] = [];
      const cancelled = await vscode.commands.executeCommand<{ status: string }>('agentSeer.generateEvals', vscode.Uri.file(specFile), {
        provider: { kind: 'gemini' },
        answerCost: (q: string) => {
          questions.push(q);
          return Promise.resolve(undefined);
        },
      });
      assert.equal(cancelled.status, 'cancelled-before-start');
      assert.equal(questions.length, 1);
      // The low end (a model that follows its schemas) and the top of the range with re-asks.
      assert.match(questions[0]!, /^This run is estimated at ≈\$[\d.]+ \(\d+–\d+ calls, up to \$[\d.]+ with re-asks\)\. Continue\?$/);
      assert.equal(fake.requests.length, 0, 'cancelled: no call made');

      const result = await vscode.commands.executeCommand<PipelineResult>('agentSeer.generateEvals', vscode.Uri.file(specFile), {
        provider: { kind: 'gemini' },
        answerCost: () => Promise.resolve('Continue'),
      });
      assert.equal(result.status, 'complete', JSON.stringify(result).slice(0, 500));
      assert.ok(fake.requests.length > 0);
      const cost = result.manifest.cost;
      assert.ok(cost?.estimate && cost.estimate.calls > 0);
      assert.ok(cost.estimate.high && cost.estimate.high.calls >= fake.requests.length, 'the range holds the calls made');
      assert.ok(cost.actual.usd !== null && cost.actual.usd > 0);
      assert.deepEqual(cost.actual.prices.source, 'built-in');

      // 0: never asked.
      await config.update('cost.confirmAbove', 0, vscode.ConfigurationTarget.Workspace);
      const asked: string[] = [];
      const again = await vscode.commands.executeCommand<PipelineResult>('agentSeer.generateEvals', vscode.Uri.file(specFile), {
        provider: { kind: 'gemini' },
        answerCost: (q: string) => {
          asked.push(q);
          return Promise.resolve(undefined);
        },
      });
      assert.equal(again.status, 'complete');
      assert.deepEqual(asked, []);
    } finally {
      await fake.close();
      for (const key of ['gemini.baseUrl', 'generation.simple', 'generation.complex', 'cost.confirmAbove'])
        await config.update(key, undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it("the model picker shows each model's estimate; closing it starts nothing", async function () {
    this.timeout(60_000);
    await activateApi();
    const specFile = join(workspaceRoot(), 'specs', 'filesystem.json');
    const pending = vscode.commands.executeCommand<{ status: string }>('agentSeer.generateEvals', vscode.Uri.file(specFile));
    await new Promise((r) => setTimeout(r, 1500));
    await screenshot('cost-model-picker');
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    const outcome = await pending;
    assert.equal(outcome.status, 'cancelled-before-start');
  });
});
