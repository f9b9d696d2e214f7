/**
 * Regenerate Stale on a harness run, with a REAL `vscode.lm` chat model (the fake-lm helper,
 * which counts its requests): after one tool of the spec changed, only the scenarios using it are
 * made again; every other record file keeps its bytes, and the model is asked about nothing else.
 * Makes its own harness, in a harness folder of its own (removed at the end), so its LLM cache and
 * records meet no other test.
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { StaleRegeneration } from '../../../../src/core/pipeline/regenerateStale';
import type { PipelineResult } from '../../../../src/core/pipeline/runner';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import type { HarnessNode } from '../../../../src/extension/harnessTree';
import { createResponder } from '../../../unit/pipelineResponder';
import { activateApi } from '../../api';
import { FAKE_LM_ID, toFakeRequest, type FakeLmApi } from '../../fakeLm';
import { screenshot, waitFor, workspaceRoot } from '../../helpers';

/** A tooltip's text as a person reads it (appendText escapes Markdown and spaces). */
const plain = (tooltip: unknown): string => (tooltip as vscode.MarkdownString).value.replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');

const recordTexts = (dir: string): Map<string, string> =>
  new Map(
    readdirSync(join(dir, 'records'))
      .filter((f) => f.endsWith('.json'))
      .map((f) => [f, readFileSync(join(dir, 'records', f), 'utf8')]),
  );

describe('Regenerate Stale', () => {
  it('regenerates only the scenarios of the changed tool, with model requests about that tool only', async function () {
    this.timeout(180_000);
    const api = await activateApi();
    const fake = await vscode.extensions.getExtension<FakeLmApi>(FAKE_LM_ID)!.activate();
    fake.reset();
    const specFile = join(workspaceRoot(), 'specs', 'filesystem.json');
    const original = readFileSync(specFile, 'utf8');
    const answer = (specText: string): void => {
      const load = loadSpecText(specText, specFile);
      assert.ok(load.ok);
      const responder = createResponder({ spec: load.spec });
      fake.setResponder((req) => {
        const reply = responder.respond(toFakeRequest(req, 0));
        if ('json' in reply) return JSON.stringify(reply.json);
        if ('text' in reply) return reply.text;
        throw new Error('fake-lm: the responder could not answer');
      });
    };
    const config = vscode.workspace.getConfiguration('agentSeer');
    const before = {
      simple: config.inspect<number>('generation.simple')?.workspaceValue,
      complex: config.inspect<number>('generation.complex')?.workspaceValue,
      harnessFolder: config.inspect<string>('harnessFolder')?.workspaceValue,
    };
    const ownFolder = 'evals-regenerate-stale-test';
    const provider = { kind: 'vscode', modelId: fake.modelId };
    try {
      await config.update('generation.simple', 3, vscode.ConfigurationTarget.Workspace);
      await config.update('generation.complex', 2, vscode.ConfigurationTarget.Workspace);
      await config.update('harnessFolder', ownFolder, vscode.ConfigurationTarget.Workspace);
      answer(original);
      const full = await vscode.commands.executeCommand<PipelineResult>('agentSeer.generateEvals', vscode.Uri.file(specFile), { provider });
      assert.equal(full.status, 'complete', JSON.stringify(full).slice(0, 300));
      const dir = full.outputDir;
      assert.ok(dir.startsWith(join(workspaceRoot(), ownFolder)), dir);
      const runNode = (): Extract<HarnessNode, { kind: 'run' }> | undefined =>
        api.harnessTree
          .getChildren()
          .flatMap((s) => api.harnessTree.getChildren(s))
          .find((n): n is Extract<HarnessNode, { kind: 'run' }> => n.kind === 'run' && n.harness.dir === dir);
      await waitFor(() => runNode()?.harness.records.length === full.counts.records, 15_000, 'the tree to load the harness');
      const harness = runNode()!.harness;
      const changed = 'list_directory';
      const users = harness.records.filter((r) => r.expected_tools.some((c) => c.name === changed));
      assert.ok(users.length > 0 && users.length < harness.records.length, 'some scenarios use list_directory, some do not');
      const beforeTexts = recordTexts(dir);

      const spec = JSON.parse(original) as { tools: { name: string; description?: string }[] };
      const tool = spec.tools.find((t) => t.name === changed)!;
      tool.description = `${tool.description ?? ''} Now also lists hidden files.`;
      const edited = JSON.stringify(spec, null, 2) + '\n';
      writeFileSync(specFile, edited);
      const item = await waitFor(
        () => {
          const n = runNode();
          const i = n && api.harnessTree.getTreeItem(n);
          return i && String(i.description).includes('stale') ? i : undefined;
        },
        15_000,
        'the run to show stale records',
      );
      assert.match(String(item.description), new RegExp(`· ${users.length} stale$`));
      assert.match(plain(item.tooltip), /Spec changed since: 1 changed \(list_directory\); \d+ stale \(Regenerate Stale\)/);

      answer(edited);
      const asked = fake.requests.length;
      const result = await vscode.commands.executeCommand<StaleRegeneration>('agentSeer.regenerateStale', runNode(), { provider });
      assert.equal(result.status, 'complete', JSON.stringify(result).slice(0, 300));
      assert.deepEqual(result.diff.changed, [{ name: changed, parts: ['description'] }]);
      assert.equal(result.stale, users.length);
      const requests = fake.requests.slice(asked);
      assert.equal(result.llm.calls, requests.length, 'the run counted every request the model received');
      assert.ok(requests.length > 0);
      // The model was asked about list_directory only: no request names another tool (other than those its own definition mentions).
      const own = JSON.stringify(tool);
      const others = spec.tools.map((t) => t.name).filter((n) => n !== changed && !own.includes(n));
      for (const r of requests)
        for (const n of others)
          assert.ok(!JSON.stringify(r.messages).includes(`"${n}"`) && !JSON.stringify(r.messages).includes(` ${n} `), `a request named ${n}`);

      const afterTexts = recordTexts(dir);
      const kept = [...beforeTexts].filter(([, text]) => !users.some((u) => text.includes(`"id": ${JSON.stringify(u.id)}`)));
      assert.ok(kept.length > 0);
      for (const [file, text] of kept) assert.equal(afterTexts.get(file), text, `${file} was rewritten`);
      await waitFor(() => !String(api.harnessTree.getTreeItem(runNode()!).description).includes('stale'), 15_000, 'the stale mark to go');
      assert.match(plain(api.harnessTree.getTreeItem(runNode()!).tooltip), /Last regenerated for spec changes: 1 changed \(list_directory: description\)/);
      await vscode.commands.executeCommand('workbench.view.extension.agentSeer');
      await screenshot('regenerate-stale-tree');
    } finally {
      writeFileSync(specFile, original);
      fake.reset();
      await config.update('generation.simple', before.simple, vscode.ConfigurationTarget.Workspace);
      await config.update('generation.complex', before.complex, vscode.ConfigurationTarget.Workspace);
      await config.update('harnessFolder', before.harnessFolder, vscode.ConfigurationTarget.Workspace);
      rmSync(join(workspaceRoot(), ownFolder), { recursive: true, force: true });
      await vscode.commands.executeCommand('agentSeer.refreshHarnesses');
    }
  });
});
