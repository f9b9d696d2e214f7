/**
 * Containment of paths a workspace names. A folder setting such as `"../victim"` or a symlink
 * inside the workspace pointing elsewhere must not make the product write outside the folder it
 * belongs to.
 */
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/** `child` is `parent` or lies under it (both absolute and normalised). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The real path of the deepest part of `path` that exists, with the rest appended. */
async function realPathOfExisting(path: string): Promise<string> {
  let existing = path;
  const rest: string[] = [];
  for (;;) {
    try {
      return resolve(await realpath(existing), ...rest.reverse());
    } catch {
      const up = dirname(existing);
      if (up === existing) return path;
      rest.push(existing.slice(up.length).replace(/^[\\/]+/, ''));
      existing = up;
    }
  }
}

export type InsideResult = { ok: true; path: string } | { ok: false; message: string };

/**
 * Resolves `path` (relative to `root`, or absolute) and checks that it stays inside `root`, both
 * as written and after following the symlinks of the parts that exist.
 */
export async function resolveInside(root: string, path: string, what: string): Promise<InsideResult> {
  const target = resolve(root, path);
  const outside: InsideResult = { ok: false, message: `${what} "${path}" leads outside ${root}: use a folder inside it` };
  if (!isInside(resolve(root), target)) return outside;
  const [realRoot, realTarget] = await Promise.all([realPathOfExisting(resolve(root)), realPathOfExisting(target)]);
  if (!isInside(realRoot, realTarget)) return outside;
  return { ok: true, path: target };
}
