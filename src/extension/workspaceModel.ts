/**
 * Keeps one WorkspaceIndex per workspace folder fresh with file watchers, and tells listeners
 * (the tree, diagnostics) when something changed. All file logic lives in the core index.
 */
import * as vscode from 'vscode';
import { CONFIG_GLOBS } from '../core/spec/configs';
import { WorkspaceIndex, type IndexedSpec } from '../core/discovery/workspaceIndex';
import type { ServerDefinition } from '../core/spec/configs/types';
import { affectsConfig, readConfig } from './config';
import { Disposable } from './lifecycle';
import { errorMessage } from './log';

export class WorkspaceModel extends Disposable {
  private readonly indexes = new Map<string, WorkspaceIndex>();
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  /** Fires after any index changed (debounced). */
  readonly onDidChange = this.changed.event;
  private pending: NodeJS.Timeout | undefined;
  private readonly pendingFiles = new Set<string>();
  /** Resolves when the first scan finished (tests and commands wait on it). */
  readonly ready: Promise<void>;

  constructor(private readonly log: vscode.LogOutputChannel) {
    super();
    // One watcher for JSON (specs and most configs) and one per non-JSON config pattern.
    const patterns = ['**/*.json', ...CONFIG_GLOBS.filter((g) => !g.endsWith('.json'))];
    for (const pattern of patterns) {
      const w = this.register(vscode.workspace.createFileSystemWatcher(pattern));
      const onFile = (uri: vscode.Uri) => this.queue(uri.fsPath);
      this.register(w.onDidCreate(onFile));
      this.register(w.onDidChange(onFile));
      this.register(w.onDidDelete(onFile));
    }
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => void this.rescan()));
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!affectsConfig(e)) return;
        for (const [folder, index] of this.indexes) index.setThresholds(readConfig(vscode.Uri.file(folder)).thresholds);
        this.changed.fire();
      }),
    );
    this.ready = this.rescan();
  }

  /** Scans every workspace folder from scratch. */
  async rescan(): Promise<void> {
    const folders = vscode.workspace.workspaceFolders?.filter((f) => f.uri.scheme === 'file') ?? [];
    this.indexes.clear();
    await Promise.all(
      folders.map(async (f) => {
        const index = new WorkspaceIndex(f.uri.fsPath, readConfig(f.uri).thresholds);
        this.indexes.set(f.uri.fsPath, index);
        const started = Date.now();
        try {
          await index.scan();
          this.log.info(`Scanned ${f.name}: ${index.definitions.length} server definitions, ${index.specFiles.length} tool specs (${Date.now() - started} ms)`);
          for (const p of index.problems) this.log.warn(`${p.file}${p.line ? `:${p.line}:${p.column}` : ''}: ${p.message}`);
        } catch (err) {
          this.log.error(`Scanning ${f.name} failed: ${errorMessage(err)}`);
        }
      }),
    );
    this.changed.fire();
  }

  private queue(file: string): void {
    this.pendingFiles.add(file);
    if (this.pending) clearTimeout(this.pending);
    this.pending = setTimeout(() => void this.flush(), 150);
  }

  private async flush(): Promise<void> {
    this.pending = undefined;
    const files = [...this.pendingFiles];
    this.pendingFiles.clear();
    let any = false;
    for (const file of files) {
      const index = this.indexFor(file);
      if (index && (await index.updateFile(file))) any = true;
    }
    if (any) this.changed.fire();
  }

  /** Tells listeners now (after a change made through an index directly). */
  notifyChanged(): void {
    this.changed.fire();
  }

  /** The index of the folder that contains a file. */
  indexFor(file: string): WorkspaceIndex | undefined {
    let best: WorkspaceIndex | undefined;
    for (const [root, index] of this.indexes) {
      if ((file === root || file.startsWith(root + '/') || file.startsWith(root + '\\')) && (!best || root.length > best.root.length)) {
        best = index;
      }
    }
    return best;
  }

  get definitions(): ServerDefinition[] {
    return [...this.indexes.values()].flatMap((i) => i.definitions);
  }

  get specs(): IndexedSpec[] {
    return [...this.indexes.values()].flatMap((i) => i.specFiles);
  }

  /** The folder a definition belongs to. */
  folderOf(file: string): vscode.WorkspaceFolder | undefined {
    return vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file));
  }
}
