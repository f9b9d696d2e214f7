/**
 * The generic adapter: any JSON file with a top-level `mcpServers` map (Claude's shape, which
 * most clients copied). The client-specific adapters reuse `parseMcpServersText` with their own
 * field picks.
 */
import { childByKey } from '../jsonText';
import { ParseContext, describeKeys, parseJsonRoot, serverMapResult, standardFields, type ServerFields } from './common';
import type { ConfigFormat, ConfigParseResult } from './types';

/** This adapter's format. */
export const format: ConfigFormat = 'mcp-servers-json';

/** The generic adapter claims no path: `parseConfig` falls back to it for unknown `.json` files. */
export function matchesPath(_path: string): boolean {
  return false;
}

/**
 * Parses a JSON(C) file whose servers sit in a top-level `mcpServers` object, picking each
 * entry's fields with `fieldsOf`. No `mcpServers` object → `isConfig: false` with a problem.
 */
export function parseMcpServersText(
  text: string,
  file: string,
  fmt: ConfigFormat,
  fieldsOf: (raw: Record<string, unknown>) => ServerFields,
): ConfigParseResult {
  const ctx = new ParseContext(text, file, fmt);
  const root = parseJsonRoot(ctx);
  if (!root) return ctx.result(false);
  const servers = childByKey(root, 'mcpServers');
  if (!servers) return ctx.notConfig('a top-level "mcpServers" object', describeKeys(root));
  return serverMapResult(ctx, servers, 'mcpServers', fieldsOf);
}

/** Field pick for the generic shape: also accepts Windsurf's `serverUrl` and Gemini's `httpUrl`. */
export function genericFields(raw: Record<string, unknown>): ServerFields {
  const fields = standardFields(raw);
  if (fields.url === undefined && raw.serverUrl !== undefined) fields.url = raw.serverUrl;
  if (fields.url === undefined && raw.httpUrl !== undefined) {
    fields.url = raw.httpUrl;
    fields.urlTransport = 'http';
  }
  return fields;
}

/** Parses any JSON file with a top-level `mcpServers` map. */
export function parse(text: string, file: string): ConfigParseResult {
  return parseMcpServersText(text, file, format, genericFields);
}
