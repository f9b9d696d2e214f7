/** Claude Desktop's `claude_desktop_config.json`: `mcpServers` beside app settings (`preferences`). */
import { standardFields } from './common';
import { parseMcpServersText } from './mcpServersJson';
import type { ConfigFormat, ConfigParseResult } from './types';

/** This adapter's format. */
export const format: ConfigFormat = 'claude-desktop';

/** `claude_desktop_config.json` in any folder (dotfiles repos keep it anywhere). */
export function matchesPath(path: string): boolean {
  return path === 'claude_desktop_config.json' || path.endsWith('/claude_desktop_config.json');
}

/** Parses a Claude Desktop config. */
export function parse(text: string, file: string): ConfigParseResult {
  return parseMcpServersText(text, file, format, standardFields);
}
