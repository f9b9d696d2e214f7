/**
 * A line now and then while LLM calls are out: a slow model or an endpoint that never answers
 * would otherwise leave a terminal silent until the request timeout (two of them, with the
 * retry), and a silent run looks hung. Wraps a `ChatProvider` (a Proxy, so every other member of
 * the provider, such as a batch engine's `close`, is its own) and counts the calls in flight.
 */
import type { ChatProvider } from '../llm';
import { WAITING_LINE_EVERY_MS } from '../workspace/defaults';

/** A watched provider and how to stop watching (the timer never keeps a process alive on its own). */
export interface WatchedCalls<T extends ChatProvider> {
  chat: T;
  readonly stop: () => void;
}

/** Options of {@link watchCalls}. */
export interface WatchOptions {
  /** The request timeout, named in the line and shortening the pause for short timeouts. */
  timeoutMs: number;
  /** Prints one line. */
  show: (line: string) => void;
  /** Pause between lines; default half the timeout, between 1 s and `WAITING_LINE_EVERY_MS`. */
  everyMs?: number;
  now?: () => number;
}

const seconds = (ms: number): string => `${Math.round(ms / 1000)} s`;

/** Wraps `chat` so that while calls are out a "waiting for N LLM calls" line is shown every `everyMs`. */
export function watchCalls<T extends ChatProvider>(chat: T, options: WatchOptions): WatchedCalls<T> {
  const now = options.now ?? Date.now;
  const everyMs = options.everyMs ?? Math.min(WAITING_LINE_EVERY_MS, Math.max(1000, Math.floor(options.timeoutMs / 2)));
  const started = new Map<number, number>();
  let next = 0;
  const track = <R>(send: () => Promise<R>): Promise<R> => {
    const id = next++;
    started.set(id, now());
    return send().finally(() => started.delete(id));
  };
  const timer = setInterval(() => {
    if (started.size === 0) return;
    const oldest = Math.min(...started.values());
    const waited = now() - oldest;
    if (waited < everyMs) return;
    const n = started.size;
    options.show(`waiting for ${n} LLM call${n === 1 ? '' : 's'}, the oldest for ${seconds(waited)} (request timeout ${seconds(options.timeoutMs)})…`);
  }, everyMs);
  timer.unref();
  const wrapped = new Proxy(chat, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => unknown;
      // The calls that wait on the endpoint (`complete`, and `completeWithTools` for agents) are counted.
      if (prop === 'complete' || prop === 'completeWithTools') return (...args: unknown[]) => track(() => fn.apply(target, args) as Promise<unknown>);
      return fn.bind(target);
    },
  });
  return { chat: wrapped, stop: () => clearInterval(timer) };
}
