/**
 * The `agent-seer` command line: the same core as the extension, for CI and scripts.
 * Output and exit codes are documented in the README. Bad input is one line on stderr, exit 2;
 * a run that fails is one line, exit 1; never a stack trace (set AGENT_SEER_DEBUG=1 for one).
 */
import { parseArgs } from 'node:util';
import { MAX_OPTION } from '../core/bounds';
import { detectCommand } from './commands/detect';
import { exportCommand } from './commands/export';
import { generateCommand } from './commands/generate';
import { inspectCommand } from './commands/inspect';
import { judgeCommand } from './commands/judge';
import { reportCommand } from './commands/report';
import { snapshotCommand } from './commands/snapshot';
import { FolderLockedError } from '../core/harness/lock';
import { OutputFolderError } from '../core/harness/outputFolder';
import { EXIT, UsageError, type Io } from './errors';
import { processIo } from './processIo';

const HELP = `agent-seer — evaluation harnesses for MCP tool specs

Usage:
  agent-seer inspect <path…> [--json]        schema-complexity profile and findings
                                             (path: spec snapshot, config file or folder)
  agent-seer detect <folder> [--json]        MCP server definitions and spec files in a folder
  agent-seer snapshot <config-file> --out <folder> [--server NAME] [--input id=value]…
                     [--timeout SECONDS] [--json]
                                             start a server, list its tools, write a snapshot
  agent-seer generate <spec-or-config> [--server NAME] [--provider offline|gemini|openai]
                     [--model M] [--base-url URL] [--out DIR] [--simple N] [--complex N]
                     [--concurrency N] [--rpm N] [--seed S] [--examples FILE]
                     [--cache-dir DIR] [--force] [--json]
                                             generate an evaluation harness (default: offline,
                                             into evals/<server>/; keys from GEMINI_API_KEY or
                                             OPENAI_API_KEY; re-run to resume; --force: write
                                             into a folder that is not this spec's harness)
  agent-seer judge <harness-dir> [--judge offline|gemini[:MODEL]|openai:MODEL]…
                     [--base-url URL] [--spec FILE] [--concurrency N] [--rpm N]
                     [--cache-dir DIR] [--force] [--json]
                                             score each record (tool calling, coherence) and
                                             store the judgments in the record files (default
                                             judge: offline, exact checks only; --judge gemini
                                             is the paper's gemini-2.5-flash at temperature 0)

  agent-seer report <harness-dir…> [--format md|html|json] [--out FILE] [--judge ID]…
                     [--min-tc X] [--min-coh X] [--spec FILE]… [--seed N] [--resamples B]
                                             the paper's tables and figures for harnesses (one
                                             row per server; several --judge: agreement too);
                                             --min-tc/--min-coh: exit 1 when a server's mean
                                             under the first judge is below (a CI gate)

  agent-seer export <harness-dir> [--out FILE] [--spec FILE]
                                             what an agent under test may see: tools and task
                                             prompts, without the oracle

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
        if (timeoutSeconds > MAX_OPTION.timeoutSeconds) throw new UsageError(`--timeout is at most ${MAX_OPTION.timeoutSeconds} seconds, got "${values.timeout}"`);
        if (positionals.length > 1) throw new UsageError('snapshot takes one config file');
        return await snapshotCommand(
          { config: positionals[0], server: values.server, out: values.out, inputs: values.input, timeoutSeconds, json: values.json },
          io,
          signal,
        );
      }
      case 'generate': {
        const { values, positionals } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: {
            server: { type: 'string' },
            provider: { type: 'string', default: 'offline' },
            model: { type: 'string' },
            'base-url': { type: 'string' },
            out: { type: 'string' },
            'cache-dir': { type: 'string' },
            examples: { type: 'string' },
            simple: { type: 'string' },
            complex: { type: 'string' },
            concurrency: { type: 'string' },
            rpm: { type: 'string' },
            seed: { type: 'string' },
            force: { type: 'boolean', default: false },
            json: { type: 'boolean', default: false },
          },
        });
        if (positionals.length > 1) throw new UsageError('generate takes one spec or config file');
        return await generateCommand(
          {
            input: positionals[0],
            server: values.server,
            provider: values.provider,
            model: values.model,
            baseUrl: values['base-url'],
            out: values.out,
            cacheDir: values['cache-dir'],
            examples: values.examples,
            simple: values.simple,
            complex: values.complex,
            concurrency: values.concurrency,
            rpm: values.rpm,
            seed: values.seed,
            force: values.force,
            json: values.json,
          },
          io,
          signal,
        );
      }
      case 'judge': {
        const { values, positionals } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: {
            judge: { type: 'string', multiple: true, default: [] },
            'base-url': { type: 'string' },
            spec: { type: 'string' },
            concurrency: { type: 'string' },
            rpm: { type: 'string' },
            'cache-dir': { type: 'string' },
            force: { type: 'boolean', default: false },
            json: { type: 'boolean', default: false },
          },
        });
        if (positionals.length > 1) throw new UsageError('judge takes one harness folder');
        return await judgeCommand(
          {
            dir: positionals[0],
            judges: values.judge,
            baseUrl: values['base-url'],
            spec: values.spec,
            concurrency: values.concurrency,
            rpm: values.rpm,
            cacheDir: values['cache-dir'],
            force: values.force,
            json: values.json,
          },
          io,
          signal,
        );
      }
      case 'report': {
        const { values, positionals } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: {
            format: { type: 'string', default: 'md' },
            out: { type: 'string' },
            judge: { type: 'string', multiple: true, default: [] },
            'min-tc': { type: 'string' },
            'min-coh': { type: 'string' },
            spec: { type: 'string', multiple: true, default: [] },
            seed: { type: 'string' },
            resamples: { type: 'string' },
          },
        });
        return await reportCommand(
          {
            dirs: positionals,
            format: values.format,
            out: values.out,
            judges: values.judge,
            minTc: values['min-tc'],
            minCoh: values['min-coh'],
            specs: values.spec,
            seed: values.seed,
            resamples: values.resamples,
          },
          io,
        );
      }
      case 'export': {
        const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { out: { type: 'string' }, spec: { type: 'string' } } });
        if (positionals.length > 1) throw new UsageError('export takes one harness folder');
        return await exportCommand({ dir: positionals[0], out: values.out, spec: values.spec }, io);
      }
      default:
        throw new UsageError(`unknown command "${command}" (try agent-seer --help)`);
    }
  } catch (err) {
    if (io.env.AGENT_SEER_DEBUG && err instanceof Error) io.err(err.stack ?? err.message);
    // The output folder refused or held by another run: nothing started; the user must choose.
    if (err instanceof UsageError || err instanceof OutputFolderError || err instanceof FolderLockedError || isArgError(err)) {
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
  void run(process.argv.slice(2), processIo(), abort.signal).then((code) => {
    process.exitCode = code;
  });
}
