/**
 * Cost in the editor: the prices a workspace uses (the built-in table, or `agentSeer.cost.pricesFile`
 * merged over it), the estimates the model picker shows, and the question asked before a run
 * whose estimate is above `agentSeer.cost.confirmAbove`. The estimating itself is core's
 * (`estimateGeneration`, `estimateJudging`); this only reads settings and asks.
 */
import * as vscode from 'vscode';
import { readPriceFile } from '../core/app/priceFile';
import { BUILT_IN, estimateCalls, formatUsd, type CostEstimate, type CostMode, type Prices } from '../core/llm/pricing';
import { resolveInside } from '../core/util/insideFolder';
import { readConfig } from './config';
import { showWarning } from './log';

/**
 * The prices for runs in `folder`. A price file is a workspace-supplied path: read only in a
 * trusted workspace and only inside the workspace folder. A file that cannot be used is said so
 * (a warning naming it) and the built-in prices are used instead.
 */
export async function workspacePrices(folder: vscode.Uri, log: vscode.LogOutputChannel): Promise<Prices> {
  const file = readConfig(folder).cost.pricesFile;
  if (!file) return BUILT_IN;
  if (!vscode.workspace.isTrusted) {
    log.warn(`agentSeer.cost.pricesFile is not read in an untrusted workspace; using the built-in prices`);
    return BUILT_IN;
  }
  const inside = await resolveInside(folder.fsPath, file, 'agentSeer.cost.pricesFile');
  const read = inside.ok ? await readPriceFile(inside.path) : { ok: false as const, message: inside.message };
  if (read.ok) return read.prices;
  void showWarning(log, `Agent Seer: ${read.message}; estimates and costs use the built-in prices.`);
  return BUILT_IN;
}

/** Runs `make`, logging how long it took (the picker waits for it). */
export function timedEstimate<T>(log: vscode.LogOutputChannel, what: string, make: () => T): T {
  const started = performance.now();
  const value = make();
  log.info(`Estimated ${what} in ${(performance.now() - started).toFixed(0)} ms`);
  return value;
}

/** Answers the cost question instead of the modal (callers such as tests pass it, as they pass a provider to skip the picker). */
export type CostAnswer = (question: string) => Promise<'Continue' | undefined>;

/**
 * Asks before a run whose estimate is above the setting (0: never asks; a model without a price
 * is not asked about). True when the run may go ahead; false when the user cancelled (no call is
 * made then).
 */
export async function confirmCost(
  estimate: CostEstimate | undefined,
  scope: vscode.Uri,
  log: vscode.LogOutputChannel,
  answer?: CostAnswer,
  mode: CostMode = 'sync',
): Promise<boolean> {
  if (!estimate) return true;
  const limit = readConfig(scope).cost.confirmAbove;
  // A batch run (agentSeer.llm.batch) is billed at the batch price.
  const usd = mode === 'batch' ? estimate.batchUsd : estimate.usd;
  if (usd === null) {
    log.info(`No price for ${estimate.model}: the run's cost is not estimated`);
    return true;
  }
  if (limit <= 0 || usd <= limit) return true;
  const high = mode === 'batch' ? estimate.high?.batchUsd : estimate.high?.usd;
  const upTo = high !== undefined && high !== null && high > usd ? `, up to ${formatUsd(high)} with re-asks` : '';
  const question = `This run is estimated at ≈${formatUsd(usd)}${mode === 'batch' ? ' in batch mode' : ''} (${estimateCalls(estimate)}${upTo}). Continue?`;
  const choice = answer
    ? await answer(question)
    : await vscode.window.showWarningMessage(
        question,
        { modal: true, detail: `${estimate.model}; agentSeer.cost.confirmAbove is ${formatUsd(limit)}.` },
        'Continue',
      );
  const go = choice === 'Continue';
  log.info(`${question} ${go ? 'Continued' : 'Cancelled: no call made'}`);
  return go;
}
