import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { detectWorkspace } from '../../core/discovery/detect';
import { maskArgs, maskUrl } from '../../core/spec/maskSecrets';
import { EXIT, UsageError, type Io } from '../errors';
import { formatProblem, relativeTo } from '../format';
import { renderTable } from '../table';

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
            command ? [command, ...masked].join(' ') : url ?? '',
          ]),
        ),
      );
    } else io.out('No MCP server definitions found.');
    if (found.specFiles.length) io.out(`\nTool spec files:\n${found.specFiles.map((f) => `  ${rel(f)}`).join('\n')}`);
  }
  for (const p of found.problems) io.err(`agent-seer: ${formatProblem(p, rel)}`);
  return EXIT.ok;
}
