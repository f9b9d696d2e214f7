/**
 * Listing a live MCP server's tools: connect with the SDK client (stdio, Streamable HTTP, or
 * legacy SSE as a fallback), page through `tools/list`, and always leave no process behind.
 * Processes are started and stopped by `child.ts`, waits are bounded by `deadline.ts`, and every
 * failure is a `LiveListError` (`errors.ts`).
 *
 * Why not `client.listTools()`: the SDK validates results strictly and one malformed tool (e.g.
 * an `inputSchema` without `type: "object"`) would fail the whole listing. Here each tool goes
 * through the lenient `Tool` schema of the spec model and bad entries land in `invalidTools`.
 */
import { stat } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import type { ServerDefinition, Transport } from '../configs/types';
import { startServerProcess, stopServerProcess, type ChildStop, type ServerProcess } from './child';
import { raceTimer, withDeadline } from './deadline';
import { abortedError, clip, describeError, LiveListError, oneLine, phaseText, safeUrl, seconds, type LiveListErrorDetails, type Phase } from './errors';
import { ChildStdioTransport } from './stdioTransport';
import { MaskedTail } from './tailBuffer';
import { maskArgs, maskSecretText, urlSecrets } from '../maskSecrets';
import { ServerInfo, Tool, toolIssueMessage, type Spec } from '../model';
import { DEFAULT_SERVER_TIMEOUT_SECONDS } from '../../workspace/defaults';

/** Options for {@link listServerTools}. Every wait is bounded. */
export interface LiveListOptions {
  /** Time for the server to start and answer `initialize` (ms). Default 30 000. */
  connectTimeoutMs?: number;
  /** Time for the whole `tools/list` walk, all pages together (ms). Default 30 000. */
  listTimeoutMs?: number;
  /** Cancels the listing; the child's process tree is stopped before the promise settles. */
  signal?: AbortSignal;
  /** Most `tools/list` pages accepted before giving up on a server that never ends. Default 1000. */
  maxPages?: number;
  /** How long a stdio server gets to exit after stdin closes, and its whole process tree after SIGTERM, before SIGKILL (ms). Default 2000. */
  killGraceMs?: number;
  /** Called with the child's pid as soon as a stdio server has been spawned. */
  onSpawn?: (pid: number) => void;
  /** How Agent Seer introduces itself at `initialize`. */
  clientInfo?: { name: string; version: string };
}

/** What a live listing found. */
export interface LiveListing {
  /** The definition's name (the key in the config file); unique where the server's own name may not be. */
  serverName: string;
  /** The tools as a spec; `invalidTools` indexes count across all pages. */
  spec: Spec;
  /** The server's `serverInfo` from `initialize`. */
  serverInfo: ServerInfo;
  /** The server's capabilities from `initialize`. */
  capabilities: Record<string, unknown>;
  /** Number of `tools/list` pages fetched. */
  pages: number;
  /** The transport that worked (`sse` when Streamable HTTP fell back). */
  transport: Transport;
  /** Last ~4 KB of a stdio server's stderr, when it wrote any, secrets masked (see `maskSecretText`). */
  stderrTail?: string;
  /** The stdio child's pid (already exited when the listing returns). */
  pid?: number;
  /** How the stdio child ended (see {@link ChildStop}). */
  stopped?: ChildStop;
}

const SERVER_TIMEOUT_MS = DEFAULT_SERVER_TIMEOUT_SECONDS * 1000;
const DEFAULTS = { connectTimeoutMs: SERVER_TIMEOUT_MS, listTimeoutMs: SERVER_TIMEOUT_MS, maxPages: 1000, killGraceMs: 2000 };
const STDERR_TAIL_BYTES = 4096;
const CLIENT_INFO = { name: 'agent-seer', version: '0.1.0' };

/**
 * Lists all tools of a server definition (variables already resolved), over stdio, Streamable
 * HTTP, or SSE (directly when `transport` is `sse`, or as a fallback when Streamable HTTP answers
 * with a 4xx). stdio children get the SDK's safe default environment plus `definition.env`;
 * `headers` go on every HTTP request. `disabled` is not checked: that is the caller's call.
 * Throws {@link LiveListError}; a stdio child and every process it started (its tree, see `child.ts`)
 * are stopped before this settles.
 */
export async function listServerTools(definition: ServerDefinition, options: LiveListOptions = {}): Promise<LiveListing> {
  // Explicit undefined or NaN (a bad setting) must not turn into a zero-length timeout.
  const positive = (value: number | undefined, fallback: number) => (value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback);
  const o: Resolved = {
    connectTimeoutMs: positive(options.connectTimeoutMs, DEFAULTS.connectTimeoutMs),
    listTimeoutMs: positive(options.listTimeoutMs, DEFAULTS.listTimeoutMs),
    maxPages: Math.floor(positive(options.maxPages, DEFAULTS.maxPages)),
    killGraceMs: positive(options.killGraceMs, DEFAULTS.killGraceMs),
    clientInfo: options.clientInfo ?? CLIENT_INFO,
    signal: options.signal,
    onSpawn: options.onSpawn,
  };
  if (o.signal?.aborted) throw abortedError(definition.name);
  try {
    return definition.transport === 'stdio' ? await listStdio(definition, o) : await listUrl(definition, o);
  } catch (error) {
    // The one way out of a failed listing: whatever a message quotes (a command line, a server's
    // reply, a URL), the definition's secrets never leave in it.
    if (error instanceof LiveListError) error.message = maskSecretText(error.message, knownSecrets(definition));
    throw error;
  }
}

/**
 * The values a definition hands its server that may be secrets: its env and header values, what
 * `${env:…}`/`${input:…}` references resolved to, and the credentials in its URL.
 */
function knownSecrets(definition: ServerDefinition): string[] {
  return [...Object.values(definition.env), ...Object.values(definition.headers), ...(definition.secretValues ?? []), ...urlSecrets(definition.url)];
}

/**
 * A short description of where a listing came from, for a snapshot's `provenance`. URLs lose
 * credentials, query and fragment (tokens live there), secrets in args are masked
 * (`maskArgs`); env and headers are never included.
 */
export function describeTarget(definition: ServerDefinition): string {
  if (definition.transport === 'stdio') {
    const line = ['stdio:', ...maskArgs([definition.command ?? '', ...definition.args])].join(' ').trim();
    return maskSecretText(line, knownSecrets(definition));
  }
  return `${definition.transport}: ${safeUrl(definition.url ?? '')}`;
}

type Resolved = Required<Omit<LiveListOptions, 'signal' | 'onSpawn'>> & Pick<LiveListOptions, 'signal' | 'onSpawn'>;

// ---------------------------------------------------------------------------------------------
// stdio

async function listStdio(definition: ServerDefinition, o: Resolved): Promise<LiveListing> {
  const name = definition.name;
  const command = definition.command;
  if (!command) throw new LiveListError('config', `server "${name}" has no command to run`, { server: name });
  if (definition.cwd !== undefined && !(await isDirectory(definition.cwd))) {
    throw new LiveListError('config', `server "${name}": working directory ${definition.cwd} does not exist`, { server: name });
  }

  let proc: ServerProcess;
  try {
    proc = await startServerProcess({ command, args: definition.args, env: definition.env, cwd: definition.cwd });
  } catch (error) {
    throw new LiveListError('spawn', `could not start server "${name}" (${command}): ${describeError(error)}`, { server: name, cause: error });
  }
  o.onSpawn?.(proc.pid);

  // The server's stderr may echo what the config handed it (a token in its env, a header, an
  // argument from `${env:…}`): those values never reach a message, a record or the caller. The
  // whole stream is masked before it is cut to its tail.
  const stderr = new MaskedTail(STDERR_TAIL_BYTES, knownSecrets(definition));
  proc.child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  const tailText = (): string | undefined => stderr.text();
  let rejectGone: (error: Error) => void = () => undefined;
  const childGone = new Promise<never>((_, reject) => (rejectGone = reject));
  childGone.catch(() => undefined); // only ever consumed through races
  void proc.closed.then(() => rejectGone(new Error('child closed')));
  const transport = new ChildStdioTransport(proc);
  const client = new Client(o.clientInfo, { capabilities: {} });

  const ctx = (extra: Partial<LiveListErrorDetails> = {}): LiveListErrorDetails => {
    const details: LiveListErrorDetails = { server: name, pid: proc.pid, ...extra };
    const tail = tailText();
    if (tail !== undefined) details.stderrTail = tail;
    return details;
  };
  const withTail = (message: string): string => {
    const tail = tailText();
    return tail === undefined ? message : `${message}: ${oneLine(tail)}`;
  };

  let phase: Phase = 'initialize';
  let page = 0;
  const deadlineErrors = (ms: number) => ({
    onTimeout: () => new LiveListError('timeout', withTail(`server "${name}" did not answer ${phaseText(phase, page)} within ${seconds(ms)}`), ctx()),
    onAbort: () => abortedError(name, ctx()),
  });

  let failure: LiveListError | undefined;
  let listing: LiveListing | undefined;
  try {
    await withDeadline((signal) => client.connect(transport, { signal, timeout: o.connectTimeoutMs + 60_000 }), {
      ms: o.connectTimeoutMs,
      outer: o.signal,
      also: childGone,
      ...deadlineErrors(o.connectTimeoutMs),
    });
    phase = 'tools/list';
    const listed = await withDeadline((signal) => fetchAllTools(client, name, o, signal, (n) => (page = n)), {
      ms: o.listTimeoutMs,
      outer: o.signal,
      also: childGone,
      ...deadlineErrors(o.listTimeoutMs),
    });
    listing = buildListing(definition, client, listed, 'stdio');
    listing.pid = proc.pid;
    return finishStdio(listing);
  } catch (error) {
    failure = await classifyStdioFailure(error);
    throw failure;
  } finally {
    // A server that did nothing wrong gets the polite shutdown (stdin closed first). Either way
    // the whole process tree is gone before this settles.
    const stopped = await stopServerProcess(proc, failure === undefined, o.killGraceMs);
    if (failure) failure.details.stopped = stopped;
    else if (listing) listing.stopped = stopped;
    await client.close().catch(() => undefined);
  }

  function finishStdio(done: LiveListing): LiveListing {
    const tail = tailText();
    if (tail !== undefined) done.stderrTail = tail;
    return done;
  }

  async function classifyStdioFailure(error: unknown): Promise<LiveListError> {
    if (error instanceof LiveListError) {
      if (error.kind !== 'protocol' || error.details.stderrTail !== undefined) return error;
      return new LiveListError('protocol', withTail(error.message), ctx({ cause: error.details.cause }));
    }
    // A closed connection usually means the child died: give its exit a moment to be reported
    // and its stderr to drain, so the message says why.
    if (await proc.waitExit(500)) {
      await raceTimer(proc.closed, 1000, undefined);
      const exit = proc.exit() ?? { code: null, signal: null };
      const how = exit.signal ? `was killed by ${exit.signal}` : exit.code === null ? 'exited' : `exited with code ${exit.code}`;
      const when = phase === 'initialize' ? 'before answering' : `while listing tools (page ${page + 1})`;
      return new LiveListError('exited', withTail(`server "${name}" ${how} ${when}`), ctx({ exitCode: exit.code, signal: exit.signal, cause: error }));
    }
    const what = phase === 'initialize' ? 'failed to initialize' : `failed while listing tools (page ${page + 1})`;
    return new LiveListError('protocol', withTail(`server "${name}" ${what}: ${describeError(error)}`), ctx({ cause: error }));
  }
}

// ---------------------------------------------------------------------------------------------
// Streamable HTTP and SSE

type UrlTransport = StreamableHTTPClientTransport | SSEClientTransport;

async function listUrl(definition: ServerDefinition, o: Resolved): Promise<LiveListing> {
  const name = definition.name;
  let url: URL;
  try {
    url = new URL(definition.url ?? '');
  } catch {
    throw new LiveListError('config', `server "${name}" has no valid URL (${JSON.stringify(definition.url ?? '')})`, { server: name });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new LiveListError('config', `server "${name}": unsupported URL scheme ${url.protocol} (expected http or https)`, { server: name });
  }
  const shown = safeUrl(url.href);
  const requestInit: RequestInit = { headers: definition.headers };
  const opened: { client: Client; transport: UrlTransport }[] = [];

  const attempt = async (kind: 'http' | 'sse', signal: AbortSignal): Promise<{ client: Client; kind: 'http' | 'sse' }> => {
    const client = new Client(o.clientInfo, { capabilities: {} });
    const transport = kind === 'http' ? new StreamableHTTPClientTransport(url, { requestInit }) : new SSEClientTransport(url, { requestInit });
    opened.push({ client, transport });
    await client.connect(transport, { signal, timeout: o.connectTimeoutMs + 60_000 });
    return { client, kind };
  };
  const connectError = (error: unknown, fallbackError?: unknown): LiveListError => {
    const detail = fallbackError === undefined ? describeError(error) : `${describeError(error)}; SSE fallback: ${describeError(fallbackError)}`;
    return new LiveListError('connect', `could not connect to ${shown}: ${detail}`, { server: name, cause: fallbackError ?? error });
  };

  let phase: Phase = 'initialize';
  let page = 0;
  const deadlineErrors = (ms: number) => ({
    onTimeout: () =>
      new LiveListError('timeout', `server "${name}" at ${shown} did not answer ${phaseText(phase, page)} within ${seconds(ms)}`, { server: name }),
    onAbort: () => abortedError(name),
  });

  try {
    const connected = await withDeadline(
      async (signal) => {
        if (definition.transport === 'sse') {
          return attempt('sse', signal).catch((error: unknown) => Promise.reject(connectError(error)));
        }
        try {
          return await attempt('http', signal);
        } catch (error) {
          // The backwards-compatible pattern from the SDK docs: a 4xx means "no Streamable HTTP here".
          if (!(error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400 && error.code < 500)) {
            throw connectError(error);
          }
          return attempt('sse', signal).catch((fallbackError: unknown) => Promise.reject(connectError(error, fallbackError)));
        }
      },
      { ms: o.connectTimeoutMs, outer: o.signal, ...deadlineErrors(o.connectTimeoutMs) },
    );
    phase = 'tools/list';
    const listed = await withDeadline(
      (signal) =>
        fetchAllTools(connected.client, name, o, signal, (n) => (page = n)).catch((error: unknown) => {
          if (error instanceof LiveListError) throw error;
          throw new LiveListError('protocol', `server "${name}" failed while listing tools (page ${page + 1}): ${describeError(error)}`, {
            server: name,
            cause: error,
          });
        }),
      { ms: o.listTimeoutMs, outer: o.signal, ...deadlineErrors(o.listTimeoutMs) },
    );
    return buildListing(definition, connected.client, listed, connected.kind);
  } catch (error) {
    if (error instanceof LiveListError) throw error;
    throw new LiveListError('protocol', `server "${name}" at ${shown} failed to initialize: ${describeError(error)}`, { server: name, cause: error });
  } finally {
    for (const { client, transport } of opened) {
      // Ending the session politely is optional for the server, so it gets a short, bounded try.
      if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
        await raceTimer(
          transport.terminateSession().catch(() => undefined),
          1000,
          undefined,
        );
      }
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// tools/list

/** One page of `tools/list`, checked only as far as paging needs; tools are checked one by one. */
const ToolsPage = z.looseObject({ tools: z.unknown().optional(), nextCursor: z.unknown().optional() });

interface Listed {
  tools: Tool[];
  invalidTools: Spec['invalidTools'];
  pages: number;
}

async function fetchAllTools(client: Client, name: string, o: Resolved, signal: AbortSignal, onPage: (page: number) => void): Promise<Listed> {
  const tools: Tool[] = [];
  const invalidTools: Spec['invalidTools'] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let index = 0;
  for (let page = 1; ; page++) {
    onPage(page - 1);
    const result = await client
      .request(cursor === undefined ? { method: 'tools/list' } : { method: 'tools/list', params: { cursor } }, ToolsPage, {
        signal,
        timeout: o.listTimeoutMs + 60_000,
      })
      .catch((error: unknown) => {
        if (!(error instanceof z.ZodError)) throw error;
        throw new LiveListError('protocol', `server "${name}" sent a tools/list result that is not an object (page ${page})`, { server: name, cause: error });
      });
    onPage(page);
    if (!Array.isArray(result.tools)) {
      throw new LiveListError('protocol', `server "${name}" sent a tools/list result without a tools array (page ${page})`, { server: name });
    }
    for (const raw of result.tools) {
      const parsed = Tool.safeParse(raw);
      if (parsed.success) {
        tools.push(parsed.data);
      } else {
        const label = typeof (raw as { name?: unknown } | null)?.name === 'string' ? `"${(raw as { name: string }).name}" ` : '';
        invalidTools.push({ index, message: `${label}${toolIssueMessage(parsed.error)}` });
      }
      index++;
    }
    const next = result.nextCursor;
    // Absent, null or "" all mean "last page" in the wild.
    if (typeof next !== 'string' || next === '') return { tools, invalidTools, pages: page };
    if (seen.has(next)) {
      throw new LiveListError('protocol', `server "${name}" repeated the tools/list cursor ${JSON.stringify(clip(next, 60))} after page ${page}; stopped`, {
        server: name,
      });
    }
    if (page >= o.maxPages) {
      throw new LiveListError('protocol', `server "${name}" sent more than ${o.maxPages} pages of tools/list; stopped`, { server: name });
    }
    seen.add(next);
    cursor = next;
  }
}

function buildListing(definition: ServerDefinition, client: Client, listed: Listed, transport: Transport): LiveListing {
  const info = ServerInfo.safeParse(client.getServerVersion());
  const serverInfo: ServerInfo = info.success ? info.data : { name: definition.name };
  const spec: Spec = {
    name: serverInfo.name || definition.name,
    server: serverInfo,
    source: `${definition.file || 'live'}#${definition.name}`,
    capturedAt: new Date().toISOString(),
    tools: listed.tools,
    invalidTools: listed.invalidTools,
  };
  return {
    serverName: definition.name,
    spec,
    serverInfo,
    capabilities: { ...(client.getServerCapabilities() ?? {}) },
    pages: listed.pages,
    transport,
  };
}

// ---------------------------------------------------------------------------------------------
// helpers

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
