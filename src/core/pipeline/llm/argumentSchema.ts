/**
 * A tool's `inputSchema` as the response schema of its arguments (and an `outputSchema` as that
 * of its mock outputs), within the rules both
 * structured-output modes take (`llm/schemaRules.ts`), and the way back to the arguments the tool
 * expects. What the shared subset can say is said (property names, types, enums, bounds, item
 * counts); an optional parameter becomes "the value or null" (strict mode wants every property
 * required) and a null is dropped on the way back; a free-form object is a list of `{key, value}`
 * entries; a union of objects is told apart by its property names; what it still cannot say (a
 * deep or huge schema, a mixed union) travels as a JSON string, parsed on the way back. What
 * the subset has no keyword for (pattern, format, lengths, exclusive bounds, multipleOf, the
 * parameter's description, examples and default) is said in the slot's `description`, in short
 * words (argument schemas only; mock output schemas stay as they were). The arguments are then
 * repaired and validated against the real `inputSchema` (`checks/repairCall.ts`,
 * `validateCall`), which is the authority on everything the subset left out.
 */
import { isRecord } from '../../util/isRecord';
import { setOwn } from '../../util/ownKeys';

type Json = Record<string, unknown>;

/** A response schema for a value and how to turn the reply's value back into the tool's. */
export interface ArgumentSchema {
  schema: Json;
  decode: (value: unknown) => unknown;
}

/** Object levels below the arguments object before a value travels as a JSON string (the whole request stays within strict mode's 10). */
const MAX_OBJECT_DEPTH = 4;
/** Most properties one tool's arguments may spell out; beyond, the rest travel as JSON strings. */
const MAX_TOOL_PROPERTIES = 300;

const identity = (v: unknown): unknown => v;

/** A string holding JSON, parsed back; a string that is not JSON is kept as it is (validation, or the reader, names it). */
export function decodeJsonString(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}

/** A value the subset cannot describe: a JSON string, parsed back (kept as the string when it is not JSON, so validation names it). */
function asJsonString(what: string): ArgumentSchema {
  return {
    schema: { type: 'string', description: `${what} as JSON encoded in a string.` },
    decode: decodeJsonString,
  };
}

/** Whether a converted value travels as a JSON string. */
function isJsonString(part: ArgumentSchema): boolean {
  return part.decode === decodeJsonString;
}

interface Walk {
  root: Json;
  properties: number;
  /** Whether each value's description states what the subset cannot (argument schemas; not mock outputs). */
  describe: boolean;
}

/** Longest part of a parameter's own description carried into its slot. */
const MAX_DESCRIPTION = 160;
/** Longest example or default carried into a slot's description. */
const MAX_EXAMPLE = 60;

const clip = (text: string, most: number): string => (text.length > most ? `${text.slice(0, most - 1).trimEnd()}…` : text);
const sentence = (text: string): string => (/[.!?…]$/.test(text) ? text : `${text}.`);
const shown = (v: unknown): string => clip(typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)), MAX_EXAMPLE);

/**
 * What a node says that the shared subset has no keyword for, in short plain words for the
 * slot's `description` ("Must match the regular expression ^\\d+[hdw]$. Format: uuid. Example:
 * 24h."): the parameter's own description, then the constraints that apply to the slot's JSON
 * type, then an example and the default. Empty when there is nothing to say.
 */
export function constraintWords(node: Json, type: unknown, own = true): string {
  const words: string[] = [];
  const num = (k: string): number | undefined => (typeof node[k] === 'number' ? node[k] : undefined);
  if (own && typeof node.description === 'string' && node.description.trim())
    words.push(sentence(clip(node.description.trim().replace(/\s+/g, ' '), MAX_DESCRIPTION)));
  if (type === 'string') {
    if (typeof node.pattern === 'string') words.push(`Must match the regular expression ${node.pattern}.`);
    if (typeof node.format === 'string') words.push(`Format: ${node.format}.`);
    const min = num('minLength');
    const max = num('maxLength');
    if (min !== undefined && max !== undefined) words.push(`${min} to ${max} characters.`);
    else if (min !== undefined) words.push(`At least ${min} characters.`);
    else if (max !== undefined) words.push(`At most ${max} characters.`);
  }
  if (type === 'number' || type === 'integer') {
    // Draft-04 states exclusive bounds as booleans beside minimum/maximum.
    const above = num('exclusiveMinimum') ?? (node.exclusiveMinimum === true ? num('minimum') : undefined);
    const below = num('exclusiveMaximum') ?? (node.exclusiveMaximum === true ? num('maximum') : undefined);
    if (above !== undefined) words.push(`Greater than ${above}.`);
    if (below !== undefined) words.push(`Less than ${below}.`);
    if (num('multipleOf') !== undefined) words.push(`A multiple of ${num('multipleOf')}.`);
  }
  if (type === 'array' && node.uniqueItems === true) words.push('No item twice.');
  if (own) {
    const examples = Array.isArray(node.examples) ? node.examples.slice(0, 2) : 'example' in node ? [node.example] : [];
    if (examples.length) words.push(`${examples.length > 1 ? 'Examples' : 'Example'}: ${examples.map(shown).join(', ')}.`);
    if ('default' in node && node.default !== null && node.default !== undefined) words.push(`Default: ${shown(node.default)}.`);
  }
  return words.join(' ');
}

/** The converted schema with the node's unsaid constraints added to its description (when the walk describes). */
function described(walk: Walk, node: Json, result: ArgumentSchema, own: boolean): ArgumentSchema {
  if (!walk.describe) return result;
  const union = Array.isArray(result.schema.anyOf);
  // A union's branches carry their own constraints; the union itself the parameter's words.
  const words = union ? (own ? constraintWords(node, undefined) : '') : constraintWords(node, result.schema.type, own);
  if (!words) return result;
  const before = typeof result.schema.description === 'string' ? `${result.schema.description} ` : '';
  return { schema: { ...result.schema, description: `${before}${words}` }, decode: result.decode };
}

function resolve(walk: Walk, node: Json, seen: number): Json | undefined {
  if (typeof node.$ref !== 'string') return node;
  if (seen > 8) return undefined;
  const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(node.$ref);
  const target = m ? (walk.root[m[1]!] as Json | undefined)?.[m[2]!] : undefined;
  return isRecord(target) ? resolve(walk, target, seen + 1) : undefined;
}

function scalar(values: readonly unknown[]): 'string' | 'number' | undefined {
  if (values.length && values.every((v) => typeof v === 'string')) return 'string';
  if (values.length && values.every((v) => typeof v === 'number')) return 'number';
  return undefined;
}

/** The JSON type a converted schema's values have (numbers and integers alike); undefined for a union. */
function kindOfSchema(schema: Json): string | undefined {
  if (typeof schema.type !== 'string') return undefined;
  return schema.type === 'integer' ? 'number' : schema.type;
}

/** The JSON type of a value, in the same terms. */
function kindOfValue(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v;
}

/**
 * `within` holds the nodes entered since the last object level: union branches and array items
 * stay at one depth, so a `$ref` cycle through them (`a: anyOf[{$ref: a}, string]`) would recurse
 * without end; met again, such a node travels as a JSON string. Cycles through object levels end
 * at `MAX_OBJECT_DEPTH`.
 */
function convert(walk: Walk, raw: unknown, depth: number, within: ReadonlySet<Json> = new Set(), own = true): ArgumentSchema {
  if (!isRecord(raw)) return asJsonString('The value');
  const node = resolve(walk, raw, 0);
  if (!node || within.has(node)) return asJsonString('The value');
  // A `$ref` with its own description (`{"$ref": …, "description": "The page"}`) keeps that description.
  const words = node !== raw && typeof raw.description === 'string' ? { ...node, description: raw.description } : node;
  return described(walk, words, convertNode(walk, node, depth, new Set(within).add(node)), own);
}

function convertNode(walk: Walk, node: Json, depth: number, inner: ReadonlySet<Json>): ArgumentSchema {
  if (Array.isArray(node.enum)) {
    const t = scalar(node.enum);
    return t ? { schema: { type: t, enum: [...new Set(node.enum)] }, decode: identity } : asJsonString('One of the allowed values');
  }
  if ('const' in node) {
    const t = scalar([node.const]);
    return t ? { schema: { type: t, enum: [node.const] }, decode: identity } : asJsonString('The fixed value');
  }
  const union = (Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined) as unknown[] | undefined;
  const types = Array.isArray(node.type) ? (node.type as unknown[]) : typeof node.type === 'string' ? [node.type] : [];
  if (union || types.length > 1) {
    // A union is spelled out only when its branches need no decoding (else the branch of a value would be ambiguous).
    const branches = union ?? types.map((t) => ({ ...node, type: t }));
    // Branches made from a type list share the node's own words: said once, on the union.
    const parts = branches.map((b) => convert(walk, b, depth, inner, union !== undefined));
    if (parts.every((p) => p.decode === identity)) return { schema: { anyOf: parts.map((p) => p.schema) }, decode: identity };
    // Branches of different JSON types are told apart by the value's type; objects by their property names
    // (the schema makes every property present).
    const kinds = parts.map((p) => kindOfSchema(p.schema));
    const keys = parts.map((p) => (p.schema.type === 'object' && isRecord(p.schema.properties) ? Object.keys(p.schema.properties).sort().join('\u0000') : ''));
    const tags = kinds.map((k, i) => (k === 'object' ? `object:${keys[i]}` : k));
    if (kinds.every((k) => k !== undefined) && new Set(tags).size === tags.length) {
      return {
        schema: { anyOf: parts.map((p) => p.schema) },
        decode: (v) => {
          const kind = kindOfValue(v);
          const tag =
            kind === 'object'
              ? `object:${Object.keys(v as Json)
                  .sort()
                  .join('\u0000')}`
              : kind;
          const k = tags.indexOf(tag);
          return k >= 0 ? parts[k]!.decode(v) : v;
        },
      };
    }
    // Branches the value cannot tell apart: the first one alone (any of its values is valid for the
    // union) rather than a JSON string, which a model may fill with text that is not JSON.
    const first = parts.find((p) => p.schema.type !== 'null');
    return first && !isJsonString(first) ? first : asJsonString('The value');
  }
  const type = types[0] ?? (isRecord(node.properties) ? 'object' : node.items !== undefined ? 'array' : undefined);
  switch (type) {
    case 'string':
    case 'boolean':
    case 'null':
      return { schema: { type }, decode: identity };
    case 'number':
    case 'integer': {
      const schema: Json = { type };
      if (typeof node.minimum === 'number') schema.minimum = node.minimum;
      if (typeof node.maximum === 'number') schema.maximum = node.maximum;
      return { schema, decode: identity };
    }
    case 'array': {
      if (!isRecord(node.items)) return asJsonString('The list');
      const item = convert(walk, node.items, depth, inner);
      const schema: Json = { type: 'array', items: item.schema };
      if (typeof node.minItems === 'number') schema.minItems = node.minItems;
      if (typeof node.maxItems === 'number' && node.maxItems >= ((schema.minItems as number | undefined) ?? 0)) schema.maxItems = node.maxItems;
      return { schema, decode: item.decode === identity ? identity : (v) => (Array.isArray(v) ? v.map(item.decode) : v) };
    }
    case 'object':
      return objectSchema(walk, node, depth);
    default:
      return asJsonString('The value');
  }
}

function objectSchema(walk: Walk, node: Json, depth: number): ArgumentSchema {
  const props = isRecord(node.properties) ? node.properties : {};
  const names = Object.keys(props);
  if (!names.length && node.additionalProperties !== false && depth < MAX_OBJECT_DEPTH) return mapSchema(walk, node, depth);
  if (!names.length || depth >= MAX_OBJECT_DEPTH || walk.properties + names.length > MAX_TOOL_PROPERTIES) return asJsonString('The object');
  walk.properties += names.length;
  const required = new Set(Array.isArray(node.required) ? node.required.filter((r): r is string => typeof r === 'string') : []);
  const parts = new Map<string, ArgumentSchema>();
  const properties: Json = {};
  for (const name of names) {
    const part = convert(walk, props[name], depth + 1);
    parts.set(name, part);
    // Strict mode wants every property present: an optional one may be null, which means "left out".
    setOwn(properties, name, required.has(name) ? part.schema : { anyOf: [{ type: 'null' }, part.schema] });
  }
  return {
    schema: { type: 'object', properties, required: names, additionalProperties: false },
    decode: (v) => {
      if (!isRecord(v)) return v;
      const out: Json = {};
      for (const [k, x] of Object.entries(v)) {
        const part = parts.get(k);
        if (x === null && part && !required.has(k)) continue;
        setOwn(out, k, part ? part.decode(x) : x); // a parameter named `__proto__` stays an argument
      }
      return out;
    },
  };
}

/** The description of a free-form object's entry list (readers of a converted schema tell it from a real list by it). */
export const MAP_ENTRIES = 'The entries of the object, one per property name.';

/**
 * A free-form object (a map of names to values): strict mode cannot leave property names open, so
 * it is asked for as a list of `{key, value}` entries and turned back into the object.
 */
function mapSchema(walk: Walk, node: Json, depth: number): ArgumentSchema {
  const value = isRecord(node.additionalProperties) ? convert(walk, node.additionalProperties, depth + 1) : asJsonString('The value');
  const schema: Json = {
    type: 'array',
    description: MAP_ENTRIES,
    items: { type: 'object', properties: { key: { type: 'string' }, value: value.schema }, required: ['key', 'value'], additionalProperties: false },
  };
  if (typeof node.minProperties === 'number') schema.minItems = node.minProperties;
  return {
    schema,
    decode: (v) =>
      Array.isArray(v)
        ? Object.fromEntries(v.filter((e): e is Json => isRecord(e) && typeof e.key === 'string').map((e) => [e.key as string, value.decode(e.value)]))
        : v,
  };
}

/** The response schema of any value a JSON Schema describes (a tool's output) and its decoder. */
export function valueSchema(schema: unknown): ArgumentSchema {
  const root = isRecord(schema) ? schema : {};
  return convert({ root, properties: 0, describe: false }, root, 0);
}

/** The response schema of a tool's arguments and its decoder (see the module doc). */
export function argumentSchema(inputSchema: unknown): ArgumentSchema {
  const root = isRecord(inputSchema) ? inputSchema : {};
  const walk: Walk = { root, properties: 0, describe: true };
  const props = isRecord(root.properties) ? root.properties : {};
  // No parameters: an empty closed object (strict mode accepts it; the model has nothing to choose).
  if (!Object.keys(props).length) return { schema: { type: 'object', properties: {}, required: [], additionalProperties: false }, decode: () => ({}) };
  return objectSchema(walk, { ...root, type: 'object' }, 0);
}
