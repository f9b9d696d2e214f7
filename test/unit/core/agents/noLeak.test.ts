/**
 * The mock never hands out the answer key. Over a harness of every fixture spec (offline), each
 * scenario is served to the SDK's real client, and the client walks every refusal path: an
 * unknown tool; for each expected call, in reverse order, arguments that fail the schema, a
 * changed value, arguments that are not JSON, and the call itself (early for a dependent call or
 * a later turn's); then the rest in order; then one call too many. Every byte the server sends
 * that is not the tool list or an answer to a call the client made is checked: no expected
 * argument value, no later turn's words, no output of a call not answered — unless the tool list
 * itself shows it (an enum, a default), which the agent reads anyway.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { HarnessMockServer } from '../../../../src/core/agents/mockServer';
import { neutralRefusal, turnsOf } from '../../../../src/core/agents/replay';
import type { HarnessRecord } from '../../../../src/core/harness/format';
import { specHash } from '../../../../src/core/harness/hash';
import { readHarness } from '../../../../src/core/harness/store';
import { runPipeline } from '../../../../src/core/pipeline/runner';
import { loadSpecText } from '../../../../src/core/spec/snapshot';
import type { Spec } from '../../../../src/core/spec/model';
import { isRecord } from '../../../../src/core/util/isRecord';
import { specsDir } from '../../fixturePaths';

/** String leaves of at least 4 characters and numbers of at least 3 digits: values a refusal could hand out. */
function leaves(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string' && v.trim().length >= 4) out.push(v.trim());
  else if (typeof v === 'number' && Math.abs(v) >= 100) out.push(String(v));
  else if (Array.isArray(v)) for (const x of v) leaves(x, out);
  else if (isRecord(v)) for (const x of Object.values(v)) leaves(x, out);
  return out;
}

/** A call's arguments with one value changed (the first string or number), or undefined when none can be. */
function changed(args: unknown): Record<string, unknown> | undefined {
  if (!isRecord(args)) return undefined;
  const k = Object.keys(args).find((x) => typeof args[x] === 'string' || typeof args[x] === 'number');
  if (k === undefined) return undefined;
  return { ...args, [k]: typeof args[k] === 'string' ? `${String(args[k])}-other` : (args[k] as number) + 7 };
}

/** The words of a server message (its JSON-RPC frame left out): tool error texts, instructions, error messages. */
function readable(message: JSONRPCMessage): string {
  const m = message as { result?: { content?: { text?: string }[]; instructions?: string; serverInfo?: unknown }; error?: { message?: string } };
  return [
    ...(m.result?.content ?? []).map((c) => c.text ?? ''),
    m.result?.instructions ?? '',
    m.result?.serverInfo ? JSON.stringify(m.result.serverInfo) : '',
    m.error?.message ?? '',
  ].join('\n');
}

/** Our own words in what the mock says: a value equal to one of them tells the agent nothing. */
const OUR_WORDS = `${neutralRefusal('x')} Unknown tool: Available tools: Invalid arguments for: expected a JSON object; unknown parameter; missing required parameter; must be one of Agent Seer mock of: tool calls are answered from recorded outputs.`;

interface Walk {
  /** Server messages the agent reads that are neither the tool list nor an answer to its call. */
  read: string[];
  kinds: string[];
}

/** Serves one scenario and walks every refusal path (see the module comment). */
async function walk(spec: Spec, record: HarnessRecord, reveal = false): Promise<Walk> {
  const server = new HarnessMockServer({ spec, records: [record], specHash: specHash(spec) }, { scenario: record.id, revealExpected: reveal });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const read: string[] = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = async (message: JSONRPCMessage, options?: Parameters<typeof send>[1]) => {
    const result = (message as { result?: { tools?: unknown; isError?: boolean } }).result;
    // The tool list is the spec, read anyway; an answer is the output of the call the agent made.
    if (!(result && (result.tools !== undefined || (result.isError !== true && 'content' in result)))) read.push(readable(message));
    return send(message, options);
  };
  const session = await server.connect(serverSide);
  const client = new Client({ name: 'leak-probe', version: '1' });
  await client.connect(clientSide);
  const call = async (name: string, args: Record<string, unknown>): Promise<void> => void (await client.callTool({ name, arguments: args }));
  await call('__no_such_tool__', {});
  const calls = record.expected_tools;
  for (let i = calls.length - 1; i >= 0; i--) {
    const c = calls[i]!;
    const args = isRecord(c.arguments) ? c.arguments : {};
    await call(c.name, { ...args, __unknown_param__: 1 });
    const other = changed(args);
    if (other) await call(c.name, other);
    // Not JSON: the built-in agent hands these to the session directly; the error goes to the agent.
    read.push(readable({ jsonrpc: '2.0', id: 0, result: await session.answer(c.name, '{"truncated": ') }));
    await call(c.name, args);
  }
  for (const c of calls) await call(c.name, isRecord(c.arguments) ? c.arguments : {});
  if (calls[0]) await call(calls[0].name, isRecord(calls[0].arguments) ? calls[0].arguments : {});
  await client.close();
  return { read, kinds: session.trajectory.calls.flatMap((c) => (c.refusal ? [c.refusal] : [])) };
}

describe('the mock never hands out the answer key', () => {
  let root: string;
  const harnesses: { file: string; spec: Spec; records: HarnessRecord[] }[] = [];
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-seer-noleak-'));
    for (const file of (await readdir(specsDir)).filter((f) => f.endsWith('.json')).sort()) {
      const load = loadSpecText(await readFile(join(specsDir, file), 'utf8'), file);
      if (!load.ok || !load.spec.tools.length) continue;
      const out = join(root, file);
      await runPipeline({ spec: load.spec, provider: 'offline', outDir: out, simple: 2, complex: 3 });
      harnesses.push({ file, spec: load.spec, records: (await readHarness(out)).records });
    }
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** The first expected value found in what the agent reads, over the harnesses given; and what was walked. */
  async function firstLeak(of: typeof harnesses, reveal: boolean): Promise<{ leak?: string; kinds: Map<string, number>; scenarios: number; checked: number }> {
    const kinds = new Map<string, number>();
    let scenarios = 0;
    let checked = 0;
    for (const { file, spec, records } of of) {
      const listed = JSON.stringify(spec.tools);
      for (const record of records) {
        scenarios++;
        const { read, kinds: seen } = await walk(spec, record, reveal);
        for (const k of seen) kinds.set(k, (kinds.get(k) ?? 0) + 1);
        const secrets = new Set([
          ...leaves(record.expected_tools.map((c) => c.arguments)),
          ...leaves(record.mock_outputs.map((m) => m.output)),
          ...turnsOf(record)
            .slice(1)
            .map((t) => t.prompt.trim())
            .filter((p) => p.length >= 4),
          record.id,
        ]);
        for (const secret of secrets) {
          if (listed.includes(JSON.stringify(secret).slice(1, -1)) || listed.includes(secret) || OUR_WORDS.includes(secret)) continue;
          if (secret === (spec.server?.name ?? spec.name) || (spec.server?.version ?? '') === secret) continue;
          checked++;
          const text = read.find((t) => t.includes(secret));
          if (text !== undefined) return { leak: `${file} ${record.id}: "${secret}" in ${text.slice(0, 300)}`, kinds, scenarios, checked };
        }
      }
    }
    return { kinds, scenarios, checked };
  }

  it('over every fixture harness and every refusal path, nothing the agent reads holds an expected value, a later turn or an unearned output', async (t) => {
    assert.ok(harnesses.length >= 30, `harnesses of the fixture specs: ${harnesses.length}`);
    const { leak, kinds, scenarios, checked } = await firstLeak(harnesses, false);
    assert.equal(leak, undefined);
    // Every refusal path was taken somewhere in the corpus.
    for (const k of ['unknown-tool', 'malformed-arguments', 'invalid-arguments', 'before-source', 'before-turn', 'not-expected'])
      assert.ok((kinds.get(k) ?? 0) > 0, `refusal ${k} never taken: ${JSON.stringify([...kinds])}`);
    assert.ok(scenarios >= 100 && checked > 1000, `${scenarios} scenarios, ${checked} values checked`);
    t.diagnostic(`${harnesses.length} harnesses, ${scenarios} scenarios, ${checked} values checked; refusals ${JSON.stringify(Object.fromEntries(kinds))}`);
  });

  it('the probe sees a leak when there is one: with --reveal-expected it finds an expected value at once', async () => {
    const { leak } = await firstLeak(harnesses.slice(0, 3), true);
    assert.match(leak ?? '', /: ".+" in .*\[expected /);
  });
});
