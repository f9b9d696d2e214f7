/**
 * Small helpers over JSON Schema as real servers write it: local `$ref`s into `$defs` /
 * `definitions`, object shapes spread over `allOf`/`anyOf`/`oneOf`, and `type` arrays.
 * Shared by the validator and the offline generator so both read a schema the same way.
 */
import { isRecord } from '../util/isRecord';
import { setOwn } from '../util/ownKeys';

/** A JSON Schema node (anything that is an object; booleans are handled by callers). */
export type SchemaNode = Record<string, unknown>;

/** Resolves a local JSON pointer (`#`, `#/$defs/x`, `#/definitions/a~1b`) against the root; undefined for remote refs or misses. */
export function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  const path = ref.slice(1);
  if (path === '' || path === '/') return root;
  let node: unknown = root;
  for (const raw of path.replace(/^\//, '').split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isRecord(node)) node = node[key];
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/**
 * Follows `$ref` chains (up to 16 hops, so a cycle cannot hang us). Sibling keywords next to a
 * `$ref` (allowed from 2019-09) are merged over the target. Returns `{}` for unresolvable refs.
 */
export function deref(schema: unknown, root: unknown): SchemaNode {
  let node: unknown = schema;
  let extra: SchemaNode | undefined;
  for (let hops = 0; hops < 16 && isRecord(node) && typeof node.$ref === 'string'; hops++) {
    const { $ref, ...rest } = node;
    if (Object.keys(rest).length) extra = { ...rest, ...extra };
    node = resolvePointer(root, $ref);
  }
  if (node === true || node === undefined) node = {};
  if (node === false) node = { not: {} };
  if (!isRecord(node) || typeof node.$ref === 'string') return extra ?? {};
  return extra ? { ...node, ...extra } : node;
}

/** The `type` keyword as a list (empty when absent). */
export function typeList(schema: SchemaNode): string[] {
  const t = schema.type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  return [];
}

/** What an object schema declares, merged over `allOf` and every `anyOf`/`oneOf` branch. */
export interface ObjectShape {
  /** Declared properties (first declaration wins). */
  properties: Record<string, unknown>;
  /** Required names of the schema and its `allOf` parts (not of alternative branches). */
  required: string[];
  /** `patternProperties` regexes. */
  patterns: string[];
  /** `additionalProperties`/`unevaluatedProperties` when any part states them explicitly. */
  additional: 'absent' | 'forbidden' | 'allowed';
}

/** Collects the object shape of a schema (following `$ref`s), for parameter listings and the unknown-parameter rule. */
export function objectShape(schema: unknown, root: unknown): ObjectShape {
  const shape: ObjectShape = { properties: {}, required: [], patterns: [], additional: 'absent' };
  // The shallowest depth each part was read at, as a required part and as an alternative: a part
  // reached again no shallower adds nothing, so shared `$defs` cost their size, not one walk per path.
  const readAt = [new Map<unknown, number>(), new Map<unknown, number>()] as const;
  const visit = (raw: unknown, depth: number, inAlternative: boolean): void => {
    if (depth > 8) return;
    const [asRequired, asAlternative] = readAt;
    if ((asRequired.get(raw) ?? Infinity) <= depth || (inAlternative && (asAlternative.get(raw) ?? Infinity) <= depth)) return;
    (inAlternative ? asAlternative : asRequired).set(raw, depth);
    const node = deref(raw, root);
    if (isRecord(node.properties)) {
      for (const [k, v] of Object.entries(node.properties)) if (!Object.hasOwn(shape.properties, k)) setOwn(shape.properties, k, v);
    }
    if (!inAlternative && Array.isArray(node.required)) {
      for (const r of node.required) if (typeof r === 'string' && !shape.required.includes(r)) shape.required.push(r);
    }
    if (isRecord(node.patternProperties)) shape.patterns.push(...Object.keys(node.patternProperties));
    for (const key of ['additionalProperties', 'unevaluatedProperties'] as const) {
      const ap = node[key];
      if (ap === undefined) continue;
      if (ap === false) {
        if (shape.additional === 'absent') shape.additional = 'forbidden';
      } else shape.additional = 'allowed';
    }
    if (Array.isArray(node.allOf)) for (const s of node.allOf) visit(s, depth + 1, inAlternative);
    for (const key of ['anyOf', 'oneOf'] as const) {
      const alts = node[key];
      if (Array.isArray(alts)) for (const s of alts) visit(s, depth + 1, true);
    }
  };
  visit(schema, 0, false);
  return shape;
}

/** Which JSON Schema dialect a root schema asks for. */
export type Dialect = 'draft-07' | '2019-09' | '2020-12';

/**
 * The dialect named by `$schema`: 2020-12 and 2019-09 by URL, draft-07 otherwise (absent,
 * draft-07 itself, and anything unknown, which callers strip before compiling).
 */
export function dialectOf(schema: unknown): { dialect: Dialect; known: boolean } {
  const s = isRecord(schema) ? schema.$schema : undefined;
  if (typeof s !== 'string') return { dialect: 'draft-07', known: true };
  if (/json-schema\.org\/draft\/2020-12\/schema/.test(s)) return { dialect: '2020-12', known: true };
  if (/json-schema\.org\/draft\/2019-09\/schema/.test(s)) return { dialect: '2019-09', known: true };
  if (/json-schema\.org\/draft-07\/schema/.test(s)) return { dialect: 'draft-07', known: true };
  return { dialect: 'draft-07', known: false };
}
