/**
 * `inspect` as a function: paths (spec snapshots, config files, folders) → complexity profiles
 * of every spec found, plus problems. Config files contribute the snapshots written for their
 * servers; a server without a snapshot is listed so the user knows to take one.
 */
import { stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { FileReadError, readBoundedFile } from './boundedRead';
import { analyzeSpec, type ClientId, type ComplexityThresholds, type ServerProfile } from './complexity';
import { clientFindings } from './compat/clients';
import { formatForPath, parseConfig } from './spec/configs';
import type { ServerDefinition } from './spec/configs/types';
import { detectWorkspace } from './discovery/detect';
import type { LoadProblem, Spec } from './spec/model';
import { loadSpecText } from './spec/snapshot';
import { snapshotFolderOf } from './workspace/settings';
import { snapshotFileName, workspaceRootOf } from './workspace/layout';

export interface InspectResult {
  servers: ServerProfile[];
  problems: LoadProblem[];
  /** Server definitions with no snapshot yet, and the folder their snapshot belongs in. */
  unsnapshotted: { name: string; file: string; snapshotFolder: string }[];
}

/** The path that recognises a config's format (`.vscode/mcp.json`, `server.json`…): relative to its workspace folder. */
function formatPathOf(file: string): string {
  return relative(workspaceRootOf(file), file);
}

/** What `inspectPaths` checks besides the paths. */
export interface InspectOptions {
  thresholds?: ComplexityThresholds;
  /** Clients whose documented limits are checked; their findings follow each server's own. */
  clients?: readonly ClientId[];
}

/**
 * Profiles every spec reachable from `paths`: spec files directly, folders by a workspace scan,
 * config files through the snapshots written for their servers. Never throws for bad input.
 */
export async function inspectPaths(paths: string[], options: InspectOptions = {}): Promise<InspectResult> {
  const result: InspectResult = { servers: [], problems: [], unsnapshotted: [] };
  const specFiles = new Set<string>();
  const definitions: ServerDefinition[] = [];

  for (const raw of paths) {
    const p = resolve(raw);
    let isDir: boolean;
    try {
      isDir = (await stat(p)).isDirectory();
    } catch {
      result.problems.push({ file: raw, message: 'no such file or folder' });
      continue;
    }
    if (isDir) {
      const found = await detectWorkspace(p);
      found.specFiles.forEach((f) => specFiles.add(f));
      definitions.push(...found.definitions);
      result.problems.push(...found.problems);
      continue;
    }
    let text: string;
    try {
      text = await readBoundedFile(p);
    } catch (err) {
      result.problems.push({ file: raw, message: readFailure(err) });
      continue;
    }
    const format = formatForPath(formatPathOf(p));
    const asSpec = format ? undefined : loadSpecText(text, p);
    if (asSpec?.ok) {
      addSpec(result, asSpec.spec, options);
      specFiles.delete(p);
      continue;
    }
    if (asSpec && !asSpec.notSpec) {
      result.problems.push(asSpec.problem);
      continue;
    }
    const config = parseConfig(text, p, format);
    if (config.isConfig) {
      definitions.push(...config.definitions);
      result.problems.push(...config.problems);
    } else {
      // A file named like a config says what its format expected; any other file is neither.
      result.problems.push(
        format && config.problems[0] ? config.problems[0] : { file: p, message: 'not a tool spec ({"tools":[…]}) or an MCP config file (mcpServers/servers)' },
      );
    }
  }

  // A definition's snapshot, when one was written, is analysed with the rest. The snapshot folder
  // is the workspace's setting (`agentSeer.snapshotFolder`), as the editor writes it.
  const folders = new Map<string, Awaited<ReturnType<typeof snapshotFolderOf>>>();
  for (const def of definitions) {
    const root = workspaceRootOf(def.file);
    let folder = folders.get(root);
    if (!folder) {
      folder = await snapshotFolderOf(root);
      folders.set(root, folder);
      if (!folder.ok) result.problems.push(folder.problem);
    }
    if (!folder.ok) continue;
    const snap = join(folder.folder, snapshotFileName(def.name));
    try {
      await stat(snap);
      specFiles.add(snap);
    } catch {
      result.unsnapshotted.push({ name: def.name, file: def.file, snapshotFolder: folder.folder });
    }
  }

  for (const file of [...specFiles].sort()) {
    let text: string;
    try {
      text = await readBoundedFile(file);
    } catch (err) {
      result.problems.push({ file, message: readFailure(err) });
      continue;
    }
    const load = loadSpecText(text, file);
    if (load.ok) addSpec(result, load.spec, options);
    else result.problems.push(load.problem);
  }
  return result;
}

function readFailure(err: unknown): string {
  return err instanceof FileReadError ? err.message : `cannot read (${String(err)})`;
}

function addSpec(result: InspectResult, spec: Spec, options: InspectOptions): void {
  if (result.servers.some((s) => s.source === spec.source)) return;
  const profile = analyzeSpec(spec, options.thresholds);
  profile.findings.push(...clientFindings(spec, options.clients ?? []));
  result.servers.push(profile);
}
