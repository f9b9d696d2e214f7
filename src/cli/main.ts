/**
 * The `agent-seer` command line: the same core as the extension, for CI and scripts.
 * Output and exit codes are documented in the README. Bad input is one line on stderr, exit 2;
 * a run that fails is one line, exit 1; never a stack trace (set AGENT_SEER_DEBUG=1 for one).
 */
import { parseArgs } from 'node:util';
import { detectCommand } from './commands/detect';
import { inspectCommand } from './commands/inspect';
import { snapshotCommand } from './commands/snapshot';
import { EXIT, UsageError, type Io } from './errors';

const HELP = `agent-seer — evaluation harnesses for MCP tool specs

Usage:
  agent-seer inspect <path…> [--json]        schema-complexity profile and findings
                                             (path: spec snapshot, config file or folder)
  agent-seer detect <folder> [--json]        MCP server definitions and spec files in a folder
  agent-seer snapshot <config-file> --out <folder> [--server NAME] [--input id=value]…
                     [--timeout SECONDS] [--json]
                                             start a server, list its tools, write a snapshot

Exit codes: 0 success, 1 the run failed, 2 bad input.`;

/** Runs the CLI with arguments; returns the exit code. Exported for tests. */
export async function run(argv: string[], io: Io, signal?: AbortSignal): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    io.out(HELP);
    return command ? EXIT.ok : EXIT.badInput;
  }
  if (command === '--version') {
    io.out(VERSION);
    return EXIT.ok;
  }
  try {
    switch (command) {
      case 'inspect': {
        const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
        return await inspectCommand({ paths: positionals, json: values.json }, io);
      }
      case 'detect': {
        const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
        if (positionals.length > 1) throw new UsageError('detect takes one folder');
        return await detectCommand({ folder: positionals[0], json: values.json }, io);
      }
      case 'snapshot': {
        const { values, positionals } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: {
            server: { type: 'string' },
            out: { type: 'string' },
            input: { type: 'string', multiple: true, default: [] },
            timeout: { type: 'string', default: '30' },
            json: { type: 'boolean', default: false },
          },
        });
        const timeoutSeconds = Number(values.timeout);
        if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) throw new UsageError(`--timeout takes seconds, got "${values.timeout}"`);
        if (positionals.length > 1) throw new UsageError('snapshot takes one config file');
        return await snapshotCommand(
          { config: positionals[0], server: values.server, out: values.out, inputs: values.input, timeoutSeconds, json: values.json },
          io,
          signal,
        );
      }
      default:
        throw new UsageError(`unknown command "${command}" (try agent-seer --help)`);
    }
  } catch (err) {
    if (io.env.AGENT_SEER_DEBUG && err instanceof Error) io.err(err.stack ?? err.message);
    if (err instanceof UsageError || isArgError(err)) {
      io.err(`agent-seer: ${(err as Error).message}`);
      return EXIT.badInput;
    }
    io.err(`agent-seer: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    return EXIT.failed;
  }
}

/** node:util parseArgs errors (unknown option, missing value) are bad input. */
function isArgError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

declare const __AGENT_SEER_VERSION__: string | undefined;
const VERSION = typeof __AGENT_SEER_VERSION__ === 'string' ? __AGENT_SEER_VERSION__ : 'dev';

if (require.main === module) {
  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort());
  const io: Io = { out: (s) => process.stdout.write(s + '\n'), err: (s) => process.stderr.write(s + '\n'), cwd: process.cwd(), env: process.env };
  void run(process.argv.slice(2), io, abort.signal).then((code) => {
    process.exitCode = code;
  });
}
