/**
 * Command ids, kept free of `vscode` imports so a unit test can check them against
 * package.json's `contributes.commands`.
 */
export const COMMAND_IDS = [
  'agentSeer.refresh',
  'agentSeer.snapshotTools',
  'agentSeer.revealTool',
  'agentSeer.openDefinition',
  'agentSeer.showLog',
  'agentSeer.refreshHarnesses',
  'agentSeer.generateEvals',
  'agentSeer.regenerateStale',
  'agentSeer.setApiKey',
  'agentSeer.judge',
  'agentSeer.openReport',
  'agentSeer.toggleLowestFirst',
  'agentSeer.openScenario',
  'agentSeer.openScenarioJson',
  'agentSeer.addServer',
  'agentSeer.openSnapshot',
  'agentSeer.generateExample',
  'agentSeer.serveScenario',
] as const;

export type CommandId = (typeof COMMAND_IDS)[number];
