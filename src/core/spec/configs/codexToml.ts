/**
 * Codex's `.codex/config.toml`: one `[mcp_servers.<name>]` table per server with `command`,
 * `args`, `env`, `cwd` (stdio) or `url` (Streamable HTTP), `enabled = false` to disable.
 * Nested tables such as `[mcp_servers.x.tools.y]` are fields of server `x`, not servers.
 */
import type * as SmolToml from 'smol-toml' with { 'resolution-mode': 'import' };
import { looksBinary } from '../jsonText';
import type { SourceRange } from '../model';
import { ParseContext, buildDefinition, isDisabled, standardFields, type ServerFields } from './common';
import { endsWithPath } from './paths';
import type { ConfigFormat, ConfigParseResult, ServerDefinition } from './types';
import { isRecord } from '../../util/isRecord';

/** This adapter's format. */
export const format: ConfigFormat = 'codex-toml';

/** `.codex/config.toml`. */
export function matchesPath(path: string): boolean {
  return endsWithPath(path, '.codex/config.toml');
}

// smol-toml's types describe its ESM build, which a CommonJS file may not `import`; its package
// also ships a CommonJS build under the `require` condition, so load that one with its types.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the CommonJS build, see above
const { parse: parseToml, TomlError } = require('smol-toml') as typeof SmolToml;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Where a server's name stands: its `[mcp_servers.name]` header, or a dotted `mcp_servers.name =` key. */
function locate(text: string, name: string): SourceRange | undefined {
  const quoted = `(?:${escapeRegExp(name)}|"${escapeRegExp(name)}"|'${escapeRegExp(name)}')`;
  const patterns = [
    new RegExp(`^[ \\t]*\\[[ \\t]*mcp_servers[ \\t]*\\.[ \\t]*(${quoted})[ \\t]*\\]`, 'm'),
    new RegExp(`^[ \\t]*mcp_servers[ \\t]*\\.[ \\t]*(${quoted})[ \\t]*=`, 'm'),
  ];
  for (const pattern of patterns) {
    const m = pattern.exec(text);
    const group = m?.[1];
    if (m && group) return { offset: m.index + m[0].indexOf(group, m[0].indexOf('mcp_servers') + 11), length: group.length };
  }
  return undefined;
}

function codexFields(raw: Record<string, unknown>, ctx: ParseContext, name: string): ServerFields {
  const headers: Record<string, unknown> = isRecord(raw.http_headers) ? { ...raw.http_headers } : {};
  // Codex reads these header values from the environment at connect time; `${env:X}` says the same
  // thing in our model, so resolution (and the "unresolved" report) covers them.
  if (isRecord(raw.env_http_headers)) {
    for (const [header, envName] of Object.entries(raw.env_http_headers)) {
      if (typeof envName === 'string') headers[header] = `\${env:${envName}}`;
      else ctx.problem(`server "${name}": env_http_headers.${header} should name an environment variable`);
    }
  }
  if (typeof raw.bearer_token_env_var === 'string') headers.Authorization = `Bearer \${env:${raw.bearer_token_env_var}}`;
  return {
    ...standardFields(raw),
    urlTransport: 'http', // Codex speaks Streamable HTTP to a `url`
    headers,
    disabled: isDisabled(raw),
  };
}

/**
 * Parses a Codex `config.toml`. A config without `mcp_servers` is ordinary (it sets models and
 * the like), so it is `isConfig: false` without a problem.
 */
export function parse(text: string, file: string): ConfigParseResult {
  const ctx = new ParseContext(text, file, format);
  if (looksBinary(text)) {
    ctx.problem('binary file, not TOML');
    return ctx.result(false);
  }
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(ctx.text);
  } catch (error) {
    const p = {
      file,
      message: `invalid TOML: ${error instanceof Error ? (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '') : String(error)}`,
    };
    ctx.problems.push(error instanceof TomlError ? { ...p, line: error.line, column: error.column } : p);
    return ctx.result(false);
  }
  const servers = doc.mcp_servers;
  if (servers === undefined) return ctx.result(false);
  if (!isRecord(servers)) {
    const at = ctx.text.indexOf('mcp_servers');
    ctx.problem('"mcp_servers" should be a table of servers', at >= 0 ? at : undefined);
    return ctx.result(true);
  }
  const definitions: ServerDefinition[] = [];
  for (const [name, raw] of Object.entries(servers)) {
    const location = locate(ctx.text, name);
    if (!isRecord(raw)) {
      ctx.problem(`server "${name}": expected a table`, location?.offset);
      continue;
    }
    const def = buildDefinition(ctx, location ? { name, location } : { name }, codexFields(raw, ctx, name));
    if (def) definitions.push(def);
  }
  return ctx.result(true, definitions);
}
