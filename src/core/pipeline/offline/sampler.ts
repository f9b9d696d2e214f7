/**
 * Values that satisfy a JSON Schema and look real. Handles what the fixture corpus uses:
 * `$ref` into `$defs`/`definitions`, `allOf` (merged), `anyOf`/`oneOf` (one branch, preferring
 * non-null), `type` arrays, `const`/`enum`, `default`, string formats (date, date-time, time,
 * email, uri, uuid, hostname, ipv4/6, duration, byte…), `minLength`/`maxLength`, simple
 * `pattern`s, numeric bounds (inclusive, exclusive, draft-04 boolean exclusives, `multipleOf`),
 * nested objects and arrays (`items`, tuple `items`/`prefixItems`, `minItems`/`maxItems`,
 * `uniqueItems`), free-form maps (`additionalProperties`). The whole call is still validated by
 * ajv afterwards; a sample that does not pass is retried with other choices.
 *
 * Sizes are bounded (see `core/bounds.ts`): a schema that *requires* a longer string, a longer
 * array or more values than the limits throws a {@link SampleLimitError}, and its tool is skipped
 * with that reason, rather than generated for minutes or given a value that breaks the schema.
 */
import type { Faker } from '@faker-js/faker';
import { MAX_SAMPLE_DEPTH, MAX_SAMPLE_ITEMS, MAX_SAMPLE_MAGNITUDE, MAX_SAMPLE_STRING, MAX_SAMPLE_VALUES } from '../../bounds';
import { fullFormats } from 'ajv-formats/dist/formats';
import { nameWords, singular } from '../../checks/integrity';
import { deref, typeList, type SchemaNode } from '../../checks/jsonSchemaUtil';
import { sampleFromPattern } from './regexSample';
import type { Rng } from './rng';
import { alnum, countsThings, hex, realisticNumber, realisticString, sentence, type Theme } from './values';
import { isRecord } from '../../util/isRecord';
import { compileLinear } from '../../util/linearRegex';
import { setOwn } from '../../util/ownKeys';

/** Everything sampling needs besides the schema. */
export interface SampleContext {
  /** Root schema, for `$ref`s. */
  root: unknown;
  rng: Rng;
  faker: Faker;
  theme: Theme;
  /** Entity of the tool (`call`), for id prefixes and names. */
  toolEntity?: string;
  /** The tool works on local files (so `path` is absolute, not repo-relative). */
  fileContext?: boolean;
  /** The tool works inside a code repository (so `path` is repo-relative). */
  repoContext?: boolean;
  /** The tool lists or searches (its `path` is a folder). */
  listing?: boolean;
  /**
   * How many optional properties to fill: at the top level, and below it. Outputs use generous
   * budgets (responses are full), arguments small ones (people fill what they need).
   */
  optionalTop: number;
  optionalNested: number;
  /** Items per array when the schema leaves it open. */
  arrayItems: [number, number];
  /** Use `default`s when present (makes calls look typical). */
  preferDefaults?: boolean;
  /** The tool's description: it may say which top-level parameters exclude each other. */
  toolDescription?: string;
  /** Values sampled so far for this context (set on first use; bounded by `MAX_SAMPLE_VALUES`). */
  work?: { values: number };
}

/** A schema requires a value beyond the sampler's limits; the message is the reason its tool is skipped. */
export class SampleLimitError extends Error {
  override readonly name = 'SampleLimitError';
}

/** Names of optional parameters we avoid filling: pagination cursors, deprecated or debug switches. */
const SKIP_OPTIONAL = /cursor|page_?token|next_?page|continuation|^(after|before|debug|verbose|dry_?run|force|raw)$/i;

type FormatDef = RegExp | ((s: string) => boolean) | { validate: RegExp | ((s: string) => boolean) } | boolean;

/** Whether a string satisfies a known format (unknown formats always pass, as ajv treats them). */
export function formatOk(format: string, value: string): boolean {
  const def = (fullFormats as Record<string, FormatDef | undefined>)[format];
  if (def === undefined || typeof def === 'boolean') return true;
  const v = def instanceof RegExp || typeof def === 'function' ? def : def.validate;
  return v instanceof RegExp ? v.test(value) : v(value);
}

function isoDateTime(faker: Faker): string {
  return faker.date
    .between({ from: '2026-01-01T00:00:00Z', to: '2026-09-30T00:00:00Z' })
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z');
}

/** A value for a string format, or undefined for formats we leave to other rules. */
function formatValue(format: string, ctx: SampleContext, name: string): string | undefined {
  const { faker, rng, theme } = ctx;
  switch (format) {
    case 'date':
      return isoDateTime(faker).slice(0, 10);
    case 'date-time':
    case 'iso-date-time':
      return isoDateTime(faker);
    case 'time':
    case 'iso-time':
      return `${String(rng.int(8, 18)).padStart(2, '0')}:${rng.pick(['00', '15', '30', '45'])}:00Z`;
    case 'duration':
      return rng.pick(['PT15M', 'PT1H', 'P1D', 'P7D']);
    case 'email':
    case 'idn-email':
      return `${theme.user}@${theme.domain}`;
    case 'uri':
    case 'url':
    case 'iri':
      return realisticString({ name: /url|uri|link/i.test(name) ? name : 'url', description: '' }, faker, rng, theme);
    case 'uri-reference':
    case 'iri-reference':
      return `/${theme.project}/docs/${theme.topic}`;
    case 'uri-template':
      return `https://api.${theme.domain}/v1/{resource}/{id}`;
    case 'uuid':
      return faker.string.uuid();
    case 'hostname':
    case 'idn-hostname':
      return `api.${theme.domain}`;
    case 'ipv4':
      return `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
    case 'ipv6':
      return `fd00::${hex(rng, 4)}:${hex(rng, 4)}`;
    case 'byte':
      return Buffer.from(`${theme.topic} ${rng.int(1, 999)}`).toString('base64');
    case 'regex':
      return '^[a-z]+-\\d+$';
    case 'json-pointer':
      return `/${theme.topic}/0/name`;
    case 'relative-json-pointer':
      return '1/name';
    case 'int32':
    case 'int64':
      return String(rng.int(1, 5000));
    case 'float':
    case 'double':
      return String(rng.int(1, 999) / 10);
    case 'json':
      return JSON.stringify({ status: 'active', topic: theme.topic });
    case 'binary':
      return Buffer.from(`${theme.topic}-${rng.int(1, 99)}`).toString('base64');
    default:
      return undefined;
  }
}

/** Cuts or pads a string to the schema's length bounds, in linear time (lengths in code points). */
function fitLength(s: string, schema: SchemaNode, rng: Rng): string {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  let chars = [...s];
  if (chars.length > max) chars = [...chars.slice(0, Math.max(max, 0)).join('').trimEnd()];
  const parts = [chars.join('')];
  // Padding comes in pieces of 16 (the same random draws as ever), joined once at the end.
  for (let n = chars.length; n < min;) {
    const k = Math.min(min - n, 16);
    parts.push(alnum(rng, k));
    n += k;
  }
  return parts.join('');
}

function sampleString(schema: SchemaNode, ctx: SampleContext, name: string): string {
  const { rng } = ctx;
  if (typeof schema.minLength === 'number' && schema.minLength > MAX_SAMPLE_STRING) {
    throw new SampleLimitError(`schema requires a ${schema.minLength}-character string (limit ${MAX_SAMPLE_STRING})`);
  }
  const format = typeof schema.format === 'string' ? schema.format : undefined;
  const pattern = typeof schema.pattern === 'string' ? schema.pattern : undefined;
  // Linear-time matching (a spec's pattern is untrusted); a pattern that engine refuses is not
  // checked by validation either (`checks/validateCall.ts`), so it is not checked here.
  const compiled = pattern ? compileLinear(pattern) : undefined;
  const re = compiled?.ok ? compiled.regex : undefined;
  const ok = (s: string): boolean =>
    (!format || formatOk(format, s)) &&
    (!re || re.test(s)) &&
    [...s].length >= ((schema.minLength as number) ?? 0) &&
    [...s].length <= ((schema.maxLength as number) ?? Infinity);
  const candidates: (string | undefined)[] = [];
  if (format) candidates.push(formatValue(format, ctx, name));
  const description = typeof schema.description === 'string' ? schema.description : '';
  candidates.push(
    realisticString(
      { name, description, toolEntity: ctx.toolEntity, fileContext: ctx.fileContext, repoContext: ctx.repoContext, listing: ctx.listing },
      ctx.faker,
      rng,
      ctx.theme,
    ),
  );
  if (pattern) for (let k = 0; k < 4; k++) candidates.push(sampleFromPattern(pattern, rng));
  for (const c of candidates) {
    if (c === undefined) continue;
    if (ok(c)) return c;
    const fitted = fitLength(c, schema, rng);
    if (ok(fitted)) return fitted;
  }
  // Plain fallbacks: words for prose-like names, tokens otherwise.
  const fallbacks = [`${ctx.theme.topic}-${nameWords(name).map(singular).join('-') || 'value'}`, sentence(ctx.faker, rng, ctx.theme), alnum(rng, 8), 'a', '1'];
  for (const c of fallbacks) {
    const fitted = fitLength(c, schema, rng);
    if (ok(fitted)) return fitted;
  }
  return fitLength(candidates.find((c) => c !== undefined) ?? fallbacks[0] ?? 'value', schema, rng);
}

function sampleNumber(schema: SchemaNode, ctx: SampleContext, name: string, integerType: boolean): number {
  const description = typeof schema.description === 'string' ? schema.description : '';
  // A `number` that counts things (`head`, `max_results`) gets whole values too, where its bounds hold one.
  const integer = integerType || (countsThings({ name, description }) && holdsInteger(schema));
  let lo = typeof schema.minimum === 'number' ? schema.minimum : -Infinity;
  let hi = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
  const step = integer ? 1 : 0.5;
  if (typeof schema.exclusiveMinimum === 'number') lo = Math.max(lo, schema.exclusiveMinimum + (integer ? 1 : step / 10));
  if (typeof schema.exclusiveMaximum === 'number') hi = Math.min(hi, schema.exclusiveMaximum - (integer ? 1 : step / 10));
  if (schema.exclusiveMinimum === true) lo += integer ? 1 : step / 10;
  if (schema.exclusiveMaximum === true) hi -= integer ? 1 : step / 10;
  if (integer) {
    lo = Math.ceil(lo);
    hi = Math.floor(hi);
  }
  let v = realisticNumber({ name, description }, ctx.rng);
  if (v === undefined) {
    // Bounds wider than any real value (the safe-integer range) say "any number": pick near 1.
    const soft = (x: number): number => (Math.abs(x) > MAX_SAMPLE_MAGNITUDE ? Math.sign(x) * Infinity : x);
    const [softLo, softHi] = [soft(lo), soft(hi)];
    const a = Number.isFinite(softLo) ? softLo : Number.isFinite(softHi) ? Math.min(softHi, 1) - 99 : 1;
    const b = Number.isFinite(softHi) ? Math.min(softHi, a + 99) : a + 99;
    v = integer ? ctx.rng.int(Math.max(a, Math.min(b, 1)), b) : Math.round((a + ctx.rng.next() * (b - a)) * 100) / 100;
  }
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  if (integer) v = Math.round(v);
  const mult = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : undefined;
  if (mult) {
    let m = Math.round(v / mult) * mult;
    if (m < lo) m += mult;
    if (m > hi) m -= mult;
    v = Number(m.toFixed(10));
  }
  return v;
}

/**
 * Whether whole numbers are safe for a numeric schema: its bounds hold one and `multipleOf`, if
 * any, is whole (a `number` in [0.1, 0.5], or in steps of 0.25, keeps fractions).
 */
function holdsInteger(schema: SchemaNode): boolean {
  if (typeof schema.multipleOf === 'number' && !Number.isInteger(schema.multipleOf)) return false;
  const min = typeof schema.minimum === 'number' ? schema.minimum : -Infinity;
  const max = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
  const lo = Math.max(
    schema.exclusiveMinimum === true ? Math.floor(min) + 1 : Math.ceil(min),
    typeof schema.exclusiveMinimum === 'number' ? Math.floor(schema.exclusiveMinimum) + 1 : -Infinity,
  );
  const hi = Math.min(
    schema.exclusiveMaximum === true ? Math.ceil(max) - 1 : Math.floor(max),
    typeof schema.exclusiveMaximum === 'number' ? Math.ceil(schema.exclusiveMaximum) - 1 : Infinity,
  );
  return lo <= hi;
}

/**
 * Merges `allOf` parts into one schema (properties and required united, first type wins). Each part
 * merged counts as a value of the call's work (`ctx.work`): nested `allOf`s that name shared
 * `$defs` several times multiply, and the budget ends that like any other oversized sample.
 */
function mergeAllOf(schema: SchemaNode, ctx: SampleContext, depth: number): SchemaNode {
  if (!Array.isArray(schema.allOf) || depth > 6) return schema;
  const { allOf, ...rest } = schema;
  const root = ctx.root;
  const work = (ctx.work ??= { values: 0 });
  let merged: SchemaNode = { ...rest };
  for (const part of allOf as unknown[]) {
    if (++work.values > MAX_SAMPLE_VALUES)
      throw new SampleLimitError(`schema requires more than ${MAX_SAMPLE_VALUES} values in one call (limit ${MAX_SAMPLE_VALUES})`);
    const p = mergeAllOf(deref(part, root), ctx, depth + 1);
    const properties = { ...(isRecord(merged.properties) ? merged.properties : {}), ...(isRecord(p.properties) ? p.properties : {}) };
    const required = [...new Set([...(Array.isArray(merged.required) ? merged.required : []), ...(Array.isArray(p.required) ? p.required : [])])];
    merged = { ...p, ...merged, properties, required };
  }
  return merged;
}

function pickBranch(alts: unknown[], ctx: SampleContext, root: unknown): SchemaNode {
  const nodes = alts.map((a) => deref(a, root));
  const nonNull = nodes.filter((n) => !(typeList(n).length === 1 && typeList(n)[0] === 'null') && n.const !== null);
  const pool = nonNull.length ? nonNull : nodes;
  // Mostly the first branch (usually the main form), sometimes another for variety.
  if (pool.length > 1 && ctx.rng.chance(0.35)) return pool[ctx.rng.int(1, pool.length - 1)] ?? {};
  return pool[0] ?? {};
}

function chooseType(schema: SchemaNode): string | undefined {
  const types = typeList(schema);
  if (types.length) {
    const nonNull = types.filter((t) => t !== 'null');
    if (!nonNull.length) return 'null';
    // Prefer the structured or first-listed type; `["boolean","string"]` means boolean-ish.
    return nonNull[0];
  }
  if (isRecord(schema.properties) || schema.additionalProperties !== undefined || Array.isArray(schema.required)) return 'object';
  if (schema.items !== undefined || schema.prefixItems !== undefined) return 'array';
  if (typeof schema.minimum === 'number' || typeof schema.maximum === 'number') return 'number';
  if (typeof schema.pattern === 'string' || typeof schema.format === 'string' || typeof schema.minLength === 'number') return 'string';
  return undefined;
}

/** Sets an own property, even one named `__proto__` (the one home is `util/ownKeys.ts`). */
export const setKey = setOwn;

/** A free-form map for an object that declares no properties (filters, labels, headers). */
function freeForm(name: string, valueSchema: SchemaNode | undefined, ctx: SampleContext, depth: number): Record<string, unknown> {
  const words = nameWords(name).map(singular);
  const has = (...w: string[]): boolean => w.some((x) => words.includes(x));
  let pairs: [string, unknown][];
  if (has('filter', 'query', 'match', 'where', 'selector')) pairs = [['status', 'active']];
  else if (has('header')) pairs = [['Content-Type', 'application/json']];
  else if (has('label', 'tag', 'env', 'environment', 'annotation'))
    pairs = [
      ['app', ctx.theme.project],
      ['team', ctx.theme.topic],
    ];
  else if (has('sort', 'order')) pairs = [['created_at', -1]];
  else if (has('projection', 'field'))
    pairs = [
      ['name', 1],
      ['status', 1],
    ];
  else if (
    has('metadata', 'meta', 'extra', 'option', 'setting', 'config', 'param', 'properties', 'property', 'data', 'body', 'payload', 'document', 'record', 'value')
  )
    pairs = [
      ['name', `${ctx.theme.company} ${ctx.theme.topic}`],
      ['status', 'active'],
    ];
  else pairs = [['name', ctx.theme.project]];
  if (valueSchema && Object.keys(valueSchema).length) {
    return Object.fromEntries(pairs.map(([k]) => [k, sampleSchema(valueSchema, ctx, k, depth + 1)]));
  }
  return Object.fromEntries(pairs);
}

/** Words by which a description says two parameters do not go together. */
const EXCLUSIVE =
  /\b(cannot|can't|can ?not|must not|may not|should not|do not|don't)\b[^.]*\b(combined?|together|with|both)\b|mutually exclusive|\binstead of\b|\beither\b|\bnot both\b|\bonly one of\b|\balternative(ly)?\b|\bor (the )?['"`]/i;

/**
 * Which parameters exclude which: two parameters named in one sentence that says they do not
 * go together (in either one's description, or the tool's), e.g. "Use the 'head' parameter to
 * read the first N lines, or the 'tail' parameter to read the last N lines". A parameter's own
 * description names itself implicitly ("Cannot be used with `tail`").
 */
export function exclusions(keys: readonly string[], describe: (key: string) => string, toolDescription?: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  if (keys.length < 2) return out;
  const patterns = keys.map((k) => [k, new RegExp(`(^|[^A-Za-z0-9_])${k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9_])`)] as const);
  const scan = (text: string, self: string | undefined): void => {
    for (const sentence of text.split(/(?<=[.!?;])\s+/)) {
      if (!EXCLUSIVE.test(sentence)) continue;
      const named = patterns.filter(([k, re]) => k === self || re.test(sentence)).map(([k]) => k);
      for (const a of named) for (const b of named) if (a !== b) out.set(a, (out.get(a) ?? new Set()).add(b));
    }
  };
  for (const k of keys) scan(describe(k), k);
  if (toolDescription) scan(toolDescription, undefined);
  return out;
}

function sampleObject(schema: SchemaNode, ctx: SampleContext, name: string, depth: number): Record<string, unknown> {
  const props = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set((Array.isArray(schema.required) ? schema.required : []).filter((r): r is string => typeof r === 'string'));
  const keys = Object.keys(props);
  const budget = depth === 0 ? ctx.optionalTop : ctx.optionalNested;
  const optional = keys.filter((k) => !required.has(k) && !SKIP_OPTIONAL.test(k) && !/deprecated/i.test(String(deref(props[k], ctx.root).description ?? '')));
  // Large budgets (outputs) fill that many; small ones (arguments) a random few, often none.
  // A call of a tool with nothing required still says something (a query, a path), and a small
  // optional object is filled whole ({latitude, longitude}, not {latitude}).
  let count = budget >= 8 ? Math.min(optional.length, budget) : budget <= 0 ? 0 : ctx.rng.int(0, budget);
  if (budget > 0 && required.size === 0 && optional.length > 0) count = Math.max(count, depth > 0 && optional.length <= 4 ? optional.length : 1);
  const PRIMARY = /^(q|query|sql|search|text|prompt|path|url|name|title|id|key|message|content|location)$/i;
  const ordered = [...ctx.rng.shuffle(optional.filter((k) => PRIMARY.test(k))), ...ctx.rng.shuffle(optional.filter((k) => !PRIMARY.test(k)))];
  const pool = required.size === 0 && count > 0 ? ordered : ctx.rng.shuffle(optional);
  // Never two parameters the descriptions call alternatives (`head` or `tail`), nor one that excludes a required one.
  const excludes =
    budget < 8
      ? exclusions(keys, (k) => String(deref(props[k], ctx.root).description ?? ''), depth === 0 ? ctx.toolDescription : undefined)
      : new Map<string, Set<string>>();
  const chosen = new Set<string>();
  for (const k of pool) {
    if (chosen.size >= count) break;
    const rivals = excludes.get(k);
    if (rivals && [...rivals].some((r) => chosen.has(r) || required.has(r))) continue;
    chosen.add(k);
  }
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    if (!required.has(k) && !chosen.has(k)) continue;
    setKey(out, k, sampleSchema(props[k], ctx, k, depth + 1));
  }
  // Required names the schema lists but does not describe still need a value.
  for (const r of required)
    if (!Object.hasOwn(out, r)) setKey(out, r, realisticString({ name: r, description: '' }, ctx.faker, ctx.rng, ctx.theme) ?? ctx.theme.topic);
  const ap = schema.additionalProperties;
  const min = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
  // An object that declares no properties gets free-form entries only where extra keys are
  // explicitly welcome, or below the top level when `properties` is absent altogether; the
  // arguments object itself never invents parameters.
  const open = ap === true || isRecord(ap) || (depth > 0 && ap === undefined && !isRecord(schema.properties));
  if (keys.length === 0 && open) {
    Object.assign(out, freeForm(name, isRecord(ap) ? deref(ap, ctx.root) : undefined, ctx, depth));
  }
  // Top up to minProperties from declared optional ones.
  for (const k of keys) {
    if (Object.keys(out).length >= min) break;
    if (!Object.hasOwn(out, k)) setKey(out, k, sampleSchema(props[k], ctx, k, depth + 1));
  }
  return out;
}

function sampleArray(schema: SchemaNode, ctx: SampleContext, name: string, depth: number): unknown[] {
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Infinity;
  if (minItems > MAX_SAMPLE_ITEMS) throw new SampleLimitError(`schema requires an array of ${minItems} items (limit ${MAX_SAMPLE_ITEMS})`);
  const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
  if (tuple) {
    const out = tuple.map((s) => sampleSchema(s, ctx, name, depth + 1));
    return out.slice(0, Math.min(out.length, maxItems));
  }
  const [lo, hi] = ctx.arrayItems;
  let n = ctx.rng.int(Math.max(lo, minItems), Math.max(Math.min(hi, maxItems), Math.max(lo, minItems)));
  if (depth > 5) n = minItems;
  n = Math.min(n, maxItems);
  const items = schema.items === undefined || schema.items === true ? {} : schema.items;
  const out: unknown[] = [];
  const seen = new Set<string>();
  for (let tries = 0; out.length < n && tries < n * 4 + 4; tries++) {
    const v = sampleSchema(items, ctx, name, depth + 1);
    const key = JSON.stringify(v);
    // Repeated values look fake (and break uniqueItems): retry, and accept a repeat only when the schema allows and retries ran out.
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(v);
  }
  // Could not find distinct values: fewer items rather than a list of repeats (down to minItems).
  while (out.length < minItems) out.push(sampleSchema(items, ctx, name, depth + 1));
  distinguishNames(out, deref(items, ctx.root), ctx.root);
  return out;
}

/**
 * Items of a listing that share a name/title/key string get numbered (`x`, `x-2`, `x-3`), when
 * that property is a plain string (no format, pattern, enum or length limit to break).
 */
function distinguishNames(items: unknown[], itemSchema: SchemaNode, root: unknown): void {
  const props = isRecord(itemSchema.properties) ? itemSchema.properties : undefined;
  const objects = items.filter(isRecord);
  if (objects.length < 2) return;
  for (const key of Object.keys(objects[0] ?? {})) {
    if (!/name|title|key|label|path|^id$/i.test(key)) continue;
    const ps = props?.[key] !== undefined ? deref(props[key], root) : {};
    if (ps.format !== undefined || ps.pattern !== undefined || ps.enum !== undefined || ps.const !== undefined || ps.maxLength !== undefined) continue;
    const seen = new Map<string, number>();
    for (const o of objects) {
      const v = o[key];
      if (typeof v !== 'string') continue;
      const count = (seen.get(v) ?? 0) + 1;
      seen.set(v, count);
      if (count > 1) setKey(o, key, `${v}-${count}`);
    }
  }
}

/** A value for a (sub)schema; `name` is the property it is for (drives realism). */
export function sampleSchema(raw: unknown, ctx: SampleContext, name: string, depth = 0): unknown {
  const work = (ctx.work ??= { values: 0 });
  if (++work.values > MAX_SAMPLE_VALUES)
    throw new SampleLimitError(`schema requires more than ${MAX_SAMPLE_VALUES} values in one call (limit ${MAX_SAMPLE_VALUES})`);
  if (raw === false) return null;
  let schema = mergeAllOf(deref(raw, ctx.root), ctx, 0);
  if (depth > MAX_SAMPLE_DEPTH) return null;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) {
    const pool = schema.enum.filter((v) => v !== null);
    if (
      ctx.preferDefaults &&
      schema.default !== undefined &&
      schema.enum.some((v) => JSON.stringify(v) === JSON.stringify(schema.default)) &&
      ctx.rng.chance(0.4)
    )
      return schema.default;
    return ctx.rng.pick(pool.length ? pool : schema.enum);
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const alts = schema[key];
    if (Array.isArray(alts) && alts.length) {
      const { [key]: _omit, ...rest } = schema;
      void _omit;
      const branch = pickBranch(alts, ctx, ctx.root);
      schema = mergeAllOf(
        {
          ...rest,
          ...branch,
          properties: { ...(isRecord(rest.properties) ? rest.properties : {}), ...(isRecord(branch.properties) ? branch.properties : {}) },
          required: [...new Set([...(Array.isArray(rest.required) ? rest.required : []), ...(Array.isArray(branch.required) ? branch.required : [])])],
        },
        ctx,
        0,
      );
      if (!isRecord(rest.properties) && !isRecord(branch.properties)) delete schema.properties;
      if (!(Array.isArray(rest.required) && rest.required.length) && !(Array.isArray(branch.required) && branch.required.length)) delete schema.required;
      return sampleSchema(schema, ctx, name, depth);
    }
  }
  if (ctx.preferDefaults && schema.default !== undefined && schema.default !== null && ctx.rng.chance(0.5)) return schema.default;
  const type = chooseType(schema);
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return typeof schema.default === 'boolean' ? (ctx.rng.chance(0.7) ? schema.default : !schema.default) : ctx.rng.chance(0.5);
    case 'integer':
      return sampleNumber(schema, ctx, name, true);
    case 'number':
      return sampleNumber(schema, ctx, name, false);
    case 'string':
      return sampleString(schema, ctx, name);
    case 'array':
      return sampleArray(schema, ctx, name, depth);
    case 'object':
      return sampleObject(schema, ctx, name, depth);
    default:
      // Untyped: a string is the most common intent ({} items, descriptions only).
      return (
        realisticString(
          {
            name,
            description: typeof schema.description === 'string' ? schema.description : '',
            toolEntity: ctx.toolEntity,
            fileContext: ctx.fileContext,
            repoContext: ctx.repoContext,
            listing: ctx.listing,
          },
          ctx.faker,
          ctx.rng,
          ctx.theme,
        ) ?? `${ctx.theme.topic}-${alnum(ctx.rng, 4)}`
      );
  }
}
