/**
 * Progress of long work (generate, judge, run) on stderr, the one home for how it is shown.
 *
 * On a terminal (stderr a TTY and CI unset: `Io.status`): one line redrawn in place with the
 * stage, a bar, done/total, the time so far and, once a few items have finished, the time left;
 * cleared when the work ends, so the summary is what stays on screen. Otherwise (a pipe, a CI
 * log): plain lines, a line when a stage starts, when it ends, and in between only when another
 * tenth of it is done and at least {@link PLAIN_EVERY_MS} have passed since the last line, so a
 * long run writes a dozen lines a stage, never hundreds.
 */
import { CLI_PROGRESS_PLAIN_EVERY_MS, CLI_PROGRESS_REDRAW_MS } from '../core/workspace/defaults';
import type { Io } from './errors';

/** The least time between two plain progress lines of one stage (but its first and last). */
export const PLAIN_EVERY_MS = CLI_PROGRESS_PLAIN_EVERY_MS;
/** How often the terminal line may be redrawn. */
const REDRAW_EVERY_MS = CLI_PROGRESS_REDRAW_MS;
/** Items that must have finished in a stage before its time left is guessed. */
const ETA_AFTER = 3;
const BAR_WIDTH = 20;

/** A command's progress display. */
export interface Progress {
  /** `done` of `total` items of `stage` are finished; `detail` follows the count (calls, records…). */
  update(stage: string, done: number, total: number, detail?: string): void;
  /** The work has ended (or stopped): the terminal line is taken down. */
  end(): void;
}

/** `12 s`, `3:05`, `1:02:05`. */
export function clock(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** `[########------------]` for done of total. */
export function bar(done: number, total: number, width = BAR_WIDTH): string {
  const filled = total > 0 ? Math.min(width, Math.floor((done / total) * width)) : 0;
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

interface StageClock {
  started: number;
  /** Done when the stage was first seen (work resumed from a cache counts as done at once). */
  doneAtStart: number;
  /** The last plain line: its time and the tenth it showed (-1: none yet). */
  lastAt: number;
  lastTenth: number;
  ended: boolean;
}

/** The progress display of `command` (the word each line starts with) on `io`'s stderr. */
export function startProgress(io: Io, command: string, options: { now?: () => number } = {}): Progress {
  const now = options.now ?? Date.now;
  const begun = now();
  const stages = new Map<string, StageClock>();
  const status = io.status;
  let lastDraw = Number.NEGATIVE_INFINITY;
  let lastStage: string | undefined;

  const clockOf = (stage: string, done: number): { clock: StageClock; fresh: boolean } => {
    const known = stages.get(stage);
    if (known) return { clock: known, fresh: false };
    const made = { started: now(), doneAtStart: done, lastAt: Number.NEGATIVE_INFINITY, lastTenth: -1, ended: false };
    stages.set(stage, made);
    return { clock: made, fresh: true };
  };

  /** The time left in a stage, guessed from its pace so far; undefined before a few items have finished. */
  const eta = (c: StageClock, done: number, total: number, t: number): string | undefined => {
    const finished = done - c.doneAtStart;
    if (finished < ETA_AFTER || done >= total) return undefined;
    return clock(((t - c.started) / finished) * (total - done));
  };

  return {
    update(stage, done, total, detail) {
      const t = now();
      const { clock: c, fresh } = clockOf(stage, done);
      const tail = detail ? ` · ${detail}` : '';
      if (status) {
        // Redrawn at most every REDRAW_EVERY_MS, but at once when the stage changes or ends.
        if (!fresh && stage === lastStage && done < total && t - lastDraw < REDRAW_EVERY_MS) return;
        lastDraw = t;
        lastStage = stage;
        const left = eta(c, done, total, t);
        status.show(`${command}: ${stage} ${bar(done, total)} ${done}/${total} · ${clock(t - begun)}${left !== undefined ? ` · ETA ${left}` : ''}${tail}`);
        return;
      }
      const tenth = total > 0 ? Math.min(10, Math.floor((done / total) * 10)) : 0;
      const ends = total > 0 && done >= total && !c.ended;
      const step = tenth > c.lastTenth && t - c.lastAt >= PLAIN_EVERY_MS;
      if (!fresh && !ends && !step) return;
      if (ends) c.ended = true;
      c.lastAt = t;
      c.lastTenth = tenth;
      const pct = total > 0 ? ` (${Math.round((done / total) * 100)}%)` : '';
      io.err(`${command}: ${stage} ${done}/${total}${pct} · ${clock(t - begun)}${tail}`);
    },
    end() {
      status?.clear();
    },
  };
}
