/**
 * `serve` over Streamable HTTP, unpinned, driven by the MCP clients people use: the OpenAI
 * Agents SDK's MCPServerStreamableHttp, the Vercel AI SDK's createMCPClient and MCP Inspector's
 * CLI (the SDK's own client is in mockServerHttp.test.ts). Each completes a 10-scenario harness:
 * client k is served scenario k, makes exactly its expected calls and gets answers. No model is
 * involved: the expected calls come from the records.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MCPServerStreamableHttp } from '@openai/agents';
import { createMCPClient } from '@ai-sdk/mcp';
import { HarnessMockServer, type MockHttpServer, type ServedHarness } from '../../../../src/core/agents/mockServer';
import { repoRoot } from '../../fixturePaths';
import { assertServedInOrder, offlineHarness } from '../../servedHarness';

const inspectorCli = join(repoRoot, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');

/** Runs MCP Inspector's CLI once (one MCP session); resolves with its exit code and output. */
function inspector(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [inspectorCli, '--cli', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HOME: process.env.TMPDIR ?? '/tmp' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, out, err }));
  });
}

describe('agent-seer serve with the MCP clients people use, unpinned, over HTTP', () => {
  let h: Awaited<ReturnType<typeof offlineHarness>>;
  let harness: ServedHarness;
  before(async () => {
    h = await offlineHarness('agent-seer-mcp-clients-', { simple: 5, complex: 5 });
    harness = h.harness;
    assert.equal(harness.records.length, 10);
    assert.ok(
      harness.records.some((r) => r.expected_tools.length > 1),
      'some scenarios need several calls in one session',
    );
  });
  after(async () => {
    await h.cleanup();
  });

  /** Serves the harness unpinned, runs `client` once per scenario, checks every scenario went to its client in order. */
  async function serveTo(
    name: string,
    expectedClient: string,
    client: (http: MockHttpServer, k: number) => Promise<void>,
    records = harness.records,
  ): Promise<void> {
    const dir = join(h.root, name);
    const served: ServedHarness = { ...harness, records };
    const server = new HarnessMockServer(served, { trajectoryDir: dir });
    const http = await server.listenHttp(0);
    try {
      for (let k = 0; k < records.length; k++) {
        await client(http, k);
        assert.equal(server.remaining, records.length - k - 1, `client ${k + 1} took exactly one scenario`);
      }
    } finally {
      await http.close();
    }
    await assertServedInOrder(dir, served, expectedClient);
  }

  it('the OpenAI Agents SDK (MCPServerStreamableHttp): connect, listTools, callTool', async () => {
    await serveTo('openai-agents', 'openai-agents-test', async (http, k) => {
      const record = harness.records[k]!;
      const server = new MCPServerStreamableHttp({
        url: http.url,
        name: 'openai-agents-test',
        cacheToolsList: false,
        requestInit: { headers: { Authorization: `Bearer ${http.token}` } },
      });
      await server.connect();
      try {
        const tools = await server.listTools();
        assert.deepEqual(
          tools.map((t) => t.name),
          harness.spec.tools.map((t) => t.name),
        );
        for (const call of record.expected_tools) {
          const r = await server.callToolResult(call.name, call.arguments);
          assert.notEqual(r.isError, true, JSON.stringify(r.content));
        }
      } finally {
        await server.close();
      }
    });
  });

  it('the Vercel AI SDK (createMCPClient, http transport): tools() then execute', async () => {
    await serveTo('vercel-ai', 'ai-sdk-mcp-client', async (http, k) => {
      const record = harness.records[k]!;
      const client = await createMCPClient({ transport: { type: 'http', url: http.url, headers: { Authorization: `Bearer ${http.token}` } } });
      try {
        const tools = await client.tools();
        assert.deepEqual(Object.keys(tools).sort(), harness.spec.tools.map((t) => t.name).sort());
        for (const [i, call] of record.expected_tools.entries()) {
          const r = (await tools[call.name]!.execute(call.arguments, { toolCallId: `c${i}`, messages: [] })) as { isError?: boolean; content: unknown };
          assert.notEqual(r.isError, true, JSON.stringify(r.content));
        }
      } finally {
        await client.close();
      }
    });
  });

  it("MCP Inspector's CLI finishes all 10 scenarios, several calls each, through named runs /mcp/<id>/<run> that span its sessions", async () => {
    const dir = join(h.root, 'inspector-runs');
    const server = new HarnessMockServer(harness, { trajectoryDir: dir });
    const http = await server.listenHttp(0);
    try {
      const auth = ['--transport', 'http', '--header', `Authorization: Bearer ${http.token}`, '--format', 'json'];
      for (const [k, record] of harness.records.entries()) {
        // The CLI opens a session per invocation (and never ends it): the named run carries the
        // scenario from one to the next.
        const url = `${http.url}/${encodeURIComponent(record.id)}/inspector`;
        if (k === 0) {
          const list = await inspector([url, ...auth, '--method', 'tools/list']);
          assert.equal(list.code, 0, list.err);
          assert.match(list.out, new RegExp(harness.spec.tools[0]!.name));
        }
        for (const call of record.expected_tools) {
          // `auto` probes with server/discover before initialize: refused, it falls back to initialize.
          const r = await inspector([
            url,
            ...auth,
            '--protocol-era',
            'auto',
            '--method',
            'tools/call',
            '--tool-name',
            call.name,
            '--tool-args-json',
            JSON.stringify(call.arguments),
          ]);
          assert.equal(r.code, 0, r.err);
          assert.doesNotMatch(r.out, /"isError":\s*true/, r.out);
        }
      }
      assert.equal(server.remaining, harness.records.length, 'bound sessions take nothing from the order');
      assert.equal(http.openRuns(), harness.records.length);
    } finally {
      await http.close();
    }
    await assertServedInOrder(dir, harness, 'inspector-cli');
  });

  it("MCP Inspector's CLI told the token is wrong (401 with WWW-Authenticate) says so with --stored-auth-only", async () => {
    const server = new HarnessMockServer(harness);
    const http = await server.listenHttp(0);
    try {
      const r = await inspector([
        http.url,
        '--transport',
        'http',
        '--header',
        'Authorization: Bearer wrong',
        '--stored-auth-only',
        '--format',
        'json',
        '--method',
        'tools/list',
      ]);
      assert.notEqual(r.code, 0);
      assert.match(r.out + r.err, /auth_required.*wrong bearer token/s);
      assert.equal(server.remaining, harness.records.length);
    } finally {
      await http.close();
    }
  });
});
