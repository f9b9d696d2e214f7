/**
 * One harness's part of a Testing-view run: its spec found, the provider built, the chosen
 * scenarios run by the built-in agent against the harness's mock server, each settled as passed,
 * failed (the failures placed in the record file) or errored. In the deferred bundle: it needs the
 * LLM clients.
 */
import * as vscode from 'vscode';
import * as path from 'node:path';
import { runScenario } from '../core/agents/runHarness';
import { scenarioFailures } from '../core/agents/scenarioFailures';
import { readFileInside } from '../core/containment';
import { specHash } from '../core/harness/hash';
import { findHarnessSpec } from '../core/harness/specLookup';
import { recordFile } from '../core/harness/store';
import { CallGuard, isToolCallingProvider, LlmHttpError, LlmNetworkError, LlmStats, LlmStopError, sharedQuotaFor, type ToolCallingProvider } from '../core/llm';
import { RPM_WINDOW_MS } from '../core/workspace/defaults';
import { agentRunsDir, CACHE_DIR } from '../core/workspace/layout';
import { PROFILE_LABEL, type AgentChoice, type AgentProviderKind, type ProviderFor, type ScenarioEntry, type ScenarioOutcome } from './agentTests';
import { readConfig } from './config';
import { errorMessage } from './log';

/** What {@link runAgentScenarios} needs from the Testing view. */
export interface AgentScenarioRun {
  kind: AgentProviderKind;
  /** The model: the kind, and for VS Code chat models the one chosen. */
  choice: AgentChoice;
  /** The harness folder. */
  dir: string;
  /** Its scenario items in this run. */
  items: vscode.TestItem[];
  entry: (item: vscode.TestItem) => ScenarioEntry;
  providerFor: ProviderFor;
  run: vscode.TestRun;
  settle: (item: vscode.TestItem, outcome: ScenarioOutcome, duration?: number) => void;
  signal: AbortSignal;
}

/** Runs the scenarios of one harness; a fault that stops them all (no key, a spent quota) settles the rest as errored. */
export async function runAgentScenarios({ kind, choice, dir, items, entry, providerFor, run, settle, signal }: AgentScenarioRun): Promise<void> {
  const harness = entry(items[0]!).harness;
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(dir));
  const failAll = (message: string): void => {
    run.appendOutput(`${vscode.workspace.asRelativePath(dir)}: ${message}\r\n`);
    for (const item of items) settle(item, { state: 'errored', messages: [new vscode.TestMessage(message)] });
  };
  const found = await findHarnessSpec(dir, harness.manifest, { cwd: folder?.uri.fsPath ?? dir });
  if (!found.ok) return failAll(found.error);
  const chat = await providerFor(choice, folder?.uri ?? vscode.Uri.file(dir));
  if (!chat) return failAll(`not run: no ${PROFILE_LABEL[kind]} API key was given`);
  if (!isToolCallingProvider(chat)) return failAll(`not run: ${chat.id}:${chat.model} cannot call tools`);
  const provider: ToolCallingProvider = chat;
  const config = readConfig(folder?.uri);
  const guard = new CallGuard({
    concurrency: config.generation.concurrency,
    timeoutMs: config.llm.timeoutMs,
    ...(config.generation.rpm ? { rpm: config.generation.rpm, rpmWindowMs: RPM_WINDOW_MS } : {}),
    // The account's window, shared with the CLI and the other commands on this harness.
    ...(chat.quotaScope ? { sharedQuota: sharedQuotaFor(path.join(dir, CACHE_DIR), chat.quotaScope) } : {}),
  });
  const stats = new LlmStats();
  const runDir = path.join(agentRunsDir(dir, provider), '1');
  run.appendOutput(`Running ${provider.id}:${provider.model} on ${items.length} scenario(s) of ${vscode.workspace.asRelativePath(dir)}\r\n`);
  const spec = found.spec;
  const hash = specHash(spec);
  const queue = [...items];
  let stopped: string | undefined;
  const worker = async (): Promise<void> => {
    for (let item = queue.shift(); item && !signal.aborted && !stopped; item = queue.shift()) {
      const { record } = entry(item);
      const file = recordFile(harness, record);
      run.started(item);
      const started = Date.now();
      try {
        const done = await runScenario({ spec, specHash: hash, record, provider, dir: runDir, root: dir, guard, stats, rerun: true, signal });
        const duration = Date.now() - started;
        if (done.score.passed) {
          settle(item, { state: 'passed', messages: [] }, duration);
          continue;
        }
        const text = await readFileInside(dir, file).catch(() => '');
        const uri = vscode.Uri.file(file);
        const messages = scenarioFailures(done.score, done.trajectory.calls, text).map((f) => {
          const m = f.kind === 'call' ? vscode.TestMessage.diff(f.message, f.expected ?? '', f.actual ?? '') : new vscode.TestMessage(f.message);
          const r = f.range;
          m.location = new vscode.Location(
            uri,
            r ? new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character) : new vscode.Range(0, 0, 0, 0),
          );
          return m;
        });
        if (done.trajectory.outcome?.stoppedBy === 'step-limit')
          messages.push(new vscode.TestMessage(`stopped at the step limit after ${done.trajectory.outcome.steps} model turns`));
        settle(item, { state: 'failed', messages }, duration);
      } catch (err) {
        if (signal.aborted) return;
        const message = errorMessage(err);
        // A bad key, a spent quota or an unreachable endpoint stops every scenario left, not one by one.
        if (err instanceof LlmStopError || err instanceof LlmNetworkError || (err instanceof LlmHttpError && err.fatal)) stopped = message;
        settle(item, { state: 'errored', messages: [new vscode.TestMessage(message)] }, Date.now() - started);
      }
    }
  };
  const width = Math.max(1, Math.min(config.generation.concurrency, items.length));
  await Promise.all(Array.from({ length: width }, worker));
  if (stopped) {
    run.appendOutput(`Stopped: ${stopped}\r\n`);
    for (const item of queue) settle(item, { state: 'errored', messages: [new vscode.TestMessage(`not run: ${stopped}`)] });
  }
  const s = stats.snapshot();
  run.appendOutput(`${s.requests} model request(s); trajectories in ${vscode.workspace.asRelativePath(runDir)}\r\n`);
}
