/**
 * Schemas no value can satisfy, or none the offline sampler can build: `inspect` reports them
 * (each kind with its own code) and the generator skips such a tool with the reason instead of
 * trying, failing and writing nothing (issue 18, item 9).
 *
 * - **Ranges**: a lower bound above its upper bound (`minimum`/`maximum` and their exclusive
 *   forms, draft-04 boolean exclusives included, whole numbers for `integer`; `minLength`/
 *   `maxLength`, `minItems`/`maxItems`, `minProperties`/`maxProperties`, `minContains`/`maxContains`).
 * - **Values**: an empty `enum`; a `const`, or every `enum` member, of a type the node excludes.
 * - **Required depth**: how deep the smallest valid value must nest (a required property or a
 *   non-empty array one level down, an `anyOf`/`oneOf` its easiest branch, an `allOf` its
 *   hardest part, a `$ref` its target). A `$ref` cycle every branch of which is required has no
 *   finite value (infinite depth); a finite depth past {@link MAX_SAMPLE_DEPTH} is valid but
 *   beyond what the sampler builds.
 *
 * Every node is read once (shared `$defs` are not re-walked per path), and the depth is the least
 * fixed point of the rules above, found by relaxing all nodes in post-order until nothing changes.
 */
import { MAX_SAMPLE_DEPTH } from '../bounds';
import { isRecord } from '../util/isRecord';
import { resolvePointer } from './jsonSchemaUtil';

type Node = Record<string, unknown>;

/** One unsatisfiable keyword pair or value, at a JSON pointer inside the schema. */
export interface SchemaContradiction {
  kind: 'range' | 'empty-enum' | 'const-type';
  /** JSON pointer of the node inside the schema (`''` for the root). */
  pointer: string;
  /** What contradicts what, e.g. `minimum 10 > maximum 1`. */
  what: string;
}

const PAIRS = [
  ['minLength', 'maxLength'],
  ['minItems', 'maxItems'],
  ['minProperties', 'maxProperties'],
  ['minContains', 'maxContains'],
] as const;

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The contradiction between a node's numeric bounds, if any. */
function numericRange(n: Node): string | undefined {
  const min = num(n.minimum);
  const max = num(n.maximum);
  // Draft-04 spelled exclusivity as booleans beside minimum/maximum.
  const exMin = num(n.exclusiveMinimum) ?? (n.exclusiveMinimum === true ? min : undefined);
  const exMax = num(n.exclusiveMaximum) ?? (n.exclusiveMaximum === true ? max : undefined);
  const lo: [number, string][] = [];
  const hi: [number, string][] = [];
  if (min !== undefined && n.exclusiveMinimum !== true) lo.push([min, `minimum ${min}`]);
  if (exMin !== undefined) lo.push([exMin, `exclusiveMinimum ${exMin}`]);
  if (max !== undefined && n.exclusiveMaximum !== true) hi.push([max, `maximum ${max}`]);
  if (exMax !== undefined) hi.push([exMax, `exclusiveMaximum ${exMax}`]);
  const integer = n.type === 'integer';
  for (const [l, lw] of lo) {
    for (const [h, hw] of hi) {
      const open = lw.startsWith('exclusive') || hw.startsWith('exclusive');
      if (l > h || (open && l >= h)) return `${lw} ${l === h ? '≥' : '>'} ${hw}`;
      if (integer) {
        const first = lw.startsWith('exclusive') ? Math.floor(l) + 1 : Math.ceil(l);
        const last = hw.startsWith('exclusive') ? Math.ceil(h) - 1 : Math.floor(h);
        if (first > last) return `no integer between ${lw} and ${hw}`;
      }
    }
  }
  return undefined;
}

/** The JSON type names a value has (`integer` values are numbers too). */
function typesOf(v: unknown): string[] {
  if (v === null) return ['null'];
  if (Array.isArray(v)) return ['array'];
  if (typeof v === 'number') return Number.isInteger(v) ? ['integer', 'number'] : ['number'];
  return [typeof v];
}

/** The contradictions of one node's own keywords. */
function nodeContradictions(n: Node, pointer: string): SchemaContradiction[] {
  const out: SchemaContradiction[] = [];
  const range = numericRange(n);
  if (range) out.push({ kind: 'range', pointer, what: range });
  for (const [a, b] of PAIRS) {
    const lo = num(n[a]);
    const hi = num(n[b]);
    if (lo !== undefined && hi !== undefined && lo > hi) out.push({ kind: 'range', pointer, what: `${a} ${lo} > ${b} ${hi}` });
  }
  if (Array.isArray(n.enum) && n.enum.length === 0) out.push({ kind: 'empty-enum', pointer, what: 'enum lists no values' });
  const types = typeof n.type === 'string' ? [n.type] : Array.isArray(n.type) ? n.type.filter((t): t is string => typeof t === 'string') : [];
  if (types.length) {
    const fits = (v: unknown): boolean => typesOf(v).some((t) => types.includes(t));
    if (Object.hasOwn(n, 'const') && !fits(n.const))
      out.push({ kind: 'const-type', pointer, what: `const ${JSON.stringify(n.const)} is not of type ${types.join(' or ')}` });
    else if (Array.isArray(n.enum) && n.enum.length > 0 && !n.enum.some(fits))
      out.push({ kind: 'const-type', pointer, what: `no enum value is of type ${types.join(' or ')}` });
  }
  return out;
}

const escape = (k: string): string => k.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every contradiction anywhere in a schema document (`$defs` included), each node read once. */
export function contradictions(schema: unknown): SchemaContradiction[] {
  const out: SchemaContradiction[] = [];
  const seen = new Set<Node>();
  const stack: [unknown, string][] = [[schema, '']];
  while (stack.length) {
    const [n, pointer] = stack.pop()!;
    if (!isRecord(n) || seen.has(n)) continue;
    seen.add(n);
    out.push(...nodeContradictions(n, pointer));
    const children: [unknown, string][] = [];
    for (const [key, v] of Object.entries(n)) {
      if (['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'].includes(key) && isRecord(v)) {
        for (const [k, s] of Object.entries(v)) children.push([s, `${pointer}/${key}/${escape(k)}`]);
      } else if (['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items'].includes(key) && Array.isArray(v)) {
        v.forEach((s, i) => children.push([s, `${pointer}/${key}/${i}`]));
      } else if (
        ['additionalProperties', 'unevaluatedProperties', 'items', 'additionalItems', 'contains', 'propertyNames', 'not', 'if', 'then', 'else'].includes(key) &&
        isRecord(v)
      ) {
        children.push([v, `${pointer}/${key}`]);
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return out.sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0));
}

/** The depth rule's edges of one node: what its smallest value must contain. */
interface DepthRule {
  /** Each entry is needed one level down (required properties, the items of a non-empty array). */
  below: Node[];
  /** Each is needed at this level (`allOf` parts, a `$ref`'s target). */
  all: Node[];
  /** One of each group is needed at this level (`anyOf`, `oneOf`). */
  oneOfGroups: Node[][];
}

/**
 * How many levels the smallest valid value of a schema must nest below its root: 0 for a
 * scalar or an object with nothing required, `Infinity` when every value would contain itself
 * (a required `$ref` cycle with no base case).
 */
export function requiredDepth(schema: unknown): number {
  const root = schema;
  const rules = new Map<Node, DepthRule>();
  const order: Node[] = [];
  // Depth-first to collect each node once, in post-order (children before parents) so the
  // relaxation below settles acyclic schemas in one pass.
  const asNode = (raw: unknown): Node | undefined => (isRecord(raw) ? raw : undefined);
  const ruleOf = (n: Node): DepthRule => {
    const rule: DepthRule = { below: [], all: [], oneOfGroups: [] };
    if (typeof n.$ref === 'string') {
      const t = asNode(resolvePointer(root, n.$ref));
      if (t) rule.all.push(t);
    }
    if (Array.isArray(n.allOf)) for (const p of n.allOf) if (asNode(p)) rule.all.push(p as Node);
    for (const key of ['anyOf', 'oneOf'] as const) {
      const alts = n[key];
      if (!Array.isArray(alts) || alts.length === 0) continue;
      // A `true` branch takes anything (no depth); a `false` one takes nothing (no way out).
      if (alts.includes(true)) continue;
      const group = alts.filter(isRecord);
      if (group.length) rule.oneOfGroups.push(group);
    }
    const props = isRecord(n.properties) ? n.properties : {};
    if (Array.isArray(n.required))
      for (const r of n.required) if (typeof r === 'string' && Object.hasOwn(props, r) && asNode(props[r])) rule.below.push(props[r] as Node);
    const minItems = num(n.minItems) ?? 0;
    if (minItems > 0) {
      if (Array.isArray(n.prefixItems) || Array.isArray(n.items)) {
        const tuple = (Array.isArray(n.prefixItems) ? n.prefixItems : n.items) as unknown[];
        for (const s of tuple.slice(0, minItems)) if (asNode(s)) rule.below.push(s as Node);
      } else if (asNode(n.items)) rule.below.push(n.items as Node);
    }
    return rule;
  };
  const stack: [Node, boolean][] = isRecord(schema) ? [[schema, false]] : [];
  while (stack.length) {
    const [n, done] = stack.pop()!;
    if (done) {
      order.push(n);
      continue;
    }
    if (rules.has(n)) continue;
    const rule = ruleOf(n);
    rules.set(n, rule);
    stack.push([n, true]);
    for (const c of [...rule.below, ...rule.all, ...rule.oneOfGroups.flat()]) if (!rules.has(c)) stack.push([c, false]);
  }
  const depth = new Map<Node, number>(order.map((n) => [n, Infinity]));
  const get = (n: Node): number => depth.get(n) ?? 0;
  // Values only fall, and a finite value is at most the number of nodes, so this settles; the
  // cap guards the pathological case (then the answer stays an upper bound: Infinity is reported
  // only when it is certain, see below).
  let changed = true;
  let passes = 0;
  for (; changed && passes <= order.length + 1 && passes < 512; passes++) {
    changed = false;
    for (const n of order) {
      const rule = rules.get(n)!;
      let d = 0;
      for (const c of rule.below) d = Math.max(d, 1 + get(c));
      for (const c of rule.all) d = Math.max(d, get(c));
      for (const g of rule.oneOfGroups) d = Math.max(d, Math.min(...g.map(get)));
      if (d < get(n)) {
        depth.set(n, d);
        changed = true;
      }
    }
  }
  const d = isRecord(schema) ? get(schema) : 0;
  // Not settled: say nothing rather than call a satisfiable schema unsatisfiable.
  return changed && !Number.isFinite(d) ? 0 : d;
}

/**
 * Why the offline sampler cannot build a value for a schema, or undefined: a required `$ref`
 * cycle with no base case, or required nesting deeper than {@link MAX_SAMPLE_DEPTH}.
 */
export function depthReason(schema: unknown, which: 'inputSchema' | 'outputSchema'): string | undefined {
  const d = requiredDepth(schema);
  if (d === Infinity) return `${which} has a required $ref cycle with no base case: no finite value satisfies it`;
  if (d > MAX_SAMPLE_DEPTH) return `${which} requires values nested ${d} levels deep (limit ${MAX_SAMPLE_DEPTH})`;
  return undefined;
}
