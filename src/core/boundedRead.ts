/**
 * The one way the product reads a file named by a user or by a harness manifest: a spec, a
 * config, a record, a manifest, an examples file. Refuses what would hang or exhaust the host
 * before reading a byte: a FIFO or device (opening or reading one can block forever), a folder,
 * a file over {@link MAX_INPUT_BYTES}.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { MAX_INPUT_BYTES } from './bounds';

/** Why a file was not read. */
export type FileReadFailure = 'missing' | 'not-a-file' | 'too-large' | 'unreadable' | 'link';

/** A file that could not be read; `message` says what, without the path (callers put it in front). */
export class FileReadError extends Error {
  override readonly name = 'FileReadError';
  constructor(
    readonly file: string,
    readonly reason: FileReadFailure,
    message: string,
  ) {
    super(message);
  }
}

const mib = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(bytes < 1024 * 1024 ? 2 : 0)} MiB`;

/** What a non-regular file is, in words. */
function kindOf(s: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (s.isDirectory()) return 'a folder';
  if (s.isFIFO()) return 'a FIFO';
  if (s.isSocket()) return 'a socket';
  if (s.isCharacterDevice() || s.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * Reads a regular file as UTF-8, at most `maxBytes` (with `noFollow`, never through a link at
 * the last component: use `readFileInside` in containment.ts for files of a harness folder). Rejects with a {@link FileReadError} (never
 * a raw errno) when the file is missing, not a regular file, too large or unreadable.
 */
export async function readBoundedFile(file: string, maxBytes: number = MAX_INPUT_BYTES, options: { noFollow?: boolean } = {}): Promise<string> {
  let handle;
  try {
    // Non-blocking, so opening a FIFO with no writer returns at once instead of waiting for one;
    // the check below then refuses it. (O_NONBLOCK does not exist on Windows, where FIFOs are not files.)
    // `noFollow` (containment.ts): a link is not opened at all, so it cannot be swapped in after a check.
    const noFollow = options.noFollow ? (constants.O_NOFOLLOW ?? 0) : 0;
    handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | noFollow);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // O_NOFOLLOW on a link: ELOOP (Linux, macOS), EMLINK (FreeBSD). Marked for containment.ts to name the link.
    if (options.noFollow && (code === 'ELOOP' || code === 'EMLINK')) throw new FileReadError(file, 'link', 'a symbolic link, not read');
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new FileReadError(file, 'missing', 'no such file');
    if (code === 'EISDIR') throw new FileReadError(file, 'not-a-file', 'a folder, not a file');
    throw new FileReadError(file, 'unreadable', `cannot read (${code ?? (e as Error).message})`);
  }
  try {
    // The handle's own stat: the file checked is the file read, even if the path is swapped meanwhile.
    const s = await handle.stat();
    if (!s.isFile()) {
      const kind = kindOf(s);
      throw new FileReadError(file, 'not-a-file', kind === 'not a regular file' ? kind : `${kind}, not a regular file`);
    }
    if (s.size > maxBytes) throw new FileReadError(file, 'too-large', `too large (${mib(s.size)}; the limit is ${mib(maxBytes)})`);
    const bytes = await handle.readFile();
    // A file that grew after the check is still refused rather than read past the limit.
    if (bytes.length > maxBytes) throw new FileReadError(file, 'too-large', `too large (over ${mib(maxBytes)}; the limit is ${mib(maxBytes)})`);
    return bytes.toString('utf8');
  } catch (e) {
    if (e instanceof FileReadError) throw e;
    throw new FileReadError(file, 'unreadable', `cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  } finally {
    await handle.close();
  }
}
