/**
 * Schema-complexity and client findings as inline diagnostics in spec snapshot files. Open
 * editors are linted from their live text as they are edited; with `agentSeer.lint.scope` =
 * `workspace`, files on disk too, whenever the workspace model changes.
 */
import { readFile } from 'node:fs/promises';
import * as vscode from 'vscode';
import { lintSpecText } from '../core/lint';
import { affectsConfig, readConfig } from './config';
import { toDiagnostic } from './findingDiagnostic';
import { Disposable } from './lifecycle';
import { isShownInTab, onDidChangeOpenFiles, openDocument } from './openFiles';
import type { WorkspaceModel } from './workspaceModel';

export class SpecDiagnostics extends Disposable {
  private readonly collection = this.register(vscode.languages.createDiagnosticCollection('agent-seer'));
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly model: WorkspaceModel,
    private readonly extensionUri: vscode.Uri,
  ) {
    super();
    this.register(model.onDidChange(() => void this.refreshAll()));
    this.register(vscode.workspace.onDidChangeConfiguration((e) => affectsConfig(e) && void this.refreshAll()));
    this.register(vscode.workspace.onDidOpenTextDocument((d) => this.lintDocument(d)));
    this.register(
      onDidChangeOpenFiles((opened, closed) => {
        for (const uri of opened) {
          const doc = openDocument(uri);
          if (doc) this.lintDocument(doc);
        }
        for (const uri of closed) if (readConfig(uri).lint.scope === 'openFiles') this.collection.delete(uri);
      }),
    );
    this.register(
      vscode.workspace.onDidChangeTextDocument((e) => {
        const key = e.document.uri.toString();
        clearTimeout(this.timers.get(key));
        this.timers.set(
          key,
          setTimeout(() => this.lintDocument(e.document), 200),
        );
      }),
    );
    this.register({ dispose: () => this.timers.forEach((t) => clearTimeout(t)) });
  }

  /** Lints every known spec file: open documents from their text, others from disk when the scope is the workspace. */
  async refreshAll(): Promise<void> {
    const known = new Set<string>();
    for (const entry of this.model.specs) {
      const uri = vscode.Uri.file(entry.file);
      const open = openDocument(uri);
      if (!this.inScope(uri)) continue;
      known.add(uri.toString());
      if (open) this.lintDocument(open);
      else {
        try {
          this.publish(uri, await readFile(entry.file, 'utf8'));
        } catch {
          this.collection.delete(uri);
        }
      }
    }
    // Files that stopped being specs, or are closed and out of scope, lose their diagnostics.
    this.collection.forEach((uri) => {
      if (!known.has(uri.toString()) && !(this.inScope(uri) && this.isSpecDocument(uri))) this.collection.delete(uri);
    });
  }

  /** Whether a file gets findings: shown in a tab, or anywhere with the `workspace` scope. */
  private inScope(uri: vscode.Uri): boolean {
    return readConfig(uri).lint.scope === 'workspace' || isShownInTab(uri);
  }

  private isSpecDocument(uri: vscode.Uri): boolean {
    return this.model.specs.some((s) => vscode.Uri.file(s.file).toString() === uri.toString());
  }

  /** Lints an open document if it is (or was) a spec file. */
  lintDocument(doc: vscode.TextDocument): void {
    if (doc.uri.scheme !== 'file' || !doc.fileName.toLowerCase().endsWith('.json')) return;
    // onDidOpenTextDocument fires before the tab exists: the tab event lints it then.
    if (!this.inScope(doc.uri)) return;
    const known = this.isSpecDocument(doc.uri) || this.collection.has(doc.uri);
    // A JSON document that is not yet known is linted only if it looks like a spec.
    if (!known && !doc.getText().includes('"tools"')) return;
    this.publish(doc.uri, doc.getText());
  }

  private publish(uri: vscode.Uri, text: string): void {
    const config = readConfig(uri);
    const result = lintSpecText(text, uri.fsPath, { thresholds: config.thresholds, clients: config.lint.clients });
    if (result.notSpec) {
      this.collection.delete(uri);
      return;
    }
    this.collection.set(
      uri,
      result.diagnostics.map((d) => toDiagnostic(d, uri, config.lint, this.extensionUri)).filter((d): d is vscode.Diagnostic => d !== undefined),
    );
  }

  /** Current diagnostics of a file (for tests and commands). */
  get(uri: vscode.Uri): readonly vscode.Diagnostic[] {
    return this.collection.get(uri) ?? [];
  }
}
