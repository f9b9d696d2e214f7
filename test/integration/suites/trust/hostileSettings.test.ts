/**
 * A cloned repository's `.vscode/settings.json` points Agent Seer's endpoints at a listener and
 * its folders outside the workspace. In Restricted Mode none of it may take effect: the listener
 * receives nothing (no key, no request) whatever the user runs, and nothing is written outside.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { activateApi } from '../../api';
import { waitFor, workspaceRoot } from '../../helpers';

describe('hostile workspace settings in Restricted Mode', () => {
  let server: Server;
  let url = '';
  const received: string[] = [];

  before(async function () {
    this.timeout(30_000);
    server = createServer((req, res) => {
      received.push(`${req.method} ${req.url} key=${String(req.headers['x-goog-api-key'] ?? req.headers.authorization ?? '')}`);
      res.writeHead(500).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    mkdirSync(join(workspaceRoot(), '.vscode'), { recursive: true });
    writeFileSync(
      join(workspaceRoot(), '.vscode', 'settings.json'),
      JSON.stringify({
        'agentSeer.gemini.baseUrl': url,
        'agentSeer.gemini.judgeModel': 'attacker-model',
        'agentSeer.openai.baseUrl': `${url}/v1`,
        'agentSeer.openai.model': 'attacker-model',
        'agentSeer.harnessFolder': '../victim',
        'agentSeer.snapshotFolder': '../victim-specs',
        // Not restricted: shows when VS Code has read the file.
        'agentSeer.generation.simple': 3,
      }),
    );
    // VS Code has read the file once its unrestricted value shows.
    await waitFor(() => vscode.workspace.getConfiguration('agentSeer').get('generation.simple') === 3, 15_000, 'the workspace settings');
    const api = await activateApi();
    await api.secrets.store('agentSeer.geminiApiKey', 'user-secret-gemini-key');
    await api.secrets.store('agentSeer.openaiApiKey', 'user-secret-openai-key');
  });

  after(async () => {
    await new Promise((r) => server.close(r));
  });

  it('restricted settings come from the user only', () => {
    const c = vscode.workspace.getConfiguration('agentSeer');
    for (const key of ['gemini.baseUrl', 'openai.baseUrl', 'openai.model', 'gemini.judgeModel']) assert.equal(c.get(key), '', key);
    assert.equal(c.get('harnessFolder'), 'evals');
    assert.equal(c.get('snapshotFolder'), '.agentseer/specs');
  });

  it('Generate Evals with Gemini or an OpenAI-compatible model is refused; the listener receives nothing', async function () {
    this.timeout(30_000);
    const spec = vscode.Uri.file(join(workspaceRoot(), 'specs', 'notes.json'));
    for (const kind of ['gemini', 'openai'] as const) {
      const outcome = await vscode.commands.executeCommand<{ status: string }>('agentSeer.generateEvals', spec, { provider: { kind } });
      assert.equal(outcome?.status, 'untrusted', kind);
    }
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(received, []);
  });

  it('the offline generator still works, inside the workspace, and Judge with a model is refused', async function () {
    this.timeout(60_000);
    const spec = vscode.Uri.file(join(workspaceRoot(), 'specs', 'notes.json'));
    const result = await vscode.commands.executeCommand<{ status: string; outputDir: string }>('agentSeer.generateEvals', spec, {
      provider: { kind: 'offline' },
    });
    assert.equal(result?.status, 'complete', JSON.stringify(result).slice(0, 300));
    assert.equal(dirname(result.outputDir), join(workspaceRoot(), 'evals'));
    const outside = dirname(workspaceRoot());
    assert.equal(existsSync(join(outside, 'victim')), false, 'nothing written outside the workspace');
    assert.equal(existsSync(join(outside, 'victim-specs')), false);
    assert.ok(readdirSync(join(result.outputDir, 'records')).length > 0);

    const api = await activateApi();
    await api.harnesses.reload(result.outputDir);
    const run = await waitFor(() => api.harnessTree.getChildren().flatMap((s) => api.harnessTree.getChildren(s))[0], 10_000, 'the harness run node');
    for (const kind of ['gemini', 'openai'] as const) {
      const outcome = await vscode.commands.executeCommand<{ status: string }>('agentSeer.judge', run, { provider: { kind } });
      assert.equal(outcome?.status, 'untrusted', kind);
    }
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(received, []);
  });
});
