/**
 * Workspace MCP config files: which format a path is, and parsing any of them into
 * `ServerDefinition`s. One adapter module per format; this file only dispatches.
 */
import { extname } from 'node:path';
import * as claudeCode from './claudeCode';
import * as claudeDesktop from './claudeDesktop';
import * as codexToml from './codexToml';
import { ParseContext } from './common';
import * as continueYaml from './continueYaml';
import * as cursor from './cursor';
import * as geminiCli from './geminiCli';
import * as mcpRegistry from './mcpRegistry';
import * as mcpServersJson from './mcpServersJson';
import { normalisePath } from './paths';
import type { ConfigFormat, ConfigParseResult } from './types';
import * as vscodeMcpJson from './vscodeMcpJson';
import * as vscodeSettings from './vscodeSettings';
import * as windsurf from './windsurf';
import * as zed from './zed';

export type { ConfigFormat, ConfigParseResult, InputDefinition, ServerDefinition, Transport, VariableRef } from './types';
export { definitionVariables, findVariables, resolveVariables, type ResolveContext, type ResolveResult } from './variables';

/** A config adapter: the paths it owns and its pure parser. */
export interface ConfigAdapter {
  format: ConfigFormat;
  /** Whether a normalised path (forward slashes, lower case) is this format's file. */
  matchesPath(path: string): boolean;
  parse(text: string, file: string): ConfigParseResult;
}

/** Adapters in match order: specific paths first (`.vscode/mcp.json` before any generic rule). */
const ADAPTERS: readonly ConfigAdapter[] = [
  vscodeMcpJson,
  vscodeSettings,
  cursor,
  geminiCli,
  zed,
  codexToml,
  continueYaml,
  claudeCode,
  claudeDesktop,
  windsurf,
  mcpRegistry,
  mcpServersJson,
];

const BY_FORMAT = new Map<ConfigFormat, ConfigAdapter>(ADAPTERS.map((a) => [a.format, a]));

/**
 * The config format of a file, recognised by its path (relative to the workspace or absolute;
 * either slash). Undefined for files that are not a known config location. Continue's
 * `.continue/mcpServers/*.json` files use the Claude shape, so they are the generic format.
 */
export function formatForPath(path: string): ConfigFormat | undefined {
  const p = normalisePath(path);
  if (/(^|\/)\.continue\/mcpservers\/[^/]+\.json$/.test(p)) return 'mcp-servers-json';
  return ADAPTERS.find((a) => a.matchesPath(p))?.format;
}

/**
 * Parses a config file. The format comes from the path when not given; an unrecognised `.json`
 * path is tried as a generic `mcpServers` file. Never throws: bad input becomes problems.
 */
export function parseConfig(text: string, file: string, format?: ConfigFormat): ConfigParseResult {
  const fmt = format ?? formatForPath(file) ?? (extname(file).toLowerCase() === '.json' ? 'mcp-servers-json' : undefined);
  const adapter = fmt ? BY_FORMAT.get(fmt) : undefined;
  if (!adapter) return new ParseContext(text, file, 'mcp-servers-json').notConfig('a known MCP config file (by path)', `"${file}"`);
  try {
    return adapter.parse(text, file);
  } catch (error) {
    // Adapters handle expected trouble themselves; this guards the "never throws" promise.
    const ctx = new ParseContext(text, file, adapter.format);
    ctx.problem(`could not read config: ${error instanceof Error ? error.message : String(error)}`);
    return ctx.result(false);
  }
}

/**
 * Globs for every recognised config location, for `workspaceContains:` activation and file
 * watchers. Generic `mcpServers` files elsewhere are found by the folder scan, not by these.
 */
export const CONFIG_GLOBS: readonly string[] = [
  '**/.vscode/mcp.json',
  '**/.vscode/settings.json',
  '**/.mcp.json',
  '**/.cursor/mcp.json',
  '**/claude_desktop_config.json',
  '**/.windsurf/mcp_config.json',
  '**/mcp_config.json',
  '**/.gemini/settings.json',
  '**/.codex/config.toml',
  '**/.continue/mcpServers/*.yaml',
  '**/.continue/mcpServers/*.yml',
  '**/.continue/mcpServers/*.json',
  '**/.zed/settings.json',
  '**/server.json',
];
