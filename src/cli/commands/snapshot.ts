import { sep } from 'node:path';
import { MAX_OPTION } from '../../core/bounds';
import { DEFAULT_SERVER_TIMEOUT_SECONDS } from '../../core/workspace/defaults';
import { SNAPSHOT_FOLDER, workspaceRootOf } from '../../core/workspace/layout';
import { parseConfig } from '../../core/spec/configs';
import { resolveVariables } from '../../core/spec/configs/variables';
import { listServerTools } from '../../core/spec/live';
import { writeSnapshot } from '../../core/spec/snapshotWriter';
import { EXIT, UsageError, type Io } from '../errors';
import { formatProblem, relativeTo, terminalSafe } from '../format';
import { outputFolderOption, readInputFile } from '../options';
import type { OptionTable, Parsed } from '../command';

export interface SnapshotArgs {
  config?: string;
  server?: string;
  out?: string;
  inputs: string[];
  timeoutSeconds: number;
  json: boolean;
}

/** `agent-seer snapshot <config-file> [--server NAME] --out <folder>` */
export async function snapshotCommand(args: SnapshotArgs, io: Io, signal?: AbortSignal): Promise<number> {
  if (!args.config) throw new UsageError('snapshot needs a config file');
  if (!args.out) throw new UsageError('snapshot needs --out <folder>');
  const { file, text } = await readInputFile('config file', args.config, io.cwd);
  const outDir = await outputFolderOption('--out', args.out, io.cwd);
  const parsed = parseConfig(text, file);
  if (!parsed.isConfig) throw new UsageError(formatProblem(parsed.problems[0] ?? { file: args.config, message: 'not an MCP config file' }));
  const candidates = args.server ? parsed.definitions.filter((d) => d.name === args.server) : parsed.definitions.filter((d) => !d.disabled);
  const names = parsed.definitions.map((d) => d.name).join(', ') || 'none';
  if (!candidates.length) throw new UsageError(`${args.config}: no server ${args.server ? `named "${args.server}"` : 'enabled'} (servers: ${names})`);
  if (candidates.length > 1) throw new UsageError(`${args.config} defines several servers (${names}): choose one with --server`);
  const def = candidates[0]!;

  const inputs: Record<string, string> = {};
  for (const pair of args.inputs) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new UsageError(`--input takes id=value, got "${pair}"`);
    inputs[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const workspaceFolder = workspaceRootOf(file);
  const { definition, unresolved } = resolveVariables(def, { workspaceFolder, env: io.env, inputs });
  const missingInputs = unresolved.filter((v) => v.kind === 'input');
  if (missingInputs.length) {
    throw new UsageError(
      `server "${def.name}" needs ${missingInputs.map((v) => v.raw).join(', ')}: pass ${missingInputs.map((v) => `--input ${v.name}=VALUE`).join(' ')}`,
    );
  }
  for (const v of unresolved) io.err(`agent-seer: warning: ${v.raw} is not set; left empty`);

  io.err(`agent-seer: listing tools of "${def.name}" (${def.transport})…`);
  const listing = await listServerTools(definition, {
    connectTimeoutMs: args.timeoutSeconds * 1000,
    listTimeoutMs: args.timeoutSeconds * 1000,
    ...(signal ? { signal } : {}),
  });
  const out = await writeSnapshot(listing, outDir, {
    name: def.name,
    // `/` on every platform: the snapshot is versioned and must not differ between checkouts.
    provenance: `${relativeTo(workspaceFolder)(file).split(sep).join('/')}#${def.name}`,
  });
  if (args.json) {
    io.out(
      JSON.stringify(
        { server: def.name, file: out, tools: listing.spec.tools.length, invalidTools: listing.spec.invalidTools.length, pages: listing.pages },
        null,
        2,
      ),
    );
  } else {
    io.out(
      `Wrote ${listing.spec.tools.length} tools of "${terminalSafe(def.name, { newlines: false })}" (${listing.pages} page${listing.pages === 1 ? '' : 's'}) to ${relativeTo(io.cwd)(out)}`,
    );
    if (listing.spec.invalidTools.length) io.out(`${listing.spec.invalidTools.length} entries were not valid tools and were left out.`);
  }
  return EXIT.ok;
}

/** The option table of `agent-seer snapshot`. */
export const options = {
  server: { type: 'string' },
  out: { type: 'string' },
  input: { type: 'string', multiple: true, default: [] },
  timeout: { type: 'string', default: String(DEFAULT_SERVER_TIMEOUT_SECONDS) },
  json: { type: 'boolean', default: false },
} as const satisfies OptionTable;

/** Its lines in the top-level help. */
export const synopsis = `  agent-seer snapshot <config-file> --out <folder> [--server NAME] [--input id=value]…
                     [--timeout SECONDS] [--json]
                                             start a server, list its tools, write a snapshot`;

/** `agent-seer snapshot --help`. */
export const usage = `Usage: agent-seer snapshot <config-file> --out <folder> [options]

Starts a server the config file defines, lists all its tools and writes <folder>/<server>.json
(stable, diffable JSON). Use the workspace's snapshot folder (${SNAPSHOT_FOLDER}, or
agentSeer.snapshotFolder) for --out so that inspect, generate and the editor find it.

Options:
  --out FOLDER        where to write the snapshot (required)
  --server NAME       the server, when the file defines several enabled ones
  --input id=value    a value for \${input:id} (repeatable)
  --timeout SECONDS   to start, and again to list (default ${DEFAULT_SERVER_TIMEOUT_SECONDS}, at most ${MAX_OPTION.timeoutSeconds})
  --json              print the result as JSON
  -h, --help          this text

Exit 0; 1 when the server would not start or answer; 2 on bad input.`;

/** Runs `snapshot` on parsed arguments. */
export function run({ values, positionals }: Parsed<typeof options>, io: Io, signal?: AbortSignal): Promise<number> {
  const timeoutSeconds = Number(values.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) throw new UsageError(`--timeout takes seconds, got "${values.timeout}"`);
  if (timeoutSeconds > MAX_OPTION.timeoutSeconds) throw new UsageError(`--timeout is at most ${MAX_OPTION.timeoutSeconds} seconds, got "${values.timeout}"`);
  if (positionals.length > 1) throw new UsageError('snapshot takes one config file');
  return snapshotCommand(
    { config: positionals[0], server: values.server, out: values.out, inputs: values.input, timeoutSeconds, json: values.json },
    io,
    signal,
  );
}
