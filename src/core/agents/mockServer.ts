/**
 * A harness served as an MCP server (`agent-seer serve`): `tools/list` returns the spec's tools
 * exactly as snapshotted, and each `tools/call` is answered from the scenario's mock outputs
 * when it is a call the oracle expects now (`ScenarioReplay`), or refused with an MCP tool error
 * (`isError: true`) that says only what a server would say of its own input, never what was
 * expected. Every call is appended to the scenario's trajectory file as it happens.
 *
 * Scenarios: a fixed one (`scenario`), or one per MCP session in the harness's order; each
 * session writes its own trajectory file. Over stdio there is one session. Over Streamable HTTP
 * only a successful `initialize` opens a session and takes a scenario (the next one, or the one
 * the URL `/mcp/<id>` or the {@link SCENARIO_HEADER} header names; sessions at `/mcp/<id>/<run>`
 * continue one run); anything else without a session id is refused and takes nothing, because
 * real clients probe first (a `GET`, a `server/discover`). Sessions idle for `idleTimeoutMs` are
 * closed and forgotten. HTTP binds 127.0.0.1 only, accepts loopback Host and Origin only (DNS
 * rebinding, as the MCP transport spec requires) and a bearer token made at start.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  isInitializeRequest,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ListToolsResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { HarnessRecord } from '../harness/format';
import { writeFileInside } from '../containment';
import { recordFileStem, stableJson } from '../harness/store';
import type { Spec } from '../spec/model';
import { ScenarioReplay } from './replay';
import { Trajectory, TRAJECTORY_FORMAT_VERSION, type TrajectoryCall } from './trajectory';
import { parseKeepingKeys } from '../util/ownKeys';

/** What to serve. */
export interface ServedHarness {
  spec: Spec;
  /** The records, in the order sessions take them. */
  records: readonly HarnessRecord[];
  /** The spec's hash (recorded in trajectories). */
  specHash: string;
}

export interface MockServerOptions {
  /** Serve this scenario (by id) to every session; else one scenario per session, in order. */
  scenario?: string;
  /** Folder for trajectory files (`<id>.json`, then `<id>~2.json`, … per session); none are written when absent. */
  trajectoryDir?: string;
  /**
   * The trusted folder `trajectoryDir` lies in (the harness folder): from there down no trajectory
   * is written through a link (containment.ts). Default `trajectoryDir` itself.
   */
  trajectoryRoot?: string;
  /** Who is calling, recorded in trajectories. Default `mcp-client`, with the client's `clientInfo` beside it. */
  agent?: string;
  /**
   * Tell the agent, in each refusal, what was expected (debugging a harness by hand). Off by
   * default: an agent under test must never read an expected value (see replay.ts).
   */
  revealExpected?: boolean;
  /** Told about each session's scenario and each call (for logs; a refusal's message is its full reason). */
  onEvent?: (event: MockServerEvent) => void;
  /** Over HTTP: a session with no request in flight for this long is closed and forgotten. Default {@link DEFAULT_IDLE_TIMEOUT_MS}. */
  idleTimeoutMs?: number;
}

/** How long an HTTP session may sit idle before it is closed: 10 minutes. */
export const DEFAULT_IDLE_TIMEOUT_MS = 10 * 60_000;

/**
 * The request header that binds a new HTTP session to a scenario by id (as `/mcp/<id>` does), for
 * a harness runner that picks. Not `Mcp-…`: that prefix is the protocol's own.
 */
export const SCENARIO_HEADER = 'Agent-Seer-Scenario';

/** Largest request body read before a session exists (the SDK's own limit for messages). */
const MAX_BODY = 4 * 1024 * 1024;

export type MockServerEvent =
  | { kind: 'session'; scenarioId: string; position: number; total: number }
  | { kind: 'call'; scenarioId: string; name: string; ok: boolean; message?: string }
  | { kind: 'exhausted'; total: number }
  | { kind: 'expired'; scenarioId: string; idleMs: number };

/** A session could not be given a scenario; `status` is the HTTP status that says why. */
export class MockServerError extends Error {
  override readonly name = 'MockServerError';
  constructor(
    message: string,
    readonly status: 404 | 409 = 409,
  ) {
    super(message);
  }
}

/** One MCP session bound to one scenario. */
export interface MockSession {
  server: Server;
  /** Its scenario's replay (`replay.record` is the scenario). */
  replay: ScenarioReplay;
  trajectory: Trajectory;
  /**
   * Answers a call as `tools/call` does (trajectory written first). The built-in agent uses it
   * for a call whose arguments are not a JSON object, which no MCP client can send.
   */
  answer: (name: string, args: unknown) => Promise<CallToolResult>;
}

/** What {@link HarnessMockServer.listenHttp} serves. */
export interface MockHttpServer {
  url: string;
  token: string;
  /** Sessions open now (expired and closed ones are gone). */
  openSessions: () => number;
  /** Named runs (`/mcp/<id>/<run>`) kept now: open, or closed for less than the idle time. */
  openRuns: () => number;
  close: () => Promise<void>;
}

/** An HTTP session: its transport, and what expiry needs. */
interface HttpSession {
  transport: StreamableHTTPServerTransport;
  session: MockSession;
  /** Requests (and open SSE streams) not yet ended: the idle clock runs only at 0. */
  inFlight: number;
  timer?: NodeJS.Timeout;
  /** The named run it belongs to (`/mcp/<id>/<run>`). */
  run?: { key: string; shared: SharedRun };
}

/**
 * A named run of a scenario (`/mcp/<id>/<run>`): every session with that URL continues one replay
 * and one trajectory, for clients that open a session per request (MCP Inspector's CLI).
 */
interface SharedRun {
  replay: ScenarioReplay;
  trajectory: Trajectory;
  /** Its sessions open now; at 0 the run is forgotten after the idle time. */
  open: number;
  timer?: NodeJS.Timeout;
}

/** A JSON-RPC error body, as the SDK's transport answers (`id` null: no request was read). */
function rpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** -32000: the SDK's code for a request the server will not take. */
const REFUSED = -32000;

/** Loopback origins a browser page may call from (and none: non-browser clients send none). */
const LOOPBACK_ORIGIN = /^https?:\/\/(?:127\.0\.0\.1|localhost|\[::1\])(?::\d{1,5})?$/i;

/**
 * The SDK parses `tools/call` with zod before any handler runs and answers a failure with -32603
 * and zod's multi-line dump: re-registers the server's handler behind a parse that answers
 * -32602 (invalid params) in one line. Throws when the SDK no longer keeps handlers where we
 * look, so an upgrade cannot silently bring the dump back.
 */
function answerInvalidParams(server: Server): void {
  type Handler = (request: unknown, extra: unknown) => Promise<unknown>;
  const handlers = (server as unknown as { _requestHandlers?: Map<string, Handler> })._requestHandlers;
  const handler = handlers?.get('tools/call');
  if (!handlers || !handler) throw new Error('internal: the MCP SDK keeps no tools/call handler where expected');
  handlers.set('tools/call', (request, extra) => {
    const parsed = CallToolRequestSchema.safeParse(request);
    if (!parsed.success) {
      const why = parsed.error.issues.map((i) => `${i.path.map(String).join('.') || 'request'}: ${i.message}`).join('; ');
      return Promise.reject(new McpError(ErrorCode.InvalidParams, `invalid tools/call params: ${why.replace(/\s+/g, ' ')}`));
    }
    return handler(request, extra);
  });
}

export class HarnessMockServer {
  private next = 0;
  /** Queue positions handed back by an `initialize` that failed after taking them, smallest first. */
  private readonly returned: number[] = [];
  private readonly fixed: HarnessRecord | undefined;
  private readonly byId: Map<string, HarnessRecord>;
  /** Sessions per scenario that have written a trajectory: names the next session's file. */
  private readonly written = new Map<string, number>();
  /** Each session's trajectory file, named at its first write. */
  private readonly files = new WeakMap<Trajectory, string>();
  /** The last write of each trajectory: writes of sessions sharing a run must not overtake each other. */
  private readonly writing = new WeakMap<Trajectory, Promise<void>>();

  constructor(
    private readonly harness: ServedHarness,
    private readonly options: MockServerOptions = {},
  ) {
    if (!harness.records.length) throw new MockServerError('the harness has no records to serve');
    this.byId = new Map(harness.records.map((r) => [r.id, r]));
    if (options.scenario !== undefined) this.fixed = this.scenario(options.scenario);
  }

  /** The record of a scenario id; throws {@link MockServerError} (404) naming some there are. */
  scenario(id: string): HarnessRecord {
    const record = this.byId.get(id);
    if (record) return record;
    const ids = this.harness.records.map((r) => r.id);
    throw new MockServerError(`no scenario "${id}" in the harness (it has ${ids.length}: ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''})`, 404);
  }

  /** Scenarios not yet handed to a session (always 1 with a fixed scenario). */
  get remaining(): number {
    return this.fixed ? 1 : this.harness.records.length - this.next + this.returned.length;
  }

  /**
   * The scenario of a new session: `bound` (by id; any number of sessions may take it), else the
   * fixed one, else the next in order. `queued` says it was taken from the order (to give back).
   */
  private pick(bound?: string): { record: HarnessRecord; queued: boolean } {
    if (bound !== undefined) {
      const record = this.scenario(bound);
      if (this.fixed && record !== this.fixed) throw new MockServerError(`this server serves only scenario ${this.fixed.id} (--scenario), not ${bound}`);
      return { record, queued: false };
    }
    if (this.fixed) return { record: this.fixed, queued: false };
    const index = this.returned.length ? this.returned.shift()! : this.next < this.harness.records.length ? this.next++ : undefined;
    if (index === undefined) {
      this.options.onEvent?.({ kind: 'exhausted', total: this.harness.records.length });
      throw new MockServerError(`all ${this.harness.records.length} scenarios have been served`);
    }
    return { record: this.harness.records[index]!, queued: true };
  }

  /** Puts a scenario taken by {@link pick} back at its place in the order. */
  private giveBack(record: HarnessRecord): void {
    this.returned.push(this.harness.records.indexOf(record));
    this.returned.sort((a, b) => a - b);
  }

  private announce(record: HarnessRecord): void {
    this.options.onEvent?.({ kind: 'session', scenarioId: record.id, position: this.harness.records.indexOf(record) + 1, total: this.harness.records.length });
  }

  /** A new session on the next scenario; throws {@link MockServerError} when all were served. */
  createSession(): MockSession {
    const { record } = this.pick();
    const session = this.open(record);
    this.announce(record);
    return session;
  }

  /**
   * A session on `record`: an MCP server answering from its replay, writing its own trajectory,
   * or continuing those of `run` (an earlier session of the same named run).
   */
  private open(record: HarnessRecord, run?: Pick<MockSession, 'replay' | 'trajectory'>): MockSession {
    const replay = run?.replay ?? new ScenarioReplay(record, this.harness.spec, { revealExpected: this.options.revealExpected === true });
    const trajectory: Trajectory = run?.trajectory ?? {
      formatVersion: TRAJECTORY_FORMAT_VERSION,
      scenarioId: record.id,
      specHash: this.harness.specHash,
      agent: this.options.agent ?? 'mcp-client',
      calls: [],
      complete: false,
    };
    const server = new Server(
      { name: this.harness.spec.server?.name ?? this.harness.spec.name, version: this.harness.spec.server?.version ?? '0.0.0' },
      {
        capabilities: { tools: { listChanged: false } },
        // Nothing here names the scenario: its id is made from its title, which may hold a value.
        instructions: `Agent Seer mock of "${this.harness.spec.name}": tool calls are answered from recorded outputs.`,
      },
    );
    // Who an external client says it is: the leaderboard groups serve runs by it. The built-in
    // agent names itself (`agent`), and its MCP client is ours.
    if (this.options.agent === undefined)
      server.oninitialized = () => {
        const client = server.getClientVersion();
        if (client) trajectory.client = { name: client.name, version: client.version };
      };
    // The snapshot's tool objects as they are: the agent must see what the real server shows.
    server.setRequestHandler(ListToolsRequestSchema, async (): Promise<ListToolsResult> => ({ tools: this.harness.spec.tools as ListToolsResult['tools'] }));
    const answer = async (name: string, args: unknown): Promise<CallToolResult> => {
      const reply = replay.call(name, args);
      const entry: TrajectoryCall = {
        name,
        arguments: args ?? {},
        expectedIndex: reply.ok ? reply.expectedIndex : null,
        at: new Date().toISOString(),
        ...(reply.ok ? {} : { error: reply.message, refusal: reply.kind }),
      };
      trajectory.calls.push(entry);
      trajectory.complete = replay.done;
      this.options.onEvent?.({ kind: 'call', scenarioId: record.id, name, ok: reply.ok, ...(reply.ok ? {} : { message: `${reply.kind}: ${reply.detail}` }) });
      // On disk before the agent sees the answer: a killed server loses no call it answered.
      await this.save(trajectory);
      if (!reply.ok) return { isError: true, content: [{ type: 'text', text: reply.message }] };
      const output = reply.output;
      const structured =
        typeof output === 'object' && output !== null && !Array.isArray(output) ? { structuredContent: output as Record<string, unknown> } : {};
      return { content: [{ type: 'text', text: typeof output === 'string' ? output : JSON.stringify(output) }], ...structured };
    };
    server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => answer(request.params.name, request.params.arguments ?? {}));
    answerInvalidParams(server);
    return { server, replay, trajectory, answer };
  }

  /**
   * Writes a session's trajectory: `<scenario>.json` for the first session of a scenario that
   * writes, `<scenario>~2.json`, `~3`, … for the next ones (`~` is never in a record file stem),
   * so concurrent sessions on one scenario never overwrite each other.
   */
  private save(trajectory: Trajectory): Promise<void> {
    const done = (this.writing.get(trajectory) ?? Promise.resolve()).then(() => this.write(trajectory));
    this.writing.set(
      trajectory,
      done.catch(() => undefined),
    );
    return done;
  }

  private async write(trajectory: Trajectory): Promise<void> {
    if (!this.options.trajectoryDir) return;
    const valid = parseKeepingKeys(Trajectory, trajectory);
    const dir = this.options.trajectoryDir;
    let file = this.files.get(trajectory);
    if (file === undefined) {
      const n = (this.written.get(valid.scenarioId) ?? 0) + 1;
      this.written.set(valid.scenarioId, n);
      file = `${recordFileStem(valid.scenarioId)}${n === 1 ? '' : `~${n}`}.json`;
      this.files.set(trajectory, file);
    }
    await writeFileInside(this.options.trajectoryRoot ?? dir, join(dir, file), stableJson(valid));
  }

  /** Connects one session to a transport (stdio, or an in-memory pair in tests). */
  async connect(transport: Transport): Promise<MockSession> {
    const session = this.createSession();
    await session.server.connect(transport);
    return session;
  }

  /**
   * Serves Streamable HTTP on 127.0.0.1:`port` (0: any free port) at `/mcp` (and `/mcp/<scenario>`),
   * each request with `Authorization: Bearer <token>`. Resolves once listening.
   */
  async listenHttp(port: number): Promise<MockHttpServer> {
    const token = randomBytes(24).toString('base64url');
    const expected = Buffer.from(`Bearer ${token}`);
    const idleMs = this.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    const sessions = new Map<string, HttpSession>();
    const runs = new Map<string, SharedRun>();
    let hosts = new Set<string>();
    const authorised = (req: IncomingMessage): boolean => {
      const got = Buffer.from(String(req.headers.authorization ?? ''));
      return got.length === expected.length && timingSafeEqual(got, expected);
    };
    const expire = (id: string): void => {
      const s = sessions.get(id);
      if (!s) return;
      sessions.delete(id);
      this.options.onEvent?.({ kind: 'expired', scenarioId: s.session.replay.record.id, idleMs });
      void s.transport.close().catch(() => undefined);
    };
    /** Counts a request against the session's idle clock until its response ends (an SSE stream: until it closes). */
    const track = (id: string | undefined, s: HttpSession, res: ServerResponse): void => {
      s.inFlight++;
      clearTimeout(s.timer);
      res.once('close', () => {
        s.inFlight--;
        const sid = id ?? s.transport.sessionId;
        if (s.inFlight === 0 && sid !== undefined && sessions.get(sid) === s) s.timer = setTimeout(() => expire(sid), idleMs).unref();
      });
    };
    const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      // Before the token: a page in a browser must learn nothing, not even that the token is wrong.
      const host = String(req.headers.host ?? '').toLowerCase();
      if (!hosts.has(host)) return rpcError(res, 403, REFUSED, `forbidden: Host "${host}" is not this loopback server (${[...hosts][0]})`);
      const origin = req.headers.origin;
      if (origin !== undefined && !LOOPBACK_ORIGIN.test(origin))
        return rpcError(res, 403, REFUSED, `forbidden: Origin "${origin}" is not a loopback origin (http://127.0.0.1, http://localhost, http://[::1])`);
      if (!authorised(req)) {
        // RFC 6750 §3: no credentials, no error code; wrong ones, invalid_token.
        const sent = req.headers.authorization !== undefined;
        return rpcError(
          res,
          401,
          REFUSED,
          sent
            ? 'wrong bearer token: send the token agent-seer serve printed'
            : 'missing bearer token: send "Authorization: Bearer <token>" with the token agent-seer serve printed',
          {
            'www-authenticate': sent ? 'Bearer realm="agent-seer", error="invalid_token", error_description="wrong bearer token"' : 'Bearer realm="agent-seer"',
          },
        );
      }
      const path = /^\/mcp(?:\/([^/]+)(?:\/([^/]+))?)?\/?$/.exec(new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
      if (!path) return rpcError(res, 404, REFUSED, 'not found: the MCP endpoint is /mcp (or /mcp/<scenario id>, /mcp/<scenario id>/<run>)');
      let bound: string | undefined;
      let runName: string | undefined;
      try {
        bound = path[1] === undefined ? undefined : decodeURIComponent(path[1]);
        runName = path[2] === undefined ? undefined : decodeURIComponent(path[2]);
      } catch {
        return rpcError(res, 404, REFUSED, 'not found: the scenario id in the URL is not valid percent-encoding');
      }
      const header = req.headers[SCENARIO_HEADER.toLowerCase()];
      if (Array.isArray(header)) return rpcError(res, 400, REFUSED, `one ${SCENARIO_HEADER} header, please`);
      if (header !== undefined && bound !== undefined && header !== bound)
        return rpcError(res, 400, REFUSED, `the URL names scenario ${bound} and the ${SCENARIO_HEADER} header ${header}`);
      bound ??= header;
      if (bound !== undefined) {
        try {
          this.scenario(bound);
        } catch (e) {
          return rpcError(res, 404, REFUSED, (e as Error).message);
        }
      }
      const id = req.headers['mcp-session-id'];
      if (id !== undefined) {
        const s = typeof id === 'string' ? sessions.get(id) : undefined;
        // 404 is the spec's signal to start a new session with initialize.
        if (!s) return rpcError(res, 404, -32001, 'session expired or unknown: start a new session with initialize');
        if (bound !== undefined && bound !== s.session.replay.record.id)
          return rpcError(res, 400, REFUSED, `this session serves scenario ${s.session.replay.record.id}, not ${bound}`);
        track(id as string, s, res);
        return s.transport.handleRequest(req, res);
      }
      if (req.method === 'GET')
        return rpcError(res, 405, REFUSED, 'no session: a GET stream needs an Mcp-Session-Id; open a session with an initialize POST first', { allow: 'POST' });
      if (req.method === 'DELETE') return rpcError(res, 400, REFUSED, 'no session to end: the request has no Mcp-Session-Id');
      if (req.method !== 'POST') return rpcError(res, 405, REFUSED, `method ${req.method ?? ''} not allowed`, { allow: 'GET, POST, DELETE' });
      let body: unknown;
      try {
        body = JSON.parse(await readBody(req));
      } catch (e) {
        if (e instanceof BodyTooLarge) return rpcError(res, 413, REFUSED, `request body over ${MAX_BODY} bytes`);
        return rpcError(res, 400, ErrorCode.ParseError, 'parse error: the body is not JSON');
      }
      if (!isInitializeRequest(body)) {
        const method = typeof body === 'object' && body !== null && 'method' in body ? String(body.method) : undefined;
        return rpcError(
          res,
          400,
          REFUSED,
          `no session: ${method ? `"${method}"` : 'this request'} needs an Mcp-Session-Id; only an initialize request opens a session (and takes a scenario)`,
        );
      }
      let picked: { record: HarnessRecord; queued: boolean };
      try {
        picked = this.pick(bound);
      } catch (e) {
        if (e instanceof MockServerError) return rpcError(res, e.status, REFUSED, e.message);
        throw e;
      }
      const runKey = runName === undefined ? undefined : `${picked.record.id}\u241f${runName}`;
      const earlier = runKey === undefined ? undefined : runs.get(runKey);
      // A finished run is not continued: the same URL starts the scenario's next run.
      const continued = earlier && !earlier.replay.done ? earlier : undefined;
      const session = this.open(picked.record, continued);
      let opened = false;
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomBytes(16).toString('hex'),
        onsessioninitialized: (sid) => {
          opened = true;
          sessions.set(sid, entry);
          if (runKey !== undefined) {
            const shared = continued ?? { replay: session.replay, trajectory: session.trajectory, open: 0 };
            if (earlier && earlier !== shared) clearTimeout(earlier.timer);
            clearTimeout(shared.timer);
            shared.open++;
            runs.set(runKey, shared);
            entry.run = { key: runKey, shared };
          }
          this.announce(picked.record);
        },
      });
      const entry: HttpSession = { transport, session, inFlight: 0 };
      transport.onclose = () => {
        clearTimeout(entry.timer);
        if (transport.sessionId && sessions.get(transport.sessionId) === entry) sessions.delete(transport.sessionId);
        const run = entry.run;
        if (run && --run.shared.open === 0 && runs.get(run.key) === run.shared)
          run.shared.timer = setTimeout(() => {
            if (runs.get(run.key) === run.shared) runs.delete(run.key);
          }, idleMs).unref();
        entry.run = undefined;
      };
      await session.server.connect(transport);
      track(undefined, entry, res);
      try {
        await transport.handleRequest(req, res, body);
      } finally {
        // Refused by the transport (a wrong Accept or content type): the scenario was not served.
        if (!opened) {
          if (picked.queued) this.giveBack(picked.record);
          await transport.close().catch(() => undefined);
        }
      }
    };
    const http: HttpServer = createServer((req, res) => {
      handle(req, res).catch((e: unknown) => {
        if (!res.headersSent) rpcError(res, 500, ErrorCode.InternalError, e instanceof Error ? e.message : String(e));
      });
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(port, '127.0.0.1', () => resolve());
    });
    const { port: bound } = http.address() as AddressInfo;
    hosts = new Set([`127.0.0.1:${bound}`, `localhost:${bound}`, `[::1]:${bound}`]);
    return {
      url: `http://127.0.0.1:${bound}/mcp`,
      token,
      openSessions: () => sessions.size,
      openRuns: () => runs.size,
      close: async () => {
        const open = [...sessions.values()];
        sessions.clear();
        for (const r of runs.values()) clearTimeout(r.timer);
        runs.clear();
        await Promise.all(
          open.map((s) => {
            clearTimeout(s.timer);
            return s.transport.close().catch(() => undefined);
          }),
        );
        await new Promise<void>((r) => http.close(() => r()));
      },
    };
  }
}

class BodyTooLarge extends Error {}

/** The request body as text, refusing more than {@link MAX_BODY} bytes. */
async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
