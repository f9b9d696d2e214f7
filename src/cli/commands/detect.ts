import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { detectWorkspace } from '../../core/spec/detect';
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
  if (args.json) {
    io.out(
      JSON.stringify(
        {
          definitions: found.definitions.map((d) => ({
            name: d.name,
            file: d.file,
            format: d.format,
            transport: d.transport,
            command: d.command ?? null,
            args: d.args,
            url: d.url ?? null,
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
          found.definitions.map((d) => [
            d.name + (d.disabled ? ' (disabled)' : ''),
            d.transport,
            d.format,
            rel(d.file),
            d.command ? [d.command, ...d.args].join(' ') : d.url ?? '',
          ]),
        ),
      );
    } else io.out('No MCP server definitions found.');
    if (found.specFiles.length) io.out(`\nTool spec files:\n${found.specFiles.map((f) => `  ${rel(f)}`).join('\n')}`);
  }
  for (const p of found.problems) io.err(`agent-seer: ${formatProblem(p, rel)}`);
  return EXIT.ok;
}
