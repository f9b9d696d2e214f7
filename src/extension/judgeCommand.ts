/**
 * "Judge" on a harness run or a scenario in the Harnesses tree: pick a judge, find the spec the
 * harness was generated from, judge with progress and cancellation. Judgments are written into
 * the record files as each finishes, so cancelling keeps them.
 */
import * as vscode from 'vscode';
import { lockFolder } from '../core/harness/lock';
import { writeRecord } from '../core/harness/store';
import { findHarnessSpec } from '../core/harness/specLookup';
import { judgeHarness, judgeRecord, judgeIdOf, OFFLINE_JUDGE_ID, type JudgeHarnessResult } from '../core/judge';
import { createLlmClient } from '../core/llm/client';
import type { StructuredLlm } from '../core/llm';
import { CACHE_DIR } from '../core/workspace/layout';
import { PromptLibrary } from '../core/llm/prompts';
import * as path from 'node:path';
import type { HarnessNode } from './harnessTree';
import type { LoadedHarness } from './harnessModel';
import { errorMessage, showError, showWarning } from './log';
import { recordVerdict, type RecordVerdict } from '../core/judge/verdict';
import { countWords } from '../core/pipeline/progressWords';
import { modelFor, pickProvider, runProviderFor, type ProviderChoice } from './providerChoice';
import type { BatchMode } from '../core/app/batchMode';
import { confirmCost, timedEstimate, workspacePrices, type CostAnswer } from './costEstimate';
import { estimateJudging } from '../core/judge/estimate';
import type { ExtensionServices } from './services';
import { readConfig } from './config';
import { requireTrust } from './trust';

export interface JudgeArgs {
  provider?: ProviderChoice;
  /** Answers the cost question (above agentSeer.cost.confirmAbove) instead of the modal. */
  answerCost?: CostAnswer;
}

export type JudgeOutcome =
  | { status: 'no-harness' | 'cancelled-before-start' | 'no-spec' | 'untrusted' }
  | { status: 'failed' | 'cancelled'; message: string }
  | { status: 'done'; judgeId: string; result: JudgeHarnessResult | { records: 1; verdict: RecordVerdict } };

export async function judge(services: ExtensionServices, target: unknown, args: JudgeArgs = {}): Promise<JudgeOutcome> {
  const node = target as HarnessNode | undefined;
  let harness: LoadedHarness | undefined;
  if (node && 'harness' in node) harness = node.harness;
  else {
    await services.harnesses.ready;
    const all = services.harnesses.all;
    if (!all.length) {
      // An empty picker explains nothing: say what is missing and offer the way there.
      // Not awaited: the command ends now, whatever the user does with the message.
      void vscode.window
        .showInformationMessage('Agent Seer: there is no harness to judge yet. Generate evals from a tool spec first.', 'Generate Evals')
        .then((choice) => choice && vscode.commands.executeCommand('agentSeer.generateEvals'));
      return { status: 'no-harness' };
    }
    const pick =
      all.length === 1
        ? all[0]
        : (
            await vscode.window.showQuickPick(
              all.map((h) => ({ label: vscode.workspace.asRelativePath(h.dir), h })),
              { title: 'Judge which harness?' },
            )
          )?.h;
    harness = pick;
  }
  if (!harness) return { status: 'no-harness' };
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(harness.dir));
  const found = await findHarnessSpec(harness.dir, harness.manifest, { cwd: folder?.uri.fsPath ?? harness.dir });
  if (!found.ok) {
    void showError(services.log, `Agent Seer: ${found.error}`);
    return { status: 'no-spec' };
  }
  for (const w of found.warnings) services.log.warn(w);
  const spec = found.spec;

  const scenario = node?.kind === 'scenario' ? node.record : undefined;
  const scope = vscode.Uri.file(harness.dir);
  const config = readConfig(scope);
  const prices = await workspacePrices(folder?.uri ?? scope, services.log);
  const promptLibrary = (): PromptLibrary => PromptLibrary.load(vscode.Uri.joinPath(services.extensionUri, 'prompts').fsPath);
  // One scenario is always judged again; a harness skips its current judgments, as the run does.
  const estimate = (judges: { id: string; provider: string; model: string }[]): ReturnType<typeof estimateJudging> =>
    estimateJudging(scenario ? [scenario] : harness.records, spec, judges, { prices, force: scenario !== undefined, prompts: promptLibrary() });
  const offered =
    args.provider?.kind === 'offline'
      ? []
      : timedEstimate(services.log, `judging ${scenario ? 'one scenario' : `${harness.records.length} records`}`, () =>
          estimate(
            (['gemini', 'openai'] as const).map((kind) => {
              const model = modelFor(kind, 'judge', config);
              return { id: `${kind}:${model}`, provider: kind, model };
            }),
          ),
        );
  const choice = args.provider ?? (await pickProvider('judge', { gemini: offered[0], openai: offered[1] }));
  if (!choice) return { status: 'cancelled-before-start' };
  let llm: StructuredLlm | undefined;
  let batch: BatchMode | undefined;
  if (choice.kind !== 'offline') {
    if (!requireTrust('call a language model', services.log)) return { status: 'untrusted' };
    try {
      const cacheDir = path.join(harness.dir, CACHE_DIR);
      const made = await runProviderFor(choice, services, scope, 'judge', cacheDir);
      if (!made) return { status: 'cancelled-before-start' };
      batch = made.batch;
      const chat = made.chat;
      // Asked before any call, priced for the model the judge really uses (at the batch price in batch mode).
      const [chosen] = estimate([{ id: `${chat.id}:${chat.model}`, provider: chat.id, model: chat.model }]);
      if (!(await confirmCost(chosen, scope, services.log, args.answerCost, batch ? 'batch' : 'sync'))) return { status: 'cancelled-before-start' };
      ({ llm } = createLlmClient(
        batch
          ? { chat, role: 'judge', cacheDir, limits: batch.limits }
          : {
              chat,
              role: 'judge',
              cacheDir,
              concurrency: config.generation.concurrency,
              ...(config.generation.rpm ? { rpm: config.generation.rpm } : {}),
              limits: { timeoutMs: config.llm.timeoutMs },
            },
      ));
    } catch (err) {
      const message = errorMessage(err);
      void showError(services.log, `Agent Seer: ${message}`);
      return { status: 'failed', message };
    }
  }
  const judgeId = llm ? judgeIdOf(llm) : OFFLINE_JUDGE_ID;
  const prompts = llm ? PromptLibrary.load(vscode.Uri.joinPath(services.extensionUri, 'prompts').fsPath) : undefined;
  const dir = harness.dir;

  services.log.info(`Judging ${scenario ? `scenario ${scenario.id} of ` : ''}${dir} with ${judgeId}`);
  const outcome = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Judging with ${judgeId}`, cancellable: true },
    async (progress, token): Promise<JudgeOutcome> => {
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort());
      try {
        if (scenario) {
          const judgment = await judgeRecord(scenario, spec, { ...(llm ? { llm } : {}), ...(prompts ? { prompts } : {}), signal: abort.signal });
          // The record file is rewritten: not while a generation or judge run holds the folder.
          const judged = { ...scenario, judgments: { ...(scenario.judgments ?? {}), [judgeId]: judgment } };
          const lock = await lockFolder(dir, 'judge');
          try {
            await writeRecord(dir, judged);
          } finally {
            await lock.release();
          }
          return { status: 'done', judgeId, result: { records: 1, verdict: recordVerdict(judged, { spec }) } };
        }
        const result = await judgeHarness(dir, {
          judges: [{ id: judgeId, ...(llm ? { llm } : {}) }],
          spec,
          signal: abort.signal,
          ...(batch ? { concurrency: batch.concurrency } : {}),
          ...(prompts ? { prompts } : {}),
          onProgress: (p) => progress.report({ message: countWords('judge', p.done, p.total), increment: 100 / Math.max(1, p.total) }),
        });
        return { status: 'done', judgeId, result };
      } catch (err) {
        const message = errorMessage(err);
        if (abort.signal.aborted) return { status: 'cancelled', message };
        void showError(services.log, `Agent Seer: judging failed: ${message}`);
        return { status: 'failed', message };
      } finally {
        sub.dispose();
        await batch?.chat.close();
      }
    },
  );
  await services.harnesses.reload(dir);
  if (outcome.status === 'done' && 'verdict' in outcome.result && scenario) {
    // One scenario: say how it came out, with the first reason when it fails.
    const v = outcome.result.verdict;
    const score = v.score ? ` (${v.score.label})` : '';
    const text = `Agent Seer: "${scenario.title}" ${v.state === 'pass' ? 'passed' : v.state === 'fail' ? 'failed' : 'was judged'}${score} with ${judgeId}.${v.failures[0] ? ` ${v.failures[0]}${v.failures.length > 1 ? ` (and ${v.failures.length - 1} more)` : ''}` : ''}`;
    services.log.info(text);
    if (v.state === 'fail') void showWarning(services.log, text);
    else void vscode.window.showInformationMessage(text);
  }
  if (outcome.status === 'done' && 'judges' in outcome.result) {
    const s = outcome.result.judges[0];
    // A harness of 0 records judged is not a success (the CLI exits 5): a warning, not a toast.
    if (outcome.result.records === 0) void showWarning(services.log, `Agent Seer: nothing to judge: the harness holds 0 records.`);
    else if (s) {
      // An exact score alone is every check passed, not a good harness: say what it cannot see.
      const tc =
        s.meanTc !== null
          ? `mean TC ${s.meanTc.toFixed(2)}`
          : `mean exact ${s.meanExact?.toFixed(2) ?? '–'} (exact argument checks only: realism, coherence and tool choice need an LLM judge)`;
      services.log.info(`Judged ${s.judged} records (${s.notJudged} not judged, ${s.skipped} already current) with ${judgeId}: ${tc}`);
      void vscode.window.showInformationMessage(`Agent Seer: judged ${s.judged + s.skipped} records with ${judgeId}; ${tc}.`);
    }
  }
  return outcome;
}
