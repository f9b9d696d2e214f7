/**
 * Options every command takes, parsed here once before the command's own options, and the one
 * text that documents them in the top-level help and in every command's `--help`.
 */

/** `--no-color`: plain text on every stream (as `NO_COLOR=1`), whatever the streams are. */
export const NO_COLOR_FLAG = '--no-color';

/** The help text of the global options, the colour rules and the progress line. */
export const GLOBAL_OPTIONS_HELP = `Every command also takes:
  --no-color  no colour (also NO_COLOR=1). Colour is used only on a terminal (never when piped),
              FORCE_COLOR=1 turns it on anyway. On a terminal (and CI unset) long work shows one
              progress line redrawn in place; otherwise a line per stage and at most every 10%.`;

/** The command line without the global options (before a `--`), and which of them were given. */
export function withoutGlobalOptions(argv: readonly string[]): { args: string[]; noColor: boolean } {
  const end = argv.indexOf('--');
  const head = end < 0 ? argv : argv.slice(0, end);
  const tail = end < 0 ? [] : argv.slice(end);
  const noColor = head.includes(NO_COLOR_FLAG);
  return { args: [...head.filter((a) => a !== NO_COLOR_FLAG), ...tail], noColor };
}
