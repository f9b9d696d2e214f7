/**
 * Scripted agents for the fake LLM servers: they answer the real clients' function-calling
 * requests (Gemini `functionCall` parts, OpenAI `tool_calls`) by following a plan — the calls to
 * make in each user turn, one call per reply — and then answer in text. Where the conversation
 * stands is read from the request itself (user turns so far, tool results since the last one),
 * so the same agent serves any number of scenarios at once.
 */
import { userTurns } from '../../src/core/agents/agentLoop';
import type { HarnessRecord } from '../../src/core/harness/format';
import type { FakeReply, FakeRequest } from './fakeLlmServer';

/** A call a scripted agent makes. */
export interface PlannedCall {
  name: string;
  arguments: unknown;
}

/** Calls to make in a given user turn of the scenario whose first user message is `firstPrompt`. */
export type AgentPlan = (firstPrompt: string, turn: number) => readonly PlannedCall[];

/** The plan that makes each record's expected calls, turn by turn, passed through `edit` (to inject a defect). */
export function planFrom(
  records: readonly HarnessRecord[],
  edit: (call: PlannedCall, record: HarnessRecord, index: number) => PlannedCall = (c) => c,
): AgentPlan {
  const byPrompt = new Map(records.map((r) => [userTurns(r)[0]!, r]));
  return (firstPrompt, turn) => {
    const r = byPrompt.get(firstPrompt);
    if (!r) return [];
    const indices = r.conversation.length ? (r.conversation[turn]?.calls ?? []) : turn === 0 ? r.expected_tools.map((_, i) => i) : [];
    return indices.map((i) => edit({ name: r.expected_tools[i]!.name, arguments: r.expected_tools[i]!.arguments }, r, i));
  };
}

interface Progress {
  firstPrompt: string;
  turn: number;
  callsInTurn: number;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- wire JSON of the two APIs */
function geminiProgress(body: any): Progress {
  const contents: any[] = Array.isArray(body?.contents) ? body.contents : [];
  const userTexts = contents.map((c, i) => ({ c, i })).filter(({ c }) => c.role === 'user' && (c.parts ?? []).some((p: any) => typeof p.text === 'string'));
  const last = userTexts[userTexts.length - 1]?.i ?? 0;
  const callsInTurn = contents.slice(last + 1).reduce((n, c) => n + (c.parts ?? []).filter((p: any) => p.functionResponse).length, 0);
  const firstText = (userTexts[0]?.c.parts ?? []).find((p: any) => typeof p.text === 'string')?.text ?? '';
  return { firstPrompt: firstText, turn: Math.max(0, userTexts.length - 1), callsInTurn };
}

function openaiProgress(body: any): Progress {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const users = messages.map((m, i) => ({ m, i })).filter(({ m }) => m.role === 'user');
  const last = users[users.length - 1]?.i ?? 0;
  return {
    firstPrompt: String(users[0]?.m.content ?? ''),
    turn: Math.max(0, users.length - 1),
    callsInTurn: messages.slice(last + 1).filter((m) => m.role === 'tool').length,
  };
}
/* eslint-enable @typescript-eslint/no-explicit-any -- back to typed code */

const usage = { input: 120, output: 30 };

/** A Gemini agent following `plan`. */
export function geminiAgent(plan: AgentPlan): (req: FakeRequest) => FakeReply {
  return (req) => {
    const p = geminiProgress(req.body);
    const next = plan(p.firstPrompt, p.turn)[p.callsInTurn];
    const parts = next ? [{ functionCall: { name: next.name, args: next.arguments } }] : [{ text: `Done with turn ${p.turn + 1}.` }];
    return {
      httpBody: JSON.stringify({
        candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output },
      }),
      contentType: 'application/json',
    };
  };
}

/** An OpenAI-compatible agent following `plan`. */
export function openaiAgent(plan: AgentPlan): (req: FakeRequest) => FakeReply {
  return (req) => {
    const p = openaiProgress(req.body);
    const next = plan(p.firstPrompt, p.turn)[p.callsInTurn];
    const message = next
      ? {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: `call_${req.index}`, type: 'function', function: { name: next.name, arguments: JSON.stringify(next.arguments) } }],
        }
      : { role: 'assistant', content: `Done with turn ${p.turn + 1}.` };
    return {
      httpBody: JSON.stringify({
        id: `chatcmpl-${req.index}`,
        object: 'chat.completion',
        created: 0,
        model: req.model ?? 'm',
        choices: [{ index: 0, message, finish_reason: next ? 'tool_calls' : 'stop' }],
        usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
      }),
      contentType: 'application/json',
    };
  };
}

/**
 * The oracle's plan for the records of a harness: each scenario's expected calls in their turns.
 * With `change`, the first argument of every call (in key order) gets `change(value)` instead:
 * an agent that picks the right tools and fills one parameter wrong.
 */
export function oraclePlan(records: readonly HarnessRecord[], change?: (value: unknown) => unknown): AgentPlan {
  const byPrompt = new Map(records.map((r) => [userTurns(r)[0]!, r]));
  return (first, turn) => {
    const r = byPrompt.get(first);
    if (!r) return [];
    const idx = r.conversation.length ? (r.conversation[turn]?.calls ?? []) : turn === 0 ? r.expected_tools.map((_, i) => i) : [];
    return idx.map((i) => {
      const c = r.expected_tools[i]!;
      if (!change) return { name: c.name, arguments: c.arguments };
      const args = { ...c.arguments };
      const k = Object.keys(args)[0];
      if (k !== undefined) args[k] = change(args[k]);
      return { name: c.name, arguments: args };
    });
  };
}

/** A request as the fake VS Code chat model (test/integration/extensions/fake-lm) hands it to its responder. */
export interface ChatModelRequest {
  model: string;
  tools: { name: string; description: string; inputSchema: unknown }[];
  messages: {
    role: 'user' | 'assistant';
    content: string;
    toolCalls: { callId: string; name: string; input: unknown }[];
    toolResults: { callId: string; content: string }[];
  }[];
}

/** What the fake VS Code chat model streams back: text, or tool-call parts. */
export type ChatModelReply = string | { text?: string; calls: { name: string; input: unknown }[] };

/**
 * A VS Code chat-model agent following `plan`. The adapter sends the agent's instructions as the
 * first user message (`system`, skipped here), each user turn as a text message, and tool results
 * as user messages with tool-result parts.
 */
export function chatModelAgent(plan: AgentPlan, system: string): (req: ChatModelRequest) => ChatModelReply {
  return (req) => {
    const userTexts = req.messages.map((m, i) => ({ m, i })).filter(({ m }) => m.role === 'user' && m.toolResults.length === 0 && m.content !== system);
    const last = userTexts[userTexts.length - 1]?.i ?? 0;
    const callsInTurn = req.messages.slice(last + 1).reduce((n, m) => n + m.toolResults.length, 0);
    const turn = Math.max(0, userTexts.length - 1);
    const next = plan(userTexts[0]?.m.content ?? '', turn)[callsInTurn];
    return next ? { calls: [{ name: next.name, input: next.arguments }] } : `Done with turn ${turn + 1}.`;
  };
}
