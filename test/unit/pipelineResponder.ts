/**
 * A scripted "model" for the pipeline tests and the generate bench: given a request the fake
 * LLM server received, it recognises the stage from the structured-output schema and answers
 * from the prompt itself, the way a model would:
 * - interpret: the tool named in the prompt's JSON block;
 * - scenarios: one scenario per slot of the reply schema, calling the slot's focus tool (simple,
 *   coverage) and, for complex batches, the tool the schema lists first after it, with
 *   schema-valid arguments taken from the offline generator;
 * - mock: the offline mock generator's outputs for the workflow in the prompt, by position;
 * - restate: the request as it was, then every value of its slots (`llm/statedValues.ts`);
 * - turns: the workflow split in two halves.
 * Replies depend only on the request's content, never on arrival order, so an interrupted and
 * resumed run gets the same answers as an uninterrupted one.
 */
import type { FakeReply, FakeRequest } from '../fakes/fakeLlmServer';
import { generateOffline, mockOffline } from '../../src/core/pipeline/offline';
import { idLikeValues, textLeaves } from '../../src/core/checks/integrity';
import type { LlmTurnEnds, Scenario } from '../../src/core/pipeline/schemas';
import type { LlmScenarioSlots } from '../../src/core/pipeline/llm/scenarioRequest';
import type { Spec } from '../../src/core/spec/model';
import { DETAILS_FIELD } from '../../src/core/pipeline/llm/pins';

/** Which stage a request is for, from its structured-output schema. */
export type Stage = 'interpret' | 'scenarios' | 'restate' | 'mock' | 'turns' | 'unknown';

/** The stage of a request. */
export function stageOf(req: FakeRequest): Stage {
  const props = (req.jsonSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  if ('what_it_does' in props) return 'interpret';
  if ('scenario_1' in props) return 'scenarios';
  if ('text_0' in props) return 'restate';
  if ('outputs' in props) return 'mock';
  if ('turns' in props) return 'turns';
  return 'unknown';
}

/** The reply schema of call `i`'s output in a mock request. */
export function mockSlot(req: FakeRequest, i: number): { properties?: Record<string, unknown> } | undefined {
  const outputs = (req.jsonSchema as { properties?: { outputs?: { properties?: Record<string, { properties?: Record<string, unknown> }> } } } | undefined)
    ?.properties?.outputs?.properties;
  return outputs?.[`call_${i}`];
}

/** The kind of a scenarios request. */
export function scenarioKind(prompt: string): 'simple' | 'complex' | 'coverage' {
  if (prompt.includes('## Tools not used yet')) return 'coverage';
  if (prompt.includes('novel, multi-step requests')) return 'complex';
  return 'simple';
}

/** The first user message (the rendered template), whatever re-asks followed. */
export function firstPrompt(req: FakeRequest): string {
  return req.messages.find((m) => m.role === 'user')?.content ?? '';
}

/** Text of the first fenced block of `lang` after `heading` in `text`. */
export function fenced(text: string, heading: string, lang: string): string | undefined {
  const at = text.indexOf(heading);
  if (at < 0) return undefined;
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)\\n```').exec(text.slice(at));
  return m?.[1];
}

/** Tool names listed as `### name` in a part of a prompt. */
export function listedTools(text: string): string[] {
  return [...text.matchAll(/^### (\S+)/gm)].map((m) => m[1] as string);
}

/** The tools a scenarios prompt asks to cover (for coverage prompts, only the unused ones). */
export function targetsOf(prompt: string): string[] {
  if (scenarioKind(prompt) === 'coverage') {
    const start = prompt.indexOf('## Tools not used yet');
    const ends = ['## Other tools', '## What to write'].map((h) => prompt.indexOf(h, start)).filter((i) => i > start);
    return listedTools(prompt.slice(start, Math.min(...ends)));
  }
  return listedTools(prompt);
}

/** Options of {@link createResponder}. */
export interface ResponderOptions {
  spec: Spec;
  seed?: number;
  /** Tools the first-round (simple/complex) batches leave out, so coverage follow-ups must fire. */
  skipInitially?: (tool: string) => boolean;
  /** Tools the "model" never manages to use, in any round (the offline fallback must cover them). */
  neverUse?: (tool: string) => boolean;
  /** Turn splits with one turn for these scenario prompts (to exercise the single-turn discard). */
  singleTurn?: (prompt: string) => boolean;
  /** Complex batches also get a one-call scenario (to exercise tier re-labelling). */
  oneCallComplex?: boolean;
}

/** A deterministic responder plus per-stage request counts. */
export interface Responder {
  respond: (req: FakeRequest) => FakeReply;
  /** Sample arguments per tool (schema-valid, from the offline generator). */
  args: Map<string, Record<string, unknown>>;
  /** The reply to a scenarios request (what `respond` would send). */
  batchFor(req: FakeRequest): LlmScenarioSlots;
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- wire JSON Schema

/** Per slot of a scenarios request's schema: its focus tool and the tool listed first after it. */
export function slotsOf(req: FakeRequest): { key: string; focus: string; next: string }[] {
  const schema = req.jsonSchema as Json;
  const toolOf = (ref: Json | undefined): string => (schema.$defs[String(ref?.$ref).split('/').pop()!] as Json).properties.name.enum[0] as string;
  return Object.entries(schema.properties as Json).map(([key, slot]) => ({
    key,
    focus: toolOf((slot as Json).properties.focus_call),
    next: toolOf((slot as Json).properties.calls_after.items.anyOf[0]),
  }));
}

/** Builds a responder for a spec. */
export function createResponder(options: ResponderOptions): Responder {
  const { spec } = options;
  const seed = options.seed ?? 7;
  const offline = generateOffline(spec, { seed, simple: 2, complex: 2 });
  const args = new Map<string, Record<string, unknown>>();
  // Prefer arguments a tool got as the first call of a workflow (they carry no chained IDs).
  for (const pass of [0, 1]) {
    for (const r of offline.records) {
      r.expected_tools.forEach((c, i) => {
        if ((pass === 0 ? i === 0 : true) && !args.has(c.name)) args.set(c.name, c.arguments);
      });
    }
  }

  const scenario = (names: readonly string[], title: string): LlmScenarioSlots[string] => {
    const calls = names.map((n) => ({ name: n, arguments: structuredClone(args.get(n) ?? {}), explanation: `Call ${n}.` }));
    const ids = [...new Set(calls.flatMap((c) => idLikeValues(c.arguments).map((v) => String(v.value))))];
    return {
      category: names.length > 1 ? 'Workflows' : 'Operations',
      title,
      prompt: `Please ${names.map((n) => `run ${n}`).join(', then ')}${ids.length ? ` using ${ids.join(', ')}` : ''}.`,
      calls_before: [],
      focus_call: calls[0]!,
      calls_after: calls.slice(1),
      novelty_reason: 'Exercises the listed tools.',
      agent_followup: 'Anything else?',
    };
  };

  const batchFor = (req: FakeRequest): LlmScenarioSlots => {
    const kind = scenarioKind(firstPrompt(req));
    const slots = slotsOf(req);
    const skip = (n: string): boolean => (kind !== 'coverage' && options.skipInitially?.(n)) || options.neverUse?.(n) === true;
    const usable = spec.tools.map((t) => t.name).filter((n) => !skip(n));
    const out: LlmScenarioSlots = {};
    for (const [i, slot] of slots.entries()) {
      // A tool the "model" avoids is swapped for one it uses (the schema would not let a real model do that).
      const focus = skip(slot.focus) ? (usable[i % Math.max(1, usable.length)] ?? slot.focus) : slot.focus;
      const next = skip(slot.next) ? usable.find((n) => n !== focus) : slot.next;
      const names = kind === 'complex' && next !== undefined ? [focus, next !== focus ? next : (usable.find((n) => n !== focus) ?? next)] : [focus];
      out[slot.key] = scenario(names, `${kind === 'complex' ? 'Complex' : kind === 'coverage' ? 'Cover' : 'Use'} ${names.join(' + ')} ${i}`);
    }
    if (options.oneCallComplex && kind === 'complex' && slots[0]) out[slots[0].key] = scenario([slots[0].focus], `Too simple ${slots[0].focus}`);
    return out;
  };

  const workflowOf = (prompt: string): { name: string; arguments: Record<string, unknown>; explanation: string }[] =>
    JSON.parse(fenced(prompt, '## The workflow', 'json') ?? '[]') as { name: string; arguments: Record<string, unknown>; explanation: string }[];
  const userPrompt = (prompt: string): string => fenced(prompt, "## The user's request", 'text') ?? '';

  const respond = (req: FakeRequest): FakeReply => {
    const prompt = firstPrompt(req);
    switch (stageOf(req)) {
      case 'interpret': {
        const tool = JSON.parse(fenced(prompt, '## Tool definition', 'json') ?? '{}') as { name?: string; description?: string };
        return {
          json: {
            what_it_does: (tool.description ?? `Runs ${tool.name}.`).slice(0, 200),
            what_it_needs: 'The parameters its schema lists.',
            why_its_used: `To use ${tool.name} in a workflow.`,
            enterprise_context: ['operations'],
          },
        };
      }
      case 'scenarios':
        return { json: batchFor(req) };
      case 'restate': {
        // The request kept, then the values its slots hold, as a list the employee adds.
        const props = (req.jsonSchema as Json).properties as Json;
        const n = Object.keys(props).filter((k) => k.startsWith('value_')).length;
        const request = fenced(prompt, "## The employee's request now", 'text') ?? '';
        const reply: Record<string, unknown> = { text_0: `${request} Use` };
        for (let i = 0; i < n; i++) {
          reply[`value_${i}`] = (props[`value_${i}`] as Json).enum[0];
          reply[`text_${i + 1}`] = i === n - 1 ? '.' : ',';
        }
        return { json: reply };
      }
      case 'mock': {
        const workflow = workflowOf(prompt);
        const s: Scenario = { title: 't', prompt: userPrompt(prompt), agent_workflow: workflow, novelty_reason: '', agent_followup: '' };
        const mock = mockOffline(spec, s, { seed });
        const quote = mock.mock_workflow.flatMap((m) => textLeaves(m.output)).find((l) => l.length >= 3 && l.length <= 60);
        return {
          json: {
            // A tool with an outputSchema gets its output as a value, the others as JSON in a string (as the schema asks).
            outputs: Object.fromEntries(
              mock.mock_workflow.map((m, i) => {
                const declared = spec.tools.find((t) => t.name === m.name)?.outputSchema;
                if (declared !== undefined && declared !== null) return [`call_${i}`, m.output];
                // A slot with pinned fields: their one value each, and the rest as JSON in the details (as the schema asks).
                const slot = mockSlot(req, i);
                if (slot?.properties?.[DETAILS_FIELD] === undefined) return [`call_${i}`, JSON.stringify(m.output ?? null)];
                const pinned = Object.fromEntries(
                  Object.entries(slot.properties)
                    .filter(([k]) => k !== DETAILS_FIELD)
                    .map(([k, p]) => [k, (p as { enum: unknown[] }).enum[0]]),
                );
                return [`call_${i}`, { ...pinned, [DETAILS_FIELD]: JSON.stringify(m.output ?? null) }];
              }),
            ),
            expected_response: `${mock.expected_response}${quote ? ` (${quote})` : ''}`,
          },
        };
      }
      case 'turns': {
        const workflow = workflowOf(prompt);
        const user = userPrompt(prompt);
        const n = workflow.length;
        const split: LlmTurnEnds =
          options.singleTurn?.(user) || n < 2
            ? { turns: [{ prompt: user, last_call: n - 1, followup: 'All done.' }] }
            : {
                turns: [
                  { prompt: user, last_call: Math.ceil(n / 2) - 1, followup: 'Here is what I found.' },
                  { prompt: 'Thanks, now carry on with the rest.', last_call: n - 1, followup: 'Done.' },
                ],
              };
        return { json: split };
      }
      default:
        return { status: 400, message: 'responder: unknown stage' };
    }
  };
  return { respond, args, batchFor };
}
