import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';

/**
 * Writes a file atomically: a temp file beside it (`<name>.<pid>.<random>.tmp`, the shape
 * `removeOrphanTmpFiles` in llm/cache.ts recognises), then rename, removing the temp on failure.
 * A reader never sees half a file, and a kill leaves either the old file or the new one. A failure
 * names the file (see {@link writeFailure}).
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, text, 'utf8');
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw writeFailure(path, e);
  }
}

/** A write that failed, naming the file; `code` (ENOSPC, EFBIG, EACCES, …) is kept for callers that test it. */
export class FileWriteError extends Error {
  override readonly name = 'FileWriteError';
  constructor(
    readonly file: string,
    readonly code: string | undefined,
    message: string,
    options?: { cause: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The error of a failed write with the file it was for. The system's message for a failed
 * `write` has no path ("ENOSPC: no space left on device, write"), and the one of a failed open
 * names the temp file, so a full disk was reported without saying where.
 */
export function writeFailure(file: string, err: unknown): Error {
  if (err instanceof FileWriteError) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const what = err instanceof Error ? (err.message.split('\n')[0] ?? err.name) : String(err);
  return new FileWriteError(file, code, `cannot write ${file}: ${what}`, { cause: err });
}
