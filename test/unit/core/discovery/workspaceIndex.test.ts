/** The incremental workspace index behind the editor's MCP Specs view. */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DEFAULT_THRESHOLDS } from '../../../../src/core/complexity';
import { WorkspaceIndex } from '../../../../src/core/discovery/workspaceIndex';
import { configsDir, specsDir } from '../../fixturePaths';

const root = mkdtempSync(join(tmpdir(), 'agent-seer-index-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('scan, then per-file updates: specs, configs, harness data, deletions and thresholds', async () => {
  mkdirSync(join(root, '.vscode'));
  copyFileSync(join(configsDir, 'vscode-mcp-json', 'microsoft__vscode__.vscode_mcp.json'), join(root, '.vscode', 'mcp.json'));
  mkdirSync(join(root, 'specs'));
  const spec = join(root, 'specs', 'slack.json');
  copyFileSync(join(specsDir, 'slack.json'), spec);
  const harness = join(root, 'evals', 'slack');
  mkdirSync(join(harness, 'records'), { recursive: true });
  writeFileSync(join(harness, 'manifest.json'), '{"formatVersion":1}');
  copyFileSync(join(specsDir, 'slack.json'), join(harness, 'spec.json'));

  const index = new WorkspaceIndex(root, { ...DEFAULT_THRESHOLDS });
  await index.scan();
  assert.equal(index.definitions.length, 1);
  assert.deepEqual(
    index.specFiles.map((s) => s.file),
    [spec],
  );

  // Harness data never becomes a workspace spec, even when it is spec-shaped.
  const record = join(harness, 'records', 'r1.json');
  copyFileSync(join(specsDir, 'filesystem.json'), record);
  assert.equal(await index.updateFile(record), false);
  assert.equal(await index.updateFile(join(harness, 'spec.json')), false);
  assert.equal(index.specFiles.length, 1);

  // An edit is picked up; a file that stops being a spec is forgotten; a broken edit keeps a problem.
  const text = readFileSync(spec, 'utf8');
  const edited = JSON.parse(text) as { tools: unknown[] };
  edited.tools.pop();
  writeFileSync(spec, JSON.stringify(edited));
  assert.equal(await index.updateFile(spec), true);
  assert.equal(index.spec(spec)?.spec.tools.length, 7);
  writeFileSync(spec, text.slice(0, 200));
  assert.equal(await index.updateFile(spec), true);
  assert.equal(index.spec(spec), undefined);
  assert.ok(index.problems.some((p) => p.file === spec && p.line !== undefined));
  writeFileSync(spec, text);
  await index.updateFile(spec);
  assert.equal(index.spec(spec)?.spec.tools.length, 8);

  // Lower thresholds re-analyse what is indexed.
  const before = index.spec(spec)!.profile.findings.filter((f) => f.code === 'many-params').length;
  index.setThresholds({ ...DEFAULT_THRESHOLDS, maxParams: 1 });
  assert.ok(index.spec(spec)!.profile.findings.filter((f) => f.code === 'many-params').length > before);

  // Deleting the config removes its definitions; files outside the root are ignored.
  unlinkSync(join(root, '.vscode', 'mcp.json'));
  assert.equal(await index.updateFile(join(root, '.vscode', 'mcp.json')), true);
  assert.equal(index.definitions.length, 0);
  assert.equal(await index.updateFile(join(specsDir, 'slack.json')), false);
});
