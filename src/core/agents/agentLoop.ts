/**
 * The built-in agent: a model with native function calling, run against one scenario of a
 * harness served by {@link HarnessMockServer} over a real MCP client connection. The agent sees
 * what `agent-seer export` gives — the tools as the server lists them and the user's turns — and
 * nothing of the oracle. Each user turn is sent after the agent answered the previous one; a turn
 * ends when the model replies without calls; the run stops at a step limit.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HarnessRecord } from '../harness/format';
import { canonicalJson, conversationKey, sha256, type CallGuard, type LlmStats, type ReplyCache } from '../llm';
import {
  toFunctionParameters,
  toJsonSchemaParameters,
  type ToolCallingProvider,
  type ToolDeclaration,
  type ToolMessage,
  type ToolTurnReply,
} from '../llm/toolCalling';
import type { HarnessMockServer, MockSession } from './mockServer';
import { isRecord } from '../util/isRecord';
import { turnsOf } from './replay';
import type { Trajectory } from './trajectory';

/** The system instruction of the built-in agent (the harness gives no other context). */
export const AGENT_SYSTEM = 'You are an assistant with tools. Use the tools to do what the user asks, then answer the user briefly with what you found or did.';

export interface AgentLoopOptions {
  provider: ToolCallingProvider;
  /** Limits, retries and stops shared by the run's calls. */
  guard: CallGuard;
  stats?: LlmStats;
  /** Model turns per scenario before the run stops it. Default 16. */
  maxSteps?: number;
  /** Default 0. */
  temperature?: number;
  /**
   * Per-turn reply cache: each model reply is kept under the conversation so far, so a killed run
   * resumes mid-scenario without asking again what was answered. Absent: every turn is asked.
   */
  cache?: ReplyCache;
  /** Which repeat of the scenario this is (`--runs K`): repeats are separate samples, never each other's cache. Default 1. */
  run?: number;
  signal: AbortSignal;
}

/** Stage name of the agent's turns in the reply cache. */
export const AGENT_CACHE_STAGE = 'agent-turn';

/** What the agent did on one scenario (calls are in the mock's trajectory). */
export interface AgentOutcome {
  scenarioId: string;
  /** The agent's text at the end of each user turn. */
  replies: string[];
  /** Model turns used. */
  steps: number;
  stoppedBy: 'answered' | 'step-limit';
  /** Calls made in each user turn reached (they split the trajectory's calls into turns). */
  callsPerTurn: number[];
  /** Changes made to the tools' schemas to offer them (see `toFunctionParameters`). */
  schemaWarnings: string[];
  /** The calls as the mock server recorded them (also on disk when it has a trajectory folder). */
  trajectory: Trajectory;
}

/** The user's turns of a record: its conversation's prompts, or its single prompt. */
export function userTurns(record: HarnessRecord): string[] {
  return turnsOf(record).map((t) => t.prompt);
}

function resultOutput(result: CallToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const text = (result.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The model's reply to the conversation so far: from the cache when this exact conversation
 * (model, instructions, tools, scenario, repeat and every message) was answered before, else
 * asked and stored at once.
 */
async function turnReply(o: AgentLoopOptions, scenarioId: string, tools: readonly ToolDeclaration[], messages: readonly ToolMessage[]): Promise<ToolTurnReply> {
  const temperature = o.temperature ?? 0;
  const ask = () =>
    o.guard.run(o.provider.model, o.signal, (signal) => o.provider.completeWithTools({ system: AGENT_SYSTEM, messages, tools, temperature, signal }), o.stats);
  if (!o.cache) return ask();
  const parts = {
    stage: AGENT_CACHE_STAGE,
    promptVersion: sha256(AGENT_SYSTEM),
    provider: o.provider.id,
    // Another server with the same model name is another agent: never its cache.
    ...(o.provider.endpoint !== undefined ? { endpoint: o.provider.endpoint } : {}),
    model: o.provider.model,
    temperature,
    sampleIndex: o.run ?? 1,
    inputs: { scenarioId, tools: sha256(canonicalJson(tools)) },
  };
  const key = conversationKey(
    sha256(canonicalJson(parts)),
    messages.map((m) => ({ role: m.role, content: canonicalJson(m) })),
  );
  const hit = await o.cache.getReply(key);
  if (hit) {
    const stored = JSON.parse(hit.text) as Pick<ToolTurnReply, 'text' | 'calls'>;
    return { text: stored.text, calls: stored.calls, ...(hit.finishReason !== undefined ? { finishReason: hit.finishReason } : {}) };
  }
  const reply = await ask();
  await o.cache.setReply(
    key,
    {
      text: JSON.stringify({ text: reply.text, calls: reply.calls }),
      ...(reply.finishReason !== undefined ? { finishReason: reply.finishReason } : {}),
      usage: reply.usage ?? { inputTokens: 0, outputTokens: 0 },
    },
    parts,
  );
  return reply;
}

/** The first problem of a client-side failure, in one line (a zod error's message is a JSON dump). */
function oneLine(e: unknown): string {
  const issue = (e as { issues?: { path?: unknown[]; message?: string }[] }).issues?.[0];
  if (issue) return `${(issue.path ?? []).map(String).join('.') || 'result'}: ${issue.message ?? 'invalid'}`;
  return (e instanceof Error ? e.message : String(e)).split('\n')[0]!;
}

/**
 * The tools as the SDK's client lists them; when the client rejects the list (a snapshot with a
 * tool the protocol's schema does not allow, e.g. an input schema without `type: "object"`), the
 * spec's tools as they are, with a warning that says so (an external client would fail here too).
 */
async function listedTools(
  client: Client,
  session: MockSession,
  warnings: Set<string>,
): Promise<{ name: string; description?: string; inputSchema?: unknown }[]> {
  try {
    return (await client.listTools()).tools;
  } catch (e) {
    if (!isZodLike(e)) throw e;
    warnings.add(`tools/list: the MCP SDK's client rejects this spec's tool list (${oneLine(e)}); the agent is offered the spec's tools as they are`);
    return session.replay.spec.tools;
  }
}

const isZodLike = (e: unknown): boolean => Array.isArray((e as { issues?: unknown }).issues);

/** Runs the agent on the scenario the mock server hands the next session. */
export async function runAgentOnScenario(server: HarnessMockServer, options: AgentLoopOptions): Promise<AgentOutcome> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const session = await server.connect(serverSide);
  const client = new Client({ name: `agent-seer-agent (${options.provider.id}:${options.provider.model})`, version: '1' });
  await client.connect(clientSide);
  try {
    const warnings = new Set<string>();
    const tools: ToolDeclaration[] = (await listedTools(client, session, warnings)).map((t) => {
      const converted =
        options.provider.toolSchemas === 'json-schema'
          ? { parameters: toJsonSchemaParameters(t.inputSchema), warnings: [] }
          : toFunctionParameters(t.inputSchema);
      for (const w of converted.warnings) warnings.add(`${t.name}: ${w}`);
      return { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: converted.parameters };
    });
    const taskOnly = new Set(session.replay.spec.tools.filter((t) => isRecord(t.execution) && t.execution.taskSupport === 'required').map((t) => t.name));
    for (const name of taskOnly) warnings.add(`${name}: requires task-based execution, which the mock does not serve; its calls go to the mock directly`);
    const maxSteps = options.maxSteps ?? 16;
    const messages: ToolMessage[] = [];
    const replies: string[] = [];
    const callsPerTurn: number[] = [];
    let steps = 0;
    for (const [index, turn] of userTurns(session.replay.record).entries()) {
      // The mock knows which turns the agent has been given: a later turn's call is early.
      session.replay.beginTurn(index);
      messages.push({ role: 'user', content: turn });
      callsPerTurn.push(0);
      for (;;) {
        if (steps >= maxSteps)
          return {
            scenarioId: session.replay.record.id,
            replies,
            steps,
            stoppedBy: 'step-limit',
            callsPerTurn,
            schemaWarnings: [...warnings],
            trajectory: session.trajectory,
          };
        steps++;
        const reply = await turnReply(options, session.replay.record.id, tools, messages);
        messages.push({ role: 'assistant', content: reply.text, calls: reply.calls });
        if (!reply.calls.length) {
          replies.push(reply.text);
          break;
        }
        const results = [];
        for (const call of reply.calls) {
          const args =
            call.arguments !== null && typeof call.arguments === 'object' && !Array.isArray(call.arguments)
              ? (call.arguments as Record<string, unknown>)
              : undefined;
          // Arguments that are not a JSON object (truncated JSON) cannot go over MCP: the session
          // answers them directly, so the trajectory keeps them and the agent reads the error.
          // So are calls of a tool that requires task-based execution, which the SDK's client
          // refuses to send as a plain call and the mock does not serve as a task.
          const direct = !args || taskOnly.has(call.name);
          const result = direct
            ? await session.answer(call.name, call.arguments)
            : ((await client.callTool({ name: call.name, arguments: args }, undefined, { signal: options.signal })) as CallToolResult);
          callsPerTurn[callsPerTurn.length - 1]!++;
          results.push({ callId: call.id, name: call.name, output: resultOutput(result), isError: result.isError === true });
        }
        messages.push({ role: 'tool', results });
      }
    }
    return {
      scenarioId: session.replay.record.id,
      replies,
      steps,
      stoppedBy: 'answered',
      callsPerTurn,
      schemaWarnings: [...warnings],
      trajectory: session.trajectory,
    };
  } finally {
    await client.close();
  }
}
