/**
 * `--request-timeout SECONDS` of the commands that call a model (generate, judge, run), and the
 * "waiting for N LLM calls" lines they print while calls are out (`core/app/callWatch.ts`).
 */
import { MAX_OPTION } from '../core/bounds';
import { watchCalls, type WatchedCalls } from '../core/app/callWatch';
import type { ChatProvider } from '../core/llm';
import { DEFAULT_REQUEST_TIMEOUT_SECONDS } from '../core/workspace/defaults';
import type { Io } from './errors';
import { intOption } from './options';

/** The option's parseArgs entry. */
export const REQUEST_TIMEOUT_OPTION = { 'request-timeout': { type: 'string' } } as const;

/** The option's help, its text starting at `column` (the other options' column in that usage). */
export function requestTimeoutHelp(column: number): string {
  const pad = ' '.repeat(column);
  const flag = '  --request-timeout S'.padEnd(column - 1);
  return [
    `${flag} seconds an LLM call may go without an answer (default ${DEFAULT_REQUEST_TIMEOUT_SECONDS}, at most ${MAX_OPTION.requestTimeoutSeconds});`,
    `${pad}a timed-out call is tried once more, and 3 timed-out calls in a row stop the run`,
    `${pad}as an outage (non-zero exit), keeping what is done`,
  ].join('\n');
}

/** `--request-timeout` in milliseconds. */
export function requestTimeoutMs(raw: string | undefined): number {
  return intOption('request-timeout', raw, DEFAULT_REQUEST_TIMEOUT_SECONDS, 1, MAX_OPTION.requestTimeoutSeconds)! * 1000;
}

/** The provider, with a "waiting for N LLM calls" line on stderr while its calls are out. */
export function watchedProvider<T extends ChatProvider>(chat: T, timeoutMs: number, io: Io): WatchedCalls<T> {
  return watchCalls(chat, { timeoutMs, show: (line) => io.err(`agent-seer: ${line}`) });
}
