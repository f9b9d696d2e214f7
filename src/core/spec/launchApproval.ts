/**
 * What a user approves before a server a workspace defines is started: everything that decides
 * what runs — the command, its arguments and working folder, the environment the config sets
 * (names and values as written), the URL and the names of the headers sent. Any change to those
 * is a new approval. The description shows them resolved against the workspace folder;
 * `${env:…}` and `${input:…}` references stay as written, so no secret value is shown or stored.
 */
import { createHash } from 'node:crypto';
import { resolveVariables } from './configs/variables';
import type { ServerDefinition } from './configs/types';
import { byCodeUnit } from '../util/byCodeUnit';

/** An approval key and the text a confirmation shows. */
export interface LaunchDescription {
  /** Hash of everything that decides what runs; stored once approved. */
  key: string;
  /** One line per part: what runs (or where it connects), where, with which environment or headers. */
  lines: string[];
}

/** Names whose literal values are secrets: shown masked. */
const SECRET_NAME = /token|secret|passw(or)?d|api[-_]?key|auth|credential|cookie|private/i;
const HAS_VARIABLE = /\$\{|\{env:/;

/** A value as shown: literal secrets masked, variable references as written. */
function shownValue(name: string, value: string): string {
  if (SECRET_NAME.test(name) && !HAS_VARIABLE.test(value) && value !== '') return '••••••';
  return value;
}

/** An argument as a shell would need it to be read back. */
function quoted(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Describes `def` as it would be started from `workspaceFolder`. */
export function describeLaunch(def: ServerDefinition, workspaceFolder: string): LaunchDescription {
  // Only the workspace folder (and `${X:-default}` defaults) resolve: environment and input
  // values are the user's, and may be secrets.
  const shown = resolveVariables(def, { workspaceFolder, env: {}, inputs: {} }).definition;
  const env = Object.entries(shown.env).sort(([a], [b]) => byCodeUnit(a, b));
  const headerNames = Object.keys(shown.headers).sort();
  const key = createHash('sha256')
    .update(JSON.stringify([def.file, def.name, shown.transport, shown.command ?? null, shown.args, shown.cwd ?? null, shown.url ?? null, env, headerNames]))
    .digest('hex');
  const lines: string[] = [];
  if (shown.transport === 'stdio') {
    lines.push(`Runs: ${[shown.command ?? '', ...shown.args].map(quoted).join(' ')}`);
    if (shown.cwd) lines.push(`In: ${shown.cwd}`);
    if (env.length) lines.push(`Environment: ${env.map(([k, v]) => `${k}=${shownValue(k, v)}`).join(', ')}`);
  } else {
    lines.push(`Connects to: ${shown.url ?? ''} (${shown.transport === 'sse' ? 'SSE' : 'Streamable HTTP'})`);
  }
  if (headerNames.length) lines.push(`Headers: ${headerNames.join(', ')}`);
  return { key, lines };
}
