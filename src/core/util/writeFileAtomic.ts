import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';

/**
 * Writes a file atomically: a temp file beside it (`<name>.<pid>.<random>.tmp`, the shape
 * `removeOrphanTmpFiles` in llm/cache.ts recognises), then rename, removing the temp on failure.
 * A reader never sees half a file, and a kill leaves either the old file or the new one.
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, text, 'utf8');
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}
