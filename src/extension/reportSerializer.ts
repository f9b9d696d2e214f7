/**
 * Restores an open report after a window reload. Registered at activation, it loads the report
 * code (in the deferred bundle) only when there is a report to restore.
 */
import * as vscode from 'vscode';
import { deferred } from './onDemand';
import type { ExtensionServices } from './services';

/** The webview type of the report panel. */
export const REPORT_VIEW_TYPE = 'agentSeer.report';

/** Lets VS Code restore an open report after a window reload. */
export function registerReportSerializer(services: ExtensionServices): vscode.Disposable {
  return vscode.window.registerWebviewPanelSerializer(REPORT_VIEW_TYPE, {
    deserializeWebviewPanel: async (panel, state) => {
      await deferred().ReportPanel.revive(panel, state, services);
    },
  });
}
