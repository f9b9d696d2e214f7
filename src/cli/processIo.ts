/**
 * The CLI's real output streams. Every line goes through `terminalSafe` (spec and server names,
 * server stderr and tool text are not ours to trust), and a reader that goes away (`| head -1`:
 * EPIPE) ends output quietly instead of with an unhandled 'error' stack trace. The run itself
 * goes on to its end, so files it is writing are not left half done.
 *
 * Colour (colour.ts) is decided here per stream, and the progress line is drawn here: on stderr,
 * only when it is a terminal and not in CI. A line printed while the progress line is up clears
 * it first and draws it again after, so the two never mix.
 */
import { colourWanted, inCi, paintErrLine, paintFor, renderMarks, type Paint } from './colour';
import type { Io, StatusLine } from './errors';
import { terminalSafe } from './format';

/** An `Io` over this process's stdout and stderr; `noColor`: `--no-color` was given. */
export function processIo(options: { noColor?: boolean } = {}): Io {
  const env = process.env;
  const outColour = colourWanted(process.stdout, env, options.noColor);
  const errColour = colourWanted(process.stderr, env, options.noColor);
  const status = process.stderr.isTTY && !inCi(env) ? terminalStatus(process.stderr) : undefined;
  const paint = { out: paintFor(outColour), err: paintFor(errColour) };
  return {
    // stdout shares the screen with the progress line only when it is the terminal too.
    out: lineWriter(process.stdout, outColour, undefined, process.stdout.isTTY ? status : undefined),
    err: lineWriter(process.stderr, errColour, paint.err, status),
    cwd: process.cwd(),
    env,
    paint,
    ...(process.stdout.isTTY && process.stdout.columns ? { columns: process.stdout.columns } : {}),
    ...(status ? { status } : {}),
  };
}

/** Whether a stream still takes writes: EPIPE (reader gone) or any other failure closes it for good. */
function watchOpen(stream: NodeJS.WriteStream): () => boolean {
  let open = true;
  // Nobody can read further lines, and there is nowhere left to say so. Later writes are dropped.
  stream.on('error', () => {
    open = false;
  });
  return () => open;
}

const openStreams = new WeakMap<NodeJS.WriteStream, () => boolean>();
function isOpen(stream: NodeJS.WriteStream): () => boolean {
  let f = openStreams.get(stream);
  if (!f) openStreams.set(stream, (f = watchOpen(stream)));
  return f;
}

function lineWriter(stream: NodeJS.WriteStream, colour: boolean, errPaint: Paint | undefined, status: TerminalStatus | undefined): (s: string) => void {
  const open = isOpen(stream);
  return (s) => {
    if (!open()) return;
    const safe = terminalSafe(s);
    const line = renderMarks(errPaint ? paintErrLine(safe, errPaint) : safe, colour);
    if (status) status.around(() => stream.write(`${line}\n`));
    else stream.write(`${line}\n`);
  };
}

/** The progress line of a terminal stream, with what other writers need to step around it. */
interface TerminalStatus extends StatusLine {
  /** Runs `write` with the line taken down, then draws it again. */
  around(write: () => void): void;
}

function terminalStatus(stream: NodeJS.WriteStream): TerminalStatus {
  const open = isOpen(stream);
  let shown: string | undefined;
  const columns = (): number => stream.columns || 80;
  const draw = (text: string): void => {
    // One line, never wrapped: a wrapped line could not be redrawn with \r.
    const safe = terminalSafe(text, { newlines: false });
    const cut = safe.length >= columns() ? `${safe.slice(0, Math.max(0, columns() - 2))}…` : safe;
    stream.write(`\r${renderMarks(cut, false)}\u001b[K`);
  };
  return {
    get columns() {
      return columns();
    },
    show(text) {
      if (!open()) return;
      shown = text;
      draw(text);
    },
    clear() {
      if (shown === undefined || !open()) return;
      shown = undefined;
      stream.write('\r\u001b[K');
    },
    around(write) {
      if (shown === undefined || !open()) return write();
      stream.write('\r\u001b[K');
      write();
      draw(shown);
    },
  };
}
