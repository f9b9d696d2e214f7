/**
 * JSON Schema for providers' structured-output modes, derived from zod, and the per-provider
 * adjustments each backend needs.
 */
import { z } from 'zod';

type Json = Record<string, unknown>;

const memo = new WeakMap<z.ZodType, Json>();

/**
 * The JSON Schema (draft 2020-12) of what the model must produce. `io: 'input'` because the
 * model writes what zod will parse (fields with defaults may be left out); parts JSON Schema
 * cannot express (transforms, refinements) become `{}` and are enforced by zod afterwards.
 */
export function zodToJsonSchema(schema: z.ZodType): Json {
  let out = memo.get(schema);
  if (!out) {
    out = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
    delete out.$schema;
    memo.set(schema, out);
  }
  return out;
}

/** Keywords Gemini's `responseJsonSchema` documents as supported; the rest are dropped. */
const GEMINI_KEYWORDS = new Set([
  '$id',
  '$defs',
  '$ref',
  '$anchor',
  'type',
  'format',
  'title',
  'description',
  'enum',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'anyOf',
  'oneOf',
  'properties',
  'additionalProperties',
  'required',
  'propertyOrdering',
]);

/**
 * Gemini's subset of JSON Schema: unsupported keywords dropped (zod still enforces them and
 * their violations are re-asked), `const` turned into a one-value `enum`, and nothing but `$`
 * keywords beside a `$ref` (which the API rejects).
 */
export function toGeminiSchema(schema: Json): Json {
  return geminiNode(schema) as Json;
}

function geminiNode(node: unknown): unknown {
  if (typeof node === 'boolean') return node;
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return {};
  const src = node as Json;
  const out: Json = {};
  if (typeof src.$ref === 'string') {
    for (const [k, v] of Object.entries(src)) {
      if (k === '$defs') out[k] = mapValues(v, geminiNode);
      else if (k.startsWith('$')) out[k] = v;
    }
    return out;
  }
  for (const [k, v] of Object.entries(src)) {
    if (k === 'const') {
      if (src.enum === undefined && (typeof v === 'string' || typeof v === 'number')) out.enum = [v];
      continue;
    }
    if (!GEMINI_KEYWORDS.has(k)) continue;
    if (k === 'properties' || k === '$defs') out[k] = mapValues(v, geminiNode);
    else if (k === 'items' || k === 'additionalProperties') out[k] = geminiNode(v);
    else if (k === 'anyOf' || k === 'oneOf' || k === 'prefixItems') out[k] = Array.isArray(v) ? v.map(geminiNode) : v;
    else if (k === 'enum') {
      // Gemini takes enums of strings and numbers only; a mixed enum is left to zod.
      if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) out[k] = v;
    } else out[k] = v;
  }
  return out;
}

function mapValues(v: unknown, f: (x: unknown) => unknown): unknown {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  return Object.fromEntries(Object.entries(v as Json).map(([k, x]) => [k, f(x)]));
}

/**
 * Whether OpenAI's `strict: true` would accept the schema: every object closed
 * (`additionalProperties: false`) with all its properties required. zod's `z.strictObject` with
 * no optional fields yields this; anything else is sent with `strict: false` (still guiding
 * servers such as vLLM or Ollama, which constrain decoding to the schema either way).
 */
export function isStrictCompatible(schema: unknown): boolean {
  const visit = (node: unknown): boolean => {
    if (node === null || typeof node !== 'object') return true;
    if (Array.isArray(node)) return node.every(visit);
    const n = node as Json;
    const isObject = n.type === 'object' || (Array.isArray(n.type) && n.type.includes('object')) || n.properties !== undefined;
    if (isObject) {
      if (n.additionalProperties !== false) return false;
      const props = Object.keys((n.properties as Json | undefined) ?? {});
      const required = Array.isArray(n.required) ? n.required : [];
      if (!props.every((p) => required.includes(p))) return false;
    }
    return Object.entries(n).every(([k, v]) => (k === 'properties' || k === '$defs' ? Object.values(v as Json).every(visit) : visit(v)));
  };
  return visit(schema);
}
