/**
 * A fake of OpenAI's Batch API for the real `openai` client, on the same port as the fake
 * chat-completions route (the client has one base URL): files (`POST /v1/files` multipart,
 * `GET /v1/files/{id}/content`) and batches (`POST /v1/batches`, `GET /v1/batches/{id}`,
 * `GET /v1/batches` with `after`/`limit` paging, `POST /v1/batches/{id}/cancel`).
 *
 * Each batch item is answered by the same script, queue and fallback as a synchronous call with
 * the same body (`fake.answerItem`), so a run in batch mode gets the replies it would get in
 * synchronous mode. Jobs move validating → in_progress → finalizing → completed, one state per
 * `pollsPerState` polls of the job (or only by `batch.advance()`); scripted faults fail a job,
 * expire it with some items answered, or cancel it. Items are answered when the job ends; the
 * output file holds 2xx answers, the error file the others and requests never run, in OpenAI's
 * line shape `{id, custom_id, response: {status_code, request_id, body}, error}`.
 */
import type { ServerResponse } from 'node:http';
import { startFakeOpenAI } from './fakeOpenAI';
import type { FakeLlmServer } from './fakeLlmServer';

/** What goes wrong with a job, applied to the next jobs created in order. */
export type FakeBatchFault =
  /** The job fails validation: status `failed`, `errors.data` with the message, no output. */
  | { kind: 'fail'; message?: string }
  /** The job expires once in progress: its first `keep` items answered, the rest error lines `batch_expired`. */
  | { kind: 'expire'; keep?: number }
  /** The job is cancelled once in progress: its first `keep` items answered, the rest absent from both files. */
  | { kind: 'cancel'; keep?: number };

/** A job as the fake holds it. */
export interface FakeBatchJob {
  id: string;
  /** `metadata.agent_seer`, the engine's display name. */
  displayName: string | undefined;
  metadata: Record<string, string>;
  inputFileId: string;
  status: 'validating' | 'in_progress' | 'finalizing' | 'completed' | 'failed' | 'expired' | 'cancelling' | 'cancelled';
  /** The items' `custom_id`s, in file order. */
  customIds: string[];
  /** Polls of this job (GET /v1/batches/{id}). */
  polls: number;
  fault: FakeBatchFault | undefined;
  outputFileId?: string;
  errorFileId?: string;
  errors?: { code: string; message: string }[];
  counts: { total: number; completed: number; failed: number };
  createdAt: number;
}

/** The batch side of the fake, for tests to steer and inspect. */
export interface FakeOpenAIBatchControl {
  /** Every job created, in order. */
  readonly jobs: FakeBatchJob[];
  /** Items per job, in creation order. */
  itemsPerJob(): number[];
  /** Chat requests answered synchronously (not as batch items). */
  readonly syncCalls: number;
  /** Batch items answered. */
  readonly batchItems: number;
  /** File uploads refused, and batches refused, with a 400. */
  readonly refused: number;
  /** Faults for the next jobs created, in order. */
  faultNext(...faults: FakeBatchFault[]): void;
  /** The next `count` polls of any job are answered with this HTTP error (default 500). */
  failPolls(count: number, status?: number): void;
  /** Moves one job (default: every job that has not ended) one state on. */
  advance(jobId?: string): Promise<void>;
  /** Runs every job that has not ended to its end. */
  finishAll(): Promise<void>;
}

/** A fake OpenAI server with the Batch API. */
export type FakeOpenAIBatchServer = FakeLlmServer & { batch: FakeOpenAIBatchControl };

/** Options of {@link startFakeOpenAIBatch}. */
export interface FakeOpenAIBatchOptions {
  /** With a key, other bearer keys get 401 (chat and batch routes alike). */
  apiKey?: string;
  /** Polls a job spends in each state before it moves on; `'manual'`: only `batch.advance()` moves jobs. Default 1. */
  pollsPerState?: number | 'manual';
  /** Uploads larger than this are refused with a 400, as OpenAI refuses files over its limit. */
  maxFileBytes?: number;
  /** Batches whose file has more lines than this are refused with a 400. */
  maxLines?: number;
}

const ENDED = new Set<FakeBatchJob['status']>(['completed', 'failed', 'expired', 'cancelled']);

/** Starts the fake on 127.0.0.1; `fake.url` is the client's base URL for chat and batch calls alike. */
export async function startFakeOpenAIBatch(options: FakeOpenAIBatchOptions = {}): Promise<FakeOpenAIBatchServer> {
  const files = new Map<string, { id: string; purpose: string; filename: string; bytes: Buffer; createdAt: number }>();
  const jobs: FakeBatchJob[] = [];
  const faults: FakeBatchFault[] = [];
  let refused = 0;
  const pollFaults: number[] = [];
  let nextId = 0;
  const pollsPerState = options.pollsPerState ?? 1;

  const addFile = (purpose: string, filename: string, bytes: Buffer): string => {
    const id = `file-fake${++nextId}`;
    files.set(id, { id, purpose, filename, bytes, createdAt: Math.floor(Date.now() / 1000) });
    return id;
  };

  const batchObject = (job: FakeBatchJob): Record<string, unknown> => ({
    id: job.id,
    object: 'batch',
    endpoint: '/v1/chat/completions',
    errors: job.errors ? { object: 'list', data: job.errors.map((e) => ({ ...e, line: null, param: null })) } : null,
    input_file_id: job.inputFileId,
    completion_window: '24h',
    status: job.status,
    output_file_id: job.outputFileId ?? null,
    error_file_id: job.errorFileId ?? null,
    created_at: job.createdAt,
    request_counts: job.counts,
    metadata: job.metadata,
  });

  /** Answers the job's items (all, or the first `keep`) and writes its output and error files. */
  const finish = async (job: FakeBatchJob, status: 'completed' | 'expired' | 'cancelled', keep: number): Promise<void> => {
    const input = files.get(job.inputFileId)?.bytes.toString('utf8') ?? '';
    const lines = input.split('\n').filter((l) => l.trim() !== '');
    const output: string[] = [];
    const errors: string[] = [];
    for (const [i, text] of lines.entries()) {
      const line = JSON.parse(text) as { custom_id: string; body: { model?: string } };
      const lineId = `batch_req_${job.id}_${i}`;
      if (i >= keep) {
        if (status === 'expired') {
          errors.push(
            JSON.stringify({
              id: lineId,
              custom_id: line.custom_id,
              response: null,
              error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' },
            }),
          );
        }
        continue;
      }
      const answer = await fake.answerItem({ body: line.body, model: line.body.model, path: '/v1/chat/completions', job: job.id });
      const row = JSON.stringify({
        id: lineId,
        custom_id: line.custom_id,
        response: { status_code: answer.status, request_id: `req_${job.id}_${i}`, body: answer.body },
        error: null,
      });
      if (answer.status >= 200 && answer.status < 300) {
        output.push(row);
        job.counts.completed++;
      } else {
        errors.push(row);
        job.counts.failed++;
      }
    }
    if (output.length > 0) job.outputFileId = addFile('batch_output', `${job.id}_output.jsonl`, Buffer.from(`${output.join('\n')}\n`));
    if (errors.length > 0) job.errorFileId = addFile('batch_output', `${job.id}_error.jsonl`, Buffer.from(`${errors.join('\n')}\n`));
    job.status = status;
  };

  /** One step of a job's life. */
  const step = async (job: FakeBatchJob): Promise<void> => {
    job.polls = 0;
    const fault = job.fault;
    switch (job.status) {
      case 'validating':
        if (fault?.kind === 'fail') {
          job.status = 'failed';
          job.errors = [{ code: 'fake_failure', message: fault.message ?? 'The batch failed (scripted).' }];
        } else job.status = 'in_progress';
        return;
      case 'in_progress':
        if (fault?.kind === 'expire') await finish(job, 'expired', fault.keep ?? 0);
        else if (fault?.kind === 'cancel') job.status = 'cancelling';
        else job.status = 'finalizing';
        return;
      case 'finalizing':
        await finish(job, 'completed', job.customIds.length);
        return;
      case 'cancelling':
        await finish(job, 'cancelled', fault?.kind === 'cancel' ? (fault.keep ?? 0) : 0);
        return;
      default:
        return;
    }
  };

  const authorised = (headers: Record<string, string | string[] | undefined>, res: ServerResponse): boolean => {
    if (options.apiKey === undefined || headers.authorization === `Bearer ${options.apiKey}`) return true;
    sendJson(res, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
    return false;
  };

  const fake = await startFakeOpenAI({
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    extraRoutes: async ({ method, path, rawBody, headers, res }) => {
      const url = new URL(path, 'http://fake');
      const p = url.pathname;
      if (!/^\/v1\/(files|batches)(\/|$)/.test(p)) return false;
      if (!authorised(headers, res)) return true;

      if (method === 'POST' && p === '/v1/files') {
        const parts = parseMultipart(rawBody, String(headers['content-type'] ?? ''));
        const file = parts.find((x) => x.name === 'file');
        const purpose = parts.find((x) => x.name === 'purpose')?.data.toString('utf8') ?? '';
        if (!file) return sendJson(res, 400, invalid('No file was uploaded.'));
        if (options.maxFileBytes !== undefined && file.data.length > options.maxFileBytes) {
          refused++;
          return sendJson(res, 400, invalid(`File is too large: ${file.data.length} bytes, the limit is ${options.maxFileBytes}.`, 'file_too_large'));
        }
        const id = addFile(purpose, file.filename ?? 'upload', file.data);
        return sendJson(res, 200, {
          id,
          object: 'file',
          bytes: file.data.length,
          created_at: files.get(id)?.createdAt,
          filename: file.filename,
          purpose,
          status: 'processed',
        });
      }
      const content = /^\/v1\/files\/([^/]+)\/content$/.exec(p);
      if (method === 'GET' && content) {
        const file = files.get(decodeURIComponent(content[1] ?? ''));
        if (!file) return sendJson(res, 404, invalid('No such File object.'));
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.bytes.length });
        res.end(file.bytes);
        return true;
      }
      if (method === 'POST' && p === '/v1/batches') {
        const body = JSON.parse(rawBody.toString('utf8')) as { input_file_id?: string; endpoint?: string; metadata?: Record<string, string> };
        const file = files.get(body.input_file_id ?? '');
        if (!file) return sendJson(res, 400, invalid(`No such file: ${body.input_file_id}`));
        const lines = file.bytes
          .toString('utf8')
          .split('\n')
          .filter((l) => l.trim() !== '');
        if (options.maxLines !== undefined && lines.length > options.maxLines) {
          refused++;
          return sendJson(res, 400, invalid(`The input file has ${lines.length} requests; a batch may hold ${options.maxLines}.`));
        }
        const metadata = body.metadata ?? {};
        const job: FakeBatchJob = {
          id: `batch_fake${++nextId}`,
          displayName: metadata.agent_seer,
          metadata,
          inputFileId: file.id,
          status: 'validating',
          customIds: lines.map((l) => (JSON.parse(l) as { custom_id: string }).custom_id),
          polls: 0,
          fault: faults.shift(),
          counts: { total: lines.length, completed: 0, failed: 0 },
          createdAt: Math.floor(Date.now() / 1000),
        };
        jobs.push(job);
        return sendJson(res, 200, batchObject(job));
      }
      if (method === 'GET' && p === '/v1/batches') {
        const limit = Number(url.searchParams.get('limit') ?? 20);
        const after = url.searchParams.get('after');
        const newestFirst = [...jobs].reverse();
        const start = after ? newestFirst.findIndex((j) => j.id === after) + 1 : 0;
        const page = newestFirst.slice(start, start + limit);
        return sendJson(res, 200, {
          object: 'list',
          data: page.map(batchObject),
          first_id: page[0]?.id ?? null,
          last_id: page[page.length - 1]?.id ?? null,
          has_more: start + limit < newestFirst.length,
        });
      }
      const one = /^\/v1\/batches\/([^/]+)(\/cancel)?$/.exec(p);
      const job = one ? jobs.find((j) => j.id === decodeURIComponent(one[1] ?? '')) : undefined;
      if (one && !job) return sendJson(res, 404, invalid('No such batch.'));
      if (job && method === 'GET' && !one?.[2]) {
        const fault = pollFaults.shift();
        if (fault !== undefined) return sendJson(res, fault, { error: { message: `fake poll error ${fault}`, type: 'server_error', param: null, code: null } });
        job.polls++;
        if (pollsPerState !== 'manual' && job.polls >= pollsPerState && !ENDED.has(job.status)) await step(job);
        return sendJson(res, 200, batchObject(job));
      }
      if (job && method === 'POST' && one?.[2]) {
        if (!ENDED.has(job.status)) job.status = 'cancelling';
        return sendJson(res, 200, batchObject(job));
      }
      return sendJson(res, 404, invalid(`fake: no route for ${method} ${p}`));
    },
  });

  const batch: FakeOpenAIBatchControl = {
    jobs,
    itemsPerJob: () => jobs.map((j) => j.customIds.length),
    get syncCalls() {
      return fake.requests.filter((r) => r.viaBatch === undefined).length;
    },
    get batchItems() {
      return fake.requests.filter((r) => r.viaBatch !== undefined).length;
    },
    get refused() {
      return refused;
    },
    faultNext(...more) {
      faults.push(...more);
    },
    failPolls(count, status = 500) {
      for (let i = 0; i < count; i++) pollFaults.push(status);
    },
    async advance(jobId) {
      for (const job of jobs) if ((jobId === undefined || job.id === jobId) && !ENDED.has(job.status)) await step(job);
    },
    async finishAll() {
      while (jobs.some((j) => !ENDED.has(j.status))) await batch.advance();
    },
  };
  return Object.assign(fake, { batch });
}

function invalid(message: string, code: string | null = null): unknown {
  return { error: { message, type: 'invalid_request_error', param: null, code } };
}

function sendJson(res: ServerResponse, status: number, body: unknown): true {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
  return true;
}

/** The parts of a multipart/form-data body (as the openai client sends an upload). */
function parseMultipart(body: Buffer, contentType: string): { name: string; filename?: string; data: Buffer }[] {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const mark = boundary?.[1] ?? boundary?.[2];
  if (!mark) return [];
  const delimiter = Buffer.from(`--${mark}`);
  const parts: { name: string; filename?: string; data: Buffer }[] = [];
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    const next = body.indexOf(delimiter, start);
    if (next < 0) break;
    // Each part: CRLF, headers, CRLF CRLF, data, CRLF (before the next delimiter).
    const part = body.subarray(start + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    if (split >= 0) {
      const head = part.subarray(0, split).toString('utf8');
      const name = /name="([^"]*)"/i.exec(head)?.[1];
      const filename = /filename="([^"]*)"/i.exec(head)?.[1];
      if (name !== undefined) parts.push({ name, ...(filename !== undefined ? { filename } : {}), data: part.subarray(split + 4) });
    }
    at = next;
  }
  return parts;
}
