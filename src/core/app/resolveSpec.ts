/**
 * Resolving the spec a user names, for both front ends: a snapshot file, or a config file plus a
 * server name (its snapshot in the workspace's snapshot folder). The result carries the server's
 * name and the harness folder name, so the CLI and the editor name harness folders the same way.
 *
 * The server name: a server in a config is named by the config. A snapshot file lying in its
 * workspace's snapshot folder was named after that server by `snapshot` (both front ends write
 * `<snapshotFolder>/<server>.json`), so its file name is the server's name. Any other spec file
 * is named by the spec (the server's reported name, else the file name).
 */
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { FileReadError, readBoundedFile } from '../boundedRead';
import { parseConfig } from '../spec/configs';
import type { LoadProblem, Spec } from '../spec/model';
import { loadSpecText } from '../spec/snapshot';
import { snapshotFolderOf } from '../workspace/settings';
import { harnessFolderName, SNAPSHOT_FOLDER, snapshotFileName, workspaceRootOf } from '../workspace/layout';

/** A spec ready to generate from. */
export interface ResolvedSpec {
  spec: Spec;
  /** The snapshot file the spec was read from. */
  file: string;
  /** The server's name: the config's, else the snapshot's file name in the snapshot folder, else the spec's. */
  server: string;
  /** The harness folder's name for this server (inside the harness folder). */
  harnessName: string;
  /** Problems that did not stop the resolution but changed its result (an unreadable settings file). */
  warnings: string[];
}

/**
 * Why no spec: `problem` says what and where in words for any front end. `snapshotMissing` and
 * `chooseServer` let a front end add its own way out (a command to run, an option to pass).
 */
export type SpecFailure = {
  ok: false;
  problem: LoadProblem;
  /** The config names the server but no snapshot of it exists yet. */
  snapshotMissing?: { server: string; configFile: string; snapshotFolder: string; snapshotFile: string };
  /** The config defines several enabled servers: the caller must name one. */
  chooseServer?: string[];
};

export type SpecResolution = ({ ok: true } & ResolvedSpec) | SpecFailure;

/** Where a front end knows snapshot folders to be. */
export interface SpecFileContext {
  /** Snapshot folders already known (the editor's `agentSeer.snapshotFolder`, resolved), checked first. */
  snapshotFolders?: string[];
  /** Workspace folders whose `.vscode/settings.json` names their snapshot folder (the CLI: its cwd). */
  workspaceRoots?: string[];
}

/**
 * Reads `path` (absolute) as a snapshot, else as an MCP config whose server `server` (or only
 * enabled server) has a snapshot in its workspace's snapshot folder (`agentSeer.snapshotFolder`
 * from `.vscode/settings.json`, else `.agentseer/specs`). Never throws for bad input.
 */
export async function resolveSpecPath(path: string, options: SpecFileContext & { server?: string } = {}): Promise<SpecResolution> {
  let text: string;
  try {
    text = await readBoundedFile(path);
  } catch (e) {
    return { ok: false, problem: { file: path, message: e instanceof FileReadError ? e.message : String(e) } };
  }
  const load = loadSpecText(text, path);
  if (load.ok) return { ok: true, spec: load.spec, file: path, ...(await namesForSpecFile(path, load.spec, options)) };
  if (!load.notSpec) return { ok: false, problem: load.problem };
  const config = parseConfig(text, path);
  if (!config.isConfig) return { ok: false, problem: { file: path, message: 'not a tool spec ({"tools":[…]}) or an MCP config file' } };
  const candidates = options.server ? config.definitions.filter((d) => d.name === options.server) : config.definitions.filter((d) => !d.disabled);
  const names = config.definitions.map((d) => d.name);
  const listed = names.join(', ') || 'none';
  if (!candidates.length)
    return { ok: false, problem: { file: path, message: `no server ${options.server ? `named "${options.server}"` : 'enabled'} (servers: ${listed})` } };
  if (candidates.length > 1) return { ok: false, problem: { file: path, message: `defines several servers (${listed}): choose one` }, chooseServer: names };
  const server = candidates[0]!.name;
  const folder = await snapshotFolderOf(workspaceRootOf(path));
  if (!folder.ok) return { ok: false, problem: folder.problem };
  const snapshotFile = resolve(folder.folder, snapshotFileName(server));
  let snapText: string;
  try {
    snapText = await readBoundedFile(snapshotFile);
  } catch (e) {
    if (e instanceof FileReadError && e.reason === 'missing') {
      return {
        ok: false,
        problem: { file: snapshotFile, message: `no snapshot of server "${server}": take one first` },
        snapshotMissing: { server, configFile: path, snapshotFolder: folder.folder, snapshotFile },
      };
    }
    return { ok: false, problem: { file: snapshotFile, message: e instanceof FileReadError ? e.message : String(e) } };
  }
  const snap = loadSpecText(snapText, snapshotFile);
  if (!snap.ok) return { ok: false, problem: snap.problem };
  return { ok: true, spec: snap.spec, file: snapshotFile, server, harnessName: harnessFolderName(server), warnings: [] };
}

/**
 * The server and harness names of a spec file (see the module comment). The file counts as a
 * snapshot of a configured server when it lies directly in the snapshot folder of one of
 * `workspaceRoots` (the editor: the file's workspace folder; the CLI: its cwd) or of the
 * workspace a default snapshot folder implies (`X/.agentseer/specs/s.json` → `X`). A settings
 * file that cannot be read is reported in `warnings`, and that root is skipped.
 */
export async function namesForSpecFile(
  file: string,
  spec: Spec,
  context: SpecFileContext = {},
): Promise<{ server: string; harnessName: string; warnings: string[] }> {
  const warnings: string[] = [];
  const folders = [...(context.snapshotFolders ?? [])];
  const roots = [...new Set([...(context.workspaceRoots ?? []).map((r) => resolve(r)), workspaceRootOfSnapshot(file)])];
  for (const root of roots) {
    const folder = await snapshotFolderOf(root);
    if (folder.ok) folders.push(folder.folder);
    else warnings.push(`${folder.problem.file}: ${folder.problem.message}`);
  }
  for (const folder of folders) {
    if (relative(resolve(folder), dirname(resolve(file))) === '' && file.endsWith('.json')) {
      const server = basename(file, '.json');
      return { server, harnessName: harnessFolderName(server), warnings };
    }
  }
  return { server: spec.name, harnessName: harnessFolderName(spec.name), warnings };
}

/** The workspace folder of a snapshot written to the default folder (`X/.agentseer/specs/s.json` → `X`), else the file's folder. */
function workspaceRootOfSnapshot(file: string): string {
  const dir = dirname(resolve(file));
  const depth = SNAPSHOT_FOLDER.split('/').length;
  let root = dir;
  for (let i = 0; i < depth; i++) root = dirname(root);
  return relative(root, dir).split(sep).join('/') === SNAPSHOT_FOLDER ? root : dir;
}
