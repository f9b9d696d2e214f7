import * as vscode from 'vscode';

/** The extension's log: what it did and why something failed. Never receives secrets. */
export function createLog(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel('Agent Seer', { log: true });
}

/** A one-line message from anything thrown, without a stack. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message.split('\n')[0] ?? err.name;
  return String(err);
}
