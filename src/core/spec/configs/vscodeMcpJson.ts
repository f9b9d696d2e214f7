/** VS Code's `.vscode/mcp.json`: `servers` (`type: stdio|http|sse`) and `inputs` for `${input:id}`. */
import { childByKey } from '../jsonText';
import { ParseContext, describeKeys, parseJsonRoot, readInputs, serverMapResult, standardFields } from './common';
import { endsWithPath } from './paths';
import type { ConfigFormat, ConfigParseResult } from './types';

/** This adapter's format. */
export const format: ConfigFormat = 'vscode-mcp-json';

/** `.vscode/mcp.json`. */
export function matchesPath(path: string): boolean {
  return endsWithPath(path, '.vscode/mcp.json');
}

/** Parses a VS Code `mcp.json`. */
export function parse(text: string, file: string): ConfigParseResult {
  const ctx = new ParseContext(text, file, format);
  const root = parseJsonRoot(ctx);
  if (!root) return ctx.result(false);
  readInputs(ctx, childByKey(root, 'inputs'));
  let servers = childByKey(root, 'servers');
  if (!servers) {
    // A config copied from Claude or Cursor: VS Code wants `servers`, but the intent is clear.
    servers = childByKey(root, 'mcpServers');
    if (servers) ctx.problem('"mcpServers" found where VS Code expects "servers"; read as servers', servers.offset);
  }
  if (!servers) return ctx.notConfig('a top-level "servers" object', describeKeys(root));
  return serverMapResult(ctx, servers, 'servers', standardFields);
}
