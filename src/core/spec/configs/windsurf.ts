/** Windsurf's `mcp_config.json`: `mcpServers`, remote servers under `serverUrl`, `disabled: true`. */
import { standardFields, type ServerFields } from './common';
import { parseMcpServersText } from './mcpServersJson';
import { endsWithPath } from './paths';
import type { ConfigFormat, ConfigParseResult } from './types';

/** This adapter's format. */
export const format: ConfigFormat = 'windsurf';

/** `.windsurf/mcp_config.json`, or `mcp_config.json` anywhere (Windsurf's own file is `~/.codeium/windsurf/mcp_config.json`). */
export function matchesPath(path: string): boolean {
  return endsWithPath(path, 'mcp_config.json');
}

function windsurfFields(raw: Record<string, unknown>): ServerFields {
  const fields = standardFields(raw);
  // Windsurf names the remote endpoint `serverUrl`; it also reads `url` from copied configs.
  if (raw.serverUrl !== undefined) fields.url = raw.serverUrl;
  return fields;
}

/** Parses a Windsurf `mcp_config.json`. */
export function parse(text: string, file: string): ConfigParseResult {
  return parseMcpServersText(text, file, format, windsurfFields);
}
