/**
 * Judge failures inline: each record file of a loaded harness gets diagnostics at the failing
 * call or argument, with the sub-dimension as the code. Owns its DiagnosticCollection; open
 * record files are re-read from their live text.
 */
import { readBoundedFile } from '../core/boundedRead';
import * as vscode from 'vscode';
import { judgmentDiagnostics } from '../core/judge/locate';
import { recordFile } from '../core/harness/store';
import type { HarnessModel } from './harnessModel';
import { Disposable } from './lifecycle';
import { SEVERITY } from './severity';

export class JudgmentDiagnostics extends Disposable {
  private readonly collection = this.register(vscode.languages.createDiagnosticCollection('agent-seer-judge'));

  constructor(private readonly harnesses: HarnessModel) {
    super();
    this.register(harnesses.onDidChange(() => void this.refresh()));
    this.register(vscode.workspace.onDidChangeTextDocument((e) => this.fromDocument(e.document)));
  }

  private isRecord(uri: vscode.Uri): boolean {
    return uri.scheme === 'file' && /[\\/]records[\\/][^\\/]+\.json$/.test(uri.fsPath);
  }

  /** Every record file of every loaded harness that has judgments. */
  async refresh(): Promise<void> {
    const keep = new Set<string>();
    for (const h of this.harnesses.all) {
      for (const r of h.records) {
        if (!r.judgments || !Object.keys(r.judgments).length) continue;
        const uri = vscode.Uri.file(recordFile(h, r));
        keep.add(uri.toString());
        const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
        const text = open?.getText() ?? (await readBoundedFile(uri.fsPath).catch(() => ''));
        this.publish(uri, text);
      }
    }
    this.collection.forEach((uri) => {
      if (!keep.has(uri.toString())) this.collection.delete(uri);
    });
  }

  private fromDocument(doc: vscode.TextDocument): void {
    if (this.isRecord(doc.uri) && (this.collection.has(doc.uri) || doc.getText().includes('"judgments"'))) this.publish(doc.uri, doc.getText());
  }

  private publish(uri: vscode.Uri, text: string): void {
    this.collection.set(
      uri,
      judgmentDiagnostics(text).map((d) => {
        const range = new vscode.Range(d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character);
        const diag = new vscode.Diagnostic(range, d.message, SEVERITY[d.severity]);
        diag.source = `Agent Seer judge`;
        diag.code = d.code;
        return diag;
      }),
    );
  }

  get(uri: vscode.Uri): readonly vscode.Diagnostic[] {
    return this.collection.get(uri) ?? [];
  }
}
