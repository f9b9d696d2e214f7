/**
 * Finding harness folders in a workspace: a folder with a `manifest.json` of our format beside
 * a `records/` folder. Heavy folders are skipped as in spec detection.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readBoundedFile } from '../boundedRead';
import { SKIPPED_DIRECTORIES } from './detect';
import { MANIFEST_FILE, RECORDS_DIR } from '../harness/layout';

/** Whether a manifest's text is one of ours (cheap check before a full read). */
export function isHarnessManifest(text: string): boolean {
  try {
    const v = JSON.parse(text) as { formatVersion?: unknown; spec?: unknown; recordIds?: unknown };
    return typeof v.formatVersion === 'number' && typeof v.spec === 'object' && Array.isArray(v.recordIds);
  } catch {
    return false;
  }
}

/** Absolute paths of harness folders under root, sorted. Stops at maxDepth levels. */
export async function findHarnessDirs(root: string, options: { maxDepth?: number; signal?: AbortSignal } = {}): Promise<string[]> {
  const found: string[] = [];
  const maxDepth = options.maxDepth ?? 8;
  async function visit(dir: string, depth: number): Promise<void> {
    options.signal?.throwIfAborted();
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    const names = new Set(entries.map((e) => e.name));
    if (names.has(MANIFEST_FILE) && names.has(RECORDS_DIR)) {
      const text = await readBoundedFile(join(dir, MANIFEST_FILE)).catch(() => '');
      if (isHarnessManifest(text)) {
        found.push(dir);
        return; // a harness does not nest harnesses
      }
    }
    if (depth >= maxDepth) return;
    await Promise.all(
      entries.filter((e) => e.isDirectory() && !SKIPPED_DIRECTORIES.has(e.name) && e.name !== '.git').map((e) => visit(join(dir, e.name), depth + 1)),
    );
  }
  await visit(root, 0);
  return found.sort();
}

/**
 * The harness folders a folder named by a user stands for: itself when it looks like a harness
 * (a `manifest.json` or a `records/` folder, even a broken one, so its reader can say what is
 * wrong), else the harness folders directly inside it (a corpus's output folder), sorted; none
 * when it is neither.
 */
export async function harnessDirsOf(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  if (names.includes(MANIFEST_FILE) || names.includes(RECORDS_DIR)) return [dir];
  return findHarnessDirs(dir, { maxDepth: 1 });
}
