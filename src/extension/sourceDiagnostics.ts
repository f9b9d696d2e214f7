/**
 * A spec's findings in the server source that defines its tools: TypeScript, JavaScript and
 * Python files whose tools match a snapshot in the workspace by name. Linted when opened and on
 * save (parsing is too costly for every keystroke), and again when specs or settings change.
 * With `agentSeer.lint.scope` = `openFiles` (the default) only open files have findings.
 */
import { readFile, stat } from 'node:fs/promises';
import * as vscode from 'vscode';
import { MAX_SOURCE_BYTES, MAX_WORKSPACE_SOURCES } from '../core/bounds';
import { locateTools, mayDefineTools, SOURCE_GLOB, sourceLanguage } from '../core/sources/locate';
import { lintSource, matchSpec, type SourceFix } from '../core/sources/place';
import { affectsConfig, readConfig } from './config';
import { toDiagnostic } from './findingDiagnostic';
import { Disposable } from './lifecycle';
import { errorMessage } from './log';
import { isShownInTab, onDidChangeOpenFiles, openDocument } from './openFiles';
import type { WorkspaceModel } from './workspaceModel';

/** Folders the `workspace` scope never searches: dependencies, build output, environments. */
const EXCLUDE = '**/{node_modules,.git,dist,out,build,.venv,venv,__pycache__,site-packages}/**';

/** A diagnostic's identity across the copies VS Code hands around: code and start. */
function fixKey(d: vscode.Diagnostic): string {
  const code = typeof d.code === 'object' ? d.code.value : d.code;
  return `${String(code)}@${d.range.start.line}:${d.range.start.character}`;
}

export class SourceDiagnostics extends Disposable {
  private readonly collection = this.register(vscode.languages.createDiagnosticCollection('agent-seer-source'));
  /**
   * The mechanical fixes of each diagnostic, per file, by code and start position: the
   * diagnostics a code action provider receives are copies, not the objects published.
   */
  private readonly fixes = new Map<string, Map<string, SourceFix[]>>();
  /** Latest lint per file: an older one that finishes later is dropped. */
  private readonly generation = new Map<string, number>();

  constructor(
    private readonly model: WorkspaceModel,
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.register(model.onDidChange(() => void this.refreshAll()));
    this.register(vscode.workspace.onDidOpenTextDocument((d) => void this.lintDocument(d)));
    this.register(vscode.workspace.onDidSaveTextDocument((d) => void this.lintDocument(d)));
    this.register(
      onDidChangeOpenFiles((opened, closed) => {
        for (const uri of opened) {
          const doc = openDocument(uri);
          if (doc) void this.lintDocument(doc);
        }
        for (const uri of closed) if (readConfig(uri).lint.scope === 'openFiles') this.forget(uri);
      }),
    );
    this.register(vscode.workspace.onDidChangeConfiguration((e) => affectsConfig(e) && void this.refreshAll()));
    void this.refreshAll();
  }

  /** The fixes offered for one of this collection's diagnostics in a file. */
  fixesOf(uri: vscode.Uri, diagnostic: vscode.Diagnostic): readonly SourceFix[] {
    return this.fixes.get(uri.toString())?.get(fixKey(diagnostic)) ?? [];
  }

  /** Lints every open source file, and with the `workspace` scope every source file on disk. */
  async refreshAll(): Promise<void> {
    await this.model.ready;
    const seen = new Set<string>();
    for (const doc of vscode.workspace.textDocuments) {
      if (!this.inScope(doc.uri)) continue;
      seen.add(doc.uri.toString());
      await this.lintDocument(doc);
    }
    const wholeWorkspace = (vscode.workspace.workspaceFolders ?? []).some((f) => readConfig(f.uri).lint.scope === 'workspace');
    if (wholeWorkspace) {
      for (const uri of await vscode.workspace.findFiles(SOURCE_GLOB, EXCLUDE, MAX_WORKSPACE_SOURCES)) {
        if (seen.has(uri.toString()) || readConfig(uri).lint.scope !== 'workspace') continue;
        seen.add(uri.toString());
        try {
          if ((await stat(uri.fsPath)).size > MAX_SOURCE_BYTES) continue;
          await this.lint(uri, await readFile(uri.fsPath, 'utf8'));
        } catch (err) {
          this.log.warn(`${uri.fsPath}: not linted: ${errorMessage(err)}`);
        }
      }
    }
    // Files that are neither open nor in scope any more lose their findings.
    this.collection.forEach((uri) => {
      if (!seen.has(uri.toString())) this.forget(uri);
    });
  }

  /** Whether a file gets findings: shown in a tab, or anywhere with the `workspace` scope. */
  private inScope(uri: vscode.Uri): boolean {
    return readConfig(uri).lint.scope === 'workspace' || isShownInTab(uri);
  }

  /** Lints an open document if it is a source file in scope that may define tools. */
  async lintDocument(doc: vscode.TextDocument): Promise<void> {
    if (doc.uri.scheme !== 'file' || !sourceLanguage(doc.fileName)) return;
    // onDidOpenTextDocument fires before the tab exists: the tab event lints it then.
    if (!this.inScope(doc.uri)) return;
    await this.lint(doc.uri, doc.getText());
  }

  private async lint(uri: vscode.Uri, text: string): Promise<void> {
    const key = uri.toString();
    const generation = (this.generation.get(key) ?? 0) + 1;
    this.generation.set(key, generation);
    if (text.length > MAX_SOURCE_BYTES || !mayDefineTools(text)) {
      this.forget(uri);
      return;
    }
    try {
      const located = await locateTools(text, uri.fsPath);
      const match = matchSpec(located, this.model.specs);
      if (this.generation.get(key) !== generation) return;
      if (!match) {
        this.forget(uri);
        return;
      }
      const config = readConfig(uri);
      const diagnostics: vscode.Diagnostic[] = [];
      const fixes = new Map<string, SourceFix[]>();
      for (const d of lintSource(text, located, match.spec, { thresholds: config.thresholds, clients: config.lint.clients })) {
        const diag = toDiagnostic(d, uri, config.lint, this.extensionUri);
        if (!diag) continue;
        fixes.set(fixKey(diag), d.fixes);
        diagnostics.push(diag);
      }
      this.fixes.set(key, fixes);
      this.collection.set(uri, diagnostics);
    } catch (err) {
      // A parser that fails to load is reported, not hidden behind an empty Problems list.
      this.log.error(`${uri.fsPath}: locating tool definitions failed: ${errorMessage(err)}`);
      this.forget(uri);
    }
  }

  private forget(uri: vscode.Uri): void {
    this.collection.delete(uri);
    this.fixes.delete(uri.toString());
  }
}
