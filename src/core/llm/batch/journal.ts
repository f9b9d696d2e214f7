/**
 * The batch journal on disk: what a run asked of a provider's batch API, so a killed or
 * interrupted run can find its jobs again instead of paying for them twice. One set of files per
 * job under `<batch dir>/jobs/` (so two engines sharing a folder, say a generator and a judge,
 * never write the same file):
 * ```
 * <name>.json            the job's entry (BatchJournalJob), rewritten atomically on every change
 * <name>.requests.jsonl  one BatchRequestLine per item, written before the entry
 * <name>.results.jsonl   one BatchItemResult per item the job answered, written before any call
 *                        is resolved with it
 * ```
 * An entry without `job` is an intent: written before the provider was asked to create the job,
 * so a kill between the two leaves a name that `BatchBackend.find` can look up.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { FileReadError } from '../../boundedRead';
import { listInside, readFileInside, removeFileInside, writeFileInside } from '../../containment';
import { BATCH_JOBS_DIR } from '../../workspace/layout';
import type { BatchItem, BatchItemResult } from './types';

const JobState = z.enum(['pending', 'running', 'succeeded', 'failed', 'expired', 'cancelled']);
const UsageShape = z.object({ inputTokens: z.number(), outputTokens: z.number() });

/** One job in the journal. */
export const BatchJournalJob = z.object({
  version: z.literal(1),
  displayName: z
    .string()
    .describe('Unique name of the job (agent-seer-<run>-<n>); the provider keeps it, so a job whose creation was not journaled is found by it.'),
  provider: z.string().describe('Provider family of the job (ChatProvider.id).'),
  model: z.string().describe('Model of every item in the job.'),
  job: z.string().optional().describe("The provider's name of the job; absent while the entry is only an intent (written before the job was created)."),
  state: JobState.optional().describe('The last state the provider reported; absent for an intent.'),
  items: z.array(z.string()).describe('The item ids the job holds (content hashes of the requests).'),
  counts: z.object({ total: z.number().optional(), succeeded: z.number().optional(), failed: z.number().optional() }).optional(),
  error: z.string().optional().describe("The provider's words for a failed job."),
  collected: z.boolean().optional().describe('The results of the ended job are on disk (<name>.results.jsonl).'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type BatchJournalJob = z.infer<typeof BatchJournalJob>;

/** Every job of a batch folder, in creation order. */
export interface BatchJournal {
  jobs: BatchJournalJob[];
}

/** One line of a job's requests file: an item as it was submitted. */
export const BatchRequestLine = z.object({
  id: z.string(),
  request: z.object({
    system: z.string().optional(),
    messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.string() })),
    jsonSchema: z.record(z.string(), z.unknown()).optional(),
    temperature: z.number(),
    sample: z.string().optional(),
  }),
});

/** One line of a job's results file. */
export const BatchResultLine = z.union([
  z.object({
    id: z.string(),
    ok: z.literal(true),
    reply: z.object({ text: z.string(), usage: UsageShape.optional(), finishReason: z.string().optional() }),
  }),
  z.object({ id: z.string(), ok: z.literal(false), status: z.number(), message: z.string(), ran: z.literal(false).optional() }),
]);

/** A journal file that cannot be read as one: the run stops rather than risk paying for its jobs twice. */
export class BatchJournalError extends Error {
  override readonly name = 'BatchJournalError';
}

/** Journal files are ours and may hold a large job's requests: read whole, as they were before reads went through containment.ts. */
const JOURNAL_READ_LIMIT = Number.MAX_SAFE_INTEGER;

/** The files of a job, by its display name. */
export function batchJobFiles(dir: string, displayName: string): { entry: string; requests: string; results: string } {
  const base = join(dir, BATCH_JOBS_DIR, displayName);
  return { entry: `${base}.json`, requests: `${base}.requests.jsonl`, results: `${base}.results.jsonl` };
}

/** Reads every job entry of a batch folder (none when it does not exist), oldest first. */
export async function readBatchJournal(dir: string): Promise<BatchJournal> {
  const folder = join(dir, BATCH_JOBS_DIR);
  // Links inside the journal are refused, never followed (containment.ts).
  const entries = await listInside(dir, folder, { refuseLinks: true });
  if (!entries) return { jobs: [] };
  const names = entries.map((e) => e.name);
  const jobs: BatchJournalJob[] = [];
  for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
    const file = join(folder, name);
    jobs.push(parseFile(file, await readFileInside(dir, file, JOURNAL_READ_LIMIT), (v) => BatchJournalJob.parse(v)));
  }
  return { jobs: jobs.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0)) };
}

/** Writes a job's entry atomically. */
export async function writeJobEntry(dir: string, job: BatchJournalJob): Promise<void> {
  await writeFileInside(dir, batchJobFiles(dir, job.displayName).entry, `${JSON.stringify(job, null, 1)}\n`);
}

/** Removes a job's entry and requests (an intent the provider never turned into a job). */
export async function removeJob(dir: string, displayName: string): Promise<void> {
  const files = batchJobFiles(dir, displayName);
  await removeFileInside(dir, files.entry);
  await removeFileInside(dir, files.requests);
}

/** Writes a job's requests file atomically, before its entry names it. */
export async function writeJobRequests(dir: string, displayName: string, items: readonly BatchItem[]): Promise<void> {
  await writeFileInside(dir, batchJobFiles(dir, displayName).requests, items.map((i) => `${JSON.stringify({ id: i.id, request: i.request })}\n`).join(''));
}

/** Reads a job's requests back (to rebuild a job, or to show what it asked). */
export async function readJobRequests(dir: string, displayName: string): Promise<BatchItem[]> {
  const file = batchJobFiles(dir, displayName).requests;
  return jsonLines(file, await readFileInside(dir, file, JOURNAL_READ_LIMIT), (v) => BatchRequestLine.parse(v));
}

/** Writes a job's results atomically: on disk before any call is resolved with them. */
export async function writeJobResults(dir: string, displayName: string, results: readonly BatchItemResult[]): Promise<void> {
  await writeFileInside(dir, batchJobFiles(dir, displayName).results, results.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

/** A job's downloaded results, or undefined when they were never written. */
export async function readJobResults(dir: string, displayName: string): Promise<BatchItemResult[] | undefined> {
  const file = batchJobFiles(dir, displayName).results;
  let text: string;
  try {
    text = await readFileInside(dir, file, JOURNAL_READ_LIMIT);
  } catch (e) {
    if (e instanceof FileReadError && e.reason === 'missing') return undefined;
    throw e;
  }
  return jsonLines(file, text, (v) => BatchResultLine.parse(v));
}

function parseFile<T>(file: string, text: string, parse: (value: unknown) => T): T {
  try {
    return parse(JSON.parse(text));
  } catch (e) {
    const why = e instanceof z.ZodError ? (e.issues[0]?.message ?? 'invalid') : (e as Error).message;
    throw new BatchJournalError(`${file}: not a batch journal file (${why})`);
  }
}

function jsonLines<T>(file: string, text: string, parse: (value: unknown) => T): T[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => parseFile(`${file}:${i + 1}`, line, parse));
}
