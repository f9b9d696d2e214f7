/**
 * The `agentSeer.*` folder settings as the CLI sees them: read from the workspace folder's
 * `.vscode/settings.json` (JSONC), so a snapshot the editor wrote to a custom folder is found by
 * `agent-seer` too. The editor reads the same settings through VS Code (extension/config.ts).
 */
import { join } from 'node:path';
import { getNodeValue, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { FileReadError, readBoundedFile } from '../boundedRead';
import { resolveInside } from '../util/insideFolder';
import { SNAPSHOT_FOLDER, WORKSPACE_SETTINGS_FILE } from './layout';

/** A problem with the settings file: what and where (the shape of a spec `LoadProblem`). */
export interface SettingsProblem {
  file: string;
  message: string;
}

export type SnapshotFolderResult = { ok: true; folder: string; fromSettings: boolean } | { ok: false; problem: SettingsProblem };

/**
 * The absolute snapshot folder of a workspace folder: `agentSeer.snapshotFolder` from its
 * `.vscode/settings.json` when set (dotted key or nested object, as VS Code accepts), else
 * `.agentseer/specs`. A settings file that cannot be read or parsed, a value that is not a
 * non-empty string, or a folder outside the workspace is a problem, never a silent default: a
 * snapshot the user put elsewhere would otherwise be reported missing.
 */
export async function snapshotFolderOf(workspaceRoot: string): Promise<SnapshotFolderResult> {
  const file = join(workspaceRoot, WORKSPACE_SETTINGS_FILE);
  let text: string;
  try {
    text = await readBoundedFile(file);
  } catch (e) {
    if (e instanceof FileReadError && e.reason === 'missing') return { ok: true, folder: join(workspaceRoot, SNAPSHOT_FOLDER), fromSettings: false };
    return { ok: false, problem: { file, message: e instanceof Error ? e.message : String(e) } };
  }
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length || !tree || tree.type !== 'object') {
    const why = errors[0] ? printParseErrorCode(errors[0].error) : 'not an object';
    return { ok: false, problem: { file, message: `cannot read agentSeer.snapshotFolder: settings are not valid JSONC (${why})` } };
  }
  const node = property(tree, 'agentSeer.snapshotFolder') ?? property(property(tree, 'agentSeer'), 'snapshotFolder');
  if (!node) return { ok: true, folder: join(workspaceRoot, SNAPSHOT_FOLDER), fromSettings: false };
  const value: unknown = getNodeValue(node);
  // The editor falls back to the default for an empty or blank value (extension/config.ts); so does the CLI.
  if (typeof value === 'string' && !value.trim()) return { ok: true, folder: join(workspaceRoot, SNAPSHOT_FOLDER), fromSettings: false };
  if (typeof value !== 'string')
    return { ok: false, problem: { file, message: `agentSeer.snapshotFolder must be a folder path (a string), got ${JSON.stringify(value)}` } };
  const inside = await resolveInside(workspaceRoot, value.trim(), 'agentSeer.snapshotFolder');
  if (!inside.ok) return { ok: false, problem: { file, message: inside.message } };
  return { ok: true, folder: inside.path, fromSettings: true };
}

/** The value node of `key` in an object node (the last one wins, as in VS Code). */
function property(node: Node | undefined, key: string): Node | undefined {
  if (node?.type !== 'object') return undefined;
  let found: Node | undefined;
  for (const p of node.children ?? []) if (p.children?.[0]?.value === key) found = p.children[1];
  return found;
}
