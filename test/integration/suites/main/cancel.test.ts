/**
 * The editor's Cancel, clicked as a person would (the progress notification's button, through the
 * driver), stops a long offline generation within about a second and keeps what it wrote.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { PipelineResult } from '../../../../src/core/pipeline/runner';
import { activateApi } from '../../api';
import { clickInWorkbench, screenshot, workspaceRoot } from '../../helpers';

/** The bound is a second; the driver looks for requests every 250 ms, and the host is loaded. */
const CANCEL_BOUND_MS = 2_000;
/** A folder of its own, so the harness the other tests use is not touched. */
const HARNESS_FOLDER = 'evals-cancel';

describe('Cancel', () => {
  const settings = () => vscode.workspace.getConfiguration('agentSeer');
  const probe = () => join(workspaceRoot(), HARNESS_FOLDER);
  after(async () => {
    for (const key of ['generation.simple', 'generation.complex', 'harnessFolder'])
      await settings().update(key, undefined, vscode.ConfigurationTarget.Workspace);
    rmSync(probe(), { recursive: true, force: true });
    const api = await activateApi();
    await api.harnesses.reload(join(probe(), 'secure-filesystem-server'));
  });

  it("the progress notification's Cancel stops an offline generation within about a second, records kept", async function () {
    this.timeout(120_000);
    // Enough scenarios of the workspace's own spec that the run lasts well past the click.
    await settings().update('generation.simple', 10_000, vscode.ConfigurationTarget.Workspace);
    await settings().update('generation.complex', 10_000, vscode.ConfigurationTarget.Workspace);
    await settings().update('harnessFolder', HARNESS_FOLDER, vscode.ConfigurationTarget.Workspace);
    const spec = vscode.Uri.file(join(workspaceRoot(), 'specs', 'filesystem.json'));
    let endedAt = 0;
    const running = Promise.resolve(vscode.commands.executeCommand<PipelineResult>('agentSeer.generateEvals', spec, { provider: { kind: 'offline' } })).then(
      (r) => {
        endedAt = Date.now();
        return r;
      },
    );
    // The notification shows as soon as the run starts; retry until its Cancel button is there.
    let click: { at: number } | { error: string } | undefined;
    for (let i = 0; i < 20 && !endedAt; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      // In this headless workbench the progress shows in the status bar, and its notification in
      // the list that the status bar item (or the bell) opens, not as a toast: open it as a person would.
      await vscode.commands.executeCommand('notifications.showList');
      if (i === 0) await screenshot('generate-progress-notification');
      click = await clickInWorkbench(
        'cancel-generate',
        '.notifications-toasts .monaco-button:has-text("Cancel"), .notifications-center .monaco-button:has-text("Cancel")',
      );
      if (click === undefined) return this.skip(); // no driver that clicks (e.g. test-electron)
      if ('at' in click) break;
    }
    const result = await running;
    await screenshot('generate-after-cancel');
    await vscode.commands.executeCommand('notifications.hideList');
    assert.ok(click && 'at' in click, `the Cancel button was clicked (${JSON.stringify(click)}); the run ended as ${result.status}`);
    assert.equal(result.status, 'cancelled', JSON.stringify(result).slice(0, 300));
    const latency = endedAt - click.at;
    assert.ok(latency < CANCEL_BOUND_MS, `the run ended ${latency} ms after the click`);
    const dir = join(probe(), 'secure-filesystem-server');
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { status: string; recordIds: string[] };
    assert.equal(manifest.status, 'cancelled');
    const onDisk = existsSync(join(dir, 'records')) ? readdirSync(join(dir, 'records')).length : 0;
    assert.equal(onDisk, manifest.recordIds.length, 'every record the manifest lists is on disk');
    console.log(`cancel: the run ended ${latency} ms after the click, ${manifest.recordIds.length} records kept`);
  });
});
