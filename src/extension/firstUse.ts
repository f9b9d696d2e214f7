/**
 * First use: the actions the welcome views and the walkthrough offer to someone with an empty
 * workspace — add a server to `.vscode/mcp.json`, bring in a snapshot file, generate a harness from
 * the bundled example spec (offline, no key needed), set up a model.
 */
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { loadSpecText } from '../core/spec/snapshot';
import { resolveInside } from '../core/util/insideFolder';
import { snapshotFileName } from '../core/workspace/layout';
import { readConfig } from './config';
import type { GenerateOutcome } from './generateCommand';
import { showError } from './log';
import type { ExtensionServices } from './services';

/** The example spec shipped with the extension (the reference filesystem server's tools; also the quickstart's). */
const EXAMPLE_SPEC = ['examples', 'filesystem.json'] as const;
/** The server name the example's snapshot is written under. */
const EXAMPLE_SERVER = 'example-filesystem';

/** What `.vscode/mcp.json` gets when it does not exist: one server to edit (the reference filesystem server). */
const MCP_JSON_TEMPLATE = `{
  // Servers Agent Seer (and VS Code's chat) can start. Edit the command, then use
  // "Snapshot Tools" on the server in the MCP Specs view.
  "servers": {
    "filesystem": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "\${workspaceFolder}"]
    }
  }
}
`;

function firstFolder(services: ExtensionServices): vscode.WorkspaceFolder | undefined {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
  if (!folder) void showError(services.log, 'Agent Seer: open a folder first; Agent Seer works on the files of a workspace folder.');
  return folder;
}

/** Opens `.vscode/mcp.json`, creating it with one example server when it does not exist. */
export async function addServer(services: ExtensionServices): Promise<vscode.TextEditor | undefined> {
  const folder = firstFolder(services);
  if (!folder) return undefined;
  const file = path.join(folder.uri.fsPath, '.vscode', 'mcp.json');
  try {
    await readFile(file);
  } catch {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, MCP_JSON_TEMPLATE, { flag: 'wx' });
    services.log.info(`Created ${file} with an example server`);
  }
  return vscode.window.showTextDocument(vscode.Uri.file(file));
}

/** Where snapshots go in a folder (the setting, kept inside the folder), or undefined after saying why. */
async function snapshotFolder(services: ExtensionServices, folder: vscode.WorkspaceFolder): Promise<string | undefined> {
  const out = await resolveInside(folder.uri.fsPath, readConfig(folder.uri).snapshotFolder, 'agentSeer.snapshotFolder');
  if (!out.ok) {
    void showError(services.log, `Agent Seer: ${out.message}`);
    return undefined;
  }
  await mkdir(out.path, { recursive: true });
  return out.path;
}

/** Picks a tools/list snapshot file, checks it, copies it into the snapshot folder and opens it. Returns the copy. */
export async function openSnapshot(services: ExtensionServices, source?: vscode.Uri): Promise<string | undefined> {
  const folder = firstFolder(services);
  if (!folder) return undefined;
  const picked =
    source ??
    (await vscode.window.showOpenDialog({ title: 'Open a tool spec snapshot', canSelectMany: false, filters: { 'Tool spec (JSON)': ['json'] } }))?.[0];
  if (!picked) return undefined;
  const text = await readFile(picked.fsPath, 'utf8');
  const load = loadSpecText(text, picked.fsPath);
  if (!load.ok) {
    const where = load.problem.line ? `:${load.problem.line}:${load.problem.column}` : '';
    void showError(services.log, `Agent Seer: ${picked.fsPath}${where}: ${load.problem.message}`);
    return undefined;
  }
  const dir = await snapshotFolder(services, folder);
  if (!dir) return undefined;
  const target = path.join(dir, path.basename(picked.fsPath));
  if (path.resolve(picked.fsPath) !== path.resolve(target)) await copyFile(picked.fsPath, target);
  await services.model.indexFor(target)?.updateFile(target);
  services.model.notifyChanged();
  await vscode.window.showTextDocument(vscode.Uri.file(target), { preview: true });
  void vscode.window.showInformationMessage(
    `Agent Seer: ${load.spec.tools.length} tools of "${load.spec.name}" are in ${vscode.workspace.asRelativePath(target)}.`,
  );
  return target;
}

/** Writes the bundled example spec into the snapshot folder and generates its harness offline. */
export async function generateExample(services: ExtensionServices): Promise<GenerateOutcome | undefined> {
  const folder = firstFolder(services);
  if (!folder) return undefined;
  const dir = await snapshotFolder(services, folder);
  if (!dir) return undefined;
  const target = path.join(dir, snapshotFileName(EXAMPLE_SERVER));
  await copyFile(vscode.Uri.joinPath(services.extensionUri, ...EXAMPLE_SPEC).fsPath, target);
  await services.model.indexFor(target)?.updateFile(target);
  services.model.notifyChanged();
  return vscode.commands.executeCommand<GenerateOutcome>('agentSeer.generateEvals', vscode.Uri.file(target), { provider: { kind: 'offline' } });
}
