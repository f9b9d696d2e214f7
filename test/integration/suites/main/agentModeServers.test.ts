/**
 * Harnesses served to VS Code's agent mode: the MCP server definition provider lists a stdio
 * server per harness (and per scenario chosen with "Serve Scenario to Agent Mode"), and the
 * definition's command really starts `agent-seer serve`: spawned here with the MCP SDK's stdio
 * client, it answers `tools/list` and the scenario's expected call.
 */
import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as vscode from 'vscode';
import { activateApi } from '../../api';
import { generateOfflineHarness } from '../../helpers';

/** Connects an MCP client to a definition's command, as the editor would start it. */
async function connect(def: vscode.McpStdioServerDefinition): Promise<Client> {
  const env = Object.fromEntries(Object.entries({ ...process.env, ...def.env }).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== null));
  const transport = new StdioClientTransport({ command: def.command, args: def.args, env, ...(def.cwd ? { cwd: def.cwd.fsPath } : {}), stderr: 'pipe' });
  const client = new Client({ name: 'agent-mode-test', version: '1' });
  await client.connect(transport);
  return client;
}

describe('Serve harnesses to agent mode (MCP server definition provider)', () => {
  before(async function () {
    this.timeout(60_000);
    await activateApi();
    await generateOfflineHarness();
  });

  it('lists a server per harness whose command answers tools/list, and a scenario server that answers its expected call', async function () {
    this.timeout(60_000);
    const api = await activateApi();
    await api.harnesses.rescan();
    const harness = api.harnesses.all.find((h) => h.dir.endsWith('secure-filesystem-server'));
    assert.ok(harness, 'the offline harness is loaded');
    const cts = new vscode.CancellationTokenSource();
    const { provider } = api.agentModeServers;
    const defs = (await provider.provideMcpServerDefinitions(cts.token)) ?? [];
    const def = defs.find((d) => d.args.includes(harness.dir) && !d.args.includes('--scenario'));
    assert.ok(def, `a definition for the harness (got ${JSON.stringify(defs.map((d) => d.label))})`);
    assert.equal(def.command, process.execPath);
    assert.match(def.args[0]!, /dist[\\/]cli\.js$/);
    assert.equal(await provider.resolveMcpServerDefinition?.(def, cts.token), def, 'a trusted workspace may start it');

    const toolNames = Object.keys(harness.manifest!.spec.toolHashes).sort();
    const client = await connect(def);
    try {
      const listed = await client.listTools();
      assert.deepEqual(listed.tools.map((t) => t.name).sort(), toolNames);
    } finally {
      await client.close();
    }

    // "Serve Scenario to Agent Mode" adds the scenario's own server (--scenario ID).
    const record = harness.records.find((r) => r.expected_tools.length > 0)!;
    const changed = new Promise<void>((resolve) => {
      const sub = provider.onDidChangeMcpServerDefinitions!(() => {
        sub.dispose();
        resolve();
      });
    });
    const served = await vscode.commands.executeCommand<vscode.McpStdioServerDefinition>('agentSeer.serveScenario', {
      harnessDir: harness.dir,
      scenarioId: record.id,
    });
    await changed;
    assert.ok(served, 'the command returns the definition');
    assert.deepEqual(served.args.slice(-2), ['--scenario', record.id]);
    const after = (await provider.provideMcpServerDefinitions(cts.token)) ?? [];
    assert.ok(
      after.some((d) => d.label === served.label && d.args.join(' ') === served.args.join(' ')),
      'the provider lists the scenario server',
    );

    const scenarioClient = await connect(served);
    try {
      const first = record.expected_tools[0]!;
      const result = await scenarioClient.callTool({ name: first.name, arguments: first.arguments });
      assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 300));
    } finally {
      await scenarioClient.close();
      cts.dispose();
    }
  });
});
