/**
 * Progress throttling for every front end. Core reports progress on every counter change; a
 * notification wants a few updates a second, so a front end passes its interval
 * (`EDITOR_PROGRESS_EVERY_MS` in workspace/defaults.ts). The CLI draws its own (cli/progress.ts).
 */

/**
 * Wraps `show` so it runs at most once per `everyMs`; an update for which `always(p)` holds (the
 * last one, say) is shown regardless. A display callback that throws does not stop the run.
 */
export function throttleProgress<P>(everyMs: number, show: (p: P) => void, options: { always?: (p: P) => boolean; now?: () => number } = {}): (p: P) => void {
  const now = options.now ?? Date.now;
  let last = Number.NEGATIVE_INFINITY;
  return (p) => {
    const t = now();
    if (t - last < everyMs && !options.always?.(p)) return;
    last = t;
    show(p);
  };
}
