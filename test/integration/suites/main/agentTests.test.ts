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
import { geminiAgent, planFrom } from '../../../fakes/scriptedAgent';
import { activateApi } from '../../api';
import { generateOfflineHarness, screenshot, waitFor } from '../../helpers';

describe('Testing view: agents against harnesses', () => {
  before(async function () {
    this.timeout(60_000);
    await activateApi();
    await generateOfflineHarness();
  });

  it('runs the Gemini profile: scenarios pass, the one with a changed argument fails with a diff at that call in its record file', async function () {
    this.timeout(120_000);
    const api = await activateApi();
    await api.harnesses.rescan();
    const { controller, profiles } = api.agentTests;
    const harness = api.harnesses.all.find((h) => h.dir.endsWith('secure-filesystem-server'));
    assert.ok(harness, 'the offline harness is loaded');
    const harnessItem = await waitFor(() => controller.items.get(harness.dir), 10_000, 'the harness as a test item');
    // harness → tier → scenario, each scenario at its record file.
    const scenarioItems: vscode.TestItem[] = [];
    harnessItem.children.forEach((tier) => tier.children.forEach((s) => scenarioItems.push(s)));
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
});
