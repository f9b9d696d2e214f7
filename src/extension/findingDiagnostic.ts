/**
 * A core lint diagnostic as a VS Code one, the same way for spec snapshots and server sources:
 * the one-sentence summary, the severity after `agentSeer.lint.severity`, related locations, and
 * the code linked to its section of the help page, opened in Markdown preview.
 */
import * as vscode from 'vscode';
import { isFindingCode } from '../core/complexity';
import type { LintDiagnostic } from '../core/lint';
import type { LintConfig } from './config';
import { findingSeverity } from './severity';

/** What every Agent Seer diagnostic carries as `source` (code actions and the hover look for it). */
export const DIAGNOSTIC_SOURCE = 'Agent Seer';

/** The help page, shipped with the extension. */
export function findingHelpPage(extensionUri: vscode.Uri): vscode.Uri {
  return vscode.Uri.joinPath(extensionUri, 'docs', 'findings.md');
}

/**
 * The link of a finding code: a command URI that opens the help page in Markdown preview at the
 * code's section (the preview scrolls to a URI's fragment), not the raw Markdown at line 1.
 */
export function findingHelpTarget(extensionUri: vscode.Uri, code: string): vscode.Uri {
  const page = findingHelpPage(extensionUri).with({ fragment: code });
  return vscode.Uri.parse(`command:markdown.showPreview?${encodeURIComponent(JSON.stringify([page]))}`);
}

const toRange = (r: LintDiagnostic['range']): vscode.Range => new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);

/** The VS Code diagnostic of a finding; undefined when its code is turned off. */
export function toDiagnostic(d: LintDiagnostic, uri: vscode.Uri, lint: LintConfig, extensionUri: vscode.Uri): vscode.Diagnostic | undefined {
  const severity = findingSeverity(d.code, d.severity, lint);
  if (severity === undefined) return undefined;
  const diag = new vscode.Diagnostic(toRange(d.range), d.summary, severity);
  diag.source = DIAGNOSTIC_SOURCE;
  diag.code = isFindingCode(d.code) ? { value: d.code, target: findingHelpTarget(extensionUri, d.code) } : d.code;
  if (d.related?.length) {
    diag.relatedInformation = d.related.map(
      (r) => new vscode.DiagnosticRelatedInformation(new vscode.Location(uri, toRange(r.range)), `"${d.param ?? ''}" in tool "${r.tool}"`),
    );
  }
  return diag;
}
