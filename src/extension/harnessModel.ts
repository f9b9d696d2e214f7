/**
 * The harnesses on disk, read into memory for the Harnesses tree and kept fresh by watchers:
 * a change under a harness folder re-reads that folder only.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { findHarnessDirs } from '../core/discovery/harnessDirs';
import { readHarness, type HarnessRead } from '../core/harness/store';
import { Disposable } from './lifecycle';
import { errorMessage } from './log';

export interface LoadedHarness extends HarnessRead {
  dir: string;
}

export class HarnessModel extends Disposable {
  private readonly harnesses = new Map<string, LoadedHarness>();
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;
  private timer: NodeJS.Timeout | undefined;
  private readonly dirty = new Set<string>();
  readonly ready: Promise<void>;

  constructor(private readonly log: vscode.LogOutputChannel) {
    super();
    for (const pattern of ['**/manifest.json', '**/records/*.json']) {
      const w = this.register(vscode.workspace.createFileSystemWatcher(pattern));
      const onFile = (uri: vscode.Uri) => this.queue(uri.fsPath);
      this.register(w.onDidCreate(onFile));
      this.register(w.onDidChange(onFile));
      this.register(w.onDidDelete(onFile));
    }
    this.register({ dispose: () => clearTimeout(this.timer) });
    this.ready = this.rescan();
  }

  async rescan(): Promise<void> {
    const folders = vscode.workspace.workspaceFolders?.filter((f) => f.uri.scheme === 'file') ?? [];
    const dirs = (await Promise.all(folders.map((f) => findHarnessDirs(f.uri.fsPath)))).flat();
    this.harnesses.clear();
    await Promise.all(dirs.map((d) => this.load(d)));
    this.changed.fire();
  }

  /** Loads (or reloads) one harness folder; forgets it when it has no manifest any more. */
  async load(dir: string): Promise<void> {
    try {
      const read = await readHarness(dir);
      if (!read.manifest && !read.records.length) this.harnesses.delete(dir);
      else this.harnesses.set(dir, { ...read, dir });
      for (const p of read.problems) this.log.warn(`${p.file}: ${p.message}`);
    } catch (err) {
      this.log.error(`Reading harness ${dir} failed: ${errorMessage(err)}`);
    }
  }

  /** Re-reads one harness folder now and tells listeners (after a run, not waiting for watchers). */
  async reload(dir: string): Promise<void> {
    await this.load(dir);
    this.changed.fire();
  }

  private queue(file: string): void {
    // manifest.json sits in the harness folder; a record sits in <harness>/records/.
    const dir = path.basename(path.dirname(file)) === 'records' ? path.dirname(path.dirname(file)) : path.dirname(file);
    this.dirty.add(dir);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), 200);
  }

  private async flush(): Promise<void> {
    const dirs = [...this.dirty];
    this.dirty.clear();
    await Promise.all(dirs.map((d) => this.load(d)));
    this.changed.fire();
  }

  get all(): LoadedHarness[] {
    return [...this.harnesses.values()].sort((a, b) => a.dir.localeCompare(b.dir));
  }

  get(dir: string): LoadedHarness | undefined {
    return this.harnesses.get(dir);
  }
}
