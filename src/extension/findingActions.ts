/**
 * What the editor offers on an Agent Seer finding: the quick fixes the core computed for it
 * (a description stub, a `format`/`enum`, an ignore comment), turning its code off in the
 * workspace settings, and a hover with the why and a link to the help page.
 */
import * as vscode from 'vscode';
import { FINDING_CODES, isFindingCode } from '../core/complexity';
import { CONFIG_SECTION } from './config';
import { DIAGNOSTIC_SOURCE, findingHelpTarget } from './findingDiagnostic';
import type { SourceDiagnostics } from './sourceDiagnostics';

/** Internal command behind "Turn off … in workspace settings" (not in the palette). */
export const TURN_OFF_CODE_COMMAND = 'agentSeer.lint.turnOffCode';

/** Files findings are shown in: server sources and spec snapshots. */
export const FINDING_DOCUMENTS: vscode.DocumentSelector = ['typescript', 'typescriptreact', 'javascript', 'javascriptreact', 'python', 'json', 'jsonc'].map(
  (language) => ({ scheme: 'file', language }),
);

const ours = (d: vscode.Diagnostic): boolean => d.source === DIAGNOSTIC_SOURCE;
const codeOf = (d: vscode.Diagnostic): string | undefined =>
  typeof d.code === 'object' ? String(d.code.value) : d.code === undefined ? undefined : String(d.code);

class FindingCodeActions implements vscode.CodeActionProvider {
  constructor(private readonly sources: SourceDiagnostics) {}

  provideCodeActions(doc: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const actions: vscode.CodeAction[] = [];
    for (const diagnostic of context.diagnostics.filter(ours)) {
      for (const fix of this.sources.fixesOf(doc.uri, diagnostic)) {
        const action = new vscode.CodeAction(fix.title, vscode.CodeActionKind.QuickFix);
        action.diagnostics = [diagnostic];
        action.edit = new vscode.WorkspaceEdit();
        const start = doc.positionAt(fix.edit.offset);
        action.edit.replace(doc.uri, new vscode.Range(start, doc.positionAt(fix.edit.offset + fix.edit.length)), fix.edit.newText);
        // The stub or format is what the finding asks for; the ignore comment is the way out.
        action.isPreferred = !fix.title.startsWith('Ignore');
        actions.push(action);
      }
      const code = codeOf(diagnostic);
      if (code && isFindingCode(code)) {
        const off = new vscode.CodeAction(`Turn off ${code} in workspace settings`, vscode.CodeActionKind.QuickFix);
        off.diagnostics = [diagnostic];
        off.command = { command: TURN_OFF_CODE_COMMAND, title: off.title, arguments: [code, doc.uri] };
        actions.push(off);
      }
    }
    return actions;
  }
}

/** The why of each finding under the pointer, with a link to its help section. */
function findingHover(extensionUri: vscode.Uri): vscode.HoverProvider {
  return {
    provideHover(doc, position) {
      const parts: vscode.MarkdownString[] = [];
      for (const d of vscode.languages.getDiagnostics(doc.uri)) {
        const code = codeOf(d);
        if (!ours(d) || !code || !isFindingCode(code) || !d.range.contains(position)) continue;
        const md = new vscode.MarkdownString(undefined, true);
        md.isTrusted = { enabledCommands: ['markdown.showPreview'] };
        md.appendMarkdown(`**${FINDING_CODES[code].title}** — `);
        // Our own text (codes.ts), written as Markdown: appendText would escape its spaces.
        md.appendMarkdown(FINDING_CODES[code].explanation);
        md.appendMarkdown(` [Help: ${code}](${findingHelpTarget(extensionUri, code).toString()})`);
        parts.push(md);
      }
      return parts.length ? new vscode.Hover(parts) : undefined;
    },
  };
}

/** Sets a code to `off` in `agentSeer.lint.severity` of the file's workspace folder (or the workspace). */
async function turnOffCode(code: string, uri?: vscode.Uri): Promise<void> {
  const folder = uri ? vscode.workspace.getWorkspaceFolder(uri) : undefined;
  const config = vscode.workspace.getConfiguration(CONFIG_SECTION, folder?.uri);
  const current = config.inspect<Record<string, string>>('lint.severity');
  const target =
    folder && (vscode.workspace.workspaceFolders?.length ?? 0) > 1 ? vscode.ConfigurationTarget.WorkspaceFolder : vscode.ConfigurationTarget.Workspace;
  const existing = (target === vscode.ConfigurationTarget.WorkspaceFolder ? current?.workspaceFolderValue : current?.workspaceValue) ?? {};
  await config.update('lint.severity', { ...existing, [code]: 'off' }, target);
}

/** Registers the code actions, the hover and the command they use. */
export function registerFindingActions(sources: SourceDiagnostics, extensionUri: vscode.Uri): vscode.Disposable[] {
  return [
    vscode.languages.registerCodeActionsProvider(FINDING_DOCUMENTS, new FindingCodeActions(sources), {
      providedCodeActionKinds: [vscode.CodeActionKind.QuickFix],
    }),
    vscode.languages.registerHoverProvider(FINDING_DOCUMENTS, findingHover(extensionUri)),
    vscode.commands.registerCommand(TURN_OFF_CODE_COMMAND, turnOffCode),
  ];
}
