import { join } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { HarnessMockServer, MockServerError, SCENARIO_HEADER, type MockServerEvent } from '../../core/agents/mockServer';
import { specHash } from '../../core/harness/hash';
import { readHarness } from '../../core/harness/store';
import { findHarnessSpec } from '../../core/harness/specLookup';
import { RUNS_DIR } from '../../core/workspace/layout';
import type { OptionTable, Parsed } from '../command';
import { EXIT, UsageError, type Io } from '../errors';
import { formatProblem, relativeTo } from '../format';
import { intOption, pathOption } from '../options';

/** Folder of this serve session's trajectories: `runs/mcp-client/<time>/`. */
function trajectoryDir(dir: string): string {
  return join(dir, RUNS_DIR, 'mcp-client', new Date().toISOString().replace(/[:.]/g, '-'));
}

/**
 * `agent-seer serve <harness-dir> [--scenario ID] [--http PORT] [--spec FILE] [--reveal-expected]`: the harness as
 * an MCP server (see core/agents/mockServer.ts). Over stdio, stdout is the MCP channel: every
 * message of ours goes to stderr.
 */
async function serve(
  args: { dir?: string; scenario?: string; http?: string; spec?: string; revealExpected: boolean },
  io: Io,
  signal?: AbortSignal,
): Promise<number> {
  if (!args.dir) throw new UsageError('serve needs a harness folder');
  const dir = pathOption('harness folder', args.dir, io.cwd);
  const port = args.http !== undefined ? intOption('http', args.http, 0, 0, 65535)! : undefined;
  const read = await readHarness(dir);
  if (!read.manifest && !read.records.length) throw new UsageError(`${args.dir}: not a harness folder (no manifest.json or records/)`);
  for (const p of read.problems) io.err(`agent-seer: ${formatProblem(p, relativeTo(io.cwd))}`);
  const found = await findHarnessSpec(dir, read.manifest, { ...(args.spec ? { specFile: pathOption('--spec', args.spec, io.cwd) } : {}), cwd: io.cwd });
  if (!found.ok) throw new UsageError(found.notFound ? `${found.error}: pass --spec FILE` : found.error);
  const out = trajectoryDir(dir);
  const onEvent = (e: MockServerEvent): void => {
    if (e.kind === 'session') io.err(`agent-seer: session ${e.position} of ${e.total}: scenario ${e.scenarioId}`);
    else if (e.kind === 'call') io.err(`agent-seer: ${e.scenarioId}: ${e.name} ${e.ok ? 'answered' : `refused: ${e.message ?? ''}`}`);
    else if (e.kind === 'expired') io.err(`agent-seer: ${e.scenarioId}: session closed after ${Math.round(e.idleMs / 1000)} s idle`);
    else io.err(`agent-seer: all ${e.total} scenarios have been served`);
  };
  let server: HarnessMockServer;
  try {
    server = new HarnessMockServer(
      { spec: found.spec, records: read.records, specHash: specHash(found.spec) },
      {
        ...(args.scenario ? { scenario: args.scenario } : {}),
        ...(args.revealExpected ? { revealExpected: true } : {}),
        trajectoryDir: out,
        trajectoryRoot: dir,
        onEvent,
      },
    );
  } catch (e) {
    if (e instanceof MockServerError) throw new UsageError(`${args.dir}: ${e.message}`);
    throw e;
  }
  const stopped = new Promise<void>((resolve) => {
    if (signal?.aborted) resolve();
    signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  if (port === undefined) {
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((resolve) => (transport.onclose = () => resolve()));
    // The client closing stdin ends the session (the SDK transport does not watch for it).
    const ended = new Promise<void>((resolve) => process.stdin.once('end', () => resolve()));
    await server.connect(transport);
    io.err(
      `agent-seer: serving ${read.records.length} scenario${read.records.length === 1 ? '' : 's'} of "${found.spec.name}" on stdio; trajectories in ${relativeTo(io.cwd)(out)}`,
    );
    await Promise.race([closed, ended, stopped]);
    await transport.close().catch(() => undefined);
    return EXIT.ok;
  }
  const http = await server.listenHttp(port);
  io.err(
    `agent-seer: serving ${read.records.length} scenario${read.records.length === 1 ? '' : 's'} of "${found.spec.name}" at ${http.url} (one scenario per MCP session, or /mcp/<scenario>); trajectories in ${relativeTo(io.cwd)(out)}`,
  );
  io.out(JSON.stringify({ url: http.url, token: http.token }));
  await stopped;
  await http.close();
  return EXIT.ok;
}

/** The option table of `agent-seer serve`. */
export const options = {
  scenario: { type: 'string' },
  http: { type: 'string' },
  spec: { type: 'string' },
  'reveal-expected': { type: 'boolean', default: false },
} as const satisfies OptionTable;

/** Its lines in the top-level help. */
export const synopsis = `  agent-seer serve <harness-dir> [--scenario ID] [--http PORT] [--spec FILE] [--reveal-expected]
                                             the harness as a mock MCP server for an agent
                                             under test (stdio, or Streamable HTTP on 127.0.0.1)`;

/** `agent-seer serve --help`. */
export const usage = `Usage: agent-seer serve <harness-dir> [--scenario ID] [--http PORT] [--spec FILE] [--reveal-expected]

Serves the harness as an MCP server: tools/list returns the spec's tools as snapshotted, and a
tools/call the scenario expects now is answered with its recorded output. Any other call gets a
tool error (isError) such as a server gives about its own input: "Unknown tool", "Invalid
arguments for T: …" (the schema's complaint), or for a valid call it has no answer for, the same
neutral "Error calling T: the request could not be completed." It never names an expected
value; the full reason is logged on stderr. Every call is written to
<harness-dir>/runs/mcp-client/<time>/<scenario>.json, one file per session (<scenario>~2.json,
~3, … for a scenario's later sessions), with the client's name and version from its initialize.

Options:
  --scenario ID  serve this scenario to every session (default: one scenario per MCP session, in
                 the harness's order)
  --http PORT    Streamable HTTP on 127.0.0.1:PORT (0: any free port) at /mcp instead of stdio;
                 prints {"url","token"} on stdout: send "Authorization: Bearer <token>"
  --spec FILE    the spec the harness was generated from (default: the harness's spec.json)
  --reveal-expected
                 put the full reason, expected call included, in every refusal the client
                 reads: for debugging a harness by hand, never for scoring an agent
  -h, --help     this text

Over HTTP, only an initialize opens a session and takes the next scenario; other requests
without an Mcp-Session-Id are refused (400, a GET 405) and take nothing. Initialize at
/mcp/<scenario id>, or with the header "${SCENARIO_HEADER}: <id>", to bind a session to a
scenario (it takes nothing from the order); sessions at /mcp/<scenario id>/<run> continue one
run of it (for clients that open a session per request). A session idle for 10 minutes expires
(then 404: initialize again). Host must be 127.0.0.1, localhost or [::1] with the port, and an Origin a
loopback one (else 403); a missing or wrong token is 401 with WWW-Authenticate: Bearer.

Runs until stdin closes (stdio) or until interrupted (HTTP). Exit 0, or 2 on bad input.`;

/** Runs `serve` on parsed arguments. */
export function run({ values, positionals }: Parsed<typeof options>, io: Io, signal?: AbortSignal): Promise<number> {
  if (positionals.length > 1) throw new UsageError('serve takes one harness folder');
  return serve({ dir: positionals[0], scenario: values.scenario, http: values.http, spec: values.spec, revealExpected: values['reveal-expected'] }, io, signal);
}
