/**
 * `agent-seer serve` as a real process, reached by the MCP SDK's own clients over stdio and over
 * Streamable HTTP.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Trajectory } from '../../../src/core/agents/trajectory';
import { readHarness } from '../../../src/core/harness/store';
import { cli } from '../cliRunner';
import { repoRoot, specsDir } from '../fixturePaths';

const cliJs = join(repoRoot, 'dist', 'cli.js');

describe('agent-seer serve', () => {
  let root: string;
  let harness: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-serve-cli-'));
    harness = join(root, 'h');
    assert.equal((await cli(['generate', join(specsDir, 'slack.json'), '--out', harness, '--simple', '2', '--complex', '1'])).code, 0);
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('over stdio: lists the tools, answers an expected call, refuses another, writes the trajectory', async () => {
    const { records, manifest } = await readHarness(harness);
    const record = records.find((r) => r.id === manifest!.recordIds[0])!;
    const transport = new StdioClientTransport({ command: process.execPath, args: [cliJs, 'serve', harness, '--scenario', record.id], stderr: 'pipe' });
    const client = new Client({ name: 't', version: '1' });
    await client.connect(transport);
    assert.equal((await client.listTools()).tools.length, 8);
    const call = record.expected_tools[0]!;
    const ok = (await client.callTool({ name: call.name, arguments: call.arguments })) as CallToolResult;
    assert.notEqual(ok.isError, true);
    const bad = (await client.callTool({ name: 'slack_delete_everything', arguments: {} })) as CallToolResult;
    assert.equal(bad.isError, true);
    await client.close();
    const runs = join(harness, 'runs', 'mcp-client');
    const [session] = await readdir(runs);
    const t = Trajectory.parse(JSON.parse(await readFile(join(runs, session!, `${record.id}.json`), 'utf8')));
    assert.deepEqual(
      t.calls.map((c) => [c.name, c.expectedIndex]),
      [
        [call.name, 0],
        ['slack_delete_everything', null],
      ],
    );
  });

  it('over HTTP: prints the URL and token, binds 127.0.0.1, serves sessions in order, and stops on SIGINT', async () => {
    const child = spawn(process.execPath, [cliJs, 'serve', harness, '--http', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let buf = '';
        child.stdout.on('data', (d: Buffer) => {
          buf += d.toString();
          if (buf.includes('\n')) resolve(buf.split('\n')[0]!);
        });
        child.once('exit', (c) => reject(new Error(`exited ${c}`)));
      });
      const { url, token } = JSON.parse(line) as { url: string; token: string };
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      assert.equal((await fetch(url, { method: 'POST' })).status, 401);
      const client = new Client({ name: 't', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      // The log says which scenario the session got; what the client reads names none.
      for (let i = 0; i < 50 && !/session 1 of \d+: scenario /.test(stderr); i++) await new Promise((r) => setTimeout(r, 20));
      assert.match(stderr, /session 1 of \d+: scenario /);
      assert.doesNotMatch(client.getInstructions() ?? '', /scenario/);
      await client.close();
      const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
      child.kill('SIGINT');
      assert.equal(await exited, 0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('an unknown scenario is bad input naming the scenarios there are', async () => {
    const r = await cli(['serve', harness, '--scenario', 'nope']);
    assert.equal(r.code, 2);
    assert.match(r.err, /no scenario "nope" in the harness \(it has \d+: /);
  });
});
