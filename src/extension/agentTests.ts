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
import type { HarnessRecord } from '../core/harness/format';
import { recordFile } from '../core/harness/store';
import type { ChatProvider } from '../core/llm';
import type { HarnessModel, LoadedHarness } from './harnessModel';
import { Disposable } from './lifecycle';
import { errorMessage } from './log';
import { deferred } from './onDemand';
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

/** A scenario item's harness and record. */
export interface ScenarioEntry {
  harness: LoadedHarness;
  record: HarnessRecord;
}

/** The run profiles' names. */
export const PROFILE_LABEL: Record<AgentProviderKind, string> = { gemini: 'Gemini', openai: 'OpenAI-compatible', vscode: 'VS Code model' };

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
      const choice = await this.choiceFor(kind);
      if (!choice) {
        const message = 'not run: no VS Code chat model was chosen (the Configure action of the "VS Code model" profile picks one)';
        for (const item of items) settle(item, { state: 'errored', messages: [new vscode.TestMessage(message)] });
        return;
      }
      for (const [dir, harnessItems] of byHarness) {
        if (abort.signal.aborted) break;
        const entry = (item: vscode.TestItem): ScenarioEntry => this.scenarios.get(item.id)!;
        await deferred().runAgentScenarios({ kind, choice, dir, items: harnessItems, entry, providerFor: this.providerFor, run, settle, signal: abort.signal });
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
}
