/**
 * How big a schema becomes once its `$ref`s are inlined and every `anyOf`/`oneOf`/`allOf` member
 * is followed: the work of anything that walks it as a tree (a response schema built for an LLM,
 * a sampler trying branches, a reader looking up a parameter's node). A schema can be small as
 * text and astronomically large expanded: thirty `$defs`, each an `anyOf` of the next one and an
 * object holding the next one, is 3.9 KB and 2^30 nodes. Our own walkers share nodes (they
 * remember what they visited), but a tool whose expansion passes {@link MAX_SCHEMA_EXPANSION} is
 * skipped with the reason this module gives, and `inspect` reports it, so no consumer (ours, an
 * LLM's, a client's) is handed it.
 *
 * Counting stops as soon as the budget is passed, so measuring costs at most the budget's worth
 * of steps whatever the schema. A `$ref` back to a node on the current path (a recursive schema,
 * a tree of comments) is counted once and not entered again: recursion is a legitimate shape,
 * sharing that multiplies is what costs.
 */
import { MAX_SCHEMA_EXPANSION } from '../bounds';
import { isRecord } from '../util/isRecord';
import { resolvePointer } from './jsonSchemaUtil';

/** Keywords whose value is one subschema. */
const ONE = ['additionalProperties', 'unevaluatedProperties', 'items', 'additionalItems', 'contains', 'propertyNames', 'not', 'if', 'then', 'else'] as const;
/** Keywords whose value is a list of subschemas. */
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items'] as const;
/** Keywords whose value maps names to subschemas. */
const MAP = ['properties', 'patternProperties', 'dependentSchemas'] as const;

/** The subschemas one level below a node (not `$defs`: definitions are reached through `$ref`s). */
export function subschemas(node: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  for (const k of ONE) if (isRecord(node[k])) out.push(node[k]);
  for (const k of LIST) if (Array.isArray(node[k])) out.push(...(node[k] as unknown[]));
  for (const k of MAP) if (isRecord(node[k])) out.push(...Object.values(node[k]));
  return out;
}

/**
 * The number of nodes of a schema expanded as a tree (`$ref`s inlined, cycles entered once), or
 * `limit + 1` as soon as it is known to be larger. Iterative, so a 10,000-deep schema cannot
 * overflow the stack.
 */
export function schemaExpansion(schema: unknown, limit = MAX_SCHEMA_EXPANSION): number {
  const root = schema;
  let count = 0;
  // The ref targets on the current path: an exit marker pops one when its subtree is done.
  const onPath = new Set<unknown>();
  const stack: ({ node: unknown } | { exit: unknown })[] = [{ node: schema }];
  while (stack.length) {
    const item = stack.pop()!;
    if ('exit' in item) {
      onPath.delete(item.exit);
      continue;
    }
    if (!isRecord(item.node)) continue;
    if (++count > limit) return count;
    const node = item.node;
    if (typeof node.$ref === 'string') {
      const target = resolvePointer(root, node.$ref);
      if (isRecord(target) && !onPath.has(target)) {
        onPath.add(target);
        stack.push({ exit: target }, { node: target });
      }
    }
    for (const child of subschemas(node)) stack.push({ node: child });
  }
  return count;
}

/**
 * Why a tool's schema is too large to work with once expanded, or undefined when it is within
 * {@link MAX_SCHEMA_EXPANSION}: the reason a tool is skipped, in the manifest and on screen.
 */
export function expansionReason(schema: unknown, which: 'inputSchema' | 'outputSchema'): string | undefined {
  const n = schemaExpansion(schema);
  if (n <= MAX_SCHEMA_EXPANSION) return undefined;
  return `${which} expands to more than ${MAX_SCHEMA_EXPANSION} schema nodes once its $refs and anyOf/oneOf/allOf branches are followed (limit ${MAX_SCHEMA_EXPANSION})`;
}
