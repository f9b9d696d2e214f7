/**
 * The batch options `generate` and `judge` share (`--batch`, `--no-wait`, `--batch-retry`), their
 * help lines, and the lines that report batch jobs while a run waits and after it ends.
 */
import { batchMode, describeBatchEvent, type BatchMode } from '../core/app/batchMode';
import { LlmConfigError, type ChatProvider, type ProviderConfig } from '../core/llm';
import type { BatchEvent, BatchSummary } from '../core/llm/batch';
import { BATCH_RETRIES, DEFAULT_BATCH_RETRY, type BatchRetry } from '../core/workspace/defaults';
import type { OptionTable } from './command';
import { UsageError, type Io } from './errors';

/** The option table entries, spread into each command's table. */
export const BATCH_OPTIONS = {
  batch: { type: 'boolean', default: false },
  'no-wait': { type: 'boolean', default: false },
  'batch-wait': { type: 'boolean', default: false },
  'batch-retry': { type: 'string' },
} as const satisfies OptionTable;

/** The parsed values of {@link BATCH_OPTIONS}. */
export interface BatchArgs {
  batch?: boolean;
  noWait?: boolean;
  batchWait?: boolean;
  batchRetry?: string;
}

/** The values of {@link BATCH_OPTIONS} from parseArgs' result. */
export function batchArgs(values: { batch?: boolean; 'no-wait'?: boolean; 'batch-wait'?: boolean; 'batch-retry'?: string }): BatchArgs {
  return { batch: values.batch, noWait: values['no-wait'], batchWait: values['batch-wait'], batchRetry: values['batch-retry'] };
}

/** Help lines of the batch options, for each command's usage text. */
export const BATCH_USAGE = `  --batch              send the calls as batch jobs through the provider's Batch API (Gemini,
                       OpenAI): about half the price and a quota of their own; jobs usually
                       end within hours (at most 24). The jobs are written to <cache>/batch
                       before anything else: Ctrl-C, a crash or a reboot loses nothing, and the
                       same command run again collects them instead of submitting them again
  --batch-wait         wait for the jobs, polling with backoff (the default with --batch)
  --no-wait            submit the round's jobs and exit 4; run the same command again (or
                       \`agent-seer status DIR\`) to see them, collect them and go on to the next round
  --batch-retry R      where an item that failed inside a job is tried again: batch (default, a
                       follow-up job) or sync (one synchronous call at full price)`;

/** Checks the batch options against the rest; undefined when batch mode is off. */
export function checkBatchArgs(args: BatchArgs, usesModel: boolean): { wait: boolean; retry: BatchRetry } | undefined {
  if (!args.batch) {
    if (args.noWait || args.batchWait || args.batchRetry !== undefined) throw new UsageError('--no-wait, --batch-wait and --batch-retry go with --batch');
    return undefined;
  }
  if (args.noWait && args.batchWait) throw new UsageError('--no-wait and --batch-wait contradict each other');
  if (!usesModel) throw new UsageError('--batch needs a model (--provider gemini or openai; for judge, --judge gemini or openai): offline work makes no calls');
  const retry = args.batchRetry ?? DEFAULT_BATCH_RETRY;
  if (!(BATCH_RETRIES as readonly string[]).includes(retry)) throw new UsageError(`--batch-retry takes ${BATCH_RETRIES.join(' or ')}, got "${retry}"`);
  return { wait: !args.noWait, retry: retry as BatchRetry };
}

/** The batch engine around `sync`, reporting its jobs on stderr; a provider without a batch API is bad input. */
export function startBatchMode(
  settings: { wait: boolean; retry: BatchRetry },
  config: ProviderConfig,
  sync: ChatProvider,
  where: { cacheDir: string; statusFolder: string },
  io: Io,
): BatchMode {
  try {
    return batchMode({ config, sync, ...where, ...settings, onEvent: (e) => io.err(batchEventLine(e)), env: io.env });
  } catch (e) {
    if (e instanceof LlmConfigError) throw new UsageError(e.message);
    throw e;
  }
}

/** One stderr line for an event of the batch engine. */
export function batchEventLine(e: BatchEvent): string {
  return `batch: ${describeBatchEvent(e)}`;
}

/** The summary line of a run's batch jobs, or undefined when none was used. */
export function batchSummaryLine(s: BatchSummary): string | undefined {
  if (s.jobs.submitted + s.jobs.resumed + s.items.fromJournal === 0) return undefined;
  const states = Object.entries(s.jobs.byState)
    .filter(([, n]) => n !== undefined && n > 0)
    .map(([state, n]) => `${n} ${state}`)
    .join(', ');
  const retried = s.items.retriedSync ? `, ${s.items.retriedSync} retried synchronously` : '';
  // Only replies of jobs an earlier run submitted are "from earlier runs"; a reply read back from
  // the journal is no call and is said apart.
  const earlier = s.items.fromEarlierJobs ? ` (${s.items.fromEarlierJobs} from jobs of earlier runs)` : '';
  const journal = s.items.fromJournal ? `; ${s.items.fromJournal} answered from the journal (no call)` : '';
  return `  batch: ${s.jobs.submitted} job${s.jobs.submitted === 1 ? '' : 's'} submitted, ${s.jobs.resumed} resumed${states ? ` (${states})` : ''}; ${s.items.submitted} items submitted, ${s.items.succeeded} succeeded${earlier}, ${s.items.failed} failed${retried}${journal}`;
}
