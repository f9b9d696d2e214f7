/**
 * Native function calling: the model is offered tools and answers with calls (Gemini function
 * declarations, OpenAI-compatible `tools`/`tool_calls`), for the agent loop that runs agents
 * against harnesses. Providers implement {@link ToolCallingProvider}; the loop drives them.
 */
import type { Usage } from './types';

/** A tool the model may call. */
export interface ToolDeclaration {
  name: string;
  description?: string;
  /** JSON Schema of the arguments (an object schema). */
  parameters: Record<string, unknown>;
}

/** A call the model made. */
export interface ToolCall {
  /** The provider's call id (made up where the wire has none), echoed in the result. */
  id: string;
  name: string;
  arguments: unknown;
}

/** One message of a tool-calling conversation. */
export type ToolMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; calls: readonly ToolCall[] }
  | { role: 'tool'; results: readonly { callId: string; name: string; output: unknown; isError: boolean }[] };

export interface ToolTurnRequest {
  system?: string;
  messages: readonly ToolMessage[];
  tools: readonly ToolDeclaration[];
  temperature: number;
  signal: AbortSignal;
}

/** The model's turn: text, calls, or both. */
export interface ToolTurnReply {
  text: string;
  calls: ToolCall[];
  usage?: Usage;
  finishReason?: string;
}

/** A provider that can offer tools to the model. */
export interface ToolCallingProvider {
  readonly id: string;
  readonly model: string;
  /**
   * Where requests go (a base URL), when the provider has one: part of the agent's reply-cache
   * key, so two servers serving the same model name are never each other's cache.
   */
  readonly endpoint?: string;
  /**
   * The tool schemas it takes: `function-subset` (the default: the subset every function-calling
   * backend accepts, see `toFunctionParameters`) or `json-schema` (the input schema as the server
   * lists it, `default` and all: OpenAI-compatible endpoints).
   */
  readonly toolSchemas?: 'function-subset' | 'json-schema';
  completeWithTools(request: ToolTurnRequest): Promise<ToolTurnReply>;
}

type Json = Record<string, unknown>;

/** Keywords every function-calling backend takes; the rest are dropped (with a warning). */
const FUNCTION_SCHEMA_KEYWORDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'enum',
  'items',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'anyOf',
  'properties',
  'required',
  'nullable',
]);

/** How deep `$ref`s are inlined before a recursive schema is cut to `{type: object}`. */
const MAX_REF_DEPTH = 6;

/**
 * A tool's input schema in the subset function declarations accept everywhere (Gemini rejects
 * `$ref`/`$defs`, `additionalProperties`, `default`, `oneOf`, `const`, type arrays): references
 * inlined, `oneOf` as `anyOf`, `const` as a one-value `enum`, `["x","null"]` as `x` + `nullable`,
 * `allOf` of objects merged, everything else dropped. `warnings` says what was changed, once per
 * kind, so a user knows what the agent was not told.
 */
export function toFunctionParameters(schema: unknown): { parameters: Json; warnings: string[] } {
  const warnings = new Set<string>();
  const root = schema !== null && typeof schema === 'object' && !Array.isArray(schema) ? (schema as Json) : {};
  const defs = { ...((root.definitions as Json | undefined) ?? {}), ...((root.$defs as Json | undefined) ?? {}) };

  const resolveRef = (ref: string): unknown => {
    const m = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref);
    if (!m) return undefined;
    return defs[decodeURIComponent(m[1]!).replace(/~1/g, '/').replace(/~0/g, '~')];
  };

  const visit = (node: unknown, depth: number): Json => {
    if (node === true || node === undefined) return {};
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return {};
    let src = node as Json;
    if (typeof src.$ref === 'string') {
      const target = depth < MAX_REF_DEPTH ? resolveRef(src.$ref) : undefined;
      if (target === undefined) {
        warnings.add(depth < MAX_REF_DEPTH ? `unresolvable $ref ${src.$ref} replaced by an open object` : 'a recursive $ref was cut at depth 6');
        return { type: 'object' };
      }
      warnings.add('$ref inlined');
      const { $ref: _, ...rest } = src;
      src = { ...(target as Json), ...rest };
      depth++;
    }
    if (Array.isArray(src.allOf)) {
      warnings.add('allOf merged');
      const merged: Json = { ...src };
      delete merged.allOf;
      for (const part of src.allOf as unknown[]) {
        const p = visit(part, depth);
        merged.properties = { ...(merged.properties ?? {}), ...(p.properties ?? {}) };
        merged.required = [...new Set([...((merged.required as string[] | undefined) ?? []), ...((p.required as string[] | undefined) ?? [])])];
        if (p.type && !merged.type) merged.type = p.type;
      }
      src = merged;
    }
    const out: Json = {};
    let enumNote: string | undefined;
    for (const [k, v] of Object.entries(src)) {
      if (k === 'const') {
        if (src.enum === undefined) out.enum = [v];
        warnings.add('const as enum');
        continue;
      }
      if (k === 'oneOf') {
        if (Array.isArray(v)) out.anyOf = v.map((x) => visit(x, depth));
        warnings.add('oneOf as anyOf');
        continue;
      }
      if (k === 'type' && Array.isArray(v)) {
        const types = v.filter((t) => t !== 'null');
        if (types.length === 1) out.type = types[0];
        else if (types.length > 1) out.anyOf = types.map((t) => ({ type: t }));
        if (types.length !== v.length) out.nullable = true;
        warnings.add('type arrays as nullable/anyOf');
        continue;
      }
      if (!FUNCTION_SCHEMA_KEYWORDS.has(k)) {
        if (!['$schema', '$id', '$comment', '$defs', 'definitions'].includes(k)) warnings.add(`${k} dropped`);
        continue;
      }
      if (k === 'properties' && v !== null && typeof v === 'object')
        out.properties = Object.fromEntries(Object.entries(v as Json).map(([p, s]) => [p, visit(s, depth)]));
      else if (k === 'items') out.items = visit(Array.isArray(v) ? v[0] : v, depth);
      else if (k === 'anyOf' && Array.isArray(v)) out.anyOf = v.map((x) => visit(x, depth));
      else if (k === 'enum') {
        if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out.enum = v;
        else if (Array.isArray(v)) {
          // Function declarations take string enums only: the values go to the description.
          enumNote = `One of: ${v.map((x) => JSON.stringify(x)).join(', ')}.`;
          warnings.add('non-string enum moved to the description');
        }
      } else if (k === 'required') {
        if (Array.isArray(v)) out.required = v.filter((x) => typeof x === 'string');
      } else out[k] = v;
    }
    if (enumNote) out.description = typeof out.description === 'string' ? `${out.description} ${enumNote}` : enumNote;
    // A required name with no property is rejected by Gemini.
    if (Array.isArray(out.required) && out.properties) out.required = (out.required as string[]).filter((r) => r in (out.properties as Json));
    else if (Array.isArray(out.required) && !out.properties) delete out.required;
    return out;
  };
  const parameters = visit(root, 0);
  if (parameters.type === undefined) parameters.type = 'object';
  return { parameters, warnings: [...warnings] };
}

/**
 * A tool's input schema as a `json-schema` provider takes it: as listed, without `$schema`
 * (a dialect marker some endpoints reject), and an object schema at the top.
 */
export function toJsonSchemaParameters(schema: unknown): Json {
  const root = schema !== null && typeof schema === 'object' && !Array.isArray(schema) ? { ...(schema as Json) } : {};
  delete root.$schema;
  if (root.type === undefined) root.type = 'object';
  return root;
}

/** Whether a provider can offer tools (Gemini, OpenAI-compatible and the editor's VS Code language-model adapter can). */
export function isToolCallingProvider(p: object): p is ToolCallingProvider {
  return typeof (p as Partial<ToolCallingProvider>).completeWithTools === 'function';
}
