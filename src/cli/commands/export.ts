import { assertNotLocked } from '../../core/harness/lock';
import { readHarness, exportForAgent, writeFileAtomic } from '../../core/harness/store';
import { findHarnessSpec } from '../../core/harness/specLookup';
import { EXIT, UsageError, type Io } from '../errors';
import { formatProblem, relativeTo } from '../format';
import { outputFileOption, pathOption } from '../options';
import type { OptionTable, Parsed } from '../command';

/**
 * `agent-seer export <harness-dir> [--out FILE] [--spec FILE]`: what an agent under test may see
 * — the tools (name, description, input schema) and each task's prompt and turn prompts — and
 * nothing of the oracle (expected calls, mock outputs, expected response, categories).
 */
export async function exportCommand(args: { dir?: string; out?: string; spec?: string }, io: Io): Promise<number> {
  if (!args.dir) throw new UsageError('export needs a harness folder');
  const dir = pathOption('harness folder', args.dir, io.cwd);
  const outFile = args.out !== undefined ? await outputFileOption('--out', args.out, io.cwd) : undefined;
  // A harness a generate or judge run is writing is partial: refused (exit 2, naming the run), never exported half.
  await assertNotLocked(dir);
  const read = await readHarness(dir);
  if (!read.manifest && !read.records.length) throw new UsageError(`${args.dir}: not a harness folder (no manifest.json or records/)`);
  for (const p of read.problems) io.err(`agent-seer: ${formatProblem(p, relativeTo(io.cwd))}`);
  const found = await findHarnessSpec(dir, read.manifest, { ...(args.spec ? { specFile: pathOption('--spec', args.spec, io.cwd) } : {}), cwd: io.cwd });
  if (!found.ok) throw new UsageError(found.notFound ? `${found.error}: pass --spec FILE` : found.error);
  const tools = found.spec.tools.map((t) => ({
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    inputSchema: t.inputSchema ?? { type: 'object' },
  }));
  const names = tools.map((t) => t.name);
  const view = {
    server: read.manifest?.spec.name ?? found.spec.name,
    tools,
    tasks: read.records.map((r) => {
      const { tools: _offered, ...task } = exportForAgent(r, names);
      return task;
    }),
  };
  const text = `${JSON.stringify(view, null, 2)}\n`;
  if (outFile) {
    // Atomic, like every other file the product writes: a reader never sees half an export.
    await writeFileAtomic(outFile, text);
    io.err(`agent-seer: wrote ${view.tasks.length} tasks and ${tools.length} tools to ${args.out}`);
  } else io.out(text.trimEnd());
  return EXIT.ok;
}

/** The option table of `agent-seer export`. */
export const options = { out: { type: 'string' }, spec: { type: 'string' } } as const satisfies OptionTable;

/** Its lines in the top-level help. */
export const synopsis = `  agent-seer export <harness-dir> [--out FILE] [--spec FILE]
                                             what an agent under test may see: tools and task
                                             prompts, without the oracle`;

/** `agent-seer export --help`. */
export const usage = `Usage: agent-seer export <harness-dir> [--out FILE] [--spec FILE]

Writes what an agent under test may see: the tools and each scenario's task prompts, without the
expected calls, mock outputs or judgments.

Options:
  --out FILE   write to FILE (default: stdout)
  --spec FILE  the spec the harness was generated from (default: the harness's spec.json, then
               the file its manifest names)
  -h, --help   this text

A harness that a generate or judge run is writing (it holds the folder's lock) is refused with
the run's pid, purpose and start time; a harness with a symbolic link in it is refused, naming it.

Exit 0, or 2 on bad input, a link inside the harness, or a harness being written.`;

/** Runs `export` on parsed arguments. */
export function run({ values, positionals }: Parsed<typeof options>, io: Io): Promise<number> {
  if (positionals.length > 1) throw new UsageError('export takes one harness folder');
  return exportCommand({ dir: positionals[0], out: values.out, spec: values.spec }, io);
}
