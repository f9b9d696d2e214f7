/**
 * The command table: id → handler. Every id here is declared in package.json, and a unit test
 * checks the two lists match. What a command runs lives in the deferred bundle (`onDemand.ts`):
 * it is loaded the first time a command needs it, not at activation.
 */
import * as vscode from 'vscode';
import type { ServerDefinition } from '../core/spec/configs/types';
import type { ServedScenario } from './agentModeServers';
import type { CommandId } from './commandIds';
import type { HarnessNode } from './harnessTree';
import { errorMessage, showError } from './log';
import type { ExtensionServices } from './services';
import type { GenerateArgs } from './generateCommand';
import type { JudgeArgs } from './judgeCommand';
import { addServer, generateExample, openSnapshot } from './firstUse';
import { deferred } from './onDemand';
import { openScenario, openScenarioJson } from './scenarioPanel';
import type { SnapshotOutcome } from './snapshotCommand';
import type { SpecsNode } from './specsTree';

type Handler = (services: ExtensionServices, ...args: unknown[]) => unknown;

async function pickDefinition(services: ExtensionServices): Promise<ServerDefinition | undefined> {
  await services.model.ready;
  const defs = services.model.definitions;
  if (!defs.length) {
    void vscode.window.showInformationMessage('No MCP server definitions found in this workspace.');
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    defs.map((d) => ({ label: d.name, description: `${d.transport} · ${vscode.workspace.asRelativePath(d.file)}`, d })),
    { title: 'Snapshot tools of which server?' },
  );
  return pick?.d;
}

export const COMMANDS = {
  'agentSeer.refresh': async (s) => {
    await s.model.rescan();
  },
  'agentSeer.snapshotTools': async (s, node): Promise<SnapshotOutcome | undefined> => {
    const n = node as SpecsNode | undefined;
    const def = n?.kind === 'server' ? n.definition : await pickDefinition(s);
    if (!def) return undefined;
    return deferred().snapshotServer(def, s);
  },
  'agentSeer.revealTool': async (_s, file, offset) => {
    if (typeof file !== 'string') return;
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const pos = doc.positionAt(typeof offset === 'number' ? offset : 0);
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(pos, pos), preview: true });
  },
  'agentSeer.openDefinition': async (_s, node) => {
    const n = node as SpecsNode | undefined;
    const file = n?.kind === 'server' ? n.definition.file : n?.kind === 'spec' ? n.entry.file : undefined;
    if (file) await vscode.window.showTextDocument(vscode.Uri.file(file));
  },
  'agentSeer.showLog': (s) => s.log.show(),
  'agentSeer.refreshHarnesses': async (s) => {
    await s.harnesses.rescan();
  },
  'agentSeer.generateEvals': (s, target, args) => deferred().generateEvals(s, target, (args as GenerateArgs | undefined) ?? {}),
  'agentSeer.regenerateStale': (s, target, args) => deferred().regenerateStaleRecords(s, target, (args as GenerateArgs | undefined) ?? {}),
  'agentSeer.judge': (s, target, args) => deferred().judge(s, target, (args as JudgeArgs | undefined) ?? {}),
  'agentSeer.openReport': (s, target) => deferred().openReport(s, target),
  'agentSeer.toggleLowestFirst': (s) => s.harnessTree.toggleLowestFirst(),
  'agentSeer.openScenario': (s, node) => openScenario(s, node),
  'agentSeer.openScenarioJson': (s, node) => openScenarioJson(s, node),
  'agentSeer.addServer': (s) => addServer(s),
  'agentSeer.openSnapshot': (s, uri) => openSnapshot(s, uri instanceof vscode.Uri ? uri : undefined),
  'agentSeer.generateExample': (s) => generateExample(s),
  'agentSeer.serveScenario': (s, target) => {
    // From the Harnesses tree: a scenario node; from a test or another command: { harnessDir, scenarioId }.
    const node = target as HarnessNode | ServedScenario | undefined;
    const chosen = node && 'kind' in node ? (node.kind === 'scenario' ? { harnessDir: node.harness.dir, scenarioId: node.record.id } : undefined) : node;
    return s.agentModeServers.serveScenario(chosen);
  },
  'agentSeer.setApiKey': async (s, provider) => {
    const which =
      provider === 'gemini' || provider === 'openai'
        ? provider
        : ((await vscode.window.showQuickPick(['gemini', 'openai'], { title: 'Store an API key for which provider?' })) as 'gemini' | 'openai' | undefined);
    if (which && (await s.secrets.prompt(which))) void vscode.window.showInformationMessage(`Agent Seer: ${which} key stored in SecretStorage.`);
  },
} satisfies Record<CommandId, Handler>;

/** Registers every command; an unexpected failure becomes one logged line and a message, never a stack in the user's face. */
export function registerCommands(services: ExtensionServices): vscode.Disposable[] {
  return Object.entries(COMMANDS).map(([id, handler]) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- needed to spread args; the rule misreads the call
        return await (handler as Handler)(services, ...args);
      } catch (err) {
        services.log.error(`${id} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        void showError(services.log, `Agent Seer: ${errorMessage(err)}`);
        return undefined;
      }
    }),
  );
}
