/**
 * Long offline work (a 200-tool spec takes seconds) written once as a generator that yields
 * between steps (a tool probed, a scenario built, a record assembled), then run either straight
 * through (tests, pure callers) or handing the event loop back between steps, so the extension
 * host keeps answering while a harness is generated.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Work in steps: yields between them, returns the result. */
export type Steps<T> = Generator<void, T, void>;

/** Runs every step at once, synchronously. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * Runs the steps, returning to the event loop between them (other callbacks, timers and I/O run
 * in between); rejects with the signal's reason once it is aborted.
 */
export async function runStepsYielding<T>(steps: Steps<T>, signal?: AbortSignal): Promise<T> {
  for (;;) {
    signal?.throwIfAborted();
    const r = steps.next();
    if (r.done) return r.value;
    await nextTurn();
  }
}
