/**
 * The `agent-seer` command line: the same core as the extension, for CI and scripts.
 * Output and exit codes are documented in docs/cli.md. Bad input is one line on stderr, exit 2;
 * a run that fails is one line, exit 1; a missed gate, exit 6; never a stack trace (set
 * AGENT_SEER_DEBUG=1 for one). `--no-color` (globalOptions.ts) is taken off the line here.
 */
import { parseArgs } from 'node:util';
import { nearestName } from '../core/checks/validateCall';
import { errorText } from '../core/util/errorText';
import { ContainmentError } from '../core/containment';
import { FolderLockedError } from '../core/harness/lock';
import { OutputFolderError } from '../core/harness/outputFolder';
import { tableEntry, type CliCommand, type OptionTable } from './command';
import * as detect from './commands/detect';
import * as diff from './commands/diff';
import * as exportCmd from './commands/export';
import * as generate from './commands/generate';
import * as inspect from './commands/inspect';
import * as judge from './commands/judge';
import * as report from './commands/report';
import * as runCmd from './commands/run';
import * as serve from './commands/serve';
import * as snapshot from './commands/snapshot';
import * as status from './commands/status';
import { EXIT, errPaint, refusalText, UsageError, type Io } from './errors';
import { EXIT_HELP } from './exitCodes';
import { relativeTo } from './format';
import { GLOBAL_OPTIONS_HELP, withoutGlobalOptions } from './globalOptions';
import { processIo } from './processIo';

/** Every command, in the order the help lists them. */
export const COMMANDS: Readonly<Record<string, CliCommand>> = {
  inspect: tableEntry(inspect),
  detect: tableEntry(detect),
  snapshot: tableEntry(snapshot),
  generate: tableEntry(generate),
  judge: tableEntry(judge),
  status: tableEntry(status),
  report: tableEntry(report),
  diff: tableEntry(diff),
  export: tableEntry(exportCmd),
  serve: tableEntry(serve),
  run: tableEntry(runCmd),
};

/** The top-level help, built from the command table. */
export function topLevelHelp(): string {
  return [
    'agent-seer — evaluation harnesses for MCP tool specs',
    '',
    'Usage:',
    ...Object.values(COMMANDS).map((c) => c.synopsis),
    '',
    "agent-seer <command> --help prints the command's options.",
    '',
    GLOBAL_OPTIONS_HELP,
    '',
    EXIT_HELP,
  ].join('\n');
}

const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const satisfies OptionTable;

/** Runs the CLI with arguments; returns the exit code. Exported for tests. */
export async function run(argv: string[], given: Io, signal?: AbortSignal): Promise<number> {
  const global = withoutGlobalOptions(argv);
  // --no-color: every stream plain, whatever it is connected to.
  const io: Io = global.noColor ? { ...given, paint: undefined } : given;
  const [name, ...rest] = global.args;
  const fail = (message: string): void => io.err(`${errPaint(io).bad('agent-seer:')} ${message}`);
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    const asked = topic !== undefined && Object.hasOwn(COMMANDS, topic) ? COMMANDS[topic] : undefined;
    // `help genrate` is a typo, not a request for everything: say so, as for `agent-seer genrate`.
    if (topic !== undefined && !asked) {
      fail(unknownCommand(topic));
      return EXIT.badInput;
    }
    io.out(asked ? asked.usage : topLevelHelp());
    return name ? EXIT.ok : EXIT.badInput;
  }
  if (name === '--version') {
    io.out(VERSION);
    return EXIT.ok;
  }
  try {
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!command) throw new UsageError(unknownCommand(name));
    if (asksForHelp(rest, command.options)) {
      io.out(command.usage);
      return EXIT.ok;
    }
    const stray = unknownOption(name, rest, command.options);
    if (stray) throw new UsageError(stray);
    const parsed = parseArgs({ args: rest, allowPositionals: true, strict: true, options: command.options });
    return await command.run(parsed, io, signal);
  } catch (err) {
    if (io.env.AGENT_SEER_DEBUG && err instanceof Error) io.err(err.stack ?? err.message);
    // The output folder refused or held by another run: nothing started; the user must choose.
    if (err instanceof OutputFolderError) {
      fail(refusalText(err));
      return EXIT.badInput;
    }
    // A link inside a harness folder: refused before anything was read, written or removed through it.
    if (err instanceof ContainmentError) {
      fail(err.describe(relativeTo(io.cwd)));
      return EXIT.badInput;
    }
    if (err instanceof UsageError || err instanceof FolderLockedError || isArgError(err)) {
      fail((err as Error).message);
      return EXIT.badInput;
    }
    fail(errorText(err));
    return EXIT.failed;
  }
}

/** Says a command name is unknown, with the nearest one when it looks like a typo. */
function unknownCommand(name: string): string {
  const near = nearestName(name, Object.keys(COMMANDS));
  return `unknown command "${name}"${near ? `; did you mean "${near}"?` : ''} (try agent-seer --help)`;
}

/**
 * The first option on the line that the command does not take, said in one line with the nearest
 * one it does take (node's own message quotes unevenly and suggests nothing); undefined when all
 * are known.
 */
function unknownOption(command: string, args: string[], options: OptionTable): string | undefined {
  const { tokens } = parseArgs({ args, allowPositionals: true, strict: false, tokens: true, options });
  for (const t of tokens) {
    if (t.kind !== 'option' || Object.hasOwn(options, t.name)) continue;
    const known = Object.keys(options);
    const near = nearestName(t.name, known);
    return `${command}: unknown option ${t.rawName}${near ? `; did you mean --${near}?` : ''} (agent-seer ${command} --help lists the options)`;
  }
  return undefined;
}

/** `--help` or `-h` among a command's options (before `--`), whatever else is on the line. */
function asksForHelp(args: string[], options: OptionTable): boolean {
  const { tokens } = parseArgs({ args, allowPositionals: true, strict: false, tokens: true, options: { ...options, ...HELP_OPTION } });
  return tokens.some((t) => t.kind === 'option' && t.name === 'help');
}

/** node:util parseArgs errors (unknown option, missing value) are bad input. */
function isArgError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

declare const __AGENT_SEER_VERSION__: string | undefined;
const VERSION = typeof __AGENT_SEER_VERSION__ === 'string' ? __AGENT_SEER_VERSION__ : 'dev';

/**
 * Runs the CLI as this process: arguments from argv, exit code into process.exitCode. Called by
 * the launcher (`dist/cli.js`, src/cli/launch.ts) and when this file is run directly.
 */
export function main(): void {
  const abort = new AbortController();
  // Servers run in their own process groups, so Ctrl+C in a terminal or a \`kill\` reaches only this
  // process: the first signal cancels the run, which stops the servers' trees with their grace
  // periods; a second one exits at once (the exit hook in core/spec/live/child.ts still SIGKILLs
  // any server tree left).
  let signalled = false;
  for (const name of ['SIGINT', 'SIGTERM'] as const) {
    process.on(name, () => {
      if (signalled) process.exit(EXIT.failed);
      signalled = true;
      abort.abort();
    });
  }
  const argv = process.argv.slice(2);
  void run(argv, processIo({ noColor: withoutGlobalOptions(argv).noColor }), abort.signal).then((code) => {
    process.exitCode = code;
  });
}

/** The help texts, for the launcher's copy baked in at build time (esbuild.mjs). */
export function helpTexts(): { top: string; version: string; usage: Record<string, string> } {
  return { top: topLevelHelp(), version: VERSION, usage: Object.fromEntries(Object.entries(COMMANDS).map(([n, c]) => [n, c.usage])) };
}

if (require.main === module) main();
