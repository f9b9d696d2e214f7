/**
 * Activation leaves nothing in the extension host log: no warning or error from the extension's
 * bundles (the PendingMigrationError "navigator is now a global" came from zod probing
 * `navigator` at load time; esbuild.mjs now defines it away).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateApi } from '../../api';
import { EXTENSION_ID } from '../../helpers';
import { hostActivationMs, hostProblemsOf, loggedActivationMs } from '../../hostLog';

describe('Extension host log', () => {
  it('has no warning or error from the extension after activation, and says how long activation took', async function () {
    this.timeout(30_000);
    await activateApi();
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    // Let the host flush its log.
    await new Promise((r) => setTimeout(r, 1000));
    const problems = hostProblemsOf(ext.extensionPath, EXTENSION_ID);
    assert.deepEqual(
      problems.map((p) => `${p.level}: ${p.text.slice(0, 300)}`),
      [],
    );
    const own = loggedActivationMs();
    assert.ok(own !== undefined, 'the extension logs its activation time');
    console.log(`[hostLog] activate: ${own} ms; host: activation start → eager extensions activated: ${hostActivationMs(EXTENSION_ID)} ms`);
  });
});
