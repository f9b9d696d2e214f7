/**
 * Every default the product uses when the user names no value: CLI options, the editor's
 * settings (`package.json` `contributes.configuration` must agree: `test/unit/workspaceDefaults.test.ts`)
 * and the core's own fallbacks. Imports nothing of ours, so any layer may read it.
 */
import { HARNESS_FOLDER, SNAPSHOT_FOLDER } from './layout';

/** Scenarios requested per tier (`--simple`, `--complex`, `agentSeer.generation.*`). */
export const DEFAULT_SIMPLE = 10;
export const DEFAULT_COMPLEX = 10;
/**
 * What an LLM run does with an item the model could not make after its tries
 * (`--fallback`, `agentSeer.generation.fallback`): `none` discards it (counted), `offline`
 * fills it with the offline generator's template, labelled in the record and counted.
 */
export const GENERATION_FALLBACKS = ['none', 'offline'] as const;
export type GenerationFallback = (typeof GENERATION_FALLBACKS)[number];
export const DEFAULT_FALLBACK: GenerationFallback = 'none';
/** Seed of the offline generator and of sampling when the caller names none. */
export const DEFAULT_SEED = 1;
/** Coverage follow-up rounds per group of the LLM generator (and global rounds after them). */
export const DEFAULT_COVERAGE_ROUNDS = 2;
/**
 * Extra rounds of the LLM generator past its first ones: top-ups of a batch still short of its
 * requested scenarios, and global coverage rounds for tools still unused. A round can itself hit
 * a bad reply, so one is not enough; a bound, so a model that never answers validly ends the run.
 */
export const MAX_EXTRA_ROUNDS = 3;
/** LLM calls in flight at once (`--concurrency`, `agentSeer.generation.concurrency`), and judge workers. */
export const DEFAULT_CONCURRENCY = 4;
/**
 * Batch mode (`--batch`, `agentSeer.llm.batch`): calls go to the provider's batch API as jobs
 * (half price, a quota of their own, results within a day) instead of one request each.
 */
export const DEFAULT_BATCH = false;
/**
 * Where a batch item that failed (a 429 or 500 inside the job, an expired job) is tried again
 * (`--batch-retry`): `batch` in a follow-up job (default, batch price), `sync` as one
 * synchronous call (full price, no wait).
 */
export const BATCH_RETRIES = ['batch', 'sync'] as const;
export type BatchRetry = (typeof BATCH_RETRIES)[number];
export const DEFAULT_BATCH_RETRY: BatchRetry = 'batch';
/**
 * Calls in flight in batch mode: a whole round must reach the batch engine together to become one
 * job, so the cap only bounds memory; the provider's batch quota, not ours, paces the work.
 */
export const BATCH_CONCURRENCY = 100_000;
/** A batch call waits as long as its job may run: the providers' window is 24 hours; two days covers queueing. */
export const BATCH_CALL_TIMEOUT_MS = 48 * 3600_000;
/** Requests per minute: none (`agentSeer.generation.rpm` 0 means none). */
export const DEFAULT_RPM: number | undefined = undefined;
/** Seconds to wait for a server to start, and again for it to list its tools (`--timeout`, `agentSeer.serverTimeoutSeconds`). */
export const DEFAULT_SERVER_TIMEOUT_SECONDS = 30;
/** The rate-limit window of every LLM client: a minute plus a second of margin (see llm/client.ts). */
export const RPM_WINDOW_MS = 61_000;
/**
 * Seconds an LLM request may go without an answer before it fails as a timeout (`--request-timeout`,
 * `agentSeer.llm.requestTimeout`). Long enough for a model writing several scenarios at once; a
 * timed-out call is tried once more, then counts toward the outage stop (`llm/limits.ts`).
 */
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 120;
/**
 * Longest pause between "waiting for N LLM calls" lines while calls are out and nothing else is
 * printed (`app/callWatch.ts`); shorter with a short request timeout, at least a second.
 */
export const WAITING_LINE_EVERY_MS = 10_000;
/**
 * The CLI's progress (cli/progress.ts): the least time between two plain lines of a stage when
 * stderr is not a terminal (each also needs another tenth done), and between two redraws of the
 * terminal's progress line.
 */
export const CLI_PROGRESS_PLAIN_EVERY_MS = 5000;
export const CLI_PROGRESS_REDRAW_MS = 100;
/** Milliseconds between progress updates in the editor's notification. */
export const EDITOR_PROGRESS_EVERY_MS = 250;
/**
 * Milliseconds between manifest rewrites while an offline run writes its records (each record
 * is written at once; the manifest, which lists them all, follows at most this often and at the end).
 */
export const OFFLINE_MANIFEST_EVERY_MS = 1000;

/**
 * Complexity thresholds. Table 15's best-scoring servers sit at or under them (Selenium, Redis,
 * Elasticsearch: at most 8 parameters, about a third optional); Git (19 max, 95% optional) and
 * Illustrator do not. `complexity/analyze.ts` types and re-exports them as `DEFAULT_THRESHOLDS`.
 */
export const DEFAULT_COMPLEXITY = Object.freeze({
  maxParams: 8,
  maxOptionalRatio: 0.6,
  minParamsForOptionalRatio: 4,
  maxDepth: 3,
  minToolsForSharedParam: 2,
  sharedParamMinSimilarity: 0.5,
});

/**
 * Where the editor shows findings (`agentSeer.lint.scope`): only in open files by default, as the
 * TypeScript and ESLint extensions do, so Problems is not filled with files nobody opened.
 */
export const DEFAULT_LINT_SCOPE = 'openFiles';

/**
 * Clients whose documented limits are checked (`agentSeer.lint.clients`, `inspect --clients`).
 * OpenAI strict mode is opt-in: most MCP schemas have optional parameters, which strict mode
 * refuses, so it would flag nearly every tool of a server that never meant to be strict.
 */
export const DEFAULT_LINT_CLIENTS: readonly ('gemini' | 'openai' | 'vscode')[] = Object.freeze(['gemini', 'vscode']);

/** The editor's `agentSeer.*` settings' defaults, by setting name (without the `agentSeer.` prefix). */
/** Estimated USD above which the editor asks before a run (setting `agentSeer.cost.confirmAbove`; 0 = never). */
export const DEFAULT_CONFIRM_ABOVE_USD = 1;

export const SETTING_DEFAULTS = Object.freeze({
  snapshotFolder: SNAPSHOT_FOLDER,
  harnessFolder: HARNESS_FOLDER,
  serverTimeoutSeconds: DEFAULT_SERVER_TIMEOUT_SECONDS,
  'complexity.maxParams': DEFAULT_COMPLEXITY.maxParams,
  'complexity.maxOptionalRatio': DEFAULT_COMPLEXITY.maxOptionalRatio,
  'complexity.maxDepth': DEFAULT_COMPLEXITY.maxDepth,
  'lint.scope': DEFAULT_LINT_SCOPE,
  'lint.severity': Object.freeze({}),
  'lint.clients': DEFAULT_LINT_CLIENTS,
  'generation.simple': DEFAULT_SIMPLE,
  'generation.complex': DEFAULT_COMPLEX,
  'generation.concurrency': DEFAULT_CONCURRENCY,
  'generation.rpm': 0,
  'generation.fallback': DEFAULT_FALLBACK,
  'llm.batch': DEFAULT_BATCH,
  'llm.requestTimeout': DEFAULT_REQUEST_TIMEOUT_SECONDS,
  'gemini.model': '',
  'gemini.baseUrl': '',
  'gemini.judgeModel': '',
  'openai.model': '',
  'openai.baseUrl': '',
  'cost.confirmAbove': DEFAULT_CONFIRM_ABOVE_USD,
  'cost.pricesFile': '',
});

/**
 * A judged record passes when its headline score (an LLM judge's TC, else the exact argument
 * score) is at least this and no exact check fails. The editor's trees and scenario panel use it.
 */
export const PASS_THRESHOLD = 0.9;

/** Batch mode: the first wait before polling a job; later polls wait 1.5 times longer each, up to {@link BATCH_MAX_POLL_MS}. */
export const BATCH_FIRST_POLL_MS = 5_000;
/** Batch mode: the longest wait between two polls of a job. */
export const BATCH_MAX_POLL_MS = 60_000;
/** Batch mode: the quiet time after the last call of a round before its calls are submitted as jobs. */
export const BATCH_FLUSH_MS = 500;
/**
 * Batch mode: polls (or result downloads) of one job that may fail in a row (network, 5xx) before
 * its calls fail with the last error; the job stays journaled and a re-run collects it.
 */
export const BATCH_POLL_FAILURES = 20;
