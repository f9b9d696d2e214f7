import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, screenshot, workspaceRoot } from '../../helpers';

describe('activation', () => {
  it('opens the basic fixture workspace', () => {
    const root = workspaceRoot();
    assert.ok(existsSync(join(root, '.vscode', 'mcp.json')), `${root}/.vscode/mcp.json`);
    assert.ok(existsSync(join(root, 'specs', 'filesystem.json')), `${root}/specs/filesystem.json`);
  });

  it(`finds the extension ${EXTENSION_ID}`, () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} is not loaded`);
    assert.equal(ext.packageJSON.name, 'agent-seer');
  });

  it('activates', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext);
    await ext.activate();
    assert.equal(ext.isActive, true);
  });

  it('shows its view container (screenshot for a person)', async () => {
    // The container id comes from package.json contributes.viewsContainers.activitybar.
    await vscode.commands.executeCommand('workbench.view.extension.agentSeer');
    await screenshot('agent-seer-view');
  });
});
