/**
 * Faults injected in front of a fake model's answers, as the Done-when lists them: 10%
 * of replies malformed JSON, 10% valid JSON that breaks the response schema, 10% answered 429
 * (Retry-After 0), and 10% each of three argument defects in one call of a reply that has calls
 * (an unknown tool name, arguments that are not an object, an undeclared parameter).
 *
 * The roll depends on the request's body and on how often that exact body arrived before, so a
 * retry or a re-ask gets a fresh roll while a whole run stays reproducible whatever the order of
 * arrival.
 */
import { createHash } from 'node:crypto';
import type { FakeReply, FakeRequest } from './fakeLlmServer';

/** Which fault a roll (0–99) gives: the first 60 are faults, 10 each. */
export const FAULTS = ['malformed-json', 'schema-violation', 'http-429', 'unknown-tool', 'arguments-not-object', 'unknown-parameter'] as const;
export type Fault = (typeof FAULTS)[number];

/** Wraps a model so that a share of its answers is faulty; `injected` counts what was injected. */
export function withFaults(inner: (req: FakeRequest) => FakeReply | Promise<FakeReply>): {
  respond: (req: FakeRequest) => Promise<FakeReply>;
  injected: Record<Fault, number>;
} {
  const seen = new Map<string, number>();
  const injected = Object.fromEntries(FAULTS.map((f) => [f, 0])) as Record<Fault, number>;
  const respond = async (req: FakeRequest): Promise<FakeReply> => {
    const n = seen.get(req.rawBody) ?? 0;
    seen.set(req.rawBody, n + 1);
    const roll = createHash('sha256').update(`${n}\u0000${req.rawBody}`).digest().readUInt16BE(0) % 100;
    const fault = FAULTS[Math.floor(roll / 10)];
    if (fault === 'malformed-json') {
      injected[fault]++;
      return { text: '{"not json' };
    }
    if (fault === 'schema-violation') {
      injected[fault]++;
      return { json: { unexpected: true } };
    }
    if (fault === 'http-429') {
      injected[fault]++;
      return { status: 429, retryAfter: 0, message: 'Resource has been exhausted (e.g. check quota).' };
    }
    const reply = await inner(req);
    if (fault !== undefined && 'json' in reply) {
      const broken = breakOneCall(structuredClone(reply.json), fault);
      if (broken) {
        injected[fault]++;
        return { ...reply, json: broken.value };
      }
    }
    return reply;
  };
  return { respond, injected };
}

/** The reply with one call (`{name, arguments, …}`) broken, or undefined when it has none. */
function breakOneCall(value: unknown, fault: Fault): { value: unknown } | undefined {
  let done = false;
  const visit = (v: unknown): void => {
    if (done || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach(visit);
    const o = v as Record<string, unknown>;
    if (typeof o.name === 'string' && 'arguments' in o) {
      if (fault === 'unknown-tool') o.name = `${o.name}_v2`;
      else if (fault === 'arguments-not-object') o.arguments = 'see above';
      else o.arguments = { ...(o.arguments as object), undeclared_parameter: 1 };
      done = true;
      return;
    }
    Object.values(o).forEach(visit);
  };
  visit(value);
  return done ? { value } : undefined;
}
