/**
 * Colour in the terminal: the one place that decides whether a stream gets colour, and the
 * palette the commands use for what a user scans for (status words, gate lines, error and
 * warning prefixes, table headers, severities).
 *
 * A stream gets colour only when it is a terminal (never when piped or redirected), never with
 * `NO_COLOR` set to a non-empty value (no-color.org), never with `--no-color`, never with
 * `TERM=dumb`; `FORCE_COLOR` (non-empty, not `0`/`false`) turns it on even when piped.
 *
 * Every line the CLI prints goes through `terminalSafe`, which escapes ESC so that a spec's names
 * cannot drive the terminal. Colour therefore travels as marks that carry a random per-process
 * token, which no spec or server can know: the writer (processIo.ts) turns the marks into SGR
 * codes after escaping, or drops them on a stream without colour. Marks are only made by a paint
 * whose stream takes colour, so captured output (tests, `--format json`, files) never holds any.
 */
import { randomBytes } from 'node:crypto';

/** What a user scans for, by how it went. */
export type Tone = 'ok' | 'warn' | 'bad';

/** The palette of one stream: each function returns its text coloured, or as it is on a plain stream. */
export interface Paint {
  /** Whether this stream shows colour. */
  readonly enabled: boolean;
  ok(text: string): string;
  warn(text: string): string;
  bad(text: string): string;
  bold(text: string): string;
  dim(text: string): string;
  /** The colour of a tone; the text as it is for none. */
  tone(tone: Tone | undefined, text: string): string;
}

/** A plain stream: every function returns its text unchanged. */
export const PLAIN: Paint = {
  enabled: false,
  ok: (t) => t,
  warn: (t) => t,
  bad: (t) => t,
  bold: (t) => t,
  dim: (t) => t,
  tone: (_tone, t) => t,
};

/** The token of this process's marks: private-use brackets around random hex, never in a spec. */
const TOKEN = `\ue000${randomBytes(8).toString('hex')}\ue001`;
const MARK = new RegExp(`${TOKEN}(\\d{1,2}(?:;\\d{1,2})*)m`, 'g');

const mark =
  (open: string, close: string) =>
  (text: string): string =>
    text === '' ? text : `${TOKEN}${open}m${text}${TOKEN}${close}m`;

/** The palette of a stream that shows colour (SGR: green, yellow, red, bold, dim). */
const COLOURED: Paint = (() => {
  const ok = mark('32', '39');
  const warn = mark('33', '39');
  const bad = mark('31', '39');
  return {
    enabled: true,
    ok,
    warn,
    bad,
    bold: mark('1', '22'),
    dim: mark('2', '22'),
    tone: (tone, t) => (tone === 'ok' ? ok(t) : tone === 'warn' ? warn(t) : tone === 'bad' ? bad(t) : t),
  };
})();

/** The palette for a stream: coloured when `enabled`. */
export function paintFor(enabled: boolean): Paint {
  return enabled ? COLOURED : PLAIN;
}

/** A variable that is set to something that does not mean off. */
const isOn = (v: string | undefined): boolean => v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';

/** Whether a stream gets colour (the rule in this file's header). `noColorFlag`: `--no-color` was given. */
export function colourWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv, noColorFlag = false): boolean {
  if (noColorFlag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return isOn(env.FORCE_COLOR);
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}

/** Whether CI is running this (`CI` set to anything but off): no redrawn progress line there, whatever the log pretends to be. */
export function inCi(env: NodeJS.ProcessEnv): boolean {
  return isOn(env.CI);
}

/** A line as written to a stream: marks become SGR codes where the stream shows colour, and vanish elsewhere. */
export function renderMarks(line: string, colour: boolean): string {
  if (!line.includes(TOKEN)) return line;
  return line.replace(MARK, (_m, codes: string) => (colour ? `\u001b[${codes}m` : ''));
}

/** The visible text of a painted string (marks removed): for measuring widths. */
export function unpainted(text: string): string {
  return renderMarks(text, false);
}

/** The tone of a status word from a run, a job or a check: complete green, partial or pending yellow, failed or stopped red. */
export function statusTone(word: string): Tone | undefined {
  const w = word.trim().toLowerCase();
  if (/^(complete|completed|succeeded|success|passed|pass|yes|ok|ended)$/.test(w)) return 'ok';
  if (/^(partial|pending|running|submitting|queued|in[_ -]progress|validating|finalizing|empty|skipped|warning)$/.test(w)) return 'warn';
  if (/^(failed|fail|stopped|cancelled|canceled|expired|error|refused|no)$/.test(w)) return 'bad';
  return undefined;
}

/** The tone of a finding's severity: error red, warning yellow, info plain. */
export function severityTone(severity: string): Tone | undefined {
  return severity === 'error' ? 'bad' : severity === 'warning' ? 'warn' : undefined;
}

/**
 * A line for stderr with its leading word coloured: `agent-seer: warning:` yellow, a run that
 * ended early (`agent-seer: stopped: …`, `agent-seer: cancelled; …`) red. Other lines (a gate's
 * missed bar is painted where it is printed, `gateExit`) are returned as they are.
 */
export function paintErrLine(line: string, paint: Paint): string {
  if (!paint.enabled) return line;
  const lead = /^(agent-seer: )(warning|stopped|cancelled)(?=[:;])/.exec(line);
  if (!lead) return line;
  const word = lead[2]!;
  return `${lead[1]}${word === 'warning' ? paint.warn(word) : paint.bad(word)}${line.slice(lead[0].length)}`;
}
