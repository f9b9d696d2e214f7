/** "Generate Evals" in the extension host: offline, and Gemini through the real client against a fake server. */
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { PipelineResult } from '../../../../src/core/pipeline/runner';
import type { HarnessNode } from '../../../../src/extension/harnessTree';
import { startFakeGemini } from '../../../fakes/fakeGemini';
import { startFakeGeminiBatch } from '../../../fakes/fakeGeminiBatch';
import { activateApi } from '../../api';
import { fakeModelFor, screenshot, waitFor, workspaceRoot } from '../../helpers';

const harnessDir = () => join(workspaceRoot(), 'evals', 'secure-filesystem-server');

function records(): { provenance: { provider: string; model: string }; expected_tools: unknown[] }[] {
  const dir = join(harnessDir(), 'records');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { provenance: { provider: string; model: string }; expected_tools: unknown[] });
}

describe('Generate Evals', () => {
  it('offline: writes a harness for the spec and shows it in the Harnesses tree', async function () {
    this.timeout(60_000);
    const api = await activateApi();
    const spec = api.specsTree.getChildren().find((n) => n.kind === 'spec');
    assert.ok(spec);
    const result = await vscode.commands.executeCommand<PipelineResult>('agentSeer.generateEvals', spec, { provider: { kind: 'offline' } });
    assert.equal(result.status, 'complete', JSON.stringify(result).slice(0, 500));
    assert.equal(result.counts.coverage.ratio, 1);
    assert.ok(existsSync(join(harnessDir(), 'manifest.json')));
    const onDisk = records();
    assert.equal(onDisk.length, result.counts.records);
    assert.ok(onDisk.every((r) => r.provenance.provider === 'offline'));

    const servers = await waitFor(
      () => {
        const s = api.harnessTree.getChildren();
        return s.length ? s : undefined;
      },
      10_000,
      'the Harnesses tree',
    );
    assert.equal(servers.length, 1);
    const runs = api.harnessTree.getChildren(servers[0]);
    assert.equal(runs.length, 1);
    const tiers = api.harnessTree.getChildren(runs[0]);
    assert.deepEqual(
      tiers.map((t) => (t as Extract<HarnessNode, { kind: 'tier' }>).tier),
      ['complex', 'simple'],
    );
    let scenarios = 0;
    for (const tier of tiers) for (const cat of api.harnessTree.getChildren(tier)) scenarios += api.harnessTree.getChildren(cat).length;
    assert.equal(scenarios, result.counts.records);
    await vscode.commands.executeCommand('workbench.view.extension.agentSeer');
    await screenshot('harnesses-tree-offline');
  });

  it('Gemini (fake server on 127.0.0.1, real client, key from SecretStorage): writes gemini records', async function () {
    this.timeout(120_000);
    const api = await activateApi();
    const { specFile, responder } = fakeModelFor('filesystem.json');
    // Other suites' Gemini runs (cost.test.ts) write this harness too: with their replies cached, no call would be made.
    rmSync(join(harnessDir(), '.cache'), { recursive: true, force: true });
    const fake = await startFakeGemini({ apiKey: 'integration-test-key' });
    try {
      fake.respondWith((req) => responder.respond(req));
      const config = vscode.workspace.getConfiguration('agentSeer');
      await config.update('gemini.baseUrl', fake.url, vscode.ConfigurationTarget.Workspace);
      await config.update('generation.simple', 2, vscode.ConfigurationTarget.Workspace);
      await config.update('generation.complex', 2, vscode.ConfigurationTarget.Workspace);
      await api.secrets.store('agentSeer.geminiApiKey', 'integration-test-key');

      const result = await vscode.commands.executeCommand<PipelineResult>('agentSeer.generateEvals', vscode.Uri.file(specFile), {
        provider: { kind: 'gemini' },
      });
      assert.equal(result.status, 'complete', JSON.stringify(result).slice(0, 500));
      assert.ok(fake.requests.length > 0);
      assert.ok(fake.requests.every((r) => r.apiKey === 'integration-test-key'));
      assert.ok(result.llm.calls > 0);
      const onDisk = records();
      assert.equal(onDisk.length, result.counts.records);
      assert.ok(
        onDisk.every((r) => r.provenance.provider === 'gemini'),
        JSON.stringify(onDisk.map((r) => r.provenance)),
      );
      // The key never lands in settings or in the harness files.
      const settings = readFileSync(join(workspaceRoot(), '.vscode', 'settings.json'), 'utf8');
      assert.doesNotMatch(settings, /integration-test-key/);
      assert.doesNotMatch(readFileSync(join(harnessDir(), 'manifest.json'), 'utf8'), /integration-test-key/);

      const run = await waitFor(
        () => {
          const servers = api.harnessTree.getChildren();
          const runs = servers.length ? api.harnessTree.getChildren(servers[0]) : [];
          const r = runs[0];
          return r && r.kind === 'run' && r.harness.manifest?.provider === 'gemini' ? r : undefined;
        },
        10_000,
        'the tree to show the gemini run',
      );
      assert.equal(run.kind === 'run' && run.harness.records.length, result.counts.records);
    } finally {
      await fake.close();
      await vscode.workspace.getConfiguration('agentSeer').update('gemini.baseUrl', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('gemini in batch mode (agentSeer.llm.batch): every call goes as an item of a batch job, none synchronously', async function () {
    this.timeout(180_000);
    const api = await activateApi();
    const { specFile, responder } = fakeModelFor('filesystem.json');
    // The synchronous run above cached every reply for this harness (batch mode shares the cache): start without it.
    rmSync(join(harnessDir(), '.cache'), { recursive: true, force: true });
    const fake = await startFakeGeminiBatch({ apiKey: 'integration-test-key' });
    const config = vscode.workspace.getConfiguration('agentSeer');
    try {
      fake.respondWith((req) => responder.respond(req));
      await config.update('gemini.baseUrl', fake.url, vscode.ConfigurationTarget.Workspace);
      await config.update('llm.batch', true, vscode.ConfigurationTarget.Workspace);
      await config.update('generation.simple', 2, vscode.ConfigurationTarget.Workspace);
      await config.update('generation.complex', 2, vscode.ConfigurationTarget.Workspace);
      await api.secrets.store('agentSeer.geminiApiKey', 'integration-test-key');

      const result = await vscode.commands.executeCommand<PipelineResult>('agentSeer.generateEvals', vscode.Uri.file(specFile), {
        provider: { kind: 'gemini' },
      });
      assert.equal(result.status, 'complete', JSON.stringify(result).slice(0, 500));
      assert.ok(fake.batch.jobs.length > 0, 'batch jobs were created');
      assert.equal(fake.requests.filter((r) => r.viaBatch === undefined).length, 0, 'no synchronous generateContent call');
      assert.ok(fake.requests.length > 0);
      assert.ok(existsSync(join(harnessDir(), '.cache', 'batch')), 'the jobs are journaled in the harness cache');
      assert.ok(records().every((r) => r.provenance.provider === 'gemini'));
    } finally {
      await fake.close();
      await config.update('gemini.baseUrl', undefined, vscode.ConfigurationTarget.Workspace);
      await config.update('llm.batch', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('a run left pending by `generate --batch --no-wait` shows a watch icon and its status in the Harnesses tree', async function () {
    this.timeout(60_000);
    const api = await activateApi();
    const manifestFile = join(harnessDir(), 'manifest.json');
    const original = readFileSync(manifestFile, 'utf8');
    try {
      // As the CLI leaves it after submitting a round's jobs without waiting.
      const manifest = JSON.parse(original) as { status: string; error?: string };
      manifest.status = 'pending';
      manifest.error =
        '1 batch job is still running (14 items); run the same command again to collect them, or `agent-seer status evals/secure-filesystem-server`';
      writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
      await api.harnesses.reload(harnessDir());
      const run = await waitFor(
        () => {
          const servers = api.harnessTree.getChildren();
          const r = servers.length ? api.harnessTree.getChildren(servers[0]).find((n) => n.kind === 'run') : undefined;
          return r && r.kind === 'run' && r.harness.manifest?.status === 'pending' ? r : undefined;
        },
        10_000,
        'the tree to show the pending run',
      );
      const item = api.harnessTree.getTreeItem(run);
      assert.equal((item.iconPath as vscode.ThemeIcon).id, 'watch');
      assert.match((item.tooltip as vscode.MarkdownString).value, /pending/);
      await vscode.commands.executeCommand('workbench.view.extension.agentSeer');
      // The manifest write and the reload each refresh the tree; a reveal that lands between the two
      // cannot find the node it was given, so take the node afresh until the tree has settled.
      await waitFor(
        async () => {
          const node = api.harnessTree.getChildren(api.harnessTree.getChildren()[0]).find((n) => n.kind === 'run');
          if (!node) return undefined;
          await api.harnessView.reveal(node, { select: true, focus: false, expand: false });
          return true;
        },
        10_000,
        'the pending run to be revealed',
      );
      await screenshot('harnesses-tree-pending');
    } finally {
      writeFileSync(manifestFile, original);
      await api.harnesses.reload(harnessDir());
    }
  });
});
