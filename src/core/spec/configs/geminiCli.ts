/**
 * Gemini CLI's `.gemini/settings.json`: `mcpServers` among many other settings. Gemini's `url`
 * means SSE and `httpUrl` means Streamable HTTP. Dotted keys such as `mcp.toolApproval` are
 * settings, not a server map.
 */
import { childByKey } from '../jsonText';
import { ParseContext, parseJsonRoot, serverMapResult, standardFields, type ServerFields } from './common';
import { endsWithPath } from './paths';
import type { ConfigFormat, ConfigParseResult } from './types';

/** This adapter's format. */
export const format: ConfigFormat = 'gemini-cli';

/** `.gemini/settings.json`. */
export function matchesPath(path: string): boolean {
  return endsWithPath(path, '.gemini/settings.json');
}

function geminiFields(raw: Record<string, unknown>): ServerFields {
  const fields = standardFields(raw);
  if (raw.httpUrl !== undefined) {
    fields.url = raw.httpUrl;
    fields.urlTransport = 'http';
  } else if (raw.url !== undefined) {
    fields.urlTransport = 'sse';
  }
  return fields;
}

/**
 * Parses Gemini CLI settings. A settings file without `mcpServers` is ordinary (it configures
 * other things), so it is `isConfig: false` without a problem.
 */
export function parse(text: string, file: string): ConfigParseResult {
  const ctx = new ParseContext(text, file, format);
  const root = parseJsonRoot(ctx);
  if (!root) return ctx.result(false);
  const servers = childByKey(root, 'mcpServers');
  return servers ? serverMapResult(ctx, servers, 'mcpServers', geminiFields) : ctx.result(false);
}
