/**
 * Long offline work (a 200-tool spec takes seconds) written once as a generator that yields
 * between steps (a tool probed, a scenario built, a record assembled), then run either straight
 * through (tests, pure callers) or handing the event loop back between steps, so the extension
 * host keeps answering while a harness is generated. A step may yield a value (an offline run
 * yields each record as it is assembled, so the runner writes it at once).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Work in steps: yields between them (optionally a value of type Y), returns the result. */
export type Steps<T, Y = void> = Generator<Y, T, void>;

/** Runs every step at once, synchronously; yielded values are dropped. */
export function runSteps<T, Y = void>(steps: Steps<T, Y>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * Runs the steps, returning to the event loop between them (other callbacks, timers and I/O run
 * in between); a yielded value goes to `onValue` (awaited: the steps wait for it). Rejects with
 * the signal's reason once it is aborted.
 */
export async function runStepsYielding<T, Y = void>(
  steps: Steps<T, Y>,
  signal?: AbortSignal,
  onValue?: (value: Exclude<Y, void>) => Promise<void> | void,
): Promise<T> {
  for (;;) {
    signal?.throwIfAborted();
    const r = steps.next();
    if (r.done) return r.value;
    if (r.value !== undefined && onValue) await onValue(r.value as Exclude<Y, void>);
    await nextTurn();
  }
}
