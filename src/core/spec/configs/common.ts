/**
 * What the adapters share: one way to turn a client's server entry into a `ServerDefinition`
 * (transport explicit or inferred, strings checked, variables found), one way to walk a JSON
 * server map with key locations, and problems that carry line and column.
 */
import type { Node } from 'jsonc-parser';
import { lineColumn, nodeValue, parseJsonText } from '../jsonText';
import type { LoadProblem, SourceRange } from '../model';
import type { ConfigFormat, ConfigParseResult, InputDefinition, ServerDefinition, Transport } from './types';
import { definitionVariables } from './variables';
import { isRecord } from '../../util/isRecord';

/** Collects problems and inputs while one file is parsed. */
export class ParseContext {
  readonly problems: LoadProblem[] = [];
  readonly inputs: InputDefinition[] = [];

  /** The file's text without a byte-order mark: offsets are into this text, as editors count them. */
  readonly text: string;

  constructor(
    text: string,
    readonly file: string,
    readonly format: ConfigFormat,
  ) {
    this.text = stripBom(text);
  }

  /** Records a problem, with line and column when the offset is known. */
  problem(message: string, offset?: number): void {
    const p: LoadProblem = { file: this.file, message };
    if (offset !== undefined) Object.assign(p, lineColumn(this.text, offset));
    this.problems.push(p);
  }

  /** The result for this file. */
  result(isConfig: boolean, definitions: ServerDefinition[] = []): ConfigParseResult {
    return { isConfig, definitions, inputs: this.inputs, problems: this.problems };
  }

  /** The usual "this is not an MCP config" result, with a problem that says what was expected. */
  notConfig(expected: string, found?: string): ConfigParseResult {
    this.problem(`not an MCP config: expected ${expected}${found ? `; found ${found}` : ''}`);
    return this.result(false);
  }
}

/** A file's text with a leading byte-order mark removed (TOML and YAML parsers reject it). */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Parses JSONC into a root object node; records a problem and returns undefined otherwise. */
export function parseJsonRoot(ctx: ParseContext): Node | undefined {
  const parsed = parseJsonText(ctx.text, ctx.file);
  if (!parsed.ok) {
    ctx.problems.push(parsed.problem);
    return undefined;
  }
  if (parsed.tree.type !== 'object') {
    ctx.problem(`not an MCP config: expected a JSON object, found ${parsed.tree.type === 'array' ? 'an array' : `a ${parsed.tree.type}`}`);
    return undefined;
  }
  return parsed.tree;
}

/** Top-level keys of an object node, for "found …" hints in problems. */
export function describeKeys(node: Node): string {
  const keys = (node.children ?? []).map((p) => p.children?.[0]?.value).filter((k): k is string => typeof k === 'string');
  if (keys.length === 0) return 'an empty object';
  const shown = keys
    .slice(0, 5)
    .map((k) => `"${k}"`)
    .join(', ');
  return `top-level ${keys.length === 1 ? 'key' : 'keys'} ${shown}${keys.length > 5 ? ', …' : ''}`;
}

/** The raw fields of one server entry, already picked out of the client's own shape. */
export interface ServerFields {
  type?: unknown;
  command?: unknown;
  args?: unknown;
  env?: unknown;
  cwd?: unknown;
  url?: unknown;
  /** Transport the url's key implies when no type is given (Gemini: `url` is SSE, `httpUrl` is HTTP). */
  urlTransport?: Transport;
  headers?: unknown;
  disabled?: boolean;
}

/** Where a definition stands, used for its location and for problem positions. */
export interface EntryPlace {
  name: string;
  location?: SourceRange;
}

const TRANSPORT_ALIASES: Record<string, Transport> = {
  stdio: 'stdio',
  http: 'http',
  'streamable-http': 'http',
  streamablehttp: 'http',
  streamable_http: 'http',
  sse: 'sse',
};

/** Maps a declared transport name to ours; undefined for names we do not know. */
export function transportOf(type: string): Transport | undefined {
  return TRANSPORT_ALIASES[type.toLowerCase()];
}

/** A URL whose path ends in `/sse` is the SSE convention; only used when nothing declares the transport. */
function looksLikeSse(url: string): boolean {
  return /\/sse\/?$/i.test(url.replace(/[?#].*$/s, ''));
}

function scalarString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * Builds a definition from picked fields, or records why it cannot (and returns undefined).
 * Numbers and booleans in args/env/headers are taken as their text, as clients do.
 */
export function buildDefinition(ctx: ParseContext, place: EntryPlace, fields: ServerFields): ServerDefinition | undefined {
  const at = place.location?.offset;
  const label = `server "${place.name}"`;
  const str = (value: unknown, field: string): string | undefined => {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    ctx.problem(`${label}: "${field}" should be a string`, at);
    return undefined;
  };
  const list = (value: unknown, field: string): string[] => {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      ctx.problem(`${label}: "${field}" should be a list of strings`, at);
      return [];
    }
    const out: string[] = [];
    for (const item of value) {
      const s = scalarString(item);
      if (s === undefined) ctx.problem(`${label}: an entry of "${field}" is not a string; skipped`, at);
      else out.push(s);
    }
    return out;
  };
  const map = (value: unknown, field: string): Record<string, string> => {
    if (value === undefined || value === null) return {};
    if (!isRecord(value)) {
      ctx.problem(`${label}: "${field}" should be an object of strings`, at);
      return {};
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === null || v === undefined) continue; // `KEY: null` means unset in YAML/JSON configs
      const s = scalarString(v);
      if (s === undefined) ctx.problem(`${label}: "${field}.${k}" is not a string; skipped`, at);
      else out[k] = s;
    }
    return out;
  };

  const command = str(fields.command, 'command');
  const url = str(fields.url, 'url');
  let transport: Transport | undefined;
  let transportInferred = false;
  if (fields.type !== undefined && fields.type !== null) {
    transport = typeof fields.type === 'string' ? transportOf(fields.type) : undefined;
    if (!transport) ctx.problem(`${label}: unknown transport type ${JSON.stringify(fields.type)}; inferred from the fields instead`, at);
  }
  if (!transport) {
    transportInferred = true;
    if (command !== undefined) transport = 'stdio';
    else if (url !== undefined) transport = fields.urlTransport ?? (looksLikeSse(url) ? 'sse' : 'http');
    else {
      ctx.problem(`${label}: has neither "command" nor "url"; skipped`, at);
      return undefined;
    }
  }
  if (transport === 'stdio' && command === undefined) {
    ctx.problem(`${label}: a stdio server needs a "command"; skipped`, at);
    return undefined;
  }
  if (transport !== 'stdio' && url === undefined) {
    ctx.problem(`${label}: an ${transport} server needs a "url"; skipped`, at);
    return undefined;
  }

  const def: ServerDefinition = {
    name: place.name,
    file: ctx.file,
    format: ctx.format,
    transport,
    transportInferred,
    args: list(fields.args, 'args'),
    env: map(fields.env, 'env'),
    headers: map(fields.headers, 'headers'),
    disabled: fields.disabled ?? false,
    variables: [],
  };
  if (command !== undefined) def.command = command;
  const cwd = str(fields.cwd, 'cwd');
  if (cwd !== undefined) def.cwd = cwd;
  if (url !== undefined) def.url = url;
  if (place.location) def.location = place.location;
  def.variables = definitionVariables(def);
  return def;
}

/** Whether a value is shaped like a server entry at all (has something to start or connect to). */
export function isServerLike(value: unknown): boolean {
  if (!isRecord(value)) return false;
  return ['command', 'url', 'serverUrl', 'httpUrl'].some((k) => value[k] !== undefined);
}

/** `disabled: true` (Windsurf, Claude, Cline) or `enabled: false` (Codex, Zed). */
export function isDisabled(raw: Record<string, unknown>): boolean {
  return raw.disabled === true || raw.enabled === false;
}

/** The common JSON entry shape: `type`, `command`, `args`, `env`, `cwd`, `url`, `headers`. */
export function standardFields(raw: Record<string, unknown>): ServerFields {
  return {
    type: raw.type,
    command: raw.command,
    args: raw.args,
    env: raw.env,
    cwd: raw.cwd,
    url: raw.url,
    headers: raw.headers,
    disabled: isDisabled(raw),
  };
}

/**
 * Definitions from a JSON object node mapping server names to entries. Keys starting with `_`
 * whose value is not server-shaped are comments (`_comment`, `_instructions`), not servers; a
 * `_name` key that holds a real entry is a server like any other. A repeated name keeps the last
 * entry, as JSON readers do, and is reported.
 */
export function serverMapDefinitions(
  ctx: ParseContext,
  mapNode: Node,
  fieldsOf: (raw: Record<string, unknown>) => ServerFields,
  options: { skip?: (raw: Record<string, unknown>) => boolean } = {},
): ServerDefinition[] {
  const byName = new Map<string, ServerDefinition>();
  const seen = new Set<string>();
  for (const prop of mapNode.children ?? []) {
    const [keyNode, valueNode] = prop.children ?? [];
    if (!keyNode || typeof keyNode.value !== 'string') continue;
    const name = keyNode.value;
    const raw = valueNode ? nodeValue(valueNode) : undefined;
    if (name.startsWith('_') && !isServerLike(raw)) continue;
    const location: SourceRange = { offset: keyNode.offset, length: keyNode.length };
    if (seen.has(name)) {
      ctx.problem(`server "${name}" is defined more than once; the last one is used`, keyNode.offset);
      byName.delete(name);
    }
    seen.add(name);
    if (!isRecord(raw)) {
      ctx.problem(`server "${name}": expected an object`, keyNode.offset);
      continue;
    }
    if (options.skip?.(raw)) continue;
    const def = buildDefinition(ctx, { name, location }, fieldsOf(raw));
    if (def) byName.set(name, def);
  }
  // Map iteration is insertion order; a re-defined name moves to where its last entry stands.
  return [...byName.values()];
}

/**
 * The result for a file whose servers sit in the map `node` under `key`: its definitions, or,
 * when `node` is not an object, a problem (the file is still a config, just a broken one).
 */
export function serverMapResult(
  ctx: ParseContext,
  node: Node,
  key: string,
  fieldsOf: (raw: Record<string, unknown>) => ServerFields,
  options: { skip?: (raw: Record<string, unknown>) => boolean } = {},
): ConfigParseResult {
  if (node.type !== 'object') {
    ctx.problem(`"${key}" should be an object mapping server names to definitions`, node.offset);
    return ctx.result(true);
  }
  return ctx.result(true, serverMapDefinitions(ctx, node, fieldsOf, options));
}

/** Inputs as a VS Code mcp.json declares them (`[{id, type, description, password}]`). */
export function readInputs(ctx: ParseContext, node: Node | undefined): void {
  if (!node) return;
  if (node.type !== 'array') {
    ctx.problem('"inputs" should be a list', node.offset);
    return;
  }
  for (const item of node.children ?? []) {
    const raw = nodeValue(item);
    if (!isRecord(raw) || typeof raw.id !== 'string') {
      ctx.problem('an input has no "id"; skipped', item.offset);
      continue;
    }
    const input: InputDefinition = { id: raw.id };
    if (typeof raw.type === 'string') input.type = raw.type;
    if (typeof raw.description === 'string') input.description = raw.description;
    if (typeof raw.password === 'boolean') input.password = raw.password;
    ctx.inputs.push(input);
  }
}
