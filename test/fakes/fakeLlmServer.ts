/**
 * The machinery shared by the fake Gemini and OpenAI servers: a real HTTP server on 127.0.0.1
 * that answers each request from a scripted queue (or a function of the request), records what
 * it received in a dialect-neutral shape, and measures how many requests were in flight at once.
 * Real client libraries are pointed at it, so tests exercise the real wire protocol.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Token counts a scripted reply reports; unset fields are estimated from text length (chars / 4). */
export interface FakeUsage {
  input?: number;
  output?: number;
}

/** How the fake answers one request. */
export type FakeReply =
  /** A successful reply whose model text is `JSON.stringify(json)`. */
  | { json: unknown; usage?: FakeUsage; finishReason?: string; delayMs?: number }
  /** A successful reply with this exact model text (e.g. `'not json'`, or JSON in a code fence). */
  | { text: string; usage?: FakeUsage; finishReason?: string; delayMs?: number }
  /** Same as `text` (the model's raw reply). */
  | { raw: string; usage?: FakeUsage; finishReason?: string; delayMs?: number }
  /**
   * An HTTP error in the dialect's error shape. `retryAfter` sets the `Retry-After` header
   * (seconds, or an HTTP date string); `body` replaces the default error body.
   */
  | { status: number; message?: string; retryAfter?: number | string; body?: unknown; headers?: Record<string, string>; delayMs?: number }
  /** Never answer (until the client gives up or the fake closes). */
  | { hang: true }
  /** Cut the connection without an answer (a network error for the client). */
  | { drop: true }
  /** A raw HTTP answer, for wire-level junk (a 200 whose body is not the API's JSON). */
  | { httpBody: string; status?: number; contentType?: string; delayMs?: number };

/** A request as the fake saw it, normalised across dialects. */
export interface FakeRequest {
  /** 0-based arrival order. */
  index: number;
  method: string;
  /** Path and query, e.g. `/v1beta/models/gemini-2.5-flash-lite:generateContent`. */
  path: string;
  headers: IncomingMessage['headers'];
  /** The body as sent. */
  rawBody: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- wire JSON, asserted by tests
  /** `Date.now()` when the request arrived. */
  receivedAt: number;
  /** The batch job that carried this request as one of its items; absent for a synchronous call. */
  viaBatch?: string;
  /** sha256 of the body as sent: equal for a request sent again (a repeated call). Set by the server. */
  contentHash?: string;
  /** `Date.now()` when the whole answer was handed to the socket; absent while pending or when dropped. */
  answeredAt?: number;
  /** Model named by the request (path for Gemini, body for OpenAI). */
  model: string | undefined;
  /** System instructions, if any. */
  system: string | undefined;
  /** Conversation turns (system excluded), roles mapped to user/assistant. */
  messages: { role: 'user' | 'assistant'; content: string }[];
  /** Text of the last user turn. */
  lastUserText: string;
  temperature: number | undefined;
  /** The structured-output JSON Schema sent, if any. */
  jsonSchema: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- wire JSON, asserted by tests
  /** The API key the client sent (fake keys only in tests). */
  apiKey: string | undefined;
}

/** A script entry: a reply, or a function of the request that returns one. */
export type FakeScript = FakeReply | ((request: FakeRequest) => FakeReply | Promise<FakeReply>);

/** A running fake server. */
export interface FakeLlmServer {
  /** Base URL to give the client (Gemini: the origin; OpenAI: origin + `/v1`). */
  readonly url: string;
  /** The origin, `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** Every request received, in order. */
  readonly requests: FakeRequest[];
  /** Requests that found nothing scripted (answered with a 500 naming the problem). */
  readonly unscripted: number;
  /** Requests being handled right now. */
  readonly inFlight: number;
  /** The most requests ever in flight at once. */
  readonly maxInFlight: number;
  /** Scripted replies not yet used. */
  readonly pending: number;
  /** Adds replies to the queue, used one per request in order. */
  enqueue(...replies: FakeScript[]): FakeLlmServer;
  /** The answer when the queue is empty (a reply or a function of the request). */
  respondWith(script: FakeScript | undefined): FakeLlmServer;
  /** Forgets requests, counters, queue and fallback. */
  reset(): void;
  /** Stops the server, cutting hung connections. */
  close(): Promise<void>;
  /**
   * Answers one item of a batch job the way a synchronous call with the same body would be
   * answered (same queue, same fallback, same usage estimate), and records it with `viaBatch`.
   * A `hang` or `drop` reply becomes a 500 item error; `delayMs` is ignored (the job's own
   * timing governs). Batch fakes (`fakeOpenAIBatch.ts`, `fakeGeminiBatch.ts`) call this.
   */
  answerItem(item: { body: any; model: string | undefined; path: string; job: string }): Promise<FakeItemAnswer>; // eslint-disable-line @typescript-eslint/no-explicit-any -- wire JSON
}

/** A batch item's answer: the HTTP status and body a synchronous call would have got. */
export interface FakeItemAnswer {
  status: number;
  body: unknown;
  request: FakeRequest;
}

/**
 * Extra routes on the same server (the batch APIs share the client's base URL). Return true when
 * the request was answered; false lets the dialect's chat route try it.
 */
export type FakeExtraRoutes = (ctx: {
  method: string;
  /** Path and query. */
  path: string;
  rawBody: Buffer;
  headers: IncomingMessage['headers'];
  res: ServerResponse;
  fake: FakeLlmServer;
}) => Promise<boolean>;

/** What differs between APIs. */
export interface FakeDialect {
  /** Path prefix clients include in the base URL (`''` or `'/v1'`). */
  basePath: string;
  /** The model named by a request to `path`, or undefined when the path is not this API's. */
  route(method: string, path: string, body: any): { model: string | undefined } | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any -- wire JSON, asserted by tests
  /** Normalised fields of a request. */
  normalise(body: any, headers: IncomingMessage['headers']): Pick<FakeRequest, 'system' | 'messages' | 'temperature' | 'jsonSchema' | 'apiKey'>; // eslint-disable-line @typescript-eslint/no-explicit-any -- wire JSON, asserted by tests
  /** The error to answer when the key is wrong, or undefined when it is accepted. */
  checkKey(apiKey: string | undefined, expected: string | undefined): { status: number; body: unknown } | undefined;
  successBody(text: string, usage: { input: number; output: number }, finishReason: string | undefined, request: FakeRequest): unknown;
  errorBody(status: number, message: string): unknown;
}

/** Starts a fake speaking `dialect` on 127.0.0.1 (a free port). */
export async function startFakeLlmServer(dialect: FakeDialect, options: { apiKey?: string; extraRoutes?: FakeExtraRoutes } = {}): Promise<FakeLlmServer> {
  const requests: FakeRequest[] = [];
  let queue: FakeScript[] = [];
  let fallback: FakeScript | undefined;
  let inFlight = 0;
  let maxInFlight = 0;
  let unscripted = 0;

  const server = createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    void handle(req, res).catch((e: unknown) => {
      if (!res.headersSent && !res.destroyed) send(res, 500, { error: { message: `fake server error: ${String(e)}` } });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const bytes = Buffer.concat(chunks);
    if (
      options.extraRoutes &&
      (await options.extraRoutes({ method: req.method ?? 'GET', path: req.url ?? '/', rawBody: bytes, headers: req.headers, res, fake }))
    )
      return;
    const rawBody = bytes.toString('utf8');
    let body: unknown;
    try {
      body = rawBody === '' ? undefined : JSON.parse(rawBody);
    } catch {
      body = undefined;
    }
    const path = req.url ?? '/';
    const route = dialect.route(req.method ?? 'GET', path, body);
    if (!route) {
      send(res, 404, dialect.errorBody(404, `fake: no route for ${req.method} ${path}`));
      return;
    }
    const fields = dialect.normalise(body, req.headers);
    const lastUser = [...fields.messages].reverse().find((m) => m.role === 'user');
    const request: FakeRequest = {
      index: requests.length,
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      rawBody,
      body,
      receivedAt: Date.now(),
      contentHash: createHash('sha256').update(rawBody).digest('hex'),
      model: route.model,
      lastUserText: lastUser?.content ?? '',
      ...fields,
    };
    requests.push(request);
    res.on('finish', () => (request.answeredAt = Date.now()));

    const keyError = dialect.checkKey(request.apiKey, options.apiKey);
    if (keyError) {
      send(res, keyError.status, keyError.body);
      return;
    }
    const script = queue.shift() ?? fallback;
    if (script === undefined) {
      unscripted++;
      send(res, 500, dialect.errorBody(500, `fake: no reply scripted for request #${request.index}`));
      return;
    }
    const reply = typeof script === 'function' ? await script(request) : script;
    if ('hang' in reply) return; // res stays open; closed when the client aborts or the fake closes
    if ('drop' in reply) {
      req.socket.destroy();
      return;
    }
    if ('delayMs' in reply && reply.delayMs) {
      await new Promise((r) => setTimeout(r, reply.delayMs));
      if (res.destroyed) return;
    }
    if ('httpBody' in reply) {
      res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'application/json' });
      res.end(reply.httpBody);
      return;
    }
    if ('status' in reply) {
      const headers: Record<string, string> = { ...reply.headers };
      if (reply.retryAfter !== undefined) headers['retry-after'] = String(reply.retryAfter);
      send(res, reply.status, reply.body ?? dialect.errorBody(reply.status, reply.message ?? `fake error ${reply.status}`), headers);
      return;
    }
    const text = 'json' in reply ? JSON.stringify(reply.json) : 'text' in reply ? reply.text : reply.raw;
    const usage = {
      input: reply.usage?.input ?? Math.ceil(rawBody.length / 4),
      output: reply.usage?.output ?? Math.ceil(text.length / 4),
    };
    send(res, 200, dialect.successBody(text, usage, reply.finishReason, request));
  }

  /** A batch item, answered by the script like a synchronous call with the same body. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON
  async function answerItem(item: { body: any; model: string | undefined; path: string; job: string }): Promise<FakeItemAnswer> {
    const rawBody = JSON.stringify(item.body);
    const fields = dialect.normalise(item.body, {});
    const lastUser = [...fields.messages].reverse().find((m) => m.role === 'user');
    const request: FakeRequest = {
      index: requests.length,
      method: 'POST',
      path: item.path,
      headers: {},
      rawBody,
      body: item.body,
      receivedAt: Date.now(),
      viaBatch: item.job,
      contentHash: createHash('sha256').update(rawBody).digest('hex'),
      model: item.model,
      lastUserText: lastUser?.content ?? '',
      ...fields,
    };
    requests.push(request);
    const script = queue.shift() ?? fallback;
    if (script === undefined) {
      unscripted++;
      return { status: 500, body: dialect.errorBody(500, `fake: no reply scripted for request #${request.index}`), request };
    }
    const reply = typeof script === 'function' ? await script(request) : script;
    request.answeredAt = Date.now();
    if ('hang' in reply || 'drop' in reply) return { status: 500, body: dialect.errorBody(500, 'fake: the item was lost'), request };
    if ('httpBody' in reply) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(reply.httpBody);
      } catch {
        parsed = reply.httpBody;
      }
      return { status: reply.status ?? 200, body: parsed, request };
    }
    if ('status' in reply)
      return { status: reply.status, body: reply.body ?? dialect.errorBody(reply.status, reply.message ?? `fake error ${reply.status}`), request };
    const text = 'json' in reply ? JSON.stringify(reply.json) : 'text' in reply ? reply.text : reply.raw;
    const usage = { input: reply.usage?.input ?? Math.ceil(rawBody.length / 4), output: reply.usage?.output ?? Math.ceil(text.length / 4) };
    return { status: 200, body: dialect.successBody(text, usage, reply.finishReason, request), request };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  const fake: FakeLlmServer = {
    url: origin + dialect.basePath,
    origin,
    requests,
    get unscripted() {
      return unscripted;
    },
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    get pending() {
      return queue.length;
    },
    enqueue(...replies) {
      queue.push(...replies);
      return fake;
    },
    respondWith(script) {
      fallback = script;
      return fake;
    },
    reset() {
      requests.length = 0;
      queue = [];
      fallback = undefined;
      maxInFlight = inFlight;
      unscripted = 0;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
    answerItem,
  };
  return fake;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
