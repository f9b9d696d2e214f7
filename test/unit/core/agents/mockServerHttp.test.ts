/**
 * `serve` over Streamable HTTP as real clients use it, with the MCP SDK's own client: a scenario
 * only for a successful initialize, in order; binding by URL and header; a trajectory file per
 * session under 20 concurrent sessions, read back and scored as 20 runs; idle expiry; Host,
 * Origin, the bearer token (401 with WWW-Authenticate) and -32602 for malformed params.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HarnessMockServer, SCENARIO_HEADER, type MockHttpServer, type ServedHarness } from '../../../../src/core/agents/mockServer';
import { readRuns, runsByClient } from '../../../../src/core/agents/readRuns';
import type { Trajectory } from '../../../../src/core/agents/trajectory';
import { leaderboardOf } from '../../../../src/core/report/leaderboard';
import { RUNS_DIR } from '../../../../src/core/workspace/layout';
import { assertServedInOrder, offlineHarness, trajectoriesIn } from '../../servedHarness';

const text = (r: CallToolResult): string => (r.content as { type: string; text: string }[]).map((c) => c.text).join('');

async function open(http: MockHttpServer, name = 'sdk-agent', url = http.url, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name, version: '1.2.3' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${http.token}`, ...headers } } }));
  return client;
}

/** A raw JSON-RPC POST, as a client that does things its own way would send it. */
async function post(http: MockHttpServer, body: unknown, headers: Record<string, string> = {}, url = http.url): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${http.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

const initialize = (id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

describe('agent-seer serve over Streamable HTTP with real clients', () => {
  let h: Awaited<ReturnType<typeof offlineHarness>>;
  let harness: ServedHarness;
  before(async () => {
    h = await offlineHarness('agent-seer-serve-http-', { simple: 5, complex: 5 });
    harness = h.harness;
    assert.equal(harness.records.length, 10);
  });
  after(async () => {
    await h.cleanup();
  });

  it('the SDK client completes all 10 scenarios unpinned, each served once, in order, after probes that take nothing', async () => {
    const dir = join(h.root, 'sdk');
    // Which scenario each session got, as serve logs it (what the client reads names none).
    const sessions: string[] = [];
    const server = new HarnessMockServer(harness, {
      trajectoryDir: dir,
      onEvent: (e) => void (e.kind === 'session' && sessions.push(`${e.scenarioId} (${e.position} of ${e.total})`)),
    });
    const http = await server.listenHttp(0);
    try {
      for (const [k, record] of harness.records.entries()) {
        // What the Vercel AI SDK and the OpenAI Agents SDK send before initialize: refused, nothing taken.
        const get = await fetch(http.url, { headers: { authorization: `Bearer ${http.token}`, accept: 'text/event-stream' } });
        assert.equal(get.status, 405);
        const discover = await post(http, { jsonrpc: '2.0', id: 0, method: 'server/discover', params: {} });
        assert.equal(discover.status, 400);
        assert.match(
          ((await discover.json()) as { error: { message: string } }).error.message,
          /"server\/discover" needs an Mcp-Session-Id; only an initialize/,
        );
        assert.equal(server.remaining, harness.records.length - k);
        const client = await open(http);
        assert.equal(sessions.at(-1), `${record.id} (${k + 1} of 10)`);
        assert.equal(sessions.length, k + 1);
        for (const call of record.expected_tools) {
          const r = (await client.callTool({ name: call.name, arguments: call.arguments })) as CallToolResult;
          assert.notEqual(r.isError, true, text(r));
        }
        await client.close();
      }
      assert.equal(server.remaining, 0);
      const late = await post(http, initialize());
      assert.equal(late.status, 409);
      assert.match(await late.text(), /all 10 scenarios have been served/);
      await assertServedInOrder(dir, harness, 'sdk-agent');
    } finally {
      await http.close();
    }
  });

  it('20 concurrent sessions on one --scenario: every call of every session on disk, read back as 20 runs of it', async () => {
    const record = harness.records.find((r) => r.expected_tools.length >= 3) ?? harness.records.find((r) => r.expected_tools.length >= 2)!;
    const runs = join(h.dir, RUNS_DIR, 'mcp-client');
    const dir = join(runs, 'concurrent');
    const server = new HarnessMockServer(harness, { scenario: record.id, trajectoryDir: dir, trajectoryRoot: h.dir });
    const http = await server.listenHttp(0);
    try {
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          const client = await open(http, 'parallel-agent');
          for (const call of record.expected_tools) {
            const r = (await client.callTool({ name: call.name, arguments: call.arguments })) as CallToolResult;
            assert.notEqual(r.isError, true, text(r));
          }
          await client.close();
        }),
      );
    } finally {
      await http.close();
    }
    const files = await trajectoriesIn(dir);
    assert.equal(files.size, 20);
    assert.ok(files.has(`${record.id}.json`) && files.has(`${record.id}~20.json`));
    for (const t of files.values()) assert.equal(t.calls.filter((c) => c.expectedIndex !== null).length, record.expected_tools.length);

    const read = await readRuns(h.dir);
    assert.deepEqual(read.problems, []);
    const grouped = runsByClient(read.agents);
    assert.deepEqual(
      grouped.map((a) => [a.agent, a.runs.length]),
      [['mcp:parallel-agent', 20]],
    );
    const board = leaderboardOf([{ name: 'git', records: harness.records, spec: harness.spec, specHash: harness.specHash, runs: read.agents }], {
      resamples: 100,
      seed: 1,
      level: 0.95,
    });
    const row = board.rows.find((r) => r.agent === 'mcp:parallel-agent');
    assert.ok(row, board.rows.map((r) => r.agent).join(', '));
    assert.equal(row.runs, 20);
    assert.equal(row.overall.scenarioRuns, 20);
    assert.equal(row.overall.exactCallMatch.mean, 1);
  });

  it('runsByClient: one row per client program, a trajectory without clientInfo stays in its folder, repeats are runs', () => {
    const t = (scenarioId: string, client?: string): Trajectory => ({
      formatVersion: 1,
      scenarioId,
      specHash: 'h',
      agent: 'mcp-client',
      ...(client ? { client: { name: client, version: '1' } } : {}),
      calls: [],
      complete: false,
    });
    const grouped = runsByClient([
      { agent: 'gemini-x', runs: [{ run: '1', trajectories: [t('a'), t('b')] }] },
      {
        agent: 'mcp-client',
        runs: [{ run: 'T1', trajectories: [t('a'), t('a', 'inspector-cli'), t('b', 'inspector-cli'), t('a', 'inspector-cli'), t('a', 'ai-sdk')] }],
      },
    ]);
    assert.deepEqual(
      grouped.map((a) => [a.agent, a.runs.map((r) => [r.run, r.trajectories.map((x) => x.scenarioId).join('+')])]),
      [
        ['gemini-x', [['1', 'a+b']]],
        ['mcp-client', [['T1', 'a']]],
        [
          'mcp:inspector-cli',
          [
            ['T1', 'a+b'],
            ['T1#2', 'a'],
          ],
        ],
        ['mcp:ai-sdk', [['T1', 'a']]],
      ],
    );
  });

  it('a URL /mcp/<id> or the scenario header binds a session and takes nothing from the order; an unknown id is 404', async () => {
    const sessions: string[] = [];
    const server = new HarnessMockServer(harness, {
      trajectoryDir: join(h.root, 'bound'),
      onEvent: (e) => void (e.kind === 'session' && sessions.push(`${e.scenarioId} (${e.position} of ${e.total})`)),
    });
    const http = await server.listenHttp(0);
    try {
      const third = harness.records[2]!;
      const byUrl = await open(http, 'runner', `${http.url}/${encodeURIComponent(third.id)}`);
      assert.equal(sessions.at(-1), `${third.id} (3 of 10)`);
      const call = third.expected_tools[0]!;
      assert.notEqual(((await byUrl.callTool({ name: call.name, arguments: call.arguments })) as CallToolResult).isError, true);
      await byUrl.close();
      const byHeader = await open(http, 'runner', http.url, { [SCENARIO_HEADER]: third.id });
      assert.equal(sessions.at(-1), `${third.id} (3 of 10)`);
      assert.equal(sessions.length, 2);
      await byHeader.close();
      assert.equal(server.remaining, 10);
      const next = await open(http);
      assert.equal(sessions.at(-1), `${harness.records[0]!.id} (1 of 10)`);
      await next.close();

      const unknown = await post(http, initialize(), {}, `${http.url}/no-such-scenario`);
      assert.equal(unknown.status, 404);
      assert.match(await unknown.text(), /no scenario \\"no-such-scenario\\" in the harness \(it has 10: /);
      const unknownHeader = await post(http, initialize(), { [SCENARIO_HEADER]: 'nope' });
      assert.equal(unknownHeader.status, 404);
      assert.equal(server.remaining, 9);
    } finally {
      await http.close();
    }
  });

  it('a named run /mcp/<id>/<run> carries one scenario across sessions; once finished, the same URL starts its next run', async () => {
    const record = harness.records.find((r) => r.expected_tools.length >= 2)!;
    const dir = join(h.root, 'named');
    const server = new HarnessMockServer(harness, { trajectoryDir: dir });
    const http = await server.listenHttp(0);
    const url = `${http.url}/${encodeURIComponent(record.id)}/r1`;
    try {
      for (const call of record.expected_tools) {
        const client = await open(http, 'one-call-per-session', url);
        const r = (await client.callTool({ name: call.name, arguments: call.arguments })) as CallToolResult;
        assert.notEqual(r.isError, true, text(r));
        await client.close();
      }
      const again = await open(http, 'one-call-per-session', url);
      const first = record.expected_tools[0]!;
      assert.notEqual(((await again.callTool({ name: first.name, arguments: first.arguments })) as CallToolResult).isError, true);
      await again.close();
      assert.equal(server.remaining, harness.records.length);
    } finally {
      await http.close();
    }
    const files = await trajectoriesIn(dir);
    assert.deepEqual([...files.keys()], [`${record.id}.json`, `${record.id}~2.json`]);
    assert.equal(files.get(`${record.id}.json`)!.complete, true);
    assert.deepEqual(
      files.get(`${record.id}.json`)!.calls.map((c) => c.expectedIndex),
      record.expected_tools.map((_, i) => i),
    );
    assert.equal(files.get(`${record.id}~2.json`)!.calls.length, 1);
  });

  it('refuses a foreign Host or Origin (403), a missing or wrong token (401 with WWW-Authenticate), a GET or DELETE without session', async () => {
    const server = new HarnessMockServer(harness);
    const http = await server.listenHttp(0);
    try {
      const port = new URL(http.url).port;
      const evil = await post(http, initialize(), { origin: 'http://evil.example' });
      assert.equal(evil.status, 403);
      assert.match(((await evil.json()) as { error: { message: string } }).error.message, /Origin "http:\/\/evil.example" is not a loopback origin/);
      for (const origin of [`http://localhost:${port}`, 'http://127.0.0.1:5173', 'http://[::1]:8080']) {
        const ok = await post(http, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { origin });
        assert.equal(ok.status, 400, `${origin} is let through (then refused for having no session)`);
      }
      // fetch sends the URL's Host: a raw request sends what a DNS-rebinding page would.
      const withHost = (host: string): Promise<number> =>
        new Promise<number>((resolve, reject) => {
          request(http.url, { method: 'POST', headers: { host, authorization: 'Bearer wrong' } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
            .on('error', reject)
            .end('{}');
        });
      assert.equal(await withHost(`attacker.example:${port}`), 403);
      assert.equal(await withHost('127.0.0.1:1'), 403, 'another port');
      for (const host of [`localhost:${port}`, `[::1]:${port}`, `127.0.0.1:${port}`]) assert.equal(await withHost(host), 401, `${host} passes the Host check`);

      const none = await fetch(http.url, { method: 'POST', body: '{}' });
      assert.equal(none.status, 401);
      assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="agent-seer"');
      const wrong = await fetch(http.url, { method: 'POST', headers: { authorization: 'Bearer nope' }, body: '{}' });
      assert.equal(wrong.status, 401);
      assert.match(wrong.headers.get('www-authenticate') ?? '', /^Bearer realm="agent-seer", error="invalid_token"/);
      assert.match(((await wrong.json()) as { error: { message: string } }).error.message, /wrong bearer token/);

      const del = await fetch(http.url, { method: 'DELETE', headers: { authorization: `Bearer ${http.token}` } });
      assert.equal(del.status, 400);
      // An initialize the SDK's transport refuses (it must accept SSE too) gives its scenario back.
      const refused = await post(http, initialize(), { accept: 'application/json' });
      assert.equal(refused.status, 406);
      assert.equal(http.openSessions(), 0);
      assert.equal(server.remaining, 10, 'nothing was taken');
    } finally {
      await http.close();
    }
  });

  it('an idle session expires: closed, forgotten, and a request on it gets 404 (re-initialize)', async () => {
    const events: string[] = [];
    const server = new HarnessMockServer(harness, { idleTimeoutMs: 600, onEvent: (e) => events.push(e.kind) });
    const http = await server.listenHttp(0);
    try {
      const init = await post(http, initialize());
      assert.equal(init.status, 200);
      const sid = init.headers.get('mcp-session-id')!;
      await init.text();
      assert.equal(http.openSessions(), 1);
      const active = await post(http, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' });
      assert.equal(active.status, 200);
      await active.text();
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(http.openSessions(), 0);
      assert.ok(events.includes('expired'));
      const gone = await post(http, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' });
      assert.equal(gone.status, 404);
      assert.match(await gone.text(), /session expired or unknown/);
    } finally {
      await http.close();
    }
  });

  it('malformed tools/call params get -32602 in one line, not a zod dump', async () => {
    const server = new HarnessMockServer(harness);
    const http = await server.listenHttp(0);
    try {
      const client = await open(http);
      const sid = (client.transport as StreamableHTTPClientTransport).sessionId!;
      const r = await post(
        http,
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 42, arguments: 'x' } },
        { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18', accept: 'application/json, text/event-stream' },
      );
      // One JSON response, or one SSE event carrying it.
      const body = await r.text();
      const json = JSON.parse(/^data: (.*)$/m.exec(body)?.[1] ?? body) as { error: { code: number; message: string } };
      assert.equal(json.error.code, -32602);
      const message = json.error.message;
      assert.match(message, /invalid tools\/call params: params\.name: .*; params\.arguments: /);
      assert.doesNotMatch(message, /\n|"code"|\[/);
      await client.close();
    } finally {
      await http.close();
    }
  });
});
