/**
 * Content hashes of tools and specs. A record stores the hash of every tool it uses, so a
 * changed tool makes exactly the records that use it stale. Hashes are over canonical JSON
 * (object keys sorted, no whitespace), so key order and formatting of a snapshot do not matter.
 */
import { createHash } from 'node:crypto';
import type { Spec, Tool } from '../spec/model';

/** JSON with object keys sorted recursively; `undefined` members dropped as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    // fromEntries defines own properties, so a "__proto__" key from parsed JSON stays data.
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** Hex sha256 of a string. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Hashes of tool objects: a record stores the hash of each tool it calls, and a tool with a 100,000-value enum is long to hash per record. Like specs, tools are not mutated after loading. */
const toolHashCache = new WeakMap<Tool, string>();

/** Hash of one tool: sha256 of its canonical JSON. */
export function toolHash(tool: Tool): string {
  let h = toolHashCache.get(tool);
  if (h === undefined) toolHashCache.set(tool, (h = sha256(canonicalJson(tool))));
  return h;
}

/** Hash of every tool, keyed by name (the first of duplicate names wins, as in lookups). */
export function toolHashes(spec: Spec): Record<string, string> {
  const seen = new Set<string>();
  const entries: [string, string][] = [];
  for (const tool of spec.tools) {
    if (seen.has(tool.name)) continue;
    seen.add(tool.name);
    entries.push([tool.name, toolHash(tool)]);
  }
  return Object.fromEntries(entries);
}

/** Hash of a spec: sha256 of the canonical JSON of its tool list, in order. */
export function specHash(spec: Spec): string {
  return sha256(canonicalJson(spec.tools));
}

/**
 * A loaded spec's hash, once per spec object: the judge hashes the spec into every record's
 * judgment (twice for a conversation) and the trees ask about every record of a run; hashing a
 * 20,000-tool spec each time made judging quadratic in the spec's size. Specs are not mutated
 * after loading (a re-read spec is a new object), so the answer cannot go out of date.
 */
const specHashes = new WeakMap<Spec, string>();
export function specHashOnce(spec: Spec): string {
  let h = specHashes.get(spec);
  if (h === undefined) specHashes.set(spec, (h = specHash(spec)));
  return h;
}
