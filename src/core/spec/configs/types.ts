/**
 * Server definitions found in workspace config files, one shape for every client format.
 * Adapters are pure: `parse(text, file) → definitions + problems`; they never throw for bad input.
 */
import type { LoadProblem, SourceRange } from '../model';

export type Transport = 'stdio' | 'http' | 'sse';

/** Every config format Agent Seer reads, one adapter each. */
export type ConfigFormat =
  | 'vscode-mcp-json' // .vscode/mcp.json  (servers, inputs)
  | 'vscode-settings' // .vscode/settings.json  (mcp.servers, dotted or nested)
  | 'claude-code' // .mcp.json at the root  (mcpServers)
  | 'cursor' // .cursor/mcp.json  (mcpServers)
  | 'claude-desktop' // claude_desktop_config.json  (mcpServers)
  | 'windsurf' // .windsurf/mcp_config.json or mcp_config.json  (mcpServers, serverUrl)
  | 'gemini-cli' // .gemini/settings.json  (mcpServers)
  | 'codex-toml' // .codex/config.toml  ([mcp_servers.x])
  | 'continue-yaml' // .continue/mcpServers/*.yaml  (mcpServers as a list)
  | 'zed' // .zed/settings.json  (context_servers)
  | 'mcp-registry' // server.json  (packages and remotes)
  | 'mcp-servers-json'; // any other JSON file with a top-level mcpServers map

/** A variable reference seen in a definition's strings. */
export interface VariableRef {
  /** `workspaceFolder`, `env` (`${env:X}`, `${X}`, `${X:-d}`, `{env:X}`), `input` (`${input:id}`), or `other`. */
  kind: 'workspaceFolder' | 'env' | 'input' | 'other';
  /** Variable name (env var name, input id); empty for workspaceFolder. */
  name: string;
  /** The text as written, e.g. `${input:token}`. */
  raw: string;
  /** Default given inline (`${X:-default}`). */
  defaultValue?: string;
}

/** An input a VS Code mcp.json declares (`inputs: [{id, type, description, password}]`). */
export interface InputDefinition {
  id: string;
  type?: string;
  description?: string;
  password?: boolean;
}

/** One MCP server definition, normalised across formats. */
export interface ServerDefinition {
  name: string;
  /** File it was defined in (as given to the parser). */
  file: string;
  format: ConfigFormat;
  transport: Transport;
  /** True when the file did not say the transport and it was inferred (command → stdio, url → http). */
  transportInferred: boolean;
  command?: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  url?: string;
  headers: Record<string, string>;
  disabled: boolean;
  /** Variables referenced anywhere in command, args, env, cwd, url, headers. */
  variables: VariableRef[];
  /**
   * Values `resolveVariables` put in place of `${env:…}`/`${X}`/`{env:…}` and `${input:…}`
   * references (not inline defaults): possibly secrets, so masked wherever the server's command
   * line, messages or stderr are shown. Never written anywhere.
   */
  secretValues?: string[];
  /** Where the definition's key stands in the file, for editors. */
  location?: SourceRange;
}

export interface ConfigParseResult {
  /** False when the file is not an MCP config at all (a reported problem, not a crash). */
  isConfig: boolean;
  definitions: ServerDefinition[];
  inputs: InputDefinition[];
  problems: LoadProblem[];
}
