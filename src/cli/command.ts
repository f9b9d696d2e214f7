/**
 * The shape of a CLI command: each `commands/*.ts` exports its parseArgs option table, its help
 * texts and its run function, and `main.ts` is a table of them.
 */
import type { parseArgs, ParseArgsConfig } from 'node:util';
import type { Io } from './errors';
import { GLOBAL_OPTIONS_HELP } from './globalOptions';

/** A parseArgs option table. */
export type OptionTable = NonNullable<ParseArgsConfig['options']>;

/** What parseArgs returns for a command's option table (values typed by the table). */
export type Parsed<O extends OptionTable> = ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>>;

/** A command as `main.ts` runs it. */
export interface CliCommand<O extends OptionTable = OptionTable> {
  /** The parseArgs option table (`--help`/`-h` are added by main). */
  options: O;
  /** Its lines in the top-level help: the synopsis and what it does, indented as a block. */
  synopsis: string;
  /** Its full help, printed by `agent-seer <command> --help`. */
  usage: string;
  run: (parsed: Parsed<O>, io: Io, signal?: AbortSignal) => Promise<number>;
}

/**
 * A command module for the table. Checks the module against its own option table, then forgets
 * the table's type: main parses each command's arguments with that same table, so its `run`
 * receives exactly the values it was typed for.
 */
export function tableEntry<O extends OptionTable>(command: CliCommand<O>): CliCommand {
  // Every command's help ends with the options all commands take (globalOptions.ts).
  const entry: CliCommand<O> = { ...command, usage: `${command.usage}\n\n${GLOBAL_OPTIONS_HELP}` };
  return entry;
}
