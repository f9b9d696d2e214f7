/**
 * Stale records: a record keeps the hash of every tool it uses; when the spec changes, the records
 * whose tools changed (or disappeared) no longer test the server as it is.
 */
import type { HarnessRecord } from './format';

/** Names of the tools a record uses whose definition differs in `current` (tool → hash), sorted. */
export function staleTools(record: HarnessRecord, current: Readonly<Record<string, string>>): string[] {
  return Object.entries(record.provenance.toolHashes)
    .filter(([name, hash]) => current[name] !== hash)
    .map(([name]) => name)
    .sort();
}
