/** Bounded waits for the live listing: a deadline plus the caller's cancel signal, and timers. */

/**
 * Runs `work` with a deadline and the caller's signal. Whichever fires first aborts the signal
 * handed to `work` and rejects at once with its own error; `also` can reject early too (a child
 * that died). The SDK's own request timeouts are set longer, so these messages are the ones seen.
 */
export async function withDeadline<T>(
  work: (signal: AbortSignal) => Promise<T>,
  d: { ms: number; outer: AbortSignal | undefined; onTimeout: () => Error; onAbort: () => Error; also?: Promise<never> },
): Promise<T> {
  if (d.outer?.aborted) throw d.onAbort();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onOuterAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    const stop = (error: Error) => {
      controller.abort(error);
      reject(error);
    };
    timer = setTimeout(() => stop(d.onTimeout()), d.ms);
    onOuterAbort = () => stop(d.onAbort());
    d.outer?.addEventListener('abort', onOuterAbort, { once: true });
  });
  try {
    return await Promise.race([work(controller.signal), stopped, ...(d.also ? [d.also] : [])]);
  } finally {
    clearTimeout(timer);
    if (onOuterAbort) d.outer?.removeEventListener('abort', onOuterAbort);
  }
}

/** `promise`, or `fallback` after `ms`, whichever comes first. */
export async function raceTimer<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
