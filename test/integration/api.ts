/** The extension's API as integration tests see it (what `activate` returns). */
import * as vscode from 'vscode';
import type { AgentSeerApi } from '../../src/extension/extension';
import { EXTENSION_ID } from './helpers';

export async function activateApi(): Promise<AgentSeerApi> {
  const ext = vscode.extensions.getExtension<AgentSeerApi>(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} not found`);
  const api = await ext.activate();
  await api.model.ready;
  return api;
}
