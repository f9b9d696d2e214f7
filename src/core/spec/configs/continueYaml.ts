/**
 * Continue's `.continue/mcpServers/*.yaml` block files: `name`/`version`/`schema` plus an
 * `mcpServers` LIST of `{name, command, args, env, cwd, type, url, requestOptions.headers}`.
 * Hub references (`- uses: owner/block`) name no command and are skipped.
 */
import { isMap, isScalar, isSeq, parseDocument, type Node as YamlNode } from 'yaml';
import { looksBinary } from '../jsonText';
import type { SourceRange } from '../model';
import { ParseContext, buildDefinition, standardFields, type ServerFields } from './common';
import type { ConfigFormat, ConfigParseResult, ServerDefinition } from './types';
import { isRecord } from '../../util/isRecord';

/** This adapter's format. */
export const format: ConfigFormat = 'continue-yaml';

/** `.continue/mcpServers/<any>.yaml` or `.yml`. */
export function matchesPath(path: string): boolean {
  return /(^|\/)\.continue\/mcpservers\/[^/]+\.ya?ml$/.test(path);
}

function continueFields(raw: Record<string, unknown>): ServerFields {
  const requestOptions = isRecord(raw.requestOptions) ? raw.requestOptions : {};
  // Continue keeps HTTP headers under requestOptions.
  return { ...standardFields(raw), headers: requestOptions.headers ?? raw.headers };
}

function rangeOf(node: YamlNode | null | undefined): SourceRange | undefined {
  const r = node?.range;
  return r ? { offset: r[0], length: r[1] - r[0] } : undefined;
}

/** Parses a Continue block file. No `mcpServers` → `isConfig: false` with a problem. */
export function parse(text: string, file: string): ConfigParseResult {
  const ctx = new ParseContext(text, file, format);
  if (looksBinary(text)) {
    ctx.problem('binary file, not YAML');
    return ctx.result(false);
  }
  const doc = parseDocument(ctx.text, { prettyErrors: true, uniqueKeys: false });
  const error = doc.errors[0];
  if (error) {
    const pos = error.linePos?.[0];
    ctx.problems.push({
      file,
      ...(pos ? { line: pos.line, column: pos.col } : {}),
      message: `invalid YAML: ${(error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')}`,
    });
    return ctx.result(false);
  }
  let js: unknown;
  try {
    js = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    ctx.problem(`invalid YAML: ${e instanceof Error ? e.message : String(e)}`);
    return ctx.result(false);
  }
  if (!isMap(doc.contents) || !isRecord(js)) return ctx.notConfig('a YAML mapping with an "mcpServers" list');
  const serversNode = doc.contents.get('mcpServers', true);
  const servers = js.mcpServers;
  if (servers === undefined) {
    const keys = Object.keys(js).map((k) => `"${k}"`);
    return ctx.notConfig('an "mcpServers" list', keys.length ? `keys ${keys.join(', ')}` : undefined);
  }
  // Pair each entry with its name and the YAML node of that name (for the location).
  const entries: { name: string | undefined; raw: unknown; at: SourceRange | undefined }[] = [];
  if (Array.isArray(servers)) {
    servers.forEach((raw, i) => {
      const item = isSeq(serversNode) ? serversNode.items[i] : undefined;
      const nameNode = isMap(item) ? item.get('name', true) : undefined;
      entries.push({ name: undefined, raw, at: rangeOf(isScalar(nameNode) ? nameNode : (item as YamlNode | undefined)) });
    });
  } else if (isRecord(servers)) {
    // Not Continue's documented shape, but a map keyed by name is unambiguous.
    for (const [name, raw] of Object.entries(servers)) {
      const pair = isMap(serversNode) ? serversNode.items.find((p) => isScalar(p.key) && String(p.key.value) === name) : undefined;
      entries.push({ name, raw, at: rangeOf(pair?.key as YamlNode | undefined) });
    }
  } else {
    ctx.problem('"mcpServers" should be a list of servers', rangeOf(serversNode)?.offset);
    return ctx.result(true);
  }

  const definitions: ServerDefinition[] = [];
  entries.forEach(({ name, raw, at }, index) => {
    if (!isRecord(raw)) {
      ctx.problem(`mcpServers entry ${index + 1}: expected a mapping`, at?.offset);
      return;
    }
    if (raw.uses !== undefined && raw.command === undefined && raw.url === undefined) return; // hub block reference
    const serverName = name ?? (typeof raw.name === 'string' && raw.name !== '' ? raw.name : `server ${index + 1}`);
    if (name === undefined && serverName !== raw.name) ctx.problem(`mcpServers entry ${index + 1} has no "name"`, at?.offset);
    const def = buildDefinition(ctx, at ? { name: serverName, location: at } : { name: serverName }, continueFields(raw));
    if (def) definitions.push(def);
  });
  return ctx.result(true, definitions);
}
