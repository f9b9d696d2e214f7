import * as vscode from 'vscode';
import type { FindingCode, Severity } from '../core/complexity';
import type { LintConfig, LintLevel } from './config';

/** Core severities as VS Code's. */
export const SEVERITY: Record<'error' | 'warning' | 'info', vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

const LEVEL: Record<Exclude<LintLevel, 'off'>, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  information: vscode.DiagnosticSeverity.Information,
  hint: vscode.DiagnosticSeverity.Hint,
};

/** A finding's severity after `agentSeer.lint.severity`; undefined when the user turned the code off. */
export function findingSeverity(code: string, severity: Severity, lint: LintConfig): vscode.DiagnosticSeverity | undefined {
  const level = lint.severity[code as FindingCode];
  if (level === 'off') return undefined;
  return level ? LEVEL[level] : SEVERITY[severity];
}
