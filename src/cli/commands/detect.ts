import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { detectWorkspace } from '../../core/discovery/detect';
import { maskArgs, maskUrl } from '../../core/spec/maskSecrets';
import { EXIT, UsageError, type Io } from '../errors';
import { formatProblem, relativeTo } from '../format';
import { renderTable, tableLook } from '../table';
import type { OptionTable, Parsed } from '../command';

/** `agent-seer detect <folder> [--json]` */
export async function detectCommand(args: { folder?: string; json: boolean }, io: Io): Promise<number> {
  if (!args.folder) throw new UsageError('detect needs a folder');
  const root = resolve(io.cwd, args.folder);
  const s = await stat(root).catch(() => undefined);
  if (!s?.isDirectory()) throw new UsageError(`${args.folder}: not a folder`);
  const found = await detectWorkspace(root);
  const rel = relativeTo(io.cwd);
  // Configs often carry literal tokens in args or URLs; what is printed here ends up in CI logs.
  const shown = found.definitions.map((d) => ({
    def: d,
    command: d.command === undefined ? undefined : maskArgs([d.command])[0],
    args: maskArgs(d.args),
    url: d.url === undefined ? undefined : maskUrl(d.url),
  }));
  if (args.json) {
    io.out(
      JSON.stringify(
        {
          definitions: shown.map(({ def: d, command, args: masked, url }) => ({
            name: d.name,
            file: d.file,
            format: d.format,
            transport: d.transport,
            command: command ?? null,
            args: masked,
            url: url ?? null,
            disabled: d.disabled,
            variables: d.variables.map((v) => v.raw),
          })),
          specFiles: found.specFiles,
          problems: found.problems.map((p) => ({ ...p, message: formatProblem(p) })),
        },
        null,
        2,
      ),
    );
  } else {
    if (found.definitions.length) {
      io.out(
        renderTable(
          ['server', 'transport', 'format', 'file', 'runs'],
          shown.map(({ def: d, command, args: masked, url }) => [
            d.name + (d.disabled ? ' (disabled)' : ''),
            d.transport,
            d.format,
            rel(d.file),
            command ? [command, ...masked].join(' ') : (url ?? ''),
          ]),
          tableLook(io),
        ),
      );
    } else io.out('No MCP server definitions found.');
    if (found.specFiles.length) io.out(`\nTool spec files:\n${found.specFiles.map((f) => `  ${rel(f)}`).join('\n')}`);
  }
  for (const p of found.problems) io.err(`agent-seer: ${formatProblem(p, rel)}`);
  return EXIT.ok;
}

/** The option table of `agent-seer detect`. */
export const options = { json: { type: 'boolean', default: false } } as const satisfies OptionTable;

/** Its lines in the top-level help. */
export const synopsis = `  agent-seer detect <folder> [--json]        MCP server definitions and spec files in a folder`;

/** `agent-seer detect --help`. */
export const usage = `Usage: agent-seer detect <folder> [--json]

Lists the MCP server definitions (every client config format Agent Seer reads) and the tool spec
files in a folder. Command lines and URLs are printed with secrets masked.

Options:
  --json      print one JSON object instead of tables
  -h, --help  this text

Exit 0, or 2 when the folder is bad input.`;

/** Runs `detect` on parsed arguments. */
export function run({ values, positionals }: Parsed<typeof options>, io: Io): Promise<number> {
  if (positionals.length > 1) throw new UsageError('detect takes one folder');
  return detectCommand({ folder: positionals[0], json: values.json }, io);
}
