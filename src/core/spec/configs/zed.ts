/**
 * Zed's `.zed/settings.json`: `context_servers`. Entries come in three shapes: the older
 * `{command: {path, args, env}}`, the newer flat `{command, args, env}`, and remote `{url, headers}`.
 * Servers provided by Zed extensions (`source: "extension"`, or only `settings`) have nothing to
 * start from the file, so they are skipped.
 */
import { childByKey } from '../jsonText';
import { ParseContext, isDisabled, parseJsonRoot, serverMapResult, type ServerFields } from './common';
import { endsWithPath } from './paths';
import type { ConfigFormat, ConfigParseResult } from './types';
import { isRecord } from '../../util/isRecord';

/** This adapter's format. */
export const format: ConfigFormat = 'zed';

/** `.zed/settings.json`. */
export function matchesPath(path: string): boolean {
  return endsWithPath(path, '.zed/settings.json');
}

function zedFields(raw: Record<string, unknown>): ServerFields {
  const fields: ServerFields = { type: raw.type, url: raw.url, headers: raw.headers, disabled: isDisabled(raw) };
  if (isRecord(raw.command)) {
    fields.command = raw.command.path;
    fields.args = raw.command.args;
    fields.env = raw.command.env;
  } else {
    fields.command = raw.command;
    fields.args = raw.args;
    fields.env = raw.env;
  }
  return fields;
}

function isExtensionServer(raw: Record<string, unknown>): boolean {
  return raw.source === 'extension' || (raw.command === undefined && raw.url === undefined);
}

/** Parses Zed settings. Settings without `context_servers` are ordinary: `isConfig: false`, no problem. */
export function parse(text: string, file: string): ConfigParseResult {
  const ctx = new ParseContext(text, file, format);
  const root = parseJsonRoot(ctx);
  if (!root) return ctx.result(false);
  const servers = childByKey(root, 'context_servers');
  return servers ? serverMapResult(ctx, servers, 'context_servers', zedFields, { skip: isExtensionServer }) : ctx.result(false);
}
