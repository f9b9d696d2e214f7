/**
 * An adversarial model: it answers every structured request with the smallest JSON value that the
 * response schema it was sent accepts, and nothing more — first enum value, `minItems` items,
 * `minimum` numbers, `"x"` padded to `minLength` — ignoring every instruction in the prompt. A
 * stage that relies on prose for what the schema does not say fails against it; the run must say so.
 */
import type { FakeReply, FakeRequest } from './fakeLlmServer';

type Json = Record<string, unknown>;

function resolveRef(root: Json, ref: string): unknown {
  const m = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref);
  const defs = { ...((root.definitions as Json | undefined) ?? {}), ...((root.$defs as Json | undefined) ?? {}) };
  return m ? defs[m[1]!] : undefined;
}

/** The smallest value `schema` accepts (within the subset structured output uses). */
export function minimalValue(schema: unknown, root: Json = schema as Json, depth = 0): unknown {
  if (schema === null || typeof schema !== 'object' || depth > 30) return null;
  const s = schema as Json;
  if (typeof s.$ref === 'string') return minimalValue(resolveRef(root, s.$ref), root, depth + 1);
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  if ('const' in s) return s.const;
  for (const k of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(s[k]) && (s[k] as unknown[]).length) return minimalValue((s[k] as unknown[])[0], root, depth + 1);
  }
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : (s.type as string | undefined);
  switch (type ?? (s.properties ? 'object' : s.items ? 'array' : undefined)) {
    case 'object': {
      const props = (s.properties as Json | undefined) ?? {};
      const required = Array.isArray(s.required) ? (s.required as string[]) : [];
      return Object.fromEntries(required.filter((k) => k in props).map((k) => [k, minimalValue(props[k], root, depth + 1)]));
    }
    case 'array':
      return Array.from({ length: typeof s.minItems === 'number' ? s.minItems : 0 }, () => minimalValue(s.items, root, depth + 1));
    case 'string':
      return 'x'.repeat(Math.max(1, typeof s.minLength === 'number' ? s.minLength : 1));
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 0;
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
