/** Claude Code's project `.mcp.json`: `mcpServers` with `type: stdio|http|sse`, `${VAR}` and `${VAR:-default}` expansion. */
import { standardFields } from './common';
import { parseMcpServersText } from './mcpServersJson';
import { endsWithPath } from './paths';
import type { ConfigFormat, ConfigParseResult } from './types';

/** This adapter's format. */
export const format: ConfigFormat = 'claude-code';

/** `.mcp.json`, at the root or at the root of a nested project. */
export function matchesPath(path: string): boolean {
  return endsWithPath(path, '.mcp.json');
}

/** Parses a Claude Code `.mcp.json`. */
export function parse(text: string, file: string): ConfigParseResult {
  return parseMcpServersText(text, file, format, standardFields);
}
