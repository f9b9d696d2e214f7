import * as vscode from 'vscode';

/** The extension's log: what it did and why something failed. Never receives secrets. */
export function createLog(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel('Agent Seer', { log: true });
}

/** A one-line message from anything thrown, without a stack (the shared helper, under the name the extension uses). */
export { errorText as errorMessage } from '../core/app/errorText';
