/**
 * The harness as an MCP server, through the SDK's real client over an in-memory transport pair
 * and over Streamable HTTP: tools exactly as snapshotted, the oracle's calls answered with the
 * mock outputs, everything else refused loudly, trajectories on disk.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HarnessMockServer, MockServerError, type ServedHarness } from '../../../../src/core/agents/mockServer';
import { dependenciesOf, ScenarioReplay } from '../../../../src/core/agents/replay';
import { Trajectory } from '../../../../src/core/agents/trajectory';
import type { HarnessRecord } from '../../../../src/core/harness/format';
import { specHash } from '../../../../src/core/harness/hash';
import { readHarness } from '../../../../src/core/harness/store';
import { runPipeline } from '../../../../src/core/pipeline/runner';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import type { Spec } from '../../../../src/core/spec/model';
import { specsDir } from '../../fixturePaths';

async function connect(server: HarnessMockServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

const text = (r: CallToolResult): string => (r.content as { type: string; text: string }[]).map((c) => c.text).join('');

describe('agent-seer serve: the harness as a mock MCP server', () => {
  let root: string;
  let harness: ServedHarness;
  let spec: Spec;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-serve-'));
    const file = join(specsDir, 'git-official.json');
    const load = loadSpecText(await readFile(file, 'utf8'), file);
    assert.ok(load.ok);
    spec = load.spec;
    const out = join(root, 'h');
    await runPipeline({ spec, provider: 'offline', outDir: out, simple: 6, complex: 8 });
    harness = { spec, records: (await readHarness(out)).records, specHash: specHash(spec) };
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('lists the tools exactly as snapshotted and answers the oracle with the mock outputs; the trajectory is on disk', async () => {
    const record = harness.records.find((r) => r.expected_tools.length >= 2)!;
    const dir = join(root, 'traj1');
    const server = new HarnessMockServer(harness, { scenario: record.id, trajectoryDir: dir });
    const client = await connect(server);
    // The instructions name no scenario (an id is made from a title, which may hold a value).
    assert.doesNotMatch(client.getInstructions() ?? '', new RegExp(record.id));
    const listed = await client.listTools();
    assert.deepEqual(listed.tools, JSON.parse(JSON.stringify(spec.tools)));
    for (const [i, call] of record.expected_tools.entries()) {
      const r = (await client.callTool({ name: call.name, arguments: call.arguments })) as CallToolResult;
      assert.notEqual(r.isError, true, text(r));
      const output = record.mock_outputs[i]!.output;
      assert.deepEqual(JSON.parse(text(r)), output);
      if (typeof output === 'object' && output !== null && !Array.isArray(output)) assert.deepEqual(r.structuredContent, output);
    }
    const saved = Trajectory.parse(JSON.parse(await readFile(join(dir, `${record.id}.json`), 'utf8')));
    assert.equal(saved.complete, true);
    assert.deepEqual(
      saved.calls.map((c) => c.expectedIndex),
      record.expected_tools.map((_, i) => i),
    );
    // Done: any further call fails with the neutral tool error, which says nothing of the scenario.
    const extra = (await client.callTool({ name: record.expected_tools[0]!.name, arguments: record.expected_tools[0]!.arguments })) as CallToolResult;
    assert.equal(extra.isError, true);
    assert.equal(text(extra), `Error calling ${record.expected_tools[0]!.name}: the request could not be completed.`);
    await client.close();
  });

  it('refuses as a server would, never naming an expected value: an unknown tool, a schema error, different arguments, a dependent call before its source', async () => {
    const record = harness.records.find((r) => dependenciesOf(r, spec).some((d) => d.length > 0) && r.conversation.length === 0);
    assert.ok(record, 'a single-turn record with a data dependency');
    const chained = { callIndex: dependenciesOf(record, spec).findIndex((d) => d.length > 0) };
    const events: string[] = [];
    const server = new HarnessMockServer(harness, {
      scenario: record.id,
      trajectoryDir: join(root, 'traj2'),
      onEvent: (e) => void (e.kind === 'call' && e.message && events.push(e.message)),
    });
    const client = await connect(server);

    const unknown = (await client.callTool({ name: 'rm_rf', arguments: {} })) as CallToolResult;
    assert.equal(unknown.isError, true);
    assert.match(text(unknown), /^Unknown tool: rm_rf\. Available tools: git_/);

    const first = record.expected_tools[0]!;
    const invalid = (await client.callTool({ name: first.name, arguments: { ...(first.arguments as object), unexpected_param: 1 } })) as CallToolResult;
    assert.equal(invalid.isError, true);
    assert.equal(text(invalid), `Invalid arguments for ${first.name}: unknown parameter 'unexpected_param'`);

    // Valid arguments, another value: the neutral error, whatever the reason.
    const [key, value] = Object.entries(first.arguments).find(([, v]) => typeof v === 'string')!;
    const wrong = (await client.callTool({
      name: first.name,
      arguments: { ...(first.arguments as object), [key]: `${String(value)}-other` },
    })) as CallToolResult;
    assert.equal(wrong.isError, true);
    assert.equal(text(wrong), `Error calling ${first.name}: the request could not be completed.`);

    const dependent = record.expected_tools[chained.callIndex]!;
    const early = (await client.callTool({ name: dependent.name, arguments: dependent.arguments })) as CallToolResult;
    assert.equal(early.isError, true, 'a call that needs an earlier output cannot come first');
    assert.equal(text(early), `Error calling ${dependent.name}: the request could not be completed.`);
    const saved = Trajectory.parse(JSON.parse(await readFile(join(root, 'traj2', `${record.id}.json`), 'utf8')));
    assert.deepEqual(
      saved.calls.map((c) => [c.expectedIndex, c.refusal]),
      [
        [null, 'unknown-tool'],
        [null, 'invalid-arguments'],
        [null, 'not-expected'],
        [null, 'before-source'],
      ],
    );
    // The operator's log has the full reason; the agent never read it.
    assert.match(events[2]!, /^not-expected: arguments differ: expected /);
    assert.match(events[3]!, /^before-source: expected call \d+ takes a value from the output of call/);
    await client.close();

    // --reveal-expected: the debugging aid puts the reason in what the client reads.
    const revealing = new HarnessMockServer(harness, { scenario: record.id, revealExpected: true });
    const debug = await connect(revealing);
    const told = (await debug.callTool({ name: dependent.name, arguments: dependent.arguments })) as CallToolResult;
    assert.match(text(told), /\[expected call \d+ takes a value from the output of call/);
    await debug.close();
  });

  it('takes independent calls in any order, and an argument left at its schema default', () => {
    const twoTools: Spec = {
      name: 'demo',
      source: 'x',
      invalidTools: [],
      tools: [
        { name: 'a', inputSchema: { type: 'object', properties: { x: { type: 'string' }, limit: { type: 'integer', default: 10 } } } },
        { name: 'b', inputSchema: { type: 'object', properties: { y: { type: 'string' } } } },
      ],
    };
    const record = {
      ...harness.records[0]!,
      id: 'demo',
      expected_tools: [
        { name: 'a', arguments: { x: 'first', limit: 10 }, explanation: '' },
        { name: 'b', arguments: { y: 'second' }, explanation: '' },
      ],
      mock_outputs: [
        { name: 'a', output: { ok: 1 }, grounding: 'synthetic' },
        { name: 'b', output: { ok: 2 }, grounding: 'synthetic' },
      ],
      conversation: [],
    } as unknown as HarnessRecord;
    const replay = new ScenarioReplay(record, twoTools);
    assert.deepEqual(replay.call('b', { y: 'second' }), { ok: true, expectedIndex: 1, output: { ok: 2 } });
    assert.deepEqual(replay.call('a', { x: 'first' }), { ok: true, expectedIndex: 0, output: { ok: 1 } });
    assert.equal(replay.done, true);
  });

  it('a value the user states is no dependency: a call taking only what the prompt says may come first; a later turn waits for it when turns are known', () => {
    const twoTools: Spec = {
      name: 'demo',
      source: 'x',
      invalidTools: [],
      tools: [
        { name: 'map', inputSchema: { type: 'object', properties: { url: { type: 'string' } } } },
        { name: 'crawl', inputSchema: { type: 'object', properties: { url: { type: 'string' } } } },
      ],
    };
    const base = {
      ...harness.records[0]!,
      id: 'demo',
      expected_tools: [
        { name: 'map', arguments: { url: 'https://docs.example.com' }, explanation: '' },
        { name: 'crawl', arguments: { url: 'https://docs.example.com' }, explanation: '' },
      ],
      // The first output holds the URL: the old rule made crawl depend on map.
      mock_outputs: [
        { name: 'map', output: { root: 'https://docs.example.com', pages: 3 }, grounding: 'synthetic' },
        { name: 'crawl', output: { crawled: 3 }, grounding: 'synthetic' },
      ],
    };
    const stated = { ...base, prompt: 'Map https://docs.example.com and crawl it.', conversation: [] } as unknown as HarnessRecord;
    assert.deepEqual(dependenciesOf(stated, twoTools), [[], []]);
    const replay = new ScenarioReplay(stated, twoTools);
    assert.equal(replay.call('crawl', { url: 'https://docs.example.com' }).ok, true);
    assert.equal(replay.call('map', { url: 'https://docs.example.com' }).ok, true);

    // Two turns: with the turns known (the built-in agent), the second turn's call is early in the first.
    const twoTurns = {
      ...base,
      prompt: 'Map https://docs.example.com.',
      conversation: [
        { prompt: 'Map https://docs.example.com.', calls: [0] },
        { prompt: 'Now crawl https://docs.example.com.', calls: [1] },
      ],
    } as unknown as HarnessRecord;
    const turns = new ScenarioReplay(twoTurns, twoTools);
    turns.beginTurn(0);
    assert.equal(turns.call('map', { url: 'https://docs.example.com' }).ok, true);
    const early = turns.call('crawl', { url: 'https://docs.example.com' });
    assert.equal(early.ok, false);
    assert.equal(!early.ok && early.kind, 'before-turn');
    turns.beginTurn(1);
    assert.equal(turns.call('crawl', { url: 'https://docs.example.com' }).ok, true);
  });

  it('over Streamable HTTP: 127.0.0.1 only, a bearer token, one scenario per session in order, then no more', async () => {
    const two: ServedHarness = { ...harness, records: harness.records.slice(0, 2) };
    const sessions: string[] = [];
    const server = new HarnessMockServer(two, {
      onEvent: (e) => void (e.kind === 'session' && sessions.push(`${e.scenarioId} (${e.position} of ${e.total})`)),
    });
    const http = await server.listenHttp(0);
    try {
      assert.match(http.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const noToken = await fetch(http.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(noToken.status, 401);
      const open = async (): Promise<Client> => {
        const client = new Client({ name: 'test-agent', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { Authorization: `Bearer ${http.token}` } } }));
        return client;
      };
      const c1 = await open();
      assert.deepEqual(sessions, [`${two.records[0]!.id} (1 of 2)`]);
      const c2 = await open();
      assert.deepEqual(sessions, [`${two.records[0]!.id} (1 of 2)`, `${two.records[1]!.id} (2 of 2)`]);
      await assert.rejects(open(), /409|all 2 scenarios have been served/);
      const call = two.records[1]!.expected_tools[0]!;
      const r = (await c2.callTool({ name: call.name, arguments: call.arguments })) as CallToolResult;
      assert.notEqual(r.isError, true, text(r));
      await c1.close();
      await c2.close();
    } finally {
      await http.close();
    }
  });

  it('says which scenarios exist when asked for a missing one', () => {
    assert.throws(
      () => new HarnessMockServer(harness, { scenario: 'nope' }),
      (e) => e instanceof MockServerError && /no scenario "nope" in the harness \(it has \d+: /.test(e.message),
    );
  });
});
