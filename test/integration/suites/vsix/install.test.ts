/**
 * The .vsix as a user installs it: the host runs the copy under the run's extensions dir (not the
 * clone), it activates without node_modules and without a warning or error in the host log, shows
 * its views, and loads its deferred bundle (commands, LLM clients) only when a command runs.
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import * as vscode from 'vscode';
import type { AgentSeerApi } from '../../../../src/extension/extension';
import { EXTENSION_ID, generateOfflineHarness, screenshot, waitFor } from '../../helpers';
import { hostActivationMs, hostProblemsOf, loggedActivationMs } from '../../hostLog';

/** Modules of the extension's bundles that Node has loaded so far. */
const loadedBundles = (extensionPath: string): string[] =>
  Object.keys(require.cache)
    .filter((f) => f.startsWith(`${extensionPath}${sep}dist${sep}`))
    .map((f) => f.slice(extensionPath.length + 1))
    .sort();

describe('Installed from the .vsix', () => {
  it('is the installed copy, activates with its views, loads the deferred bundle on first use, logs no problem', async function () {
    this.timeout(120_000);
    const results = process.env.AGENT_SEER_TEST_RESULTS;
    assert.ok(results, 'run by scripts/test-integration.mjs');
    const extensionsDir = join(dirname(results), 'extensions');
    const ext = vscode.extensions.getExtension<AgentSeerApi>(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is installed`);
    assert.ok(ext.extensionPath.startsWith(extensionsDir + sep), `${ext.extensionPath} is under ${extensionsDir}`);
    assert.equal(existsSync(join(ext.extensionPath, 'node_modules')), false, 'no node_modules shipped');
    assert.equal(existsSync(join(ext.extensionPath, 'src')), false, 'no sources shipped');

    const api = await ext.activate();
    await api.model.ready;
    assert.ok(ext.isActive);
    // Activation needed the activation bundle only.
    // common.js: the libraries activation shares with the deferred bundle (esbuild.mjs).
    assert.deepEqual(loadedBundles(ext.extensionPath), [`dist${sep}common.js`, `dist${sep}extension.js`]);
    await waitFor(() => api.specsTree.getChildren().length > 0, 15_000, 'the Specs view to list the workspace');

    await vscode.commands.executeCommand('workbench.view.extension.agentSeer');
    await screenshot('vsix-installed-views');

    const generated = await generateOfflineHarness();
    assert.equal(generated.status, 'complete');
    assert.deepEqual(loadedBundles(ext.extensionPath), [`dist${sep}common.js`, `dist${sep}deferred.js`, `dist${sep}extension.js`]);
    await waitFor(() => api.harnessTree.getChildren().length > 0, 15_000, 'the Harnesses view to show the new harness');
    await screenshot('vsix-harness-generated');

    await new Promise((r) => setTimeout(r, 1000));
    assert.deepEqual(
      hostProblemsOf(ext.extensionPath, EXTENSION_ID).map((p) => `${p.level}: ${p.text.slice(0, 300)}`),
      [],
    );
    const own = loggedActivationMs();
    assert.ok(own !== undefined);
    console.log(`[vsix] activate: ${own} ms; host: activation start → eager extensions activated: ${hostActivationMs(EXTENSION_ID)} ms`);
  });
});
