/**
 * Schema-complexity findings as inline diagnostics in spec snapshot files. This module owns the
 * one DiagnosticCollection. Files on disk are linted when the workspace model changes; open
 * editors are linted from their live text as they are edited.
 */
import { readFile } from 'node:fs/promises';
import * as vscode from 'vscode';
import { lintSpecText } from '../core/lint';
import { readConfig } from './config';
import { Disposable } from './lifecycle';
import { SEVERITY } from './severity';
import type { WorkspaceModel } from './workspaceModel';

export class SpecDiagnostics extends Disposable {
  private readonly collection = this.register(vscode.languages.createDiagnosticCollection('agent-seer'));
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly model: WorkspaceModel,
    private readonly readmeUri: vscode.Uri,
  ) {
    super();
    this.register(model.onDidChange(() => void this.refreshAll()));
    this.register(vscode.workspace.onDidOpenTextDocument((d) => this.lintDocument(d)));
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

  /** Lints every known spec file: open documents from their text, others from disk. */
  async refreshAll(): Promise<void> {
    const known = new Set<string>();
    for (const entry of this.model.specs) {
      const uri = vscode.Uri.file(entry.file);
      known.add(uri.toString());
      const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      if (open) this.lintDocument(open);
      else {
        try {
          this.publish(uri, await readFile(entry.file, 'utf8'));
        } catch {
          this.collection.delete(uri);
        }
      }
    }
    // Files that stopped being specs lose their diagnostics.
    this.collection.forEach((uri) => {
      if (!known.has(uri.toString()) && !this.isSpecDocument(uri)) this.collection.delete(uri);
    });
  }

  private isSpecDocument(uri: vscode.Uri): boolean {
    return this.model.specs.some((s) => vscode.Uri.file(s.file).toString() === uri.toString());
  }

  /** Lints an open document if it is (or was) a spec file. */
  lintDocument(doc: vscode.TextDocument): void {
    if (doc.uri.scheme !== 'file' || !doc.fileName.toLowerCase().endsWith('.json')) return;
    const known = this.isSpecDocument(doc.uri) || this.collection.has(doc.uri);
    // A JSON document that is not yet known is linted only if it looks like a spec.
    if (!known && !doc.getText().includes('"tools"')) return;
    this.publish(doc.uri, doc.getText());
  }

  private publish(uri: vscode.Uri, text: string): void {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    const result = lintSpecText(text, uri.fsPath, readConfig(folder?.uri).thresholds);
    if (result.notSpec) {
      this.collection.delete(uri);
      return;
    }
    this.collection.set(
      uri,
      result.diagnostics.map((d) => {
        const range = new vscode.Range(d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character);
        const diag = new vscode.Diagnostic(range, d.message, SEVERITY[d.severity]);
        diag.source = 'Agent Seer';
        diag.code = { value: d.code, target: this.readmeUri.with({ fragment: d.code }) };
        return diag;
      }),
    );
  }

  /** Current diagnostics of a file (for tests and commands). */
  get(uri: vscode.Uri): readonly vscode.Diagnostic[] {
    return this.collection.get(uri) ?? [];
  }
}
