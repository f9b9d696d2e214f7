import * as vscode from 'vscode';

/** Core severities as VS Code's. */
export const SEVERITY: Record<'error' | 'warning' | 'info', vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};
