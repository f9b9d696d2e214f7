/**
 * What the offline mocks of file tools show, in one place for the two stages that must agree on
 * it: the mock stage writes listings (`[DIR] docs`), search results (full paths) and trees, and
 * the scenario stage has a later call open an entry of an earlier listing, so its path is the
 * listed folder joined with an entry the listing shows (`…/config` lists `[DIR] docs`, the next
 * call takes `…/config/docs`). That is how the exact judge grounds a path
 * (`checks/grounding.ts`): its folder stated by the user or an earlier output, its entry in an
 * earlier output.
 */
import { isRecord } from '../../util/isRecord';
import type { ToolInfo } from './toolInfo';

/** Entities of tools whose text outputs are file listings or file text. */
export const FILE_HEADS: ReadonlySet<string> = new Set(['file', 'directory', 'folder', 'path', 'tree', 'media']);

/** Folders every listing shows, whatever the scenario's topic (a later call may open one). */
export const LISTED_FOLDERS = ['docs', 'src'] as const;

/** A file every listing and tree shows, whatever the scenario's topic. */
export const LISTED_FILE = 'package.json';

/** What a file tool's text output shows: `[DIR]`/`[FILE]` lines, full paths of found files, or a JSON tree. */
export type ListingKind = 'listing' | 'search' | 'tree';

/**
 * What a tool's output lists, when it is a file tool whose output is one `content` text (the
 * shape `fileText` in `mock.ts` fills); undefined for any other tool.
 */
export function listingKind(info: ToolInfo | undefined): ListingKind | undefined {
  if (!info || !FILE_HEADS.has(info.head)) return undefined;
  if (info.verbClass === 'discover') return /search|find/.test(info.verb ?? '') ? 'search' : 'listing';
  if (info.phase === 'read' && (info.head === 'tree' || info.head === 'directory')) return 'tree';
  return undefined;
}

/** Whether a tool's declared output is a required `content` string (so its mock is a text `fileText` fills). */
export function hasContentText(info: ToolInfo): boolean {
  const schema = info.tool.outputSchema;
  if (!isRecord(schema) || !isRecord(schema.properties) || !isRecord(schema.properties.content)) return false;
  return schema.properties.content.type === 'string' && Array.isArray(schema.required) && schema.required.includes('content');
}

/** The folder a file tool's call looks in: its `path` without a trailing slash, or undefined. */
export function listedFolder(args: Readonly<Record<string, unknown>>): string | undefined {
  return typeof args.path === 'string' && args.path.trim() !== '' ? args.path.replace(/\/+$/, '') || '/' : undefined;
}

/** The entries of a listing: the shared folders, then files named for the topic and the shared file. */
export function listingEntries(topic: string): string[] {
  return [...LISTED_FOLDERS, `${topic}-notes.md`, LISTED_FILE, `${topic}-report.csv`];
}

/** Splits a path into its folder and last entry (`/a/b/c.md` → `/a/b`, `c.md`); undefined without a folder. */
export function splitPath(path: string): { folder: string; entry: string } | undefined {
  const trimmed = path.replace(/\/+$/, '');
  const cut = trimmed.lastIndexOf('/');
  if (cut <= 0 || cut === trimmed.length - 1) return undefined;
  return { folder: trimmed.slice(0, cut), entry: trimmed.slice(cut + 1) };
}

/**
 * A listing text that also shows `entry` (as `[DIR]` when `folder`, else `[FILE]`); the text
 * itself when it lists it already.
 */
export function withEntry(text: string, entry: string, folder: boolean): string {
  const lines = text.split('\n');
  if (lines.some((l) => l === `[DIR] ${entry}` || l === `[FILE] ${entry}`)) return text;
  return `${text}\n${folder ? '[DIR]' : '[FILE]'} ${entry}`;
}
