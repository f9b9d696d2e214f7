import * as vscode from 'vscode';

/** The extension's log: what it did and why something failed. Never receives secrets. */
export function createLog(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel('Agent Seer', { log: true });
}

/** A one-line message from anything thrown, without a stack (the shared helper, under the name the extension uses). */
export { errorText as errorMessage } from '../core/util/errorText';

/** The action every error and warning toast offers. */
export const SHOW_LOG = 'Show Log';

/**
 * The one way the extension shows a failure: the line goes to the log, and the toast offers
 * "Show Log" (a toast cuts long text; the log keeps all of it). Resolves once the toast closes.
 */
export async function showError(log: vscode.LogOutputChannel, text: string): Promise<void> {
  log.error(text);
  if ((await vscode.window.showErrorMessage(text, SHOW_LOG)) === SHOW_LOG) log.show(true);
}

/** A warning toast with "Show Log", logged as a warning. */
export async function showWarning(log: vscode.LogOutputChannel, text: string): Promise<void> {
  log.warn(text);
  if ((await vscode.window.showWarningMessage(text, SHOW_LOG)) === SHOW_LOG) log.show(true);
}
