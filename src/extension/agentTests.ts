/**
 * The Testing view: every harness in the workspace as tests (harness → tier → scenario), run by
 * a real agent — a Gemini, OpenAI-compatible or VS Code chat model with native function calling — against the
 * harness's mock MCP server. A scenario passes when the agent made the expected calls exactly and
 * nothing else; a failure shows, at the expected call in the record file, the expected and actual
 * arguments as a diff, and the extra and refused calls. Trajectories go where `agent-seer run`
 * writes run 1 (`<harness>/runs/<provider>-<model>/1/`); a run from here always runs the chosen
 * scenarios again and replaces their trajectories.
 */
import * as vscode from 'vscode';
import { runScenario } from '../core/agents/runHarness';
import { scenarioFailures } from '../core/agents/scenarioFailures';
import { readBoundedFile } from '../core/boundedRead';
import type { HarnessRecord } from '../core/harness/format';
import { specHash } from '../core/harness/hash';
import { findHarnessSpec } from '../core/harness/specLookup';
import { recordFile } from '../core/harness/store';
import {
  CallGuard,
  isToolCallingProvider,
  LlmHttpError,
  LlmNetworkError,
  LlmStats,
  LlmStopError,
  type ChatProvider,
  type ToolCallingProvider,
} from '../core/llm';
import { RPM_WINDOW_MS } from '../core/workspace/defaults';
import { agentRunsDir } from '../core/workspace/layout';
import * as path from 'node:path';
import { readConfig } from './config';
import type { HarnessModel, LoadedHarness } from './harnessModel';
import { Disposable } from './lifecycle';
import { errorMessage } from './log';
import { requireTrust } from './trust';

/** The models a run profile can use. */
export type AgentProviderKind = 'gemini' | 'openai' | 'vscode';

/** The model a run uses: a kind, and for VS Code chat models the model's id. */
export type AgentChoice = { kind: 'gemini' } | { kind: 'openai' } | { kind: 'vscode'; modelId: string };

/** Builds the provider for a choice (keys from SecretStorage); undefined when the user gave no key. */
export type ProviderFor = (choice: AgentChoice, scope: vscode.Uri) => Promise<ChatProvider | undefined>;

/** Asks the user which VS Code chat model runs as the agent; undefined when there is none or the user cancelled. */
export type PickChatModel = () => Promise<string | undefined>;

/** How a scenario came out in the last run (what the test run was told, kept for tests and logs). */
export interface ScenarioOutcome {
  state: 'passed' | 'failed' | 'errored' | 'skipped';
  messages: vscode.TestMessage[];
}

interface ScenarioEntry {
  harness: LoadedHarness;
  record: HarnessRecord;
}

const PROFILE_LABEL: Record<AgentProviderKind, string> = { gemini: 'Gemini', openai: 'OpenAI-compatible', vscode: 'VS Code model' };

export class AgentTests extends Disposable {
  readonly controller = this.register(vscode.tests.createTestController('agentSeer.agents', 'Agent Seer'));
  /** One run profile per model choice; Gemini is the default. */
  readonly profiles: Record<AgentProviderKind, vscode.TestRunProfile>;
  /** Scenario items by id (ids are `<harness dir>#<tier>#<record id>`). */
  private readonly scenarios = new Map<string, ScenarioEntry>();
  /** Outcomes of the most recent run, by scenario item id. */
  lastRun = new Map<string, ScenarioOutcome>();
  /**
   * The VS Code chat model the "VS Code model" profile runs (its id), chosen with the profile's
   * Configure action or at the first run; kept for the session.
   */
  vscodeModelId: string | undefined;

  constructor(
    private readonly harnesses: HarnessModel,
    private readonly log: vscode.LogOutputChannel,
    private readonly providerFor: ProviderFor,
    private readonly pickChatModel: PickChatModel,
  ) {
    super();
    const profile = (kind: AgentProviderKind, isDefault: boolean) =>
      this.register(
        this.controller.createRunProfile(PROFILE_LABEL[kind], vscode.TestRunProfileKind.Run, (request, token) => this.run(kind, request, token), isDefault),
      );
    this.profiles = { gemini: profile('gemini', true), openai: profile('openai', false), vscode: profile('vscode', false) };
    this.profiles.vscode.configureHandler = () => {
      void this.pickChatModel().then((id) => {
        if (id) this.vscodeModelId = id;
      });
    };
    this.controller.refreshHandler = () => this.harnesses.rescan();
    this.register(harnesses.onDidChange(() => this.refresh()));
    this.refresh();
  }

  /** Rebuilds the items from the loaded harnesses. */
  refresh(): void {
    this.scenarios.clear();
    const items: vscode.TestItem[] = [];
    for (const h of this.harnesses.all) {
      const harnessItem = this.controller.createTestItem(h.dir, vscode.workspace.asRelativePath(h.dir), vscode.Uri.file(h.dir));
      const tiers = [...new Set(h.records.map((r) => r.tier))].sort();
      for (const tier of tiers) {
        const tierItem = this.controller.createTestItem(`${h.dir}#${tier}`, tier);
        for (const record of h.records.filter((r) => r.tier === tier)) {
          const id = `${h.dir}#${tier}#${record.id}`;
          const item = this.controller.createTestItem(id, record.id, vscode.Uri.file(recordFile(h, record)));
          item.range = new vscode.Range(0, 0, 0, 0);
          item.description = record.category;
          tierItem.children.add(item);
          this.scenarios.set(id, { harness: h, record });
        }
        harnessItem.children.add(tierItem);
      }
      items.push(harnessItem);
    }
    this.controller.items.replace(items);
  }

  /** The scenario items a request covers, in the tree's order. */
  private scenarioItems(request: vscode.TestRunRequest): vscode.TestItem[] {
    const excluded = new Set((request.exclude ?? []).map((i) => i.id));
    const out: vscode.TestItem[] = [];
    const walk = (item: vscode.TestItem): void => {
      if (excluded.has(item.id)) return;
      if (this.scenarios.has(item.id)) out.push(item);
      item.children.forEach(walk);
    };
    if (request.include) request.include.forEach(walk);
    else this.controller.items.forEach(walk);
    return [...new Map(out.map((i) => [i.id, i])).values()];
  }

  private async run(kind: AgentProviderKind, request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const run = this.controller.createTestRun(request, `Agent Seer: ${PROFILE_LABEL[kind]}`);
    const outcomes = new Map<string, ScenarioOutcome>();
    this.lastRun = outcomes;
    const abort = new AbortController();
    const onCancel = token.onCancellationRequested(() => abort.abort(new Error('cancelled')));
    const items = this.scenarioItems(request);
    const settle = (item: vscode.TestItem, outcome: ScenarioOutcome, duration?: number): void => {
      outcomes.set(item.id, outcome);
      if (outcome.state === 'passed') run.passed(item, duration);
      else if (outcome.state === 'failed') run.failed(item, outcome.messages, duration);
      else if (outcome.state === 'errored') run.errored(item, outcome.messages, duration);
      else run.skipped(item);
    };
    try {
      // No model call, so no key sent, from an untrusted workspace; every scenario says why.
      if (!requireTrust('run agents against harnesses', this.log)) {
        for (const item of items) settle(item, { state: 'errored', messages: [new vscode.TestMessage('not run: the workspace is not trusted')] });
        return;
      }
      for (const item of items) run.enqueued(item);
      const byHarness = new Map<string, vscode.TestItem[]>();
      for (const item of items) {
        const dir = this.scenarios.get(item.id)!.harness.dir;
        byHarness.set(dir, [...(byHarness.get(dir) ?? []), item]);
      }
      for (const [dir, harnessItems] of byHarness) {
        if (abort.signal.aborted) break;
        await this.runHarnessItems(kind, dir, harnessItems, run, settle, abort.signal);
      }
    } catch (err) {
      // A fault outside one scenario (the provider could not be built, a harness vanished) is an error on every scenario left, not a skip.
      const message = errorMessage(err);
      run.appendOutput(`Agent Seer: the run failed: ${message}\r\n`);
      this.log.error(`Test run failed: ${message}`);
      if (!abort.signal.aborted)
        for (const item of items) if (!outcomes.has(item.id)) settle(item, { state: 'errored', messages: [new vscode.TestMessage(`not run: ${message}`)] });
    } finally {
      // Whatever did not finish (cancelled, or stopped by a fault) is shown as skipped, never as passed.
      for (const item of items) if (!outcomes.has(item.id)) settle(item, { state: 'skipped', messages: [] });
      onCancel.dispose();
      run.end();
    }
  }

  /** The model of a run: for VS Code models the one chosen before, else the user picks one now. */
  private async choiceFor(kind: AgentProviderKind): Promise<AgentChoice | undefined> {
    if (kind !== 'vscode') return { kind };
    this.vscodeModelId ??= await this.pickChatModel();
    return this.vscodeModelId ? { kind, modelId: this.vscodeModelId } : undefined;
  }

  private async runHarnessItems(
    kind: AgentProviderKind,
    dir: string,
    items: vscode.TestItem[],
    run: vscode.TestRun,
    settle: (item: vscode.TestItem, outcome: ScenarioOutcome, duration?: number) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const harness = this.scenarios.get(items[0]!.id)!.harness;
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(dir));
    const failAll = (message: string): void => {
      run.appendOutput(`${vscode.workspace.asRelativePath(dir)}: ${message}\r\n`);
      for (const item of items) settle(item, { state: 'errored', messages: [new vscode.TestMessage(message)] });
    };
    const found = await findHarnessSpec(dir, harness.manifest, { cwd: folder?.uri.fsPath ?? dir });
    if (!found.ok) return failAll(found.error);
    const choice = await this.choiceFor(kind);
    if (!choice) return failAll('not run: no VS Code chat model was chosen (the Configure action of the "VS Code model" profile picks one)');
    const chat = await this.providerFor(choice, folder?.uri ?? vscode.Uri.file(dir));
    if (!chat) return failAll(`not run: no ${PROFILE_LABEL[kind]} API key was given`);
    if (!isToolCallingProvider(chat)) return failAll(`not run: ${chat.id}:${chat.model} cannot call tools`);
    const provider: ToolCallingProvider = chat;
    const config = readConfig(folder?.uri);
    const guard = new CallGuard({
      concurrency: config.generation.concurrency,
      ...(config.generation.rpm ? { rpm: config.generation.rpm, rpmWindowMs: RPM_WINDOW_MS } : {}),
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
        const { record } = this.scenarios.get(item.id)!;
        const file = recordFile(harness, record);
        run.started(item);
        const started = Date.now();
        try {
          const done = await runScenario({ spec, specHash: hash, record, provider, dir: runDir, guard, stats, rerun: true, signal });
          const duration = Date.now() - started;
          if (done.score.passed) {
            settle(item, { state: 'passed', messages: [] }, duration);
            continue;
          }
          const text = await readBoundedFile(file).catch(() => '');
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
}
