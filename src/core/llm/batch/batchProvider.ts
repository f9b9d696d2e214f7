/**
 * # Batch mode: the engine
 *
 * A {@link ChatProvider} that answers calls through a provider's batch API (half the price, no
 * per-minute limits, hours instead of seconds). It is a wrapper, not a new path: the pipeline and
 * the judge keep calling `StructuredLlm.generate` → `CallGuard.call` → `complete()`, and this
 * provider keeps the wrapped backend's `id` and `model`, so reply cache keys are the same as in
 * synchronous mode (a synchronous run reuses batch replies and the other way round), and re-asks,
 * discards and retries keep their meaning.
 *
 * How a call goes:
 * 1. Its item id is the content hash of the request, its sample and the model
 *    ({@link batchItemId}); the same request of the same sample asked twice shares one item, a new
 *    sample of it (another sample index) is an item of its own, as it is a call of its own in
 *    synchronous mode.
 * 2. A reply already on disk (a results file of an earlier or this run) answers at once; it is
 *    no call (`ChatReply.modelCalls` 0: its tokens were spent when the job answered it).
 * 3. A job in the journal that holds the id and can still deliver: the call waits for that job.
 * 4. Otherwise the item waits for a quiet moment (`flushMs` without a new call): the round's
 *    items are split into jobs within `backend.limits`, each journaled as an intent (name, item
 *    ids, request file) before it is created and again with the provider's job name after.
 * 5. Jobs are polled with backoff; when one ends, its results are written to disk, then each
 *    waiting call is resolved with its item's reply or rejected with an `LlmHttpError` (the
 *    item's own status, or 503 for an item a failed, expired or cancelled job never answered),
 *    so the guard's retry policy sends it again, into the next job.
 *
 * Resume: the journal is read on the first call. A call whose id a journaled job holds attaches
 * to it (no second submission); an intent without a job name (killed between creating the job
 * and journaling it) is looked up by name (`backend.find`): found, it is attached; not found,
 * its items are submitted anew. Cancelling a call (its signal) rejects it at once but leaves the
 * job running at the provider: a re-run collects it. Only {@link cancelBatchJobs} cancels jobs.
 */
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { canonicalJson, sha256 } from '../cache';
import { LlmHttpError, LlmNetworkError, LlmStopError, LlmTimeoutError, namesExhaustedQuota } from '../errors';
import { abortReason, systemClock, type Clock } from '../limits';
import type { ChatProvider, ChatReply, ChatRequest, Usage } from '../types';
import { BATCH_FIRST_POLL_MS, BATCH_FLUSH_MS, BATCH_MAX_POLL_MS, BATCH_POLL_FAILURES } from '../../workspace/defaults';
import {
  batchJobFiles,
  readBatchJournal,
  readJobResults,
  removeJob,
  writeJobEntry,
  writeJobRequests,
  writeJobResults,
  type BatchJournal,
  type BatchJournalJob,
} from './journal';
import { TERMINAL_BATCH_STATES, type BatchBackend, type BatchItem, type BatchItemResult, type BatchJobState, type BatchJobStatus } from './types';

export { readBatchJournal, type BatchJournal, type BatchJournalJob } from './journal';

/** How much longer each poll of a job waits than the one before. */
const POLL_BACKOFF = 1.5;
/** A round whose calls keep trickling in is submitted anyway after this many quiet windows. */
const MAX_FLUSH_WINDOWS = 4;

/** What a {@link BatchProvider} is built from. */
export interface BatchProviderOptions {
  backend: BatchBackend;
  /** Folder of the journal (the run folder's `<cacheDir>/batch`: `BATCH_DIR` in workspace/layout.ts). */
  dir: string;
  /**
   * Wait for jobs to end (default true). false: at each quiet moment the jobs calls wait on are
   * looked at once, and those that ended are collected so the run goes on; once none has ended,
   * every waiting call rejects with {@link BatchPendingError} (nothing new is submitted after
   * that).
   */
  wait?: boolean;
  /**
   * Failed items (per-item 429/5xx/other, or left unanswered by a failed, expired or cancelled
   * job). Default: the error goes up as `LlmHttpError` and the guard's retry policy calls
   * `complete()` again, which lands in the next job. When given, such an item is sent once
   * through this synchronous provider instead (counted in `summary().items.retriedSync`).
   */
  sync?: ChatProvider;
  clock?: Clock;
  /** First wait before polling a job; each later one is 1.5 times longer, up to `maxPollMs`. */
  firstPollMs?: number;
  maxPollMs?: number;
  /** Quiet time before a round's calls are submitted. */
  flushMs?: number;
  /** Progress: jobs submitted, resumed, polled and ended. */
  onEvent?: (e: BatchEvent) => void;
  /** The folder to name in {@link BatchPendingError}'s message (`agent-seer status <folder>`); default `dir`. */
  statusFolder?: string;
}

/** What the engine reports as it goes, for progress lines. */
export type BatchEvent =
  | { type: 'submitted'; job: string; displayName: string; items: number }
  | { type: 'resumed'; job: string; displayName: string; items: number }
  | { type: 'polled'; job: string; state: BatchJobState }
  | { type: 'ended'; job: string; state: BatchJobState; counts: { succeeded: number; failed: number } };

/** What happened in batch mode, for the run's summary and manifest. */
export interface BatchSummary {
  jobs: {
    /** Jobs this process created. */
    submitted: number;
    /** Journaled jobs of an earlier process this one attached to. */
    resumed: number;
    /** Jobs this process submitted or resumed, by the last state seen. */
    byState: Partial<Record<BatchJobState, number>>;
  };
  items: {
    /** Items in jobs this process created. */
    submitted: number;
    /** Items a job answered, and items it failed or left unanswered (each counted once per job). */
    succeeded: number;
    failed: number;
    /** Failed items sent once through the synchronous provider. */
    retriedSync: number;
    /** Of `succeeded`, items of jobs an earlier process submitted (resumed here). */
    fromEarlierJobs: number;
    /** Calls answered from results already on disk, without waiting on a job: no model call. */
    fromJournal: number;
  };
  /** Tokens of the items answered by jobs, and of the synchronous retries. */
  usage: { batch: Usage; sync: Usage };
}

/**
 * The run is left with batch jobs still running (`wait: false`): it stops, like on a quota or an
 * outage, and running the same command again collects them.
 */
export class BatchPendingError extends LlmStopError {
  override readonly name = 'BatchPendingError';
  override get resumeWhen(): string {
    return 'the batch jobs have ended';
  }
  constructor(
    readonly jobs: number,
    readonly items: number,
    folder: string,
  ) {
    super(
      `${jobs} batch job${jobs === 1 ? ' is' : 's are'} still running (${items} item${items === 1 ? '' : 's'}); run the same command again to collect them, or \`agent-seer status ${folder}\``,
    );
  }
}

/**
 * The id of a request as a batch item: sha256 of the canonical request (system, messages, JSON
 * Schema, temperature), its sample (`ChatRequest.sample`, absent from the hash when unset) and the
 * model. Equal requests of one sample share an item, in one run and across runs.
 */
export function batchItemId(request: Omit<ChatRequest, 'signal'>, model: string): string {
  return sha256(
    canonicalJson({
      v: 1,
      model,
      system: request.system,
      messages: request.messages,
      jsonSchema: request.jsonSchema,
      temperature: request.temperature,
      sample: request.sample,
    }),
  );
}

interface Waiter {
  resolve(reply: ChatReply): void;
  reject(e: unknown): void;
}

/** A call's item while some caller waits for it. */
interface LiveItem extends BatchItem {
  waiters: Set<Waiter>;
  /** The job it is in; undefined while it waits to be submitted. */
  job: JobRecord | undefined;
}

/** A journaled job this process knows. */
interface JobRecord {
  entry: BatchJournalJob;
  /** Items some caller of this process waits for, by id. */
  waiting: Map<string, LiveItem>;
  /** Created by an earlier process. */
  resumed: boolean;
  /** Counted in the summary (submitted here, or resumed and attached to). */
  counted: boolean;
  polling: boolean;
  /** Serialises writes of the entry. */
  saving: Promise<void>;
}

/** Batch mode as a {@link ChatProvider}; see the module comment. */
export class BatchProvider implements ChatProvider {
  readonly id: string;
  readonly model: string;
  readonly supportsJsonSchema = true;
  private readonly backend: BatchBackend;
  private readonly dir: string;
  private readonly wait: boolean;
  private readonly sync: ChatProvider | undefined;
  private readonly clock: Clock;
  private readonly firstPollMs: number;
  private readonly maxPollMs: number;
  private readonly flushMs: number;
  private readonly onEvent: (e: BatchEvent) => void;
  private readonly statusFolder: string;
  /** Part of every display name: unique per engine, so names never collide at the provider. */
  private readonly runHash = randomBytes(6).toString('hex');
  private jobCounter = 0;
  private readonly closer = new AbortController();

  private loaded: Promise<void> | undefined;
  /** Replies on disk, by item id; `call` while this process collected the reply and handed it to no caller yet (its first caller is its call). */
  private readonly done = new Map<string, { reply: ChatReply; call: boolean }>();
  /** Item ids held by a journaled job that can still deliver. */
  private readonly held = new Map<string, JobRecord>();
  /** Every job this process knows. */
  private readonly records: JobRecord[] = [];
  /** Items some caller waits for, by id. */
  private readonly live = new Map<string, LiveItem>();
  /** Items waiting to be submitted, in arrival order. */
  private readonly pending = new Map<string, LiveItem>();
  private flushArmed = false;
  private lastCallAt = 0;
  private flushing: Promise<void> = Promise.resolve();
  /** Set once a `wait: false` round is journaled: every later call that needs a job fails with it. */
  private stop: BatchPendingError | undefined;

  private readonly counts = { submitted: 0, resumed: 0, itemsSubmitted: 0, succeeded: 0, failed: 0, retriedSync: 0, fromEarlierJobs: 0, fromJournal: 0 };
  private readonly usage = { batch: { inputTokens: 0, outputTokens: 0 }, sync: { inputTokens: 0, outputTokens: 0 } };

  constructor(options: BatchProviderOptions) {
    this.backend = options.backend;
    this.id = options.backend.id;
    this.model = options.backend.model;
    this.dir = options.dir;
    this.wait = options.wait ?? true;
    this.sync = options.sync;
    this.clock = options.clock ?? systemClock;
    this.firstPollMs = options.firstPollMs ?? BATCH_FIRST_POLL_MS;
    this.maxPollMs = Math.max(options.maxPollMs ?? BATCH_MAX_POLL_MS, this.firstPollMs);
    this.flushMs = options.flushMs ?? BATCH_FLUSH_MS;
    this.onEvent = options.onEvent ?? (() => undefined);
    // Every poll, download and synchronous retry listens on this one signal, by design.
    setMaxListeners(0, this.closer.signal);
    this.statusFolder = options.statusFolder ?? options.dir;
  }

  async complete(request: ChatRequest): Promise<ChatReply> {
    const signal = request.signal;
    if (signal.aborted) throw abortReason(signal);
    if (this.closer.signal.aborted) throw abortReason(this.closer.signal);
    await this.load();
    if (signal.aborted) throw abortReason(signal);
    const { signal: _signal, ...body } = request;
    const id = batchItemId(body, this.model);
    const stored = this.done.get(id);
    if (stored) {
      if (stored.call) {
        // Collected here while nobody waited for it: the provider's answer, first handed out now.
        stored.call = false;
        return stored.reply;
      }
      this.counts.fromJournal++;
      return { ...stored.reply, modelCalls: 0 };
    }
    if (this.stop) throw this.stop;
    let item = this.live.get(id);
    if (!item) {
      item = { id, request: body, waiters: new Set(), job: undefined };
      const holder = this.held.get(id);
      if (holder) {
        this.attach(holder, item);
      } else {
        const bytes = this.backend.itemBytes(item);
        if (bytes > this.backend.limits.maxBytes) {
          throw new LlmHttpError({
            status: 413,
            message: `batch item of ${bytes} bytes is larger than a ${this.backend.id} batch job may be (${this.backend.limits.maxBytes} bytes)`,
            fatal: false,
          });
        }
        this.pending.set(id, item);
      }
      this.live.set(id, item);
    }
    const reply = this.waitFor(item, signal);
    this.armFlush();
    return reply;
  }

  /** What happened, for the summary and the manifest. */
  summary(): BatchSummary {
    const byState: Partial<Record<BatchJobState, number>> = {};
    for (const r of this.records) if (r.counted && r.entry.state) byState[r.entry.state] = (byState[r.entry.state] ?? 0) + 1;
    const c = this.counts;
    return {
      jobs: { submitted: c.submitted, resumed: c.resumed, byState },
      items: {
        submitted: c.itemsSubmitted,
        succeeded: c.succeeded,
        failed: c.failed,
        retriedSync: c.retriedSync,
        fromEarlierJobs: c.fromEarlierJobs,
        fromJournal: c.fromJournal,
      },
      usage: { batch: { ...this.usage.batch }, sync: { ...this.usage.sync } },
    };
  }

  /** Stops timers and polls; every waiting call rejects with `reason` (default an AbortError). Jobs keep running at the provider. */
  async close(reason?: unknown): Promise<void> {
    if (!this.closer.signal.aborted) this.closer.abort(reason ?? new DOMException('The batch provider was closed', 'AbortError'));
    const why = abortReason(this.closer.signal);
    for (const item of [...this.live.values()]) this.settle(item, (w) => w.reject(why));
    this.pending.clear();
    await Promise.allSettled([this.flushing, ...this.records.map((r) => r.saving)]);
  }

  // ---- calls

  private waitFor(item: LiveItem, signal: AbortSignal): Promise<ChatReply> {
    return new Promise<ChatReply>((resolve, reject) => {
      const onAbort = (): void => {
        item.waiters.delete(waiter);
        if (item.waiters.size === 0 && this.live.get(item.id) === item) {
          // Nobody waits any more: an item not yet submitted stays out of the job; one in a job
          // stays there (a later call for it attaches again), but nothing here waits for it.
          this.live.delete(item.id);
          if (this.pending.get(item.id) === item) this.pending.delete(item.id);
          item.job?.waiting.delete(item.id);
        }
        reject(abortReason(signal));
      };
      const waiter: Waiter = {
        resolve: (r) => {
          signal.removeEventListener('abort', onAbort);
          resolve(r);
        },
        reject: (e) => {
          signal.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      item.waiters.add(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Hands every waiter of an item its outcome, and forgets the item. */
  private settle(item: LiveItem, outcome: (w: Waiter) => void): void {
    if (this.live.get(item.id) === item) this.live.delete(item.id);
    item.job?.waiting.delete(item.id);
    const waiters = [...item.waiters];
    item.waiters.clear();
    for (const w of waiters) outcome(w);
  }

  private attach(record: JobRecord, item: LiveItem): void {
    item.job = record;
    record.waiting.set(item.id, item);
    if (!record.counted) {
      record.counted = true;
      this.counts.resumed++;
      this.onEvent({
        type: 'resumed',
        job: record.entry.job ?? record.entry.displayName,
        displayName: record.entry.displayName,
        items: record.entry.items.length,
      });
    }
    this.ensurePolling(record);
  }

  // ---- the journal

  /** Reads the journal once: replies on disk, jobs that can still deliver, intents looked up by name. */
  private load(): Promise<void> {
    this.loaded ??= this.readJournal().catch((e: unknown) => {
      this.loaded = undefined; // the next call tries again
      throw e;
    });
    return this.loaded;
  }

  private async readJournal(): Promise<void> {
    const journal = await readBatchJournal(this.dir);
    for (const entry of journal.jobs) {
      if (entry.provider !== this.id || entry.model !== this.model) continue;
      const results = await readJobResults(this.dir, entry.displayName);
      if (results) {
        // Collected (perhaps killed before the entry said so): failed items are asked anew.
        for (const r of results) if (r.ok) this.done.set(r.id, { reply: r.reply, call: false });
        continue;
      }
      if (entry.job === undefined) {
        const found = await this.backend.find(entry.displayName, this.closer.signal);
        if (found === undefined) {
          await removeJob(this.dir, entry.displayName);
          continue;
        }
        entry.job = found;
        entry.state = 'pending';
        entry.updatedAt = new Date().toISOString();
        await writeJobEntry(this.dir, entry);
      }
      const record = this.newRecord(entry, true);
      for (const id of entry.items) if (!this.done.has(id)) this.held.set(id, record);
    }
  }

  private newRecord(entry: BatchJournalJob, resumed: boolean): JobRecord {
    const record: JobRecord = { entry, waiting: new Map(), resumed, counted: !resumed, polling: false, saving: Promise.resolve() };
    this.records.push(record);
    return record;
  }

  /** Writes a job's entry after the writes before it. */
  private save(record: JobRecord): Promise<void> {
    record.entry.updatedAt = new Date().toISOString();
    const snapshot = structuredClone(record.entry);
    const next = record.saving.then(() => writeJobEntry(this.dir, snapshot));
    record.saving = next.catch(() => undefined);
    return next;
  }

  // ---- submitting

  /** Notes a call; the round goes out once calls stop coming for `flushMs` (or the round fills a job). */
  private armFlush(): void {
    if (this.closer.signal.aborted) return;
    this.lastCallAt = this.clock.now();
    if (this.pending.size >= this.backend.limits.maxItems) this.startFlush(false);
    if (this.flushArmed) return;
    this.flushArmed = true;
    void this.flushWhenQuiet();
  }

  /** One timer per round, however many calls it has (not one per call). */
  private async flushWhenQuiet(): Promise<void> {
    const armedAt = this.clock.now();
    try {
      for (;;) {
        const now = this.clock.now();
        const wait = this.lastCallAt + this.flushMs - now;
        // A round whose calls keep trickling in still goes out after a few quiet windows.
        if (wait <= 0 || now - armedAt >= this.flushMs * MAX_FLUSH_WINDOWS) break;
        await this.clock.sleep(wait, this.closer.signal);
      }
    } catch {
      return; // closed
    } finally {
      this.flushArmed = false;
    }
    this.startFlush(true);
  }

  /** Queues a flush; `quiet` when calls stopped coming (only then may a `wait: false` round stop). */
  private startFlush(quiet: boolean): void {
    this.flushing = this.flushing.then(() => this.flush(quiet)).catch(() => undefined);
  }

  /** Submits the items waiting to be submitted; with `wait: false`, after a quiet window, then stops the round. */
  private async flush(quiet: boolean): Promise<void> {
    const items = [...this.pending.values()];
    this.pending.clear();
    for (const chunk of this.split(items)) {
      if (this.closer.signal.aborted) return;
      await this.submit(chunk);
    }
    if (!this.wait && quiet && this.pending.size === 0) await this.stopRound();
  }

  /** Items in jobs within the backend's limits, in order. */
  private split(items: readonly LiveItem[]): LiveItem[][] {
    const { maxItems, maxBytes } = this.backend.limits;
    const chunks: LiveItem[][] = [];
    let chunk: LiveItem[] = [];
    let bytes = 0;
    for (const item of items) {
      const size = this.backend.itemBytes(item);
      if (chunk.length > 0 && (chunk.length >= maxItems || bytes + size > maxBytes)) {
        chunks.push(chunk);
        chunk = [];
        bytes = 0;
      }
      chunk.push(item);
      bytes += size;
    }
    if (chunk.length > 0) chunks.push(chunk);
    return chunks;
  }

  /** Journals one job's intent, creates the job, journals its name, starts polling it. */
  private async submit(items: LiveItem[]): Promise<void> {
    const displayName = `agent-seer-${this.runHash}-${++this.jobCounter}`;
    const batchItems: BatchItem[] = items.map((i) => ({ id: i.id, request: i.request }));
    const now = new Date().toISOString();
    const entry: BatchJournalJob = {
      version: 1,
      displayName,
      provider: this.id,
      model: this.model,
      items: items.map((i) => i.id),
      createdAt: now,
      updatedAt: now,
    };
    const record = this.newRecord(entry, false);
    for (const item of items) {
      item.job = record;
      record.waiting.set(item.id, item);
      this.held.set(item.id, record);
    }
    let job: string | undefined;
    try {
      // The intent is on disk before the provider hears of the job.
      await writeJobRequests(this.dir, displayName, batchItems);
      await this.save(record);
      try {
        job = await this.backend.submit(batchItems, displayName, this.closer.signal);
      } catch (e) {
        if (this.closer.signal.aborted) return; // the intent stays: a re-run looks it up by name
        // The job may exist even though the answer was lost: look before submitting its items again.
        job = ambiguous(e) ? await this.backend.find(displayName, this.closer.signal).catch(() => undefined) : undefined;
        if (job === undefined) throw e;
      }
      entry.job = job;
      entry.state = 'pending';
      await this.save(record);
    } catch (e) {
      if (this.closer.signal.aborted) return;
      if (job === undefined) {
        // Never created: forget the intent, and let the guard send the calls again.
        this.records.splice(this.records.indexOf(record), 1);
        for (const item of items) if (this.held.get(item.id) === record) this.held.delete(item.id);
        await removeJob(this.dir, displayName).catch(() => undefined);
      }
      for (const item of items) this.settle(item, (w) => w.reject(e));
      return;
    }
    this.counts.submitted++;
    this.counts.itemsSubmitted += items.length;
    this.onEvent({ type: 'submitted', job, displayName, items: items.length });
    this.ensurePolling(record);
  }

  // ---- polling

  private ensurePolling(record: JobRecord): void {
    if (!this.wait || record.polling || record.entry.job === undefined || this.closer.signal.aborted) return;
    record.polling = true;
    void this.pollLoop(record).finally(() => (record.polling = false));
  }

  private async pollLoop(record: JobRecord): Promise<void> {
    let delay = this.firstPollMs;
    let failures = 0;
    try {
      // A job the journal already saw end is collected at once.
      if (record.entry.state !== undefined && TERMINAL_BATCH_STATES.includes(record.entry.state)) {
        await this.collect(record, { state: record.entry.state, ...(record.entry.error ? { error: record.entry.error } : {}) });
        return;
      }
      while (record.waiting.size > 0) {
        await this.clock.sleep(delay, this.closer.signal);
        delay = Math.min(delay * POLL_BACKOFF, this.maxPollMs);
        const status = await this.poll(record).catch((e: unknown) => e as Error);
        if (status instanceof Error) {
          if (this.closer.signal.aborted) return;
          if (ambiguous(status) && ++failures < BATCH_POLL_FAILURES) continue;
          this.failWaiting(record, status);
          return;
        }
        failures = 0;
        if (TERMINAL_BATCH_STATES.includes(status.state)) {
          await this.collect(record, status);
          return;
        }
      }
    } catch (e) {
      if (this.closer.signal.aborted) return;
      this.failWaiting(record, e);
    }
  }

  /** One status call; the journal follows every change. */
  private async poll(record: JobRecord): Promise<BatchJobStatus> {
    const job = record.entry.job as string;
    const status = await this.backend.status(job, this.closer.signal);
    const entry = record.entry;
    if (entry.state !== status.state || JSON.stringify(entry.counts) !== JSON.stringify(status.counts) || entry.error !== status.error) {
      entry.state = status.state;
      if (status.counts) entry.counts = status.counts;
      if (status.error !== undefined) entry.error = status.error;
      await this.save(record);
    }
    this.onEvent({ type: 'polled', job, state: status.state });
    return status;
  }

  /** The calls waiting on a job fail with `e`; the job stays journaled (a later call or run attaches again). */
  private failWaiting(record: JobRecord, e: unknown): void {
    for (const item of [...record.waiting.values()]) {
      item.job = undefined;
      this.settle(item, (w) => w.reject(e));
    }
  }

  /** A job ended: its results on disk first, then every waiting call resolved or rejected. */
  private async collect(record: JobRecord, status: BatchJobStatus): Promise<void> {
    const entry = record.entry;
    const job = entry.job as string;
    let results: BatchItemResult[] = [];
    if (status.state !== 'failed') {
      for (let failures = 0; ;) {
        try {
          results = await this.backend.results(job, this.closer.signal);
          break;
        } catch (e) {
          if (this.closer.signal.aborted || !ambiguous(e) || ++failures >= BATCH_POLL_FAILURES) throw e;
          await this.clock.sleep(this.firstPollMs, this.closer.signal);
        }
      }
    }
    await writeJobResults(this.dir, entry.displayName, results);
    entry.state = status.state;
    entry.collected = true;
    await this.save(record);

    const byId = new Map(results.map((r) => [r.id, r]));
    let succeeded = 0;
    let failed = 0;
    for (const id of entry.items) {
      if (this.held.get(id) === record) this.held.delete(id);
      const result = byId.get(id);
      const item = record.waiting.get(id);
      if (result?.ok) {
        succeeded++;
        addUsage(this.usage.batch, result.reply.usage);
        this.done.set(id, { reply: result.reply, call: !item });
        if (item) this.settle(item, (w) => w.resolve(result.reply));
        continue;
      }
      failed++;
      // An item's own 4xx is about its content, never the account's (that would have failed the
      // upload): not fatal. An unanswered item is a transient 503, for the guard to send again.
      // An item the job never ran took no model call. Gemini says DEADLINE_EXCEEDED (504) for the
      // items an expired job left, as for an item that timed out: in an expired job it is taken
      // as never run (a timed-out item of an expiring job is then not counted).
      const ran = result && !result.ok && result.ran !== false && !(status.state === 'expired' && result.status === 504);
      const error = result
        ? new LlmHttpError({
            status: result.status,
            message: `batch item: ${result.message}`,
            fatal: false,
            quotaExhausted: namesExhaustedQuota(result.message),
            ...(ran ? {} : { modelCalls: 0 }),
          })
        : new LlmHttpError({
            status: 503,
            message: `batch job ${job} ${status.state}${status.error ? ` (${status.error})` : ''} without answering this item`,
            // The provider never ran it: no model call.
            modelCalls: 0,
          });
      if (item) this.retry(item, error);
    }
    this.counts.succeeded += succeeded;
    this.counts.failed += failed;
    if (record.resumed) this.counts.fromEarlierJobs += succeeded;
    this.onEvent({ type: 'ended', job, state: status.state, counts: { succeeded, failed } });
  }

  /** A failed item: through the synchronous provider once when there is one, else the error goes up for the guard to retry. */
  private retry(item: LiveItem, error: LlmHttpError): void {
    item.job = undefined;
    const sync = this.sync;
    if (!sync) {
      this.settle(item, (w) => w.reject(error));
      return;
    }
    this.counts.retriedSync++;
    // The failed item was a model call, and so is its synchronous retry (unless its job never ran it).
    const before = error.modelCalls;
    sync.complete({ ...item.request, signal: this.closer.signal }).then(
      (reply) => {
        addUsage(this.usage.sync, reply.usage);
        this.settle(item, (w) => w.resolve({ ...reply, modelCalls: before + (reply.modelCalls ?? 1) }));
      },
      (e: unknown) =>
        this.settle(item, (w) =>
          w.reject(
            e instanceof LlmHttpError
              ? new LlmHttpError({
                  status: e.status,
                  message: e.message,
                  ...(e.retryAfterMs !== undefined ? { retryAfterMs: e.retryAfterMs } : {}),
                  fatal: e.fatal,
                  quotaExhausted: e.quotaExhausted,
                  modelCalls: before + e.modelCalls,
                })
              : e,
          ),
        ),
    );
  }

  // ---- wait: false

  /**
   * A quiet moment of a `wait: false` run: every call waits on a job (or nothing waits). Each job
   * some call waits on is looked at once; those that ended are collected, and their replies let
   * the run go on: the calls they lead to get a quiet window to arrive and go out as new jobs,
   * then the round is judged again. Only when no job some call waits on has ended does every
   * waiting call fail with {@link BatchPendingError}, as does every later call that would need a
   * job. So one invocation goes as far as the answers allow, and a re-run is needed only for the
   * requests that wait on the provider.
   */
  private async stopRound(): Promise<void> {
    let answered = false;
    for (const record of [...this.records]) {
      if (record.waiting.size === 0 || record.entry.job === undefined || record.entry.collected) continue;
      try {
        const status = record.entry.state !== undefined && TERMINAL_BATCH_STATES.includes(record.entry.state) ? record.entry : await this.poll(record);
        if (status.state !== undefined && TERMINAL_BATCH_STATES.includes(status.state)) {
          await this.collect(record, { state: status.state, ...(status.error !== undefined ? { error: status.error } : {}) });
          answered = true;
        }
      } catch (e) {
        if (this.closer.signal.aborted) return;
        this.failWaiting(record, e);
        answered = true;
      }
    }
    if (this.live.size === 0 && !answered) return;
    if (answered) {
      // A quiet window for what the answers lead to; the flush after it judges the round again.
      this.armFlush();
      return;
    }
    const running = this.records.filter((r) => r.entry.job !== undefined && !r.entry.collected);
    this.stop = new BatchPendingError(
      running.length,
      running.reduce((n, r) => n + r.entry.items.length, 0),
      this.statusFolder,
    );
    const stop = this.stop;
    for (const item of [...this.live.values()]) this.settle(item, (w) => w.reject(stop));
  }
}

/** Errors after which the job may exist or may still answer: worth another look. */
function ambiguous(e: unknown): boolean {
  return e instanceof LlmNetworkError || e instanceof LlmTimeoutError || (e instanceof LlmHttpError && e.transient && !e.fatal);
}

function addUsage(sum: Usage, usage: Usage | undefined): void {
  sum.inputTokens += usage?.inputTokens ?? 0;
  sum.outputTokens += usage?.outputTokens ?? 0;
}

/**
 * Polls each journaled job that has not ended once, and looks up intents by name, updating the
 * journal (for `agent-seer status`). Jobs of other providers or models are left as they are.
 */
export async function refreshBatchJobs(dir: string, backend: BatchBackend, signal: AbortSignal): Promise<BatchJournal> {
  const journal = await readBatchJournal(dir);
  for (const entry of journal.jobs) {
    if (entry.provider !== backend.id || entry.model !== backend.model || entry.collected) continue;
    if (entry.job === undefined) {
      const found = await backend.find(entry.displayName, signal);
      if (found === undefined) continue;
      entry.job = found;
    } else if (entry.state !== undefined && TERMINAL_BATCH_STATES.includes(entry.state)) continue;
    const status = await backend.status(entry.job, signal);
    entry.state = status.state;
    if (status.counts) entry.counts = status.counts;
    if (status.error !== undefined) entry.error = status.error;
    entry.updatedAt = new Date().toISOString();
    await writeJobEntry(dir, entry);
  }
  return journal;
}

/**
 * Asks the provider to cancel every journaled job of this backend that has not ended, then
 * records what it says. The explicit way to stop paying for jobs a run left behind: nothing in
 * the engine cancels a job on its own.
 */
export async function cancelBatchJobs(dir: string, backend: BatchBackend, signal: AbortSignal): Promise<BatchJournal> {
  const before = await readBatchJournal(dir);
  for (const entry of before.jobs) {
    if (entry.provider !== backend.id || entry.model !== backend.model || entry.job === undefined) continue;
    if (entry.state !== undefined && TERMINAL_BATCH_STATES.includes(entry.state)) continue;
    await backend.cancel(entry.job, signal);
  }
  return refreshBatchJobs(dir, backend, signal);
}

/** The files of a job (entry, requests, results), for tools that show or clean the journal. */
export { batchJobFiles };
