/**
 * The Testing view: the harness as test items, run by the controller's Gemini profile against a
 * fake Gemini on 127.0.0.1 (real `@google/genai` client, key from SecretStorage) whose scripted
 * agent replays the oracle except for one argument of one scenario.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { HarnessRecord } from '../../../../src/core/harness/format';
import { recordFile, recordFileStem } from '../../../../src/core/harness/store';
import { agentRunsDir } from '../../../../src/core/workspace/layout';
import { startFakeGemini } from '../../../fakes/fakeGemini';
import { AGENT_SYSTEM } from '../../../../src/core/agents/agentLoop';
import { chatModelAgent, geminiAgent, planFrom, type ChatModelReply, type ChatModelRequest } from '../../../fakes/scriptedAgent';
import { activateApi } from '../../api';
import { generateOfflineHarness, screenshot, waitFor } from '../../helpers';

/** The offline harness as the Testing view shows it: harness → tier → scenario items. */
async function harnessTestItems() {
  const api = await activateApi();
  await api.harnesses.rescan();
  const { controller, profiles } = api.agentTests;
  const harness = api.harnesses.all.find((h) => h.dir.endsWith('secure-filesystem-server'));
  assert.ok(harness, 'the offline harness is loaded');
  const harnessItem = await waitFor(() => controller.items.get(harness.dir), 10_000, 'the harness as a test item');
  const scenarioItems: vscode.TestItem[] = [];
  harnessItem.children.forEach((tier) => tier.children.forEach((s) => scenarioItems.push(s)));
  return { api, profiles, harness, harnessItem, scenarioItems };
}

describe('Testing view: agents against harnesses', () => {
  before(async function () {
    this.timeout(60_000);
    await activateApi();
    await generateOfflineHarness();
  });

  it('runs the Gemini profile: scenarios pass, the one with a changed argument fails with a diff at that call in its record file', async function () {
    this.timeout(120_000);
    const { api, profiles, harness, harnessItem, scenarioItems } = await harnessTestItems();
    assert.equal(scenarioItems.length, harness.records.length);
    for (const item of scenarioItems) {
      const record: HarnessRecord = harness.records.find((r) => item.id.endsWith(`#${r.id}`))!;
      assert.equal(item.uri?.fsPath, recordFile(harness, record));
      assert.ok(item.range);
    }

    // The scenario to break: its first call with an argument gets one argument changed.
    const target = harness.records.find((r) => r.expected_tools.some((c) => Object.keys(c.arguments).length > 0)) as HarnessRecord;
    const callIndex = target.expected_tools.findIndex((c) => Object.keys(c.arguments).length > 0);
    const param = Object.keys(target.expected_tools[callIndex]!.arguments)[0]!;
    const fake = await startFakeGemini({ apiKey: 'agent-tests-key' });
    const config = vscode.workspace.getConfiguration('agentSeer');
    try {
      fake.respondWith(
        geminiAgent(
          planFrom(harness.records, (c, r, i) =>
            r.id === target.id && i === callIndex ? { ...c, arguments: { ...(c.arguments as object), [param]: 'changed-by-the-agent' } } : c,
          ),
        ),
      );
      await config.update('gemini.baseUrl', fake.url, vscode.ConfigurationTarget.Workspace);
      await api.secrets.store('agentSeer.geminiApiKey', 'agent-tests-key');

      const cts = new vscode.CancellationTokenSource();
      await profiles.gemini.runHandler(new vscode.TestRunRequest([harnessItem], undefined, profiles.gemini), cts.token);
      cts.dispose();
      assert.ok(fake.requests.length > 0 && fake.requests.every((r) => r.apiKey === 'agent-tests-key'));

      const outcomes = api.agentTests.lastRun;
      assert.equal(outcomes.size, scenarioItems.length);
      const targetItem = scenarioItems.find((i) => i.id.endsWith(`#${target.id}`))!;
      for (const item of scenarioItems) {
        const o = outcomes.get(item.id);
        if (item === targetItem) continue;
        assert.equal(o?.state, 'passed', `${item.id}: ${JSON.stringify(o?.messages.map((m) => m.message))}`);
      }
      const failed = outcomes.get(targetItem.id);
      assert.equal(failed?.state, 'failed');
      const diff = failed.messages.find((m) => m.expectedOutput !== undefined);
      assert.ok(diff, 'a diff message');
      const expected = JSON.parse(diff.expectedOutput!) as Record<string, unknown>;
      const actual = JSON.parse(diff.actualOutput!) as Record<string, unknown>;
      assert.deepEqual(
        Object.keys({ ...expected, ...actual }).filter((k) => JSON.stringify(expected[k]) !== JSON.stringify(actual[k])),
        [param],
      );
      assert.equal(actual[param], 'changed-by-the-agent');
      const file = recordFile(harness, target);
      assert.equal(diff.location?.uri.fsPath, file);
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
      assert.equal(doc.getText(diff.location.range), JSON.stringify(param), 'the location is the changed argument in the record file');
      // The mock refused the changed call; that is reported as well.
      assert.ok(failed.messages.some((m) => /the mock refused/.test(String(m.message))));
      // Trajectories are where `agent-seer run` writes run 1.
      const model = fake.requests[0]!.model;
      assert.ok(model, 'the model the client asked for');
      const trajectoryPath = join(agentRunsDir(harness.dir, { id: 'gemini', model }), '1', `${recordFileStem(target.id)}.json`);
      const trajectory = JSON.parse(readFileSync(trajectoryPath, 'utf8')) as { calls: { arguments: Record<string, unknown> }[] };
      assert.ok(trajectory.calls.some((c) => c.arguments[param] === 'changed-by-the-agent'));

      await vscode.commands.executeCommand('workbench.view.extension.test');
      await screenshot('testing-view-agent-run');
    } finally {
      await fake.close();
      await config.update('gemini.baseUrl', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('runs the VS Code model profile: a vscode.lm chat model calls the tools natively, one changed argument fails with a diff', async function () {
    this.timeout(120_000);
    const { api, profiles, harness, harnessItem, scenarioItems } = await harnessTestItems();

    const ext = vscode.extensions.getExtension<FakeLmApi>('agent-seer-test.fake-lm');
    assert.ok(ext, 'the fake chat model extension is loaded');
    const fake = await ext.activate();
    fake.reset();
    const target = harness.records.find((r) => r.expected_tools.some((c) => Object.keys(c.arguments).length > 0)) as HarnessRecord;
    const callIndex = target.expected_tools.findIndex((c) => Object.keys(c.arguments).length > 0);
    const param = Object.keys(target.expected_tools[callIndex]!.arguments)[0]!;
    fake.setResponder(
      chatModelAgent(
        planFrom(harness.records, (c, r, i) =>
          r.id === target.id && i === callIndex ? { ...c, arguments: { ...(c.arguments as object), [param]: 'changed-by-the-chat-model' } } : c,
        ),
        AGENT_SYSTEM,
      ),
    );
    try {
      // The profile's Configure picks the model; a test sets the choice directly.
      api.agentTests.vscodeModelId = fake.modelId;
      const cts = new vscode.CancellationTokenSource();
      await profiles.vscode.runHandler(new vscode.TestRunRequest([harnessItem], undefined, profiles.vscode), cts.token);
      cts.dispose();

      // The harness's tools were offered natively, with their (converted) input schemas, and the
      // mock's answers came back as tool-result parts.
      assert.ok(fake.requests.length > 0);
      const offered = fake.requests[0]!.tools;
      const offeredNames = new Set(offered.map((t) => t.name));
      for (const name of new Set(harness.records.flatMap((r) => r.expected_tools.map((c) => c.name))))
        assert.ok(offeredNames.has(name), `the expected tool ${name} is offered`);
      assert.ok(offered.length > 0 && offered.every((t) => (t.inputSchema as { type?: string }).type === 'object'));
      assert.ok(
        fake.requests.some((r) => r.messages.some((m) => m.toolResults.length > 0)),
        'tool results go back as LanguageModelToolResultPart',
      );
      assert.ok(
        fake.requests.some((r) => r.messages.some((m) => m.role === 'assistant' && m.toolCalls.length > 0)),
        "the model's calls go back as LanguageModelToolCallPart",
      );

      const outcomes = api.agentTests.lastRun;
      assert.equal(outcomes.size, scenarioItems.length);
      const targetItem = scenarioItems.find((i) => i.id.endsWith(`#${target.id}`))!;
      for (const item of scenarioItems) {
        if (item === targetItem) continue;
        const o = outcomes.get(item.id);
        assert.equal(o?.state, 'passed', `${item.id}: ${JSON.stringify(o?.messages.map((m) => m.message))}`);
      }
      const failed = outcomes.get(targetItem.id);
      assert.equal(failed?.state, 'failed');
      const diff = failed.messages.find((m) => m.expectedOutput !== undefined);
      assert.ok(diff, 'a diff message');
      assert.equal((JSON.parse(diff.actualOutput!) as Record<string, unknown>)[param], 'changed-by-the-chat-model');
      const trajectoryPath = join(
        agentRunsDir(harness.dir, { id: 'vscode', model: `${fake.vendor}/${fake.modelId}` }),
        '1',
        `${recordFileStem(target.id)}.json`,
      );
      const trajectory = JSON.parse(readFileSync(trajectoryPath, 'utf8')) as { agent: string; calls: { arguments: Record<string, unknown> }[] };
      assert.ok(trajectory.calls.some((c) => c.arguments[param] === 'changed-by-the-chat-model'));
      await vscode.commands.executeCommand('workbench.view.extension.test');
      await screenshot('testing-view-vscode-model-run');
    } finally {
      api.agentTests.vscodeModelId = undefined;
      fake.reset();
    }
  });
});

/** What test/integration/extensions/fake-lm/extension.js exports (the parts used here). */
interface FakeLmApi {
  vendor: string;
  modelId: string;
  requests: ChatModelRequest[];
  setResponder(fn: (req: ChatModelRequest) => ChatModelReply | Promise<ChatModelReply>): void;
  reset(): void;
}
