/**
 * The CLI's real output streams. Every line goes through `terminalSafe` (spec and server names,
 * server stderr and tool text are not ours to trust), and a reader that goes away (`| head -1`:
 * EPIPE) ends output quietly instead of with an unhandled 'error' stack trace. The run itself
 * goes on to its end, so files it is writing are not left half done.
 */
import type { Io } from './errors';
import { terminalSafe } from './format';

/** An `Io` over this process's stdout and stderr. */
export function processIo(): Io {
  return { out: lineWriter(process.stdout), err: lineWriter(process.stderr), cwd: process.cwd(), env: process.env };
}

function lineWriter(stream: NodeJS.WriteStream): (s: string) => void {
  let open = true;
  // EPIPE (reader gone) or any other write failure: nobody can read further lines, and there is
  // nowhere left to say so. Later writes are dropped.
  stream.on('error', () => {
    open = false;
  });
  return (s) => {
    if (open) stream.write(`${terminalSafe(s)}\n`);
  };
}
