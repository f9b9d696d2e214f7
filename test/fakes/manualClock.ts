/** A clock that only moves when a test says so, for limiter and backoff tests. */
import type { Clock } from '../../src/core/llm/limits';

/** A {@link Clock} advanced by hand; sleepers wake when `advance` passes their deadline. */
export class ManualClock implements Clock {
  private t = 0;
  private sleepers: Array<{ at: number; wake: () => void }> = [];

  now(): number {
    return this.t;
  }

  /** Sleeps pending right now. */
  get sleeping(): number {
    return this.sleepers.length;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const entry = {
        at: this.t + Math.max(0, ms),
        wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.sleepers = this.sleepers.filter((s) => s !== entry);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.sleepers.push(entry);
    });
  }

  /** Moves time forward by `ms`, waking due sleepers in deadline order, and lets them run. */
  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    for (;;) {
      const due = this.sleepers.filter((s) => s.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.t = Math.max(this.t, due.at);
      this.sleepers = this.sleepers.filter((s) => s !== due);
      due.wake();
      await flush();
    }
    this.t = target;
    await flush();
  }
}

/** Lets pending promise callbacks run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((r) => setImmediate(r));
}
