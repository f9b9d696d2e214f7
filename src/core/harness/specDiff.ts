/**
 * Spec drift: what changed between two snapshots of a spec, tool by tool. A tool is matched by
 * name; it changed when its canonical JSON differs (the same test that makes its records stale,
 * `toolHash`), and `parts` says which of its fields differ so a person can see why.
 */
import type { Spec, Tool } from '../spec/model';
import { byCodeUnit } from '../util/byCodeUnit';
import { canonicalJson, toolHashes } from './hash';

/** One tool whose definition differs between the snapshots. */
export interface ChangedTool {
  name: string;
  /** The fields that differ (`inputSchema`, `description`, `annotations`, …), sorted. */
  parts: string[];
}

/** The difference of two snapshots of one spec; every list sorted by name. */
export interface SpecDiff {
  added: string[];
  removed: string[];
  changed: ChangedTool[];
  unchanged: string[];
}

/** The first tool of each name, as hash lookups see it. */
function byName(spec: Spec): Map<string, Tool> {
  const tools = new Map<string, Tool>();
  for (const t of spec.tools) if (!tools.has(t.name)) tools.set(t.name, t);
  return tools;
}

/** The top-level fields of two versions of a tool whose canonical JSON differs. */
function changedParts(before: Tool, after: Tool): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const field = (t: Tool, k: string): string => canonicalJson((t as Record<string, unknown>)[k] ?? null);
  return [...keys].filter((k) => field(before, k) !== field(after, k)).sort();
}

/**
 * Tools added, removed, changed and unchanged between two tool-hash tables (a manifest's
 * `spec.toolHashes` and a spec's `toolHashes`): the cheap diff when only the hashes are at hand,
 * so `parts` is empty.
 */
export function diffToolHashes(before: Readonly<Record<string, string>>, after: Readonly<Record<string, string>>): SpecDiff {
  const diff: SpecDiff = { added: [], removed: [], changed: [], unchanged: [] };
  for (const [name, hash] of Object.entries(after)) {
    const was = Object.hasOwn(before, name) ? before[name] : undefined;
    if (was === undefined) diff.added.push(name);
    else if (was === hash) diff.unchanged.push(name);
    else diff.changed.push({ name, parts: [] });
  }
  for (const name of Object.keys(before)) if (!Object.hasOwn(after, name)) diff.removed.push(name);
  diff.added.sort(byCodeUnit);
  diff.removed.sort(byCodeUnit);
  diff.unchanged.sort(byCodeUnit);
  diff.changed.sort((a, b) => byCodeUnit(a.name, b.name));
  return diff;
}

/** Tools added, removed, changed (with the fields that differ) and unchanged from `before` to `after`. */
export function diffSpecs(before: Spec, after: Spec): SpecDiff {
  const old = byName(before);
  const now = byName(after);
  const diff = diffToolHashes(toolHashes(before), toolHashes(after));
  diff.changed = diff.changed.map(({ name }) => ({ name, parts: changedParts(old.get(name)!, now.get(name)!) }));
  return diff;
}

/** Whether the two snapshots list the same tools with the same definitions. */
export function sameTools(diff: SpecDiff): boolean {
  return diff.added.length === 0 && diff.removed.length === 0 && diff.changed.length === 0;
}

/** One line for people: "2 added (a, b), 1 removed (c), 1 changed (d: inputSchema)"; "no tool changed" when none. */
export function diffSummary(diff: SpecDiff): string {
  const list = (names: string[]): string => names.slice(0, 5).join(', ') + (names.length > 5 ? ', …' : '');
  const parts: string[] = [];
  if (diff.added.length) parts.push(`${diff.added.length} added (${list(diff.added)})`);
  if (diff.removed.length) parts.push(`${diff.removed.length} removed (${list(diff.removed)})`);
  if (diff.changed.length)
    parts.push(`${diff.changed.length} changed (${list(diff.changed.map((c) => (c.parts.length ? `${c.name}: ${c.parts.join('/')}` : c.name)))})`);
  return parts.length ? parts.join(', ') : 'no tool changed';
}
