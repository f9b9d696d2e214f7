/** Cursor's `.cursor/mcp.json`: `mcpServers`, with `${env:NAME}` and `${workspaceFolder}` in values. */
import { standardFields } from './common';
import { parseMcpServersText } from './mcpServersJson';
import { endsWithPath } from './paths';
import type { ConfigFormat, ConfigParseResult } from './types';

/** This adapter's format. */
export const format: ConfigFormat = 'cursor';

/** `.cursor/mcp.json`. */
export function matchesPath(path: string): boolean {
  return endsWithPath(path, '.cursor/mcp.json');
}

/** Parses a Cursor `mcp.json`. */
export function parse(text: string, file: string): ConfigParseResult {
  return parseMcpServersText(text, file, format, standardFields);
}
