/**
 * Writing a live listing as a snapshot file meant to be versioned and diffed: the same listing
 * always gives the same bytes (only `capturedAt` changes), and the file loads back with
 * `loadSpecText` to the same tools.
 *
 * Ordering rules (what makes the bytes stable without losing meaning):
 * - top level: server, provenance, capturedAt, pages, capabilities, invalidTools (only when
 *   some entries were not tools), tools;
 * - `server`: name, version, title, then any other keys sorted;
 * - tools sorted by name (code-unit order, ties broken by content);
 * - a tool's own keys: name, title, description, inputSchema, outputSchema, annotations, then the
 *   rest (`_meta`, `icons`, `execution`…) sorted;
 * - every other object's keys sorted recursively, EXCEPT a JSON Schema's `properties` map, whose
 *   order is the parameter order the server chose (what an agent reads, what a signature says);
 *   the schemas inside it are still sorted;
 * - arrays never reordered (`required`, `enum`, `anyOf`, examples: order can carry meaning).
 * JavaScript itself lists integer-like keys ("0", "42") first in any object; that is stable too.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { ServerInfo, Spec, Tool } from './model';
import { snapshotFileName } from '../workspace/layout';

// The file name rule lives with every other name the product uses; re-exported for existing callers.
export { snapshotFileName };
import { isRecord } from '../util/isRecord';
import { byCodeUnit } from '../util/byCodeUnit';
import { writeFailure } from '../util/writeFileAtomic';

/** What a snapshot is made from; a `LiveListing` fits. */
export interface SnapshotSource {
  /** The definition's name; the default file name. */
  serverName?: string;
  serverInfo: ServerInfo;
  capabilities: Record<string, unknown>;
  pages: number;
  spec: Pick<Spec, 'tools' | 'invalidTools'> & { capturedAt?: string };
}

/** Fields of a snapshot that do not come from the server. */
export interface SnapshotOptions {
  /** Where the tools came from, e.g. `.vscode/mcp.json#github`. Omitted when not given. */
  provenance?: string;
  /** ISO time of the listing; defaults to the listing's own, else now. */
  capturedAt?: string;
}

/** Options for {@link writeSnapshot}. */
export interface WriteSnapshotOptions extends SnapshotOptions {
  /** Name the file is derived from (sanitised); defaults to the listing's server name. */
  name?: string;
}

const TOOL_KEYS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;
const SERVER_KEYS = ['name', 'version', 'title'] as const;

/** Schema keywords whose value is one schema (or, for `items`, a list of them). */
const SUBSCHEMA = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
]);
/** Schema keywords whose value is a list of schemas. */
const SUBSCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Schema keywords whose value maps names to schemas (names sorted, unlike `properties`). */
const SUBSCHEMA_MAP = new Set(['$defs', 'definitions', 'patternProperties', 'dependentSchemas', 'dependencies']);

/** Any JSON value with object keys sorted recursively; arrays kept in order; `undefined` dropped. */
function canonicalData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalData);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort(byCodeUnit)) {
    if (value[key] !== undefined) out[key] = canonicalData(value[key]);
  }
  return out;
}

/** A JSON Schema: keywords sorted, `properties` kept in the server's order, subschemas recursed. */
function canonicalSchema(schema: unknown): unknown {
  if (!isRecord(schema)) return canonicalData(schema); // boolean schemas, or broken ones kept as data
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(schema).sort(byCodeUnit)) {
    const value = schema[key];
    if (value === undefined) continue;
    if (key === 'properties' && isRecord(value)) {
      const props: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(value)) if (sub !== undefined) props[name] = canonicalSchema(sub);
      out[key] = props;
    } else if (SUBSCHEMA.has(key)) {
      out[key] = Array.isArray(value) ? value.map(canonicalSchema) : canonicalSchema(value);
    } else if (SUBSCHEMA_LIST.has(key) && Array.isArray(value)) {
      out[key] = value.map(canonicalSchema);
    } else if (SUBSCHEMA_MAP.has(key) && isRecord(value)) {
      const map: Record<string, unknown> = {};
      for (const name of Object.keys(value).sort(byCodeUnit)) {
        const sub = value[name];
        // `dependencies` mixes schemas and property lists (arrays); lists stay data.
        if (sub !== undefined) map[name] = Array.isArray(sub) ? canonicalData(sub) : canonicalSchema(sub);
      }
      out[key] = map;
    } else {
      out[key] = canonicalData(value);
    }
  }
  return out;
}

/** Fixed keys first in the given order, then the rest sorted; `transform` decides per key. */
function ordered(
  source: Record<string, unknown>,
  first: readonly string[],
  transform: (key: string, value: unknown) => unknown = (_key, value) => canonicalData(value),
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of first) if (source[key] !== undefined) out[key] = transform(key, source[key]);
  for (const key of Object.keys(source).sort(byCodeUnit)) {
    if (!first.includes(key) && source[key] !== undefined) out[key] = transform(key, source[key]);
  }
  return out;
}

function canonicalTool(tool: Tool): Record<string, unknown> {
  return ordered(tool, TOOL_KEYS, (key, value) => (key === 'inputSchema' || key === 'outputSchema' ? canonicalSchema(value) : canonicalData(value)));
}

/** The snapshot as an object, in the documented key order (see the module comment). */
function snapshotObject(listing: SnapshotSource, options: SnapshotOptions): Record<string, unknown> {
  const tools = listing.spec.tools
    .map((tool) => ({ name: tool.name, json: canonicalTool(tool) }))
    .map((t) => ({ ...t, text: JSON.stringify(t.json) }))
    .sort((a, b) => byCodeUnit(a.name, b.name) || byCodeUnit(a.text, b.text))
    .map((t) => t.json);
  const snapshot: Record<string, unknown> = { server: ordered(listing.serverInfo, SERVER_KEYS) };
  if (options.provenance !== undefined) snapshot.provenance = options.provenance;
  snapshot.capturedAt = options.capturedAt ?? listing.spec.capturedAt ?? new Date().toISOString();
  snapshot.pages = listing.pages;
  snapshot.capabilities = canonicalData(listing.capabilities);
  // Entries that were not tools are not in `tools`; a record of them keeps a broken server visible in diffs.
  if (listing.spec.invalidTools.length > 0) {
    snapshot.invalidTools = listing.spec.invalidTools.map(({ index, message }) => ({ index, message }));
  }
  snapshot.tools = tools;
  return snapshot;
}

/** The snapshot file's text: stable, 2-space indented JSON with a trailing newline. */
export function snapshotJson(listing: SnapshotSource, options: SnapshotOptions = {}): string {
  return `${JSON.stringify(snapshotObject(listing, options), null, 2)}\n`;
}

/**
 * Writes the snapshot into `folder` (created if missing) as `snapshotFileName(name)` and returns
 * the file's path. The write is atomic: a temp file beside it, flushed, then renamed over the
 * old one, so a reader or a crash never sees half a file.
 */
export async function writeSnapshot(listing: SnapshotSource, folder: string, options: WriteSnapshotOptions = {}): Promise<string> {
  const text = snapshotJson(listing, options);
  const dir = resolve(folder);
  const fileName = snapshotFileName(options.name ?? listing.serverName ?? listing.serverInfo.name);
  const target = join(dir, fileName);
  if (dirname(target) !== dir) throw new Error(`snapshot file name ${JSON.stringify(fileName)} escapes ${dir}`); // the slug forbids it; belt and braces
  await mkdir(dir, { recursive: true });
  // Dot-prefixed and not `.json`, so folder scans never take a temp file for a snapshot.
  const temp = join(dir, `.${fileName}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx');
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await renameWithRetry(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw writeFailure(target, error);
  }
  return target;
}

/** On Windows a rename over a file that an editor or scanner holds open fails briefly: retry a few times. */
async function renameWithRetry(from: string, to: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await rename(from, to);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (attempt >= 5 || (code !== 'EPERM' && code !== 'EACCES' && code !== 'EBUSY')) throw error;
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
}
