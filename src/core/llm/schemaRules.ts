/**
 * The subset of JSON Schema that both structured-output modes take: Gemini's
 * `responseJsonSchema` (its documented keywords; nothing but `$` keywords beside a `$ref`; enums
 * of strings or numbers) and OpenAI's `strict: true` `json_schema` (the root an object, every
 * object closed with `additionalProperties: false` and all of its properties required, optional
 * values as an `anyOf` with `{"type": "null"}`, limits on nesting, properties and enum values).
 * Request schemas the pipeline builds per request are written within it, and
 * {@link schemaRuleViolations} says where one is not (the tests run it on every generated
 * request schema).
 */

type Json = Record<string, unknown>;

/** Keywords both providers accept in a response schema. */
export const SHARED_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'description',
  'enum',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  '$ref',
  '$defs',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
]);

/** OpenAI strict mode's limits (its structured-output guide). */
export const STRICT_LIMITS = {
  /** Levels of object nesting. */
  maxDepth: 10,
  /** Object properties in the whole schema. */
  maxProperties: 5000,
  /** Enum values in the whole schema. */
  maxEnumValues: 1000,
} as const;

const TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

/** Where `schema` breaks the shared rules, as `<JSON pointer>: <what>` lines; empty when it keeps them. */
export function schemaRuleViolations(schema: unknown): string[] {
  const out: string[] = [];
  let properties = 0;
  let enumValues = 0;
  const root = schema as Json;
  if (root === null || typeof root !== 'object' || root.type !== 'object') out.push('/: the root must be an object schema (type "object")');

  const visit = (node: unknown, at: string, depth: number): void => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) {
      out.push(`${at}: not a schema object`);
      return;
    }
    const n = node as Json;
    for (const k of Object.keys(n)) if (!SHARED_SCHEMA_KEYWORDS.has(k)) out.push(`${at}: keyword "${k}" is not accepted by both providers`);
    if (typeof n.$ref === 'string') {
      if (!/^#\/\$defs\/[^/]+$/.test(n.$ref)) out.push(`${at}: $ref must point into #/$defs`);
      else if (!(root.$defs as Json | undefined)?.[n.$ref.slice('#/$defs/'.length)]) out.push(`${at}: $ref ${n.$ref} is not defined`);
      if (Object.keys(n).some((k) => !k.startsWith('$'))) out.push(`${at}: nothing but $ keywords may stand beside a $ref`);
      return;
    }
    if (n.$defs !== undefined) {
      if (at !== '') out.push(`${at}: $defs only at the root`);
      for (const [k, v] of Object.entries(n.$defs as Json)) visit(v, `${at}/$defs/${k}`, depth);
    }
    if (Array.isArray(n.anyOf)) {
      if (n.anyOf.length === 0) out.push(`${at}: empty anyOf`);
      n.anyOf.forEach((s, i) => visit(s, `${at}/anyOf/${i}`, depth));
      if (n.type !== undefined) out.push(`${at}: type beside anyOf`);
      return;
    }
    if (typeof n.type !== 'string' || !TYPES.has(n.type)) {
      out.push(`${at}: type must be one of ${[...TYPES].join(', ')} (a single string)`);
      return;
    }
    if (n.enum !== undefined) {
      if (!Array.isArray(n.enum) || n.enum.length === 0) out.push(`${at}: enum must be a non-empty array`);
      else {
        enumValues += n.enum.length;
        const want = n.type === 'string' ? 'string' : 'number';
        if (!n.enum.every((v) => typeof v === want)) out.push(`${at}: enum values must all be ${want}s, as its type`);
      }
    }
    if (n.type === 'object') {
      if (depth + 1 > STRICT_LIMITS.maxDepth) out.push(`${at}: nested deeper than ${STRICT_LIMITS.maxDepth} objects`);
      if (n.additionalProperties !== false) out.push(`${at}: an object must set additionalProperties: false`);
      const props = (n.properties as Json | undefined) ?? {};
      const required = Array.isArray(n.required) ? (n.required as unknown[]) : [];
      const names = Object.keys(props);
      properties += names.length;
      for (const p of names) if (!required.includes(p)) out.push(`${at}: property "${p}" must be required`);
      for (const r of required) if (typeof r !== 'string' || !(r in props)) out.push(`${at}: required "${String(r)}" is not a property`);
      for (const p of names) visit(props[p], `${at}/properties/${p}`, depth + 1);
    } else if (n.properties !== undefined || n.required !== undefined || n.additionalProperties !== undefined) {
      out.push(`${at}: object keywords on a ${n.type}`);
    }
    if (n.type === 'array') {
      if (n.items === undefined) out.push(`${at}: an array needs items`);
      else visit(n.items, `${at}/items`, depth);
      if (typeof n.minItems === 'number' && typeof n.maxItems === 'number' && n.minItems > n.maxItems) out.push(`${at}: minItems above maxItems`);
    } else if (n.items !== undefined || n.minItems !== undefined || n.maxItems !== undefined) {
      out.push(`${at}: array keywords on a ${n.type}`);
    }
    if ((n.minimum !== undefined || n.maximum !== undefined) && n.type !== 'number' && n.type !== 'integer') out.push(`${at}: bounds on a ${n.type}`);
  };
  if (root !== null && typeof root === 'object') visit(root, '', 0);
  if (properties > STRICT_LIMITS.maxProperties) out.push(`/: ${properties} properties (most ${STRICT_LIMITS.maxProperties})`);
  if (enumValues > STRICT_LIMITS.maxEnumValues) out.push(`/: ${enumValues} enum values (most ${STRICT_LIMITS.maxEnumValues})`);
  return out;
}
