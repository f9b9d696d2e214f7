/**
 * "Snapshot Tools" on a server definition: trust gate, variables, start and list the server
 * with progress and cancellation, write the snapshot into the workspace.
 */
import * as vscode from 'vscode';
import { resolveVariables } from '../core/spec/configs/variables';
import type { ServerDefinition } from '../core/spec/configs/types';
import { listServerTools } from '../core/spec/live';
import { writeSnapshot } from '../core/spec/snapshotWriter';
import { resolveInside } from '../core/util/insideFolder';
import { readConfig } from './config';
import { errorMessage, showError } from './log';
import type { ServerApproval } from './serverApproval';
import { requireTrust } from './trust';
import type { WorkspaceModel } from './workspaceModel';

export interface SnapshotDeps {
  approval: ServerApproval;
  model: WorkspaceModel;
  log: vscode.LogOutputChannel;
  /** Values typed for `${input:id}` in this session (never persisted: they may be secrets). */
  inputValues: Map<string, string>;
}

/** Outcome, for callers and tests: the written file, or why nothing was started. */
export type SnapshotOutcome =
  | { status: 'written'; file: string; tools: number }
  | { status: 'untrusted' | 'declined' | 'cancelled' | 'missing-input' | 'no-folder' }
  | { status: 'failed'; message: string };

export async function snapshotServer(def: ServerDefinition, deps: SnapshotDeps): Promise<SnapshotOutcome> {
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(def.file));
  if (!folder) return { status: 'no-folder' };
  if (!requireTrust(`start the servers it defines ("${def.name}")`, deps.log)) return { status: 'untrusted' };
  const config = readConfig(folder.uri);
  const out = await resolveInside(folder.uri.fsPath, config.snapshotFolder, 'agentSeer.snapshotFolder');
  if (!out.ok) {
    void showError(deps.log, `Agent Seer: ${out.message}`);
    return { status: 'failed', message: out.message };
  }
  const outDir = out.path;
  if ((await deps.approval.request(def)) === 'declined') return { status: 'declined' };

  const resolved = resolveVariables(def, { workspaceFolder: folder.uri.fsPath, env: process.env, inputs: Object.fromEntries(deps.inputValues) });
  let target = resolved.definition;
  for (const v of resolved.unresolved) {
    if (v.kind !== 'input') continue;
    const value = await vscode.window.showInputBox({
      title: `Value for \${input:${v.name}} (server "${def.name}")`,
      password: true,
      ignoreFocusOut: true,
    });
    if (value === undefined) return { status: 'missing-input' };
    deps.inputValues.set(v.name, value);
  }
  if (resolved.unresolved.some((v) => v.kind === 'input')) {
    target = resolveVariables(def, { workspaceFolder: folder.uri.fsPath, env: process.env, inputs: Object.fromEntries(deps.inputValues) }).definition;
  }
  const missingEnv = resolved.unresolved.filter((v) => v.kind !== 'input');
  if (missingEnv.length) deps.log.warn(`"${def.name}": unresolved ${missingEnv.map((v) => v.raw).join(', ')} (left empty)`);

  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Listing tools of "${def.name}"`, cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort());
      try {
        progress.report({ message: def.transport === 'stdio' ? 'starting the server…' : 'connecting…' });
        deps.log.info(`Starting "${def.name}" (${def.transport}) from ${def.file}`);
        const listing = await listServerTools(target, {
          signal: abort.signal,
          connectTimeoutMs: config.serverTimeoutSeconds * 1000,
          listTimeoutMs: config.serverTimeoutSeconds * 1000,
        });
        progress.report({ message: `writing ${listing.spec.tools.length} tools…` });
        const file = await writeSnapshot(listing, outDir, {
          name: def.name,
          provenance: `${vscode.workspace.asRelativePath(def.file)}#${def.name}`,
        });
        deps.log.info(`Wrote ${listing.spec.tools.length} tools of "${def.name}" to ${file}`);
        // Index the new file now rather than waiting for the file watcher.
        await deps.model.indexFor(file)?.updateFile(file);
        deps.model.notifyChanged();
        // Say it worked, and offer the next step.
        void vscode.window
          .showInformationMessage(
            `Agent Seer: snapshot of "${def.name}" written: ${listing.spec.tools.length} tools in ${vscode.workspace.asRelativePath(file)}.`,
            'Generate Evals',
            'Open',
          )
          .then((choice) => {
            if (choice === 'Generate Evals') void vscode.commands.executeCommand('agentSeer.generateEvals', vscode.Uri.file(file));
            else if (choice === 'Open') void vscode.window.showTextDocument(vscode.Uri.file(file));
          });
        return { status: 'written', file, tools: listing.spec.tools.length } as const;
      } catch (err) {
        if (abort.signal.aborted) return { status: 'cancelled' } as const;
        const message = errorMessage(err);
        void showError(deps.log, `Agent Seer: snapshot of "${def.name}" failed: ${message}`);
        return { status: 'failed', message } as const;
      } finally {
        sub.dispose();
      }
    },
  );
}
