/**
 * An adversarial model: it answers every structured request with the smallest JSON value that the
 * response schema it was sent accepts, and nothing more — first enum value, `minItems` items,
 * `minimum` numbers, `"x"` padded to `minLength` — ignoring every instruction in the prompt. A
 * stage that relies on prose for what the schema does not say fails against it; the run must say so.
 * Its free-choice twin ({@link schemaFreeModel}) picks enum members, array lengths and numbers
 * anywhere the schema allows (seeded), still reading no prose: the adversary as written.
 */
import { createHash } from 'node:crypto';
import type { FakeReply, FakeRequest } from './fakeLlmServer';

type Json = Record<string, unknown>;

function resolveRef(root: Json, ref: string): unknown {
  const m = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref);
  const defs = { ...((root.definitions as Json | undefined) ?? {}), ...((root.$defs as Json | undefined) ?? {}) };
  return m ? defs[m[1]!] : undefined;
}

/** How a value is chosen where the schema leaves a choice: index into `n` options (0 = the smallest). */
type Pick = (n: number) => number;
const first: Pick = () => 0;

/** The smallest value `schema` accepts (within the subset structured output uses). */
export function minimalValue(schema: unknown, root: Json = schema as Json, depth = 0): unknown {
  return valueOf(schema, root, depth, first);
}

/** A value `schema` accepts, each choice (enum member, branch, array length, number) made by `pick`. */
function valueOf(schema: unknown, root: Json, depth: number, pick: Pick): unknown {
  if (schema === null || typeof schema !== 'object' || depth > 30) return null;
  const s = schema as Json;
  if (typeof s.$ref === 'string') return valueOf(resolveRef(root, s.$ref), root, depth + 1, pick);
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[pick(s.enum.length)];
  if ('const' in s) return s.const;
  for (const k of ['anyOf', 'oneOf'] as const) {
    const options = s[k];
    if (Array.isArray(options) && options.length) return valueOf(options[pick(options.length)], root, depth + 1, pick);
  }
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : (s.type as string | undefined);
  switch (type ?? (s.properties ? 'object' : s.items ? 'array' : undefined)) {
    case 'object': {
      const props = (s.properties as Json | undefined) ?? {};
      const required = Array.isArray(s.required) ? (s.required as string[]) : [];
      return Object.fromEntries(required.filter((k) => k in props).map((k) => [k, valueOf(props[k], root, depth + 1, pick)]));
    }
    case 'array': {
      const min = typeof s.minItems === 'number' ? s.minItems : 0;
      // At most four more than the minimum: "anywhere the schema allows", kept to a reply's size.
      const max = typeof s.maxItems === 'number' ? s.maxItems : min + 4;
      return Array.from({ length: min + pick(max - min + 1) }, () => valueOf(s.items, root, depth + 1, pick));
    }
    case 'string':
      return 'x'.repeat(Math.max(1, typeof s.minLength === 'number' ? s.minLength : 1));
    case 'integer':
    case 'number': {
      const min = typeof s.minimum === 'number' ? s.minimum : 0;
      const max = typeof s.maximum === 'number' ? s.maximum : min + 10;
      return min + pick(Math.floor(max - min) + 1);
    }
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/** Answers with the minimal value of the request's response schema. */
export function schemaOnlyModel(req: FakeRequest): FakeReply {
  return { json: minimalValue(req.jsonSchema) };
}

/**
 * The free-choice adversary: every choice the schema leaves open is made at random, and nothing
 * from the prose. The choices are seeded by the request's content (and how often that content
 * came before), not by arrival order, so a run is repeatable under concurrency. Where the minimal
 * model always splits a conversation into one turn, this one sometimes splits it into several.
 */
export function schemaFreeModel(seed = 1): (req: FakeRequest) => FakeReply {
  const seen = new Map<string, number>();
  return (req) => {
    const content = JSON.stringify([req.system, req.messages, req.jsonSchema]);
    const repeat = seen.get(content) ?? 0;
    seen.set(content, repeat + 1);
    let state = createHash('sha256').update(`${seed}|${repeat}|${content}`).digest().readUInt32LE(0) || 1;
    // xorshift32: small and seedable, enough to spread the choices.
    const pick: Pick = (n) => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return n <= 1 ? 0 : (state >>> 0) % n;
    };
    return { json: valueOf(req.jsonSchema, req.jsonSchema as Json, 0, pick) };
  };
}
