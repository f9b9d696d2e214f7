/**
 * Walking a tool's `inputSchema` as JSON Schema data: local `$ref` resolution, nesting depth,
 * and the value types a parameter accepts. Pure functions over plain JSON; nothing here throws
 * on malformed schemas, because real servers send them.
 */
import { isRecord } from '../util/isRecord';

/** A JSON object (a schema node or a map of them). */
export type JsonRecord = Record<string, unknown>;

/** Combinators whose members describe the same value: they add no nesting level. */
const UNION_KEYWORDS = ['anyOf', 'oneOf', 'allOf'] as const;

/**
 * Hard stop for pathological nesting: deeper than any real schema, shallow enough that the
 * recursive walk can never overflow the stack on a hostile file.
 */
const MAX_WALK = 256;

/**
 * Resolves `$ref`s against one schema document (a tool's `inputSchema`), remembering what did not
 * resolve so the analysis can report it.
 */
export class RefResolver {
  /** `$ref` strings that could not be resolved, each with the top-level parameter it was met under. */
  readonly unresolved = new Map<string, string | undefined>();
  private anchors: Map<string, JsonRecord> | undefined;

  constructor(readonly root: JsonRecord) {}

  /** The node a `$ref` points at, or undefined (recorded in {@link unresolved}) when it does not resolve. */
  resolve(ref: string, param?: string): JsonRecord | undefined {
    const target = this.lookup(ref);
    if (!target && !this.unresolved.has(ref)) this.unresolved.set(ref, param);
    return target;
  }

  private lookup(ref: string): JsonRecord | undefined {
    // Only document-local references: a snapshot must be analysable offline, so remote
    // or relative references count as unresolvable rather than being fetched.
    if (!ref.startsWith('#')) return undefined;
    let fragment: string;
    try {
      fragment = decodeURIComponent(ref.slice(1));
    } catch {
      return undefined;
    }
    if (fragment === '') return this.root;
    if (!fragment.startsWith('/')) return this.anchor(fragment);
    let node: unknown = this.root;
    for (const raw of fragment.slice(1).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (Array.isArray(node)) node = /^\d+$/.test(key) ? node[Number(key)] : undefined;
      else if (isRecord(node) && Object.prototype.hasOwnProperty.call(node, key)) node = node[key];
      else return undefined;
    }
    return isRecord(node) ? node : undefined;
  }

  /** Plain-name fragments (`#foo`) point at a `$anchor` (2019-09+) or an `$id: "#foo"` (draft-07). */
  private anchor(name: string): JsonRecord | undefined {
    if (!this.anchors) {
      const anchors = new Map<string, JsonRecord>();
      forEachSubschema(this.root, (node) => {
        if (typeof node.$anchor === 'string') anchors.set(node.$anchor, node);
        if (typeof node.$id === 'string' && node.$id.startsWith('#')) anchors.set(node.$id.slice(1), node);
      });
      this.anchors = anchors;
    }
    return this.anchors.get(name);
  }
}

/**
 * Calls `visit` on every schema node under `root` (itself included), following schema keywords
 * only, so a parameter that happens to be called `anyOf` or `$ref` is not mistaken for one.
 * Does not follow `$ref` (each node is visited once).
 */
export function forEachSubschema(root: unknown, visit: (node: JsonRecord) => void): void {
  const walk = (node: unknown, level: number): void => {
    if (!isRecord(node) || level > MAX_WALK) return;
    visit(node);
    for (const child of childSchemas(node, true)) walk(child, level + 1);
  };
  walk(root, 0);
}

/** The sub-schemas of a node that are one nesting level down: property values, items, map values. */
function nestedSchemas(node: JsonRecord): unknown[] {
  const out: unknown[] = [];
  for (const key of ['properties', 'patternProperties'] as const) {
    const map = node[key];
    if (isRecord(map)) out.push(...Object.values(map));
  }
  if (isRecord(node.additionalProperties)) out.push(node.additionalProperties);
  if (Array.isArray(node.items))
    out.push(...node.items); // draft-07 tuple form
  else if (isRecord(node.items)) out.push(node.items);
  if (Array.isArray(node.prefixItems)) out.push(...node.prefixItems);
  return out;
}

/** Every sub-schema of a node; `withDefs` adds `$defs`/`definitions` (which are not part of the value). */
function childSchemas(node: JsonRecord, withDefs: boolean): unknown[] {
  const out = nestedSchemas(node);
  for (const key of UNION_KEYWORDS) {
    const members = node[key];
    if (Array.isArray(members)) out.push(...members);
  }
  for (const key of ['not', 'if', 'then', 'else'] as const) if (isRecord(node[key])) out.push(node[key]);
  if (withDefs) {
    for (const key of ['$defs', 'definitions'] as const) {
      const defs = node[key];
      if (isRecord(defs)) out.push(...Object.values(defs));
    }
  }
  return out;
}

/** Counts of JSON Schema features that make a schema harder to read, reachable or not. */
export interface SchemaFeatureCounts {
  /** `$ref` keywords. */
  refs: number;
  /** `anyOf`/`oneOf`/`allOf` keywords. */
  unions: number;
}

/** Counts `$ref` and union keywords anywhere in a schema document (definitions included). */
export function countFeatures(root: unknown): SchemaFeatureCounts {
  const counts: SchemaFeatureCounts = { refs: 0, unions: 0 };
  forEachSubschema(root, (node) => {
    if (typeof node.$ref === 'string') counts.refs++;
    for (const key of UNION_KEYWORDS) if (Array.isArray(node[key])) counts.unions++;
  });
  return counts;
}

/**
 * Measures nesting depth, the README's convention: a node is a level when its `type` is the single
 * type `"object"` or `"array"`, or when it has nested sub-schemas (`properties`, `items`,
 * `additionalProperties`, `patternProperties`); each level adds 1 to the deepest level inside it.
 * `anyOf`/`oneOf`/`allOf` members and `$ref` targets add 0. A schema that is not a level (a scalar,
 * a broken `{ $schema }`, or a nullable `type: ["object","null"]` declaring nothing inside) is 0,
 * so a root `{type: "object"}` with no properties is 1 and one with scalar properties is also 1.
 * A recursive `$ref` is followed once per path and then cut; the tool is reported as recursive.
 */
export class DepthMeter {
  /** True once a `$ref` cycle was cut: the real depth is unbounded. */
  recursive = false;
  /** Depth of nodes whose subtree met no cycle (a cut makes a result path-dependent). */
  private readonly memo = new Map<JsonRecord, number>();
  private readonly onPath = new Set<JsonRecord>();

  constructor(private readonly refs: RefResolver) {}

  /** Depth of `node`; `param` names the top-level parameter for unresolved-`$ref` reports. */
  depth(node: unknown, param?: string): number {
    return this.measure(node, param, 0).depth;
  }

  private measure(node: unknown, param: string | undefined, level: number): { depth: number; cut: boolean } {
    if (!isRecord(node)) return { depth: 0, cut: false };
    const known = this.memo.get(node);
    if (known !== undefined) return { depth: known, cut: false };
    if (level > MAX_WALK || this.onPath.has(node)) {
      this.recursive = true;
      return { depth: 0, cut: true };
    }
    this.onPath.add(node);
    let best = 0;
    let cut = false;
    const take = (r: { depth: number; cut: boolean }, add: number): void => {
      best = Math.max(best, r.depth + add);
      cut ||= r.cut;
    };
    if (typeof node.$ref === 'string') {
      // Siblings of $ref are kept (2019-09+ semantics); draft-07 servers rarely put any there.
      const target = this.refs.resolve(node.$ref, param);
      if (target) take(this.measure(target, param, level + 1), 0);
    }
    for (const key of UNION_KEYWORDS) {
      const members = node[key];
      if (Array.isArray(members)) for (const m of members) take(this.measure(m, param, level + 1), 0);
    }
    const nested = nestedSchemas(node);
    if (node.type === 'object' || node.type === 'array' || nested.length > 0) {
      let inner = 0;
      for (const child of nested) {
        const r = this.measure(child, param, level + 1);
        inner = Math.max(inner, r.depth);
        cut ||= r.cut;
      }
      best = Math.max(best, 1 + inner);
    }
    this.onPath.delete(node);
    if (!cut) this.memo.set(node, best);
    return { depth: best, cut };
  }
}

/**
 * Follows `$ref`s (guarding cycles) to the node that defines a value. Returns the chain of nodes
 * from `node` to that definition so keywords on any of them (description, format) are found.
 */
export function derefChain(node: unknown, refs: RefResolver): JsonRecord[] {
  const chain: JsonRecord[] = [];
  let current: unknown = node;
  while (isRecord(current) && !chain.includes(current) && chain.length < MAX_WALK) {
    chain.push(current);
    current = typeof current.$ref === 'string' ? refs.resolve(current.$ref) : undefined;
  }
  return chain;
}

/** True for a union member that only admits null (FastMCP's optional `anyOf: [X, {type: null}]`). */
function isNullSchema(node: unknown): boolean {
  return isRecord(node) && (node.type === 'null' || (Array.isArray(node.type) && node.type.every((t) => t === 'null')));
}

/**
 * The schema nodes that define a parameter's value once `$ref`s are followed and a nullable
 * `anyOf`/`oneOf` with one non-null member is unwrapped (`anyOf: [X, null]` means "X or omitted").
 * Unions of several real alternatives stop the unwrapping: the value is not one thing.
 */
export function valueChain(node: unknown, refs: RefResolver): JsonRecord[] {
  const chain: JsonRecord[] = [];
  let current: unknown = node;
  for (let guard = 0; guard < MAX_WALK && isRecord(current); guard++) {
    for (const n of derefChain(current, refs)) if (!chain.includes(n)) chain.push(n);
    const last = chain[chain.length - 1];
    if (!last) break;
    let next: unknown;
    // allOf with one member is how some generators attach a description to a $ref.
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      const members = last[key];
      if (!Array.isArray(members)) continue;
      const real = members.filter((m) => !isNullSchema(m));
      if (real.length === 1) next = real[0];
    }
    if (next === undefined || chain.includes(next as JsonRecord)) break;
    current = next;
  }
  return chain;
}

/** The non-null JSON types a value chain declares (`integer` reads as `number`), sorted; empty when unknown. */
export function declaredTypes(chain: JsonRecord[]): string[] {
  const types = new Set<string>();
  for (const node of chain) {
    const raw = node.type;
    const list = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : [];
    for (const t of list) if (typeof t === 'string' && t !== 'null') types.add(t === 'integer' ? 'number' : t);
  }
  return [...types].sort();
}

/** The first string value of `key` along a value chain. */
export function firstString(chain: JsonRecord[], key: string): string | undefined {
  for (const node of chain) {
    const v = node[key];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return undefined;
}
