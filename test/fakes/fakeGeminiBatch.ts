/**
 * A fake Gemini Batch API on the same port as the fake generateContent route (the real client has
 * one base URL), speaking the wire the `@google/genai` SDK uses:
 *
 * - `POST /{v}/models/{model}:batchGenerateContent`: body `{batch:{displayName, inputConfig:
 *   {requests:{requests:[{request, metadata}]}} | {fileName}}}`; answers a long-running Operation
 *   (`{name:'batches/…', metadata:{displayName, state, model, batchStats, output}}`), the shape the
 *   SDK's `batchJobFromMldev` reads;
 * - `GET /{v}/batches/{id}`, `GET /{v}/batches?pageSize&pageToken` (`{operations, nextPageToken}`),
 *   `POST /{v}/batches/{id}:cancel`;
 * - the Files API's resumable upload (`POST /upload/{v}/files` with `X-Goog-Upload-Protocol:
 *   resumable` answers an `x-goog-upload-url`; the bytes go there with `X-Goog-Upload-Command:
 *   upload, finalize`), and the download the SDK asks for (`GET /{v}/files/{id}:download?alt=media`,
 *   or `/download/{v}/…` as Google's REST docs write it).
 *
 * Each item is answered through `fake.answerItem`, so by the same queue, fallback and usage
 * estimate a synchronous call with that body would meet, and recorded with `viaBatch`. Jobs go
 * PENDING → RUNNING → SUCCEEDED on successive GETs (or only on `batch.advance()`), and a job may be
 * scripted to fail, expire with some items answered, or keep some items when cancelled.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { geminiErrorBody, geminiKeyError, startFakeGemini } from './fakeGemini';
import type { FakeLlmServer } from './fakeLlmServer';

/** The Gemini API's batch states (the SDK maps them to `JOB_STATE_*`). */
export type FakeBatchState =
  'BATCH_STATE_PENDING' | 'BATCH_STATE_RUNNING' | 'BATCH_STATE_SUCCEEDED' | 'BATCH_STATE_FAILED' | 'BATCH_STATE_CANCELLED' | 'BATCH_STATE_EXPIRED';

/** How a scripted job ends instead of succeeding. */
export interface FakeJobFault {
  /** `failed`: no results, the Operation's `error` says `message`; `expired`: ends with `answered` items answered. */
  endAs?: 'failed' | 'expired';
  /** Items answered (in input order) when the job expires or is cancelled. Default 0. */
  answered?: number;
  /** The job error's text for `failed`. */
  message?: string;
}

/** One job as the fake keeps it. */
export interface FakeGeminiJob {
  /** `batches/<id>`. */
  name: string;
  displayName: string;
  /** The model from the URL, without `models/`. */
  model: string;
  state: FakeBatchState;
  source: 'inline' | 'file';
  /** The input file's name (`files/…`) for a file job. */
  inputFile?: string;
  /** The items in input order: the key (`metadata.key` or the JSONL line's `key`) and the request as sent. */
  items: { key: string | undefined; request: Record<string, unknown> }[];
  /** Answers given so far, in input order. */
  answers: { key: string | undefined; status: number; body: unknown }[];
  /** The results file of a file job that ended. */
  responsesFile?: string;
  /** GETs of this job so far. */
  polls: number;
  fault?: FakeJobFault;
  error?: { code: number; message: string };
}

/** The batch endpoints, for scripted HTTP faults. */
export type FakeBatchRoute = 'create' | 'get' | 'list' | 'cancel' | 'upload' | 'download';

/** A scripted HTTP answer on a batch endpoint. */
export interface FakeRouteFault {
  status: number;
  message?: string;
  /** `Retry-After` header (seconds). */
  retryAfter?: number;
  body?: unknown;
}

/** Options of {@link startFakeGeminiBatch}. */
export interface FakeGeminiBatchOptions {
  /** The key the fake accepts; requests with another key get the real API's 400 `API_KEY_INVALID`. */
  apiKey?: string;
  /** GETs a job answers PENDING before it runs. Default 1. */
  pendingPolls?: number;
  /** GETs a job answers RUNNING before it ends. Default 1. */
  runningPolls?: number;
  /** Jobs move only on `batch.advance()`. */
  manual?: boolean;
  /** Largest inline `batchGenerateContent` body accepted, in bytes (Google: 20 MB); a larger one gets a 400. */
  inlineLimitBytes?: number;
  /** Jobs per page of the list when the client names no `pageSize`. Default 2, so finding a job pages. */
  pageSize?: number;
  /** Inline responses without `metadata` (matched by order only). */
  omitInlineKeys?: boolean;
}

/** The control and record of the batch side of the fake. */
export interface FakeGeminiBatch {
  readonly jobs: FakeGeminiJob[];
  /** Uploaded and result files by name (`files/…`). */
  readonly files: Map<string, { mimeType: string; displayName: string | undefined; content: string }>;
  /** Every request to a batch or file endpoint, in order (the chat route records its own in `fake.requests`). */
  readonly calls: { route: FakeBatchRoute | 'upload-bytes'; method: string; path: string; headers: IncomingMessage['headers']; body: any }[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- wire JSON, asserted by tests
  /** The job named `name` (`batches/…`). */
  job(name: string): FakeGeminiJob;
  /** Answers the next calls to `route` with these HTTP errors, one per call. */
  failRoute(route: FakeBatchRoute, ...faults: FakeRouteFault[]): void;
  /** Scripts how the next created job ends. */
  scriptNextJob(fault: FakeJobFault): void;
  /** Moves one job (or every job not ended) one state on: PENDING → RUNNING → ended. */
  advance(name?: string): Promise<void>;
  /** Synchronous generateContent calls the fake answered. */
  readonly syncCalls: number;
  /** Batch items the fake answered. */
  readonly batchItems: number;
}

/** A fake Gemini with the batch API. */
export type FakeGeminiBatchServer = FakeLlmServer & { batch: FakeGeminiBatch };

const ENDED: readonly FakeBatchState[] = ['BATCH_STATE_SUCCEEDED', 'BATCH_STATE_FAILED', 'BATCH_STATE_CANCELLED', 'BATCH_STATE_EXPIRED'];

/** Starts a fake Gemini (generateContent and the batch API) on 127.0.0.1. */
export async function startFakeGeminiBatch(options: FakeGeminiBatchOptions = {}): Promise<FakeGeminiBatchServer> {
  const pendingPolls = options.pendingPolls ?? 1;
  const runningPolls = options.runningPolls ?? 1;
  const inlineLimit = options.inlineLimitBytes ?? 20 * 1024 * 1024;
  const jobs: FakeGeminiJob[] = [];
  const files = new Map<string, { mimeType: string; displayName: string | undefined; content: string }>();
  const uploads = new Map<string, { mimeType: string; displayName: string | undefined; bytes: Buffer[] }>();
  const calls: FakeGeminiBatch['calls'] = [];
  const routeFaults = new Map<FakeBatchRoute, FakeRouteFault[]>();
  let nextFault: FakeJobFault | undefined;
  let ids = 0;
  async function finish(job: FakeGeminiJob, state: FakeBatchState, answered: number): Promise<void> {
    for (const item of job.items.slice(0, answered)) {
      const { model: _model, ...body } = item.request; // an inline request names its model; a synchronous body does not
      const answer = await server.answerItem({ body, model: job.model, path: `/v1beta/models/${job.model}:generateContent`, job: job.name });
      job.answers.push({ key: item.key, status: answer.status, body: answer.body });
    }
    if (job.source === 'file' && state !== 'BATCH_STATE_FAILED') {
      const name = `files/out-${++ids}`;
      files.set(name, { mimeType: 'application/jsonl', displayName: undefined, content: job.answers.map((a) => JSON.stringify(fileLine(a)) + '\n').join('') });
      job.responsesFile = name;
    }
    job.state = state;
  }

  async function step(job: FakeGeminiJob): Promise<void> {
    if (job.state === 'BATCH_STATE_PENDING') job.state = 'BATCH_STATE_RUNNING';
    else if (job.state === 'BATCH_STATE_RUNNING') {
      const fault = job.fault;
      if (fault?.endAs === 'failed') {
        job.error = { code: 13, message: fault.message ?? 'fake: the batch failed' };
        await finish(job, 'BATCH_STATE_FAILED', 0);
      } else if (fault?.endAs === 'expired') await finish(job, 'BATCH_STATE_EXPIRED', fault.answered ?? 0);
      else await finish(job, 'BATCH_STATE_SUCCEEDED', job.items.length);
    }
  }

  function operation(job: FakeGeminiJob): unknown {
    const ended = ENDED.includes(job.state);
    const failed = job.answers.filter((a) => a.status !== 200).length;
    const output = !ended
      ? undefined
      : job.source === 'file'
        ? job.responsesFile && { responsesFile: job.responsesFile }
        : { inlinedResponses: { inlinedResponses: job.answers.map((a) => inlineResponse(a, options.omitInlineKeys === true)) } };
    return {
      name: job.name,
      metadata: {
        '@type': 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch',
        model: `models/${job.model}`,
        displayName: job.displayName,
        state: job.state,
        // The job's input as created (inline requests with their keys), as the API's GenerateContentBatch keeps it.
        inputConfig:
          job.source === 'file'
            ? { fileName: job.inputFile }
            : { requests: { requests: job.items.map((i) => ({ request: i.request, metadata: { key: i.key } })) } },
        createTime: '2026-12-02T00:00:00Z',
        updateTime: '2026-12-02T00:00:00Z',
        // int64 fields travel as strings in Google's JSON.
        batchStats: {
          requestCount: String(job.items.length),
          successfulRequestCount: String(job.answers.length - failed),
          failedRequestCount: String(failed),
          pendingRequestCount: String(ended ? 0 : job.items.length),
        },
        ...(output ? { output } : {}),
      },
      ...(ended ? { done: true } : {}),
      ...(job.error ? { error: job.error } : {}),
    };
  }

  const routes = async (ctx: { method: string; path: string; rawBody: Buffer; headers: IncomingMessage['headers']; res: ServerResponse }): Promise<boolean> => {
    const { method, headers, res } = ctx;
    const url = new URL(ctx.path, 'http://fake');
    const path = url.pathname;
    const create = method === 'POST' ? /^\/(v1beta|v1|v1alpha)\/models\/([^/:]+):batchGenerateContent$/.exec(path) : null;
    const getJob = method === 'GET' ? /^\/(v1beta|v1|v1alpha)\/batches\/([^/:]+)$/.exec(path) : null;
    const list = method === 'GET' && /^\/(v1beta|v1|v1alpha)\/batches$/.test(path);
    const cancel = method === 'POST' ? /^\/(v1beta|v1|v1alpha)\/batches\/([^/:]+):cancel$/.exec(path) : null;
    const uploadStart = method === 'POST' && /^\/upload\/(v1beta|v1|v1alpha)\/files$/.test(path) && !url.searchParams.has('upload_id');
    const uploadBytes = method === 'POST' && /^\/upload\/(v1beta|v1|v1alpha)\/files$/.test(path) && url.searchParams.has('upload_id');
    const download = method === 'GET' ? /^(?:\/download)?\/(v1beta|v1|v1alpha)\/files\/([^/:]+):download$/.exec(path) : null;
    const route: FakeBatchRoute | 'upload-bytes' | undefined = create
      ? 'create'
      : getJob
        ? 'get'
        : list
          ? 'list'
          : cancel
            ? 'cancel'
            : uploadStart
              ? 'upload'
              : uploadBytes
                ? 'upload-bytes'
                : download
                  ? 'download'
                  : undefined;
    if (route === undefined) return false;
    let body: unknown;
    if (route !== 'upload-bytes') {
      try {
        body = ctx.rawBody.length ? JSON.parse(ctx.rawBody.toString('utf8')) : undefined;
      } catch {
        body = undefined;
      }
    }
    calls.push({ route, method, path: ctx.path, headers, body });

    const key = headers['x-goog-api-key'];
    const keyError = geminiKeyError(typeof key === 'string' ? key : undefined, options.apiKey);
    if (keyError) return sendJson(res, keyError.status, keyError.body);
    const fault = route !== 'upload-bytes' ? routeFaults.get(route)?.shift() : undefined;
    if (fault) {
      return sendJson(
        res,
        fault.status,
        fault.body ?? geminiErrorBody(fault.status, fault.message ?? `fake: ${route} failed`),
        fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {},
      );
    }

    if (create) {
      const model = decodeURIComponent(create[2] ?? '');
      const batch = (body as { batch?: { displayName?: string; inputConfig?: { fileName?: string; requests?: { requests?: unknown[] } } } } | undefined)?.batch;
      const input = batch?.inputConfig;
      let items: FakeGeminiJob['items'];
      let source: FakeGeminiJob['source'];
      if (input?.fileName !== undefined) {
        const file = files.get(input.fileName);
        if (!file) return sendJson(res, 404, geminiErrorBody(404, `File ${input.fileName} not found.`));
        source = 'file';
        items = file.content
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => JSON.parse(l) as { key?: string; request: Record<string, unknown> })
          .map((l) => ({ key: l.key, request: l.request }));
      } else if (Array.isArray(input?.requests?.requests)) {
        if (ctx.rawBody.length > inlineLimit) return sendJson(res, 400, geminiErrorBody(400, `Request payload size exceeds the limit: ${inlineLimit} bytes.`));
        source = 'inline';
        items = (input.requests.requests as { request: Record<string, unknown>; metadata?: { key?: string } }[]).map((r) => ({
          key: r.metadata?.key,
          request: r.request,
        }));
      } else return sendJson(res, 400, geminiErrorBody(400, 'fake: the batch names neither requests nor a file'));
      const job: FakeGeminiJob = {
        name: `batches/fake${++ids}`,
        displayName: batch?.displayName ?? '',
        model,
        state: 'BATCH_STATE_PENDING',
        source,
        ...(input?.fileName !== undefined ? { inputFile: input.fileName } : {}),
        items,
        answers: [],
        polls: 0,
        ...(nextFault ? { fault: nextFault } : {}),
      };
      nextFault = undefined;
      jobs.push(job);
      return sendJson(res, 200, operation(job));
    }
    if (getJob) {
      const job = jobs.find((j) => j.name === `batches/${getJob[2]}`);
      if (!job) return sendJson(res, 404, geminiErrorBody(404, `Batch ${getJob[2]} not found.`));
      job.polls++;
      if (!options.manual && !ENDED.includes(job.state)) {
        if (job.state === 'BATCH_STATE_PENDING' && job.polls > pendingPolls) await step(job);
        if (job.state === 'BATCH_STATE_RUNNING' && job.polls > pendingPolls + runningPolls) await step(job);
      }
      return sendJson(res, 200, operation(job));
    }
    if (list) {
      const size = Number(url.searchParams.get('pageSize') ?? options.pageSize ?? 2);
      const start = Number(url.searchParams.get('pageToken') ?? 0);
      const newestFirst = [...jobs].reverse();
      const page = newestFirst.slice(start, start + size);
      const more = start + size < newestFirst.length;
      return sendJson(res, 200, { operations: page.map(operation), ...(more ? { nextPageToken: String(start + size) } : {}) });
    }
    if (cancel) {
      const job = jobs.find((j) => j.name === `batches/${cancel[2]}`);
      if (!job) return sendJson(res, 404, geminiErrorBody(404, `Batch ${cancel[2]} not found.`));
      if (!ENDED.includes(job.state)) await finish(job, 'BATCH_STATE_CANCELLED', job.fault?.answered ?? 0);
      return sendJson(res, 200, {});
    }
    if (uploadStart) {
      const id = `up${++ids}`;
      const file = (body as { file?: { mimeType?: string; displayName?: string } } | undefined)?.file;
      uploads.set(id, {
        mimeType: file?.mimeType ?? String(headers['x-goog-upload-header-content-type'] ?? ''),
        displayName: file?.displayName,
        bytes: [],
      });
      return sendJson(res, 200, {}, { 'x-goog-upload-url': `${server.origin}/upload/v1beta/files?upload_id=${id}&upload_protocol=resumable` });
    }
    if (uploadBytes) {
      const id = url.searchParams.get('upload_id') ?? '';
      const upload = uploads.get(id);
      if (!upload) return sendJson(res, 404, geminiErrorBody(404, 'fake: unknown upload'));
      upload.bytes.push(ctx.rawBody);
      const command = String(headers['x-goog-upload-command'] ?? '');
      if (!command.includes('finalize')) return sendJson(res, 200, {}, { 'x-goog-upload-status': 'active' });
      const name = `files/in-${++ids}`;
      const content = Buffer.concat(upload.bytes).toString('utf8');
      files.set(name, { mimeType: upload.mimeType, displayName: upload.displayName, content });
      uploads.delete(id);
      const file = { name, mimeType: upload.mimeType, sizeBytes: String(Buffer.byteLength(content)), state: 'ACTIVE', uri: `${server.origin}/v1beta/${name}` };
      return sendJson(res, 200, { file }, { 'x-goog-upload-status': 'final' });
    }
    if (download) {
      const file = files.get(`files/${download[2]}`);
      if (!file) return sendJson(res, 404, geminiErrorBody(404, `File files/${download[2]} not found.`));
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': Buffer.byteLength(file.content) });
      res.end(file.content);
      return true;
    }
    return false;
  };

  // The routes above use `server`; they only run once it is up.
  const server = await startFakeGemini({ apiKey: options.apiKey, extraRoutes: routes });
  const batch: FakeGeminiBatch = {
    jobs,
    files,
    calls,
    job(name) {
      const job = jobs.find((j) => j.name === name);
      if (!job) throw new Error(`fake: no job ${name}`);
      return job;
    },
    failRoute(route, ...faults) {
      routeFaults.set(route, [...(routeFaults.get(route) ?? []), ...faults]);
    },
    scriptNextJob(fault) {
      nextFault = fault;
    },
    async advance(name) {
      for (const job of name === undefined ? jobs : [batch.job(name)]) await step(job);
    },
    get syncCalls() {
      return server.requests.filter((r) => r.viaBatch === undefined).length;
    },
    get batchItems() {
      return server.requests.filter((r) => r.viaBatch !== undefined).length;
    },
  };
  return Object.assign(server, { batch });
}

/** A results-file line: `{key, response}` or `{key, error}` (a `google.rpc.Status`). */
function fileLine(a: { key: string | undefined; status: number; body: unknown }): unknown {
  return a.status === 200 ? { key: a.key, response: a.body } : { key: a.key, error: statusOf(a) };
}

function inlineResponse(a: { key: string | undefined; status: number; body: unknown }, omitKey: boolean): unknown {
  return { ...(a.status === 200 ? { response: a.body } : { error: statusOf(a) }), ...(omitKey ? {} : { metadata: { key: a.key } }) };
}

function statusOf(a: { status: number; body: unknown }): unknown {
  return (a.body as { error?: unknown } | undefined)?.error ?? { code: a.status, message: `fake error ${a.status}` };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): true {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
  return true;
}
