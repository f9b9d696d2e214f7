import { readHarness, exportForAgent, writeFileAtomic } from '../../core/harness/store';
import { findHarnessSpec } from '../../core/harness/specLookup';
import { EXIT, UsageError, type Io } from '../errors';
import { formatProblem, relativeTo } from '../format';
import { outputFileOption, pathOption } from '../options';

/**
 * `agent-seer export <harness-dir> [--out FILE] [--spec FILE]`: what an agent under test may see
 * — the tools (name, description, input schema) and each task's prompt and turn prompts — and
 * nothing of the oracle (expected calls, mock outputs, expected response, categories).
 */
export async function exportCommand(args: { dir?: string; out?: string; spec?: string }, io: Io): Promise<number> {
  if (!args.dir) throw new UsageError('export needs a harness folder');
  const dir = pathOption('harness folder', args.dir, io.cwd);
  const outFile = args.out !== undefined ? await outputFileOption('--out', args.out, io.cwd) : undefined;
  const read = await readHarness(dir);
  if (!read.manifest && !read.records.length) throw new UsageError(`${args.dir}: not a harness folder (no manifest.json or records/)`);
  for (const p of read.problems) io.err(`agent-seer: ${formatProblem(p, relativeTo(io.cwd))}`);
  const found = await findHarnessSpec(dir, read.manifest, { ...(args.spec ? { specFile: pathOption('--spec', args.spec, io.cwd) } : {}), cwd: io.cwd });
  if (!found.ok) throw new UsageError(found.error);
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
