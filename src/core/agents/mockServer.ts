/**
 * A harness served as an MCP server (`agent-seer serve`): `tools/list` returns the spec's tools
 * exactly as snapshotted, and each `tools/call` is answered from the scenario's mock outputs
 * when it is a call the oracle expects now (`ScenarioReplay`), or refused with an MCP tool error
 * (`isError: true`) that says only what a server would say of its own input, never what was
 * expected. Every call is appended to the scenario's trajectory file as it happens.
 *
 * Scenarios: a fixed one (`scenario`), or one per MCP session in the harness's order. Over stdio
 * there is one session; over Streamable HTTP every new session takes the next scenario. HTTP binds
 * 127.0.0.1 only and requires a bearer token made at start.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
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
  /** Folder for trajectory files (`<id>.json`); none are written when absent. */
  trajectoryDir?: string;
  /**
   * The trusted folder `trajectoryDir` lies in (the harness folder): from there down no trajectory
   * is written through a link (containment.ts). Default `trajectoryDir` itself.
   */
  trajectoryRoot?: string;
  /** Who is calling, recorded in trajectories. Default `mcp-client`. */
  agent?: string;
  /**
   * Tell the agent, in each refusal, what was expected (debugging a harness by hand). Off by
   * default: an agent under test must never read an expected value (see replay.ts).
   */
  revealExpected?: boolean;
  /** Told about each session's scenario and each call (for logs; a refusal's message is its full reason). */
  onEvent?: (event: MockServerEvent) => void;
}

export type MockServerEvent =
  | { kind: 'session'; scenarioId: string; position: number; total: number }
  | { kind: 'call'; scenarioId: string; name: string; ok: boolean; message?: string }
  | { kind: 'exhausted'; total: number };

/** A session could not be given a scenario. */
export class MockServerError extends Error {
  override readonly name = 'MockServerError';
}

/** One MCP session bound to one scenario. */
export interface MockSession {
  server: Server;
  replay: ScenarioReplay;
  trajectory: Trajectory;
  /**
   * Answers a call as `tools/call` does (trajectory written first). The built-in agent uses it
   * for a call whose arguments are not a JSON object, which no MCP client can send.
   */
  answer: (name: string, args: unknown) => Promise<CallToolResult>;
}

export class HarnessMockServer {
  private next = 0;
  private readonly fixed: HarnessRecord | undefined;

  constructor(
    private readonly harness: ServedHarness,
    private readonly options: MockServerOptions = {},
  ) {
    if (!harness.records.length) throw new MockServerError('the harness has no records to serve');
    if (options.scenario !== undefined) {
      this.fixed = harness.records.find((r) => r.id === options.scenario);
      if (!this.fixed)
        throw new MockServerError(
          `no scenario "${options.scenario}" in the harness (it has ${harness.records.length}: ${harness.records
            .slice(0, 5)
            .map((r) => r.id)
            .join(', ')}${harness.records.length > 5 ? ', …' : ''})`,
        );
    }
  }

  /** Scenarios not yet handed to a session (always 1 with a fixed scenario). */
  get remaining(): number {
    return this.fixed ? 1 : this.harness.records.length - this.next;
  }

  /** A new session on the next scenario; throws {@link MockServerError} when all were served. */
  createSession(): MockSession {
    const record = this.fixed ?? this.harness.records[this.next];
    if (!record) {
      this.options.onEvent?.({ kind: 'exhausted', total: this.harness.records.length });
      throw new MockServerError(`all ${this.harness.records.length} scenarios have been served`);
    }
    if (!this.fixed) this.next++;
    const position = this.fixed ? this.harness.records.indexOf(record) + 1 : this.next;
    const total = this.harness.records.length;
    const replay = new ScenarioReplay(record, this.harness.spec, { revealExpected: this.options.revealExpected === true });
    const trajectory: Trajectory = {
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
    // The snapshot's tool objects as they are: the agent must see what the real server shows.
    server.setRequestHandler(ListToolsRequestSchema, async (): Promise<ListToolsResult> => ({ tools: this.harness.spec.tools as ListToolsResult['tools'] }));
    let writes: Promise<void> = Promise.resolve();
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
      writes = writes.then(() => this.save(trajectory));
      await writes;
      if (!reply.ok) return { isError: true, content: [{ type: 'text', text: reply.message }] };
      const output = reply.output;
      const structured =
        typeof output === 'object' && output !== null && !Array.isArray(output) ? { structuredContent: output as Record<string, unknown> } : {};
      return { content: [{ type: 'text', text: typeof output === 'string' ? output : JSON.stringify(output) }], ...structured };
    };
    server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => answer(request.params.name, request.params.arguments ?? {}));
    this.options.onEvent?.({ kind: 'session', scenarioId: record.id, position, total });
    return { server, replay, trajectory, answer };
  }

  private async save(trajectory: Trajectory): Promise<void> {
    if (!this.options.trajectoryDir) return;
    const valid = parseKeepingKeys(Trajectory, trajectory);
    const dir = this.options.trajectoryDir;
    await writeFileInside(this.options.trajectoryRoot ?? dir, join(dir, `${recordFileStem(valid.scenarioId)}.json`), stableJson(valid));
  }

  /** Connects one session to a transport (stdio, or an in-memory pair in tests). */
  async connect(transport: Transport): Promise<MockSession> {
    const session = this.createSession();
    await session.server.connect(transport);
    return session;
  }

  /**
   * Serves Streamable HTTP on 127.0.0.1:`port` (0: any free port) at `/mcp`, each request with
   * `Authorization: Bearer <token>`. Resolves once listening.
   */
  async listenHttp(port: number): Promise<{ url: string; token: string; close: () => Promise<void> }> {
    const token = randomBytes(24).toString('base64url');
    const expected = Buffer.from(`Bearer ${token}`);
    const sessions = new Map<string, StreamableHTTPServerTransport>();
    const reply = (res: ServerResponse, status: number, text: string): void => void res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
    const authorised = (req: IncomingMessage): boolean => {
      const got = Buffer.from(String(req.headers.authorization ?? ''));
      return got.length === expected.length && timingSafeEqual(got, expected);
    };
    const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      if (!authorised(req)) return reply(res, 401, 'missing or wrong bearer token');
      if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') return reply(res, 404, 'not found: the MCP endpoint is /mcp');
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? sessions.get(id) : undefined;
      if (!transport) {
        if (id !== undefined) return reply(res, 404, 'unknown session');
        if (this.remaining <= 0) return reply(res, 409, `all ${this.harness.records.length} scenarios have been served`);
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomBytes(16).toString('hex'),
          onsessioninitialized: (sid) => void sessions.set(sid, created),
        });
        created.onclose = () => {
          if (created.sessionId) sessions.delete(created.sessionId);
        };
        await this.connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res);
    };
    const http: HttpServer = createServer((req, res) => {
      handle(req, res).catch((e: unknown) => {
        if (!res.headersSent) reply(res, e instanceof MockServerError ? 409 : 500, e instanceof Error ? e.message : String(e));
      });
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(port, '127.0.0.1', () => resolve());
    });
    const { port: bound } = http.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${bound}/mcp`,
      token,
      close: async () => {
        await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
        await new Promise<void>((r) => http.close(() => r()));
      },
    };
  }
}
