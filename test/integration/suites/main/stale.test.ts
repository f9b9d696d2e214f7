/** Records whose tools changed in the spec are marked stale in the Harnesses tree. Makes its own harness first. */
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HarnessNode } from '../../../../src/extension/harnessTree';
import { activateApi } from '../../api';
import { generateOfflineHarness, waitFor, workspaceRoot } from '../../helpers';

describe('Stale records', () => {
  before(async function () {
    this.timeout(60_000);
    await activateApi();
    await generateOfflineHarness();
  });

  it('a changed tool in the spec file marks the scenarios that use it, and only those', async function () {
    this.timeout(60_000);
    const api = await activateApi();
    const specFile = join(workspaceRoot(), 'specs', 'filesystem.json');
    const original = readFileSync(specFile, 'utf8');
    const runNode = () => api.harnessTree.getChildren(api.harnessTree.getChildren()[0]).find((n) => n.kind === 'run') as Extract<HarnessNode, { kind: 'run' }>;
    const run = runNode();
    assert.ok(run);
    const before = run.harness.records.map((r) => [r.id, api.harnessTree.staleToolsOf(run.harness, r)] as const).filter(([, t]) => t.length);
    assert.deepEqual(before, [], 'nothing is stale before the spec changes');
    try {
      const spec = JSON.parse(original) as { tools: { name: string; description?: string }[] };
      const tool = spec.tools.find((t) => t.name === 'list_directory')!;
      tool.description = `${tool.description ?? ''} Now also lists hidden files.`;
      writeFileSync(specFile, JSON.stringify(spec, null, 2) + '\n');

      const users = run.harness.records.filter((r) => r.expected_tools.some((c) => c.name === 'list_directory'));
      assert.ok(users.length > 0, 'some scenario uses list_directory');
      const description = await waitFor(
        () => {
          const d = String(api.harnessTree.getTreeItem(runNode()).description);
          return d.includes('stale') ? d : undefined;
        },
        15_000,
        'the run to show stale records',
      );
      assert.match(description, new RegExp(`· ${users.length} stale$`));
      const fresh = runNode();
      for (const r of fresh.harness.records) {
        const item = api.harnessTree.getTreeItem({ kind: 'scenario', harness: fresh.harness, record: r });
        const uses = r.expected_tools.some((c) => c.name === 'list_directory');
        assert.equal(String(item.description).startsWith('stale · '), uses, r.id);
      }
    } finally {
      writeFileSync(specFile, original);
    }
    await waitFor(() => !String(api.harnessTree.getTreeItem(runNode()).description).includes('stale'), 15_000, 'stale marks to go once the spec is restored');
  });
});
