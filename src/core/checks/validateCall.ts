/**
 * Exact checks of a tool call against the spec: does the tool exist, and do the arguments
 * validate against its `inputSchema` (ajv + ajv-formats, compiled once per schema object and
 * cached). Every generated call passes through here before it is accepted, and the judge uses
 * the same results as its deterministic part.
 *
 * Real schemas are messy, so:
 * - `$schema` 2020-12 and 2019-09 compile with the matching ajv dialect; draft-07, no
 *   `$schema`, and any other value (draft-04, draft-06, typos) compile as draft-07 with the
 *   unknown `$schema` stripped, draft-04's boolean exclusive bounds upgraded to numbers;
 * - unknown keywords and formats are ignored (`strict: false`), as the servers' own SDKs do;
 * - a schema ajv cannot compile (broken refs, invalid keywords) yields a clear `other` error on
 *   every call of that tool, never a throw;
 * - every `pattern` and `patternProperties` key is matched by a linear-time engine
 *   (`util/linearRegex.ts`), never by V8's backtracking one: `^(a+)+$` against a long value must
 *   not hang a run. A valid pattern that engine cannot evaluate (a backreference, a lookaround,
 *   a repeat count over 1000) is not checked: values pass that one constraint (as a
 *   `patternProperties` key it covers every property name), the compiled
 *   schema lists it in `unchecked` (the judge writes it in its notes) and `inspect` reports it as
 *   `pattern-unsupported`. Checking it with V8 instead would bring the hang back, and failing
 *   every value would reject correct calls. A pattern that is not a valid regular expression at
 *   all still makes the schema fail to compile, as before.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { CallError, CallErrorKind } from '../harness/format';
import type { Spec, Tool } from '../spec/model';
import { canonicalJson } from '../harness/hash';
import { dialectOf, objectShape, type Dialect, type ObjectShape } from './jsonSchemaUtil';
import { isRecord } from '../util/isRecord';
import { compileLinear } from '../util/linearRegex';
import { protoAsPattern } from './protoProperties';

/** Options of `validateCall`. */
export interface ValidateCallOptions {
  /**
   * Treat top-level arguments the schema does not declare as `unknown-param` errors even when
   * the schema omits `additionalProperties` (JSON Schema's default would allow them). On by
   * default: an agent that invents a parameter is wrong even if the server would ignore it.
   * A schema that explicitly sets `additionalProperties` (true or a schema) is respected.
   */
  rejectUnknownParams?: boolean;
}

/** The result of a check: `ok` exactly when `errors` is empty. */
export interface CallCheck {
  ok: boolean;
  errors: CallError[];
}

/** A compiled schema, with the constraints it leaves unchecked; or why it does not compile. */
type Compiled = { ok: true; validate: ValidateFunction; unchecked: string[] } | { ok: false; message: string };

/** Patterns refused by the linear-time engine while one schema compiles (ajv compiles synchronously). */
let refusedPatterns: string[] | undefined;

/**
 * ajv's regular-expression engine (`code.regExp`): linear-time matching. ajv keys compiled
 * patterns by `toString()`, so each object names its pattern. A pattern the engine refuses
 * passes every value and is recorded (see the module comment).
 */
const linearRegExp = Object.assign(
  (pattern: string): { test(s: string): boolean; toString(): string } => {
    const compiled = compileLinear(pattern);
    if (compiled.ok) return { test: (s: string) => compiled.regex.test(s), toString: () => `linear:${pattern}` };
    refusedPatterns?.push(`pattern ${JSON.stringify(pattern)} is not checked: ${compiled.reason}`);
    return { test: () => true, toString: () => `unchecked:${pattern}` };
  },
  { code: 'linearRegExp' }, // named for ajv's standalone code, which this project does not emit
);

const instances = new Map<string, Ajv>();

/** One ajv per dialect (and per whether it checks schemas against the meta-schema itself), created on first use. */
function ajvFor(dialect: Dialect, validateSchema = true): Ajv {
  const key = `${dialect}${validateSchema ? '' : ':prechecked'}`;
  let ajv = instances.get(key);
  if (!ajv) {
    const options = {
      allErrors: true,
      strict: false,
      logger: false as const,
      addUsedSchema: false,
      validateFormats: true,
      validateSchema,
      code: { regExp: linearRegExp },
    };
    ajv = dialect === '2020-12' ? new Ajv2020(options) : dialect === '2019-09' ? new Ajv2019(options) : new Ajv(options);
    addFormats(ajv);
    instances.set(key, ajv);
  }
  return ajv;
}

/**
 * Enums longer than this are checked for repeated values here, in one pass: draft-07's
 * meta-schema says `uniqueItems` for `enum`, which ajv checks by comparing every pair of values
 * (a 100,000-value enum took a minute to compile).
 */
const LONG_ENUM = 256;

/** The `enum` arrays longer than {@link LONG_ENUM} anywhere in a schema. */
function longEnums(node: unknown, found: Set<unknown[]>, depth = 0): Set<unknown[]> {
  if (depth > 64) return found;
  if (Array.isArray(node)) for (const n of node) longEnums(n, found, depth + 1);
  else if (isRecord(node))
    for (const [k, v] of Object.entries(node)) {
      if (k === 'enum' && Array.isArray(v) && v.length > LONG_ENUM) found.add(v);
      else longEnums(v, found, depth + 1);
    }
  return found;
}

/** The schema with each long enum cut to its first value (what the meta-schema checks of it besides uniqueness). */
function withShortEnums(node: unknown, long: ReadonlySet<unknown[]>, depth = 0): unknown {
  if (depth > 64) return node;
  if (Array.isArray(node)) return long.has(node) ? node.slice(0, 1) : node.map((n) => withShortEnums(n, long, depth + 1));
  if (!isRecord(node)) return node;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withShortEnums(v, long, depth + 1)]));
}

/** A repeated value of an enum (as ajv's `uniqueItems` sees equality: same JSON, object keys in any order), or undefined. */
function repeatedValue(values: readonly unknown[]): { first: number; again: number } | undefined {
  const seen = new Map<string, number>();
  for (const [i, v] of values.entries()) {
    const key = v !== null && typeof v === 'object' ? canonicalJson(v) : `${typeof v}:${String(v)}`;
    const first = seen.get(key);
    if (first !== undefined) return { first, again: i };
    seen.set(key, i);
  }
  return undefined;
}

/**
 * Compiles a schema holding long enums: their uniqueness is checked here, the rest of the
 * schema against the meta-schema as ajv would (with the long enums cut short), then the schema
 * is compiled by an ajv that does not check it again. Throws as `ajv.compile` does.
 */
function compileWithLongEnums(copy: Record<string, unknown>, dialect: Dialect, long: ReadonlySet<unknown[]>): ValidateFunction {
  for (const values of long) {
    const repeated = repeatedValue(values);
    if (repeated) throw new Error(`schema is invalid: enum must NOT have duplicate items (items ## ${repeated.again} and ${repeated.first} are identical)`);
  }
  const checker = ajvFor(dialect);
  if (!checker.validateSchema(withShortEnums(copy, long) as Record<string, unknown>))
    throw new Error(`schema is invalid: ${checker.errorsText(checker.errors)}`);
  const ajv = ajvFor(dialect, false);
  try {
    return ajv.compile(copy);
  } finally {
    ajv.removeSchema(copy);
  }
}

/**
 * Draft-04's boolean `exclusiveMinimum`/`exclusiveMaximum` (`{minimum: 0, exclusiveMinimum:
 * true}`) become the numeric form of draft-06+ (`{exclusiveMinimum: 0}`). No later draft uses
 * booleans there, so this is safe for every schema; returns the input when nothing changes.
 */
export function upgradeDraft4(node: unknown, depth = 0): unknown {
  if (depth > 64) return node;
  if (Array.isArray(node)) {
    let changed = false;
    const out = node.map((n) => {
      const u = upgradeDraft4(n, depth + 1);
      if (u !== n) changed = true;
      return u;
    });
    return changed ? out : node;
  }
  if (!isRecord(node)) return node;
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(node)) {
    const u = upgradeDraft4(v, depth + 1);
    if (u !== v) (out ??= { ...node })[k] = u;
  }
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    const f = (out ?? node)[flag];
    if (typeof f !== 'boolean') continue;
    out ??= { ...node };
    const b = out[bound];
    delete out[flag];
    if (f && typeof b === 'number') {
      out[flag] = b;
      delete out[bound];
    }
  }
  return out ?? node;
}

// Keyed by the schema object itself: a spec's tools keep their schema objects, so each is compiled once.
const compiledCache = new WeakMap<object, Compiled>();

/**
 * Compiles a JSON Schema (cached per schema object). Never throws: a broken schema comes back as
 * `{ok: false, message}`.
 */
export function compileSchema(schema: unknown): Compiled {
  if (schema === true || schema === undefined) schema = {};
  if (schema === false) schema = { not: {} };
  if (!isRecord(schema)) return { ok: false, message: `schema is ${Array.isArray(schema) ? 'an array' : typeof schema}, not an object` };
  const cached = compiledCache.get(schema);
  if (cached) return cached;
  const { dialect, known } = dialectOf(schema);
  // A copy, so stripping `$schema`/`$id` never touches the spec; `$id` is dropped because servers
  // reuse ids across tools and ajv would refuse the second one.
  const copy: Record<string, unknown> = { ...(protoAsPattern(upgradeDraft4(schema)) as Record<string, unknown>) };
  if (!known) delete copy.$schema;
  delete copy.$id;
  delete copy.id;
  let result: Compiled;
  const ajv = ajvFor(dialect);
  const unchecked: string[] = [];
  refusedPatterns = unchecked;
  const long = longEnums(copy, new Set());
  try {
    result = { ok: true, validate: long.size ? compileWithLongEnums(copy, dialect, long) : ajv.compile(copy), unchecked };
  } catch (e) {
    result = { ok: false, message: (e as Error).message.split('\n')[0] ?? 'unknown error' };
  } finally {
    refusedPatterns = undefined;
    ajv.removeSchema(copy); // the compiled function keeps what it needs; don't let ajv's cache grow per run
  }
  compiledCache.set(schema, result);
  return result;
}

const toolIndexCache = new WeakMap<Spec, Map<string, Tool>>();

/** Looks a tool up by exact name (first of duplicates wins). */
export function findTool(spec: Spec, name: string): Tool | undefined {
  let index = toolIndexCache.get(spec);
  if (!index) {
    index = new Map();
    for (const t of spec.tools) if (!index.has(t.name)) index.set(t.name, t);
    toolIndexCache.set(spec, index);
  }
  return index.get(name);
}

/** Levenshtein distance (two rows). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  let cur = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length] ?? 0;
}

const squash = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * The closest name among candidates, when one is close enough to be a likely typo or variant:
 * compared case- and separator-insensitively (`listChannels` ~ `list_channels`), accepted when
 * the edit distance is at most 40% of the longer name (min 2) or one name contains the other.
 */
export function nearestName(name: string, candidates: readonly string[]): string | undefined {
  const target = squash(name);
  if (!target) return undefined;
  let best: { name: string; score: number } | undefined;
  for (const c of candidates) {
    const s = squash(c);
    const d = editDistance(target, s);
    const contains = s.length >= 3 && target.length >= 3 && (s.includes(target) || target.includes(s));
    const limit = Math.max(2, Math.floor(Math.max(s.length, target.length) * 0.4));
    if (d > limit && !contains) continue;
    // Containment counts as a near miss, scored by the length difference.
    const score = contains ? Math.min(d, Math.abs(s.length - target.length)) : d;
    if (!best || score < best.score) best = { name: c, score };
  }
  return best?.name;
}

const pathOf = (instancePath: string, extra?: string): string => {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  return parts.join('.');
};

function kindOf(e: ErrorObject): CallErrorKind {
  switch (e.keyword) {
    case 'required':
      return 'missing-required';
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return 'unknown-param';
    case 'type':
      return 'type';
    case 'enum':
    case 'const':
      return 'enum';
    case 'format':
      return 'format';
    default:
      return 'other';
  }
}

function errorParam(e: ErrorObject): string | undefined {
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'required' && typeof p.missingProperty === 'string') return pathOf(e.instancePath, p.missingProperty);
  if (e.keyword === 'additionalProperties' && typeof p.additionalProperty === 'string') return pathOf(e.instancePath, p.additionalProperty);
  if (e.keyword === 'unevaluatedProperties' && typeof p.unevaluatedProperty === 'string') return pathOf(e.instancePath, p.unevaluatedProperty);
  const path = pathOf(e.instancePath);
  return path || undefined;
}

function describe(e: ErrorObject, param: string | undefined): string {
  const where = param ? `'${param}'` : 'arguments';
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `missing required parameter '${param}'`;
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return `unknown parameter '${param}'`;
    case 'enum':
      return `${where} must be one of ${JSON.stringify(p.allowedValues)}`;
    case 'const':
      return `${where} must be ${JSON.stringify(p.allowedValue)}`;
    case 'format':
      return `${where} must be a valid ${String(p.format)}`;
    default:
      return `${where} ${e.message ?? 'is invalid'}`;
  }
}

/**
 * Maps ajv errors to ours. The branch errors of a failed `anyOf`/`oneOf` are folded into one
 * error at the alternative (all-type branches become one `type` error: "must be string or
 * null"), so a wrong value yields one message, not one per branch.
 */
function mapErrors(raw: readonly ErrorObject[]): CallError[] {
  const alternatives = raw.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const consumed = new Set<ErrorObject>();
  const out: CallError[] = [];
  // Innermost alternatives first so nested ones fold before their parents.
  for (const alt of [...alternatives].sort((a, b) => b.schemaPath.length - a.schemaPath.length)) {
    if (consumed.has(alt)) continue;
    const branches = raw.filter((e) => e !== alt && !consumed.has(e) && e.schemaPath.startsWith(`${alt.schemaPath}/`));
    branches.forEach((b) => consumed.add(b));
    consumed.add(alt);
    const param = errorParam(alt);
    const where = param ? `'${param}'` : 'arguments';
    const sameSpot = branches.every((b) => b.instancePath === alt.instancePath);
    if (branches.length && sameSpot && branches.every((b) => b.keyword === 'type')) {
      const types = [...new Set(branches.map((b) => String((b.params as { type?: unknown }).type)))];
      out.push({ kind: 'type', param, message: `${where} must be ${types.join(' or ')}` });
    } else if (branches.length && sameSpot && branches.every((b) => b.keyword === 'enum' || b.keyword === 'const' || b.keyword === 'type')) {
      out.push({ kind: 'enum', param, message: `${where} is not one of the allowed values` });
    } else {
      const detail = branches
        .slice(0, 3)
        .map((b) => describe(b, errorParam(b)))
        .join('; ');
      const msg =
        alt.keyword === 'oneOf' && branches.length === 0
          ? 'matches more than one alternative (oneOf)'
          : `matches none of the allowed alternatives (${alt.keyword})`;
      out.push({ kind: 'other', param, message: `${where} ${msg}${detail ? `: ${detail}` : ''}` });
    }
  }
  for (const e of raw) {
    if (consumed.has(e)) continue;
    const param = errorParam(e);
    out.push({ kind: kindOf(e), param, message: describe(e, param) });
  }
  const seen = new Set<string>();
  return out.filter((e) => {
    const key = `${e.kind}|${e.param ?? ''}|${e.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Stands in for a missing inputSchema (one object, so its compilation is cached too). */
const NO_SCHEMA: Record<string, unknown> = {};

/**
 * The constraints of a tool's input schema that are not checked (patterns the linear-time engine
 * cannot evaluate), one sentence each; empty when everything is checked or the schema does not compile.
 */
export function uncheckedConstraints(tool: Tool): string[] {
  const compiled = compileSchema(tool.inputSchema ?? NO_SCHEMA);
  return compiled.ok ? compiled.unchecked : [];
}

const shapeCache = new WeakMap<object, ObjectShape>();

/** The declared top-level parameters of a schema, cached per schema object. */
function shapeOf(schema: unknown): ObjectShape {
  if (!isRecord(schema)) return objectShape(schema, schema);
  let shape = shapeCache.get(schema);
  if (!shape) {
    shape = objectShape(schema, schema);
    shapeCache.set(schema, shape);
  }
  return shape;
}

/** Validates arguments against one tool's inputSchema. */
export function validateToolArguments(tool: Tool, args: unknown, options: ValidateCallOptions = {}): CallCheck {
  const errors: CallError[] = [];
  if (!isRecord(args)) {
    errors.push({ kind: 'type', message: `arguments must be an object, got ${Array.isArray(args) ? 'an array' : args === null ? 'null' : typeof args}` });
    return { ok: false, errors };
  }
  const schema = tool.inputSchema ?? NO_SCHEMA;
  const compiled = compileSchema(schema);
  if (!compiled.ok) {
    errors.push({ kind: 'other', message: `the inputSchema of '${tool.name}' cannot be compiled: ${compiled.message}` });
    return { ok: false, errors };
  }
  if (!compiled.validate(args)) errors.push(...mapErrors(compiled.validate.errors ?? []));
  const shape = shapeOf(schema);
  // ajv cannot see a missing `__proto__` (every object inherits one): see checks/protoProperties.ts.
  if (shape.required.includes('__proto__') && !Object.hasOwn(args, '__proto__'))
    errors.push({ kind: 'missing-required', param: '__proto__', message: "missing required parameter '__proto__'" });
  if (options.rejectUnknownParams ?? true) {
    if (shape.additional === 'absent') {
      const declared = Object.keys(shape.properties);
      // Same engine and the same rule as ajv's (see the module comment): a refused pattern covers every key.
      const patterns = shape.patterns.map((p) => {
        const compiled = compileLinear(p);
        return compiled.ok ? compiled.regex : { test: () => true };
      });
      for (const key of Object.keys(args)) {
        if (Object.hasOwn(shape.properties, key) || patterns.some((r) => r.test(key))) continue;
        const near = nearestName(key, declared);
        const hint = near ? `; did you mean '${near}'?` : declared.length ? '' : ` ('${tool.name}' declares no parameters)`;
        errors.push({ kind: 'unknown-param', param: key, message: `unknown parameter '${key}'${hint}` });
      }
    } else {
      // ajv reported these already; add the suggestion.
      for (const e of errors) {
        if (e.kind === 'unknown-param' && e.param && !e.param.includes('.')) {
          const near = nearestName(e.param, Object.keys(shape.properties));
          if (near) e.message += `; did you mean '${near}'?`;
        }
      }
    }
  }
  return { ok: errors.length === 0, errors };
}

/**
 * Validates one call against the spec: the tool must exist (an unknown name suggests the nearest
 * real one) and its arguments must validate against the tool's inputSchema.
 */
export function validateCall(spec: Spec, call: { name: string; arguments: unknown }, options: ValidateCallOptions = {}): CallCheck {
  const tool = findTool(spec, call.name);
  if (!tool) {
    const near = nearestName(
      call.name,
      spec.tools.map((t) => t.name),
    );
    return {
      ok: false,
      errors: [{ kind: 'unknown-tool', message: `unknown tool '${call.name}'${near ? `; did you mean '${near}'?` : ''}` }],
    };
  }
  return validateToolArguments(tool, call.arguments, options);
}

/**
 * Validates a mock output against the tool's `outputSchema`. Undefined when the tool declares
 * none (nothing to check). MCP structured content is an object, as the schema says.
 */
export function validateOutput(tool: Tool, output: unknown): { ok: boolean; errors: string[] } | undefined {
  if (tool.outputSchema === undefined || tool.outputSchema === null) return undefined;
  const compiled = compileSchema(tool.outputSchema);
  if (!compiled.ok) return { ok: false, errors: [`the outputSchema of '${tool.name}' cannot be compiled: ${compiled.message}`] };
  if (compiled.validate(output)) return { ok: true, errors: [] };
  return { ok: false, errors: mapErrors(compiled.validate.errors ?? []).map((e) => e.message) };
}
