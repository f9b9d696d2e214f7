/**
 * VS Code `settings.json` with an MCP section: `"mcp.servers"` as a dotted key or nested as
 * `"mcp": {"servers": …}` (both are valid settings syntax), inputs likewise.
 */
import type { Node } from 'jsonc-parser';
import { childByKey } from '../jsonText';
import { ParseContext, parseJsonRoot, readInputs, serverMapDefinitions, standardFields } from './common';
import { endsWithPath } from './paths';
import type { ConfigFormat, ConfigParseResult, ServerDefinition } from './types';

/** This adapter's format. */
export const format: ConfigFormat = 'vscode-settings';

/** `.vscode/settings.json`. */
export function matchesPath(path: string): boolean {
  return endsWithPath(path, '.vscode/settings.json');
}

/**
 * Parses VS Code settings. Settings without an MCP section are ordinary, so they are
 * `isConfig: false` without a problem.
 */
export function parse(text: string, file: string): ConfigParseResult {
  const ctx = new ParseContext(text, file, format);
  const root = parseJsonRoot(ctx);
  if (!root) return ctx.result(false);
  const nested = childByKey(root, 'mcp');
  const maps = [childByKey(root, 'mcp.servers'), childByKey(nested, 'servers')].filter((n): n is Node => n !== undefined);
  readInputs(ctx, childByKey(root, 'mcp.inputs'));
  readInputs(ctx, childByKey(nested, 'inputs'));
  if (maps.length === 0) return ctx.result(false);
  const definitions: ServerDefinition[] = [];
  for (const map of maps) {
    if (map.type !== 'object') {
      ctx.problem('"mcp.servers" should be an object mapping server names to definitions', map.offset);
      continue;
    }
    for (const def of serverMapDefinitions(ctx, map, standardFields)) {
      if (definitions.some((d) => d.name === def.name)) {
        ctx.problem(`server "${def.name}" is defined both as "mcp.servers" and nested "mcp": {"servers"}`, def.location?.offset);
      }
      definitions.push(def);
    }
  }
  return ctx.result(true, definitions);
}
