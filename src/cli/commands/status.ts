import { readdir, stat } from 'node:fs/promises';
import { checkTreeInside } from '../../core/containment';
import { join } from 'node:path';
import { createBatchBackend, readBatchJournal, refreshBatchJobs, TERMINAL_BATCH_STATES, type BatchJournal, type BatchJournalJob } from '../../core/llm/batch';
import { LlmConfigError, LlmHttpError, LlmNetworkError } from '../../core/llm';
import { BATCH_DIR, CACHE_DIR } from '../../core/workspace/layout';
import type { OptionTable, Parsed } from '../command';
import { EXIT, UsageError, type Io } from '../errors';
import { relativeTo } from '../format';
import { pathOption } from '../options';
import { renderTable, tableLook } from '../table';
import { statusTone } from '../colour';

/** Raw options of `agent-seer status`. */
export interface StatusArgs {
  dir?: string;
  baseUrl?: string;
  cacheDir?: string;
  /** Show the journal as last written, without asking the provider. */
  cached: boolean;
  json: boolean;
}

/** Whether a journaled job has ended (an intent, not yet confirmed created, has not). */
function ended(job: BatchJournalJob): boolean {
  return job.state !== undefined && TERMINAL_BATCH_STATES.includes(job.state);
}

/** One engine's journal (one provider and model) and where it lives. */
interface FoundJournal {
  folder: string;
  journal: BatchJournal;
  /** Why the provider could not be asked, when it could not. */
  stale?: string;
}

/** The journals under `<cacheDir>/batch/`, one folder per provider and model. */
async function findJournals(cacheDir: string): Promise<{ folder: string; journal: BatchJournal }[]> {
  const root = join(cacheDir, BATCH_DIR);
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const found = [];
  for (const e of entries.filter((x) => x.isDirectory()).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const folder = join(root, e.name);
    found.push({ folder, journal: await readBatchJournal(folder) });
  }
  return found;
}

/**
 * `agent-seer status <harness-dir>`: the batch jobs of the runs in a harness folder (or a corpus
 * folder), their states and item counts. It asks the provider for the state of each job not yet
 * ended (with the key from the environment, as generate does) unless `--cached`; it never
 * submits, collects or cancels anything. Exit 0 when every job has ended, 4 while some run.
 */
export async function statusCommand(args: StatusArgs, io: Io, signal?: AbortSignal): Promise<number> {
  if (!args.dir) throw new UsageError('status needs a harness folder');
  const dir = pathOption('harness folder', args.dir, io.cwd);
  if (
    !(await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    throw new UsageError(`${args.dir}: not a folder`);
  const cacheDir = args.cacheDir !== undefined ? pathOption('--cache-dir', args.cacheDir, io.cwd) : join(dir, CACHE_DIR);
  // The harness's own .cache is read and its journals updated: never through a link (containment.ts).
  if (args.cacheDir === undefined) await checkTreeInside(dir, cacheDir);
  const rel = relativeTo(io.cwd);
  const journals: FoundJournal[] = [];
  for (const { folder, journal } of await findJournals(cacheDir)) {
    const open = journal.jobs.find((j) => !ended(j));
    if (args.cached || !open) {
      journals.push({ folder, journal, ...(open ? { stale: 'not asked (--cached)' } : {}) });
      continue;
    }
    try {
      // One folder holds the jobs of one provider and model (app/batchMode.ts).
      if (open.provider !== 'gemini' && open.provider !== 'openai') throw new LlmConfigError(`jobs of an unknown provider "${open.provider}"`);
      const backend = createBatchBackend({ provider: open.provider, model: open.model, baseUrl: args.baseUrl, env: io.env });
      journals.push({ folder, journal: await refreshBatchJobs(folder, backend, signal ?? new AbortController().signal) });
    } catch (e) {
      if (!(e instanceof LlmConfigError || e instanceof LlmHttpError || e instanceof LlmNetworkError)) throw e;
      journals.push({ folder, journal, stale: `not asked: ${e.message}` });
    }
  }
  if (journals.length === 0) {
    io.out(args.json ? JSON.stringify({ dir, jobs: [] }, null, 2) : `No batch jobs recorded in ${rel(join(cacheDir, BATCH_DIR))}.`);
    return EXIT.ok;
  }
  const rows = journals.flatMap(({ journal, stale }) =>
    journal.jobs.map((j) => ({
      provider: `${j.provider}:${j.model}`,
      job: j.job ?? `(${j.displayName}, creation not confirmed)`,
      state: j.state ?? 'submitting',
      ended: ended(j),
      items: j.items.length,
      succeeded: j.counts?.succeeded ?? null,
      failed: j.counts?.failed ?? null,
      submittedAt: j.createdAt,
      checkedAt: j.updatedAt,
      ...(stale ? { note: stale } : {}),
    })),
  );
  if (args.json) io.out(JSON.stringify({ dir, jobs: rows }, null, 2));
  else {
    io.out(
      renderTable(
        ['provider', 'job', 'state', 'items', 'succeeded', 'failed', 'submitted', 'checked'],
        rows.map((r) => [r.provider, r.job, r.state, r.items, r.succeeded ?? '–', r.failed ?? '–', r.submittedAt, r.checkedAt]),
        // The state column: ended well green, still running yellow, failed red.
        tableLook(io, (col, cell) => (col === 2 ? statusTone(cell) : undefined)),
      ),
    );
    for (const { folder, stale } of journals) if (stale) io.err(`agent-seer: ${rel(folder)}: states as last recorded, ${stale}`);
  }
  const running = rows.filter((r) => !r.ended).length;
  if (running && !args.json)
    io.out(`${running} job${running === 1 ? '' : 's'} still running: run the command that submitted them again to collect them when they end.`);
  return running ? EXIT.pending : EXIT.ok;
}

/** The option table of `agent-seer status`. */
export const options = {
  'base-url': { type: 'string' },
  'cache-dir': { type: 'string' },
  cached: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
} as const satisfies OptionTable;

/** Its lines in the top-level help. */
export const synopsis = `  agent-seer status <harness-dir> [--cached] [--base-url URL] [--cache-dir DIR] [--json]
                                             the batch jobs of a harness (or corpus) folder:
                                             their states and item counts`;

/** `agent-seer status --help`. */
export const usage = `Usage: agent-seer status <harness-dir> [options]

Lists the batch jobs that \`generate --batch\` and \`judge --batch\` submitted for a harness
folder (or the output folder of a corpus run), with their states and item counts. Jobs not yet
ended are looked up at the provider (keys from GEMINI_API_KEY / GOOGLE_API_KEY or OPENAI_API_KEY);
nothing is submitted, collected or cancelled. To collect finished jobs, run the command that
submitted them again.

Options:
  --cached           show the states as last recorded, without asking the provider
  --base-url URL     the provider's endpoint (or GEMINI_BASE_URL / OPENAI_BASE_URL)
  --cache-dir DIR    the cache folder the run used (default <harness-dir>/${CACHE_DIR})
  --json             print the jobs as JSON
  -h, --help         this text

Exit 0 every job has ended (or there are none); 2 bad input; 4 some jobs are still running.`;

/** Runs `status` on parsed arguments. */
export function run({ values, positionals }: Parsed<typeof options>, io: Io, signal?: AbortSignal): Promise<number> {
  if (positionals.length > 1) throw new UsageError('status takes one harness folder');
  return statusCommand(
    { dir: positionals[0], baseUrl: values['base-url'], cacheDir: values['cache-dir'], cached: values.cached, json: values.json },
    io,
    signal,
  );
}
