/**
 * One rule for both generators: of several tools with one name, the first definition is used and
 * the others are skipped with this reason (calls to the name would land on one of them anyway).
 */
import type { SkippedTool } from '../harness/format';

/** The skip entry when `name` was seen before; otherwise marks it seen and returns undefined. */
export function skipIfDuplicate(seen: Set<string>, name: string): SkippedTool | undefined {
  if (seen.has(name)) return { tool: name, reason: 'duplicate tool name (the first definition is used)' };
  seen.add(name);
  return undefined;
}
