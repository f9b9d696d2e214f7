/**
 * Judging a whole harness folder: every record by every judge, records in parallel, each record
 * file rewritten atomically as soon as one of its judgments is done (a cancelled run keeps what
 * it finished). A record already judged by a judge id with the same inputs is skipped, so an
 * unchanged re-run makes no calls at all; the LLM reply cache makes a re-run after a crash cheap
 * as well.
 */
import { setMaxListeners } from 'node:events';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { HarnessRecord } from '../harness/format';
import { lockFolder } from '../harness/lock';
import { DEFAULT_CONCURRENCY } from '../workspace/defaults';
import { readHarness, writeRecord, writeRecordFile, type HarnessProblem } from '../harness/store';
import type { StructuredLlm } from '../llm';
import { abortReason } from '../llm';
import { PromptLibrary } from '../llm/prompts';
import type { Spec } from '../spec/model';
import { mean } from '../util/mean';
import { hasNotJudged, judgePromptVersions, judgeRecord, judgmentInputHash, JUDGE_TEMPERATURE } from './judgeRecord';
import { StoredJudgment, type Trajectory } from './schemas';
import type { JudgeMode } from './view';
import { round4 } from '../util/round4';

/** One judge of a run: an LLM judge, or the offline judge when `llm` is absent. */
export interface HarnessJudge {
  /** Key under `judgments` (e.g. `gemini:gemini-2.5-flash`, `offline`). */
  id: string;
  llm?: StructuredLlm;
}

/** One (record, judge) pair finished. */
export interface JudgeProgress {
  /** Pairs finished so far, of `total` (records × judges). */
  done: number;
  total: number;
  recordId: string;
  judgeId: string;
  /** `skipped`: already judged with the same inputs. `not-judged`: the judge failed on some aspect. */
  outcome: 'judged' | 'not-judged' | 'skipped';
  tc: number | null;
  coh: number | null;
}

/** Options of {@link judgeHarness}. */
export interface JudgeHarnessOptions {
  judges: readonly HarnessJudge[];
  /** The spec the harness was generated from (see `findHarnessSpec` in `harness/specLookup.ts`). */
  spec: Spec;
  /** Records judged at once. Default 4. Each LLM's own `CallGuard` limits its calls besides. */
  concurrency?: number;
  signal?: AbortSignal;
  onProgress?: (progress: JudgeProgress) => void;
  /** Default `'unsupervised'`. */
  mode?: JudgeMode;
  /** Oracle mode: the trajectory to judge for a record (records without one are skipped). */
  trajectoryFor?: (record: HarnessRecord) => Trajectory | undefined;
  /** Judge again even when a current judgment exists. */
  force?: boolean;
  /** Prompt templates; loaded from `prompts/` when absent and an LLM judge is present. */
  prompts?: PromptLibrary;
}

/** What one judge did over the harness. Means cover every view of every record's current judgment by this judge, skipped ones included. */
export interface JudgeSummary {
  id: string;
  /** Judged in this run, every aspect the judge scores. */
  judged: number;
  /** Judged in this run with an aspect that failed (`null` + a note). */
  notJudged: number;
  /** Already current; not redone. */
  skipped: number;
  meanTc: number | null;
  meanCoh: number | null;
  /** Mean judge-independent exact argument score (what the offline judge offers instead of TC). */
  meanExact: number | null;
  /** Views the harness has (the paper's records): one per record, two for a record with a conversation (unsupervised). */
  views: number;
  /** Views with a TC / Coh score, of `views`. */
  scoredTc: number;
  scoredCoh: number;
  /** Times the judge contradicted an exact fact (the fact won), over all records. */
  disagreements: number;
  /** LLM requests sent in this run (cache hits excluded), and what they cost. */
  llmCalls: number;
  cacheHits: number;
  reasks: number;
  inputTokens: number;
  outputTokens: number;
}

/** What {@link judgeHarness} returns. */
export interface JudgeHarnessResult {
  /** Records read. */
  records: number;
  judges: JudgeSummary[];
  /** Files of the harness that could not be read (not judged). */
  problems: HarnessProblem[];
}

const meanOf = (xs: readonly number[]): number | null => {
  const m = mean(xs);
  return m === null ? null : round4(m);
};

/** How many views of a record are judged: its single-turn task, and its conversation when it has one (unsupervised). */
export function judgedViews(record: HarnessRecord, mode: JudgeMode): number {
  return mode === 'unsupervised' && record.conversation.length >= 2 ? 2 : 1;
}

/** Whether a stored judgment is current: same inputs and nothing left not judged, in any view. */
export function isCurrentJudgment(stored: unknown, inputHash: string): boolean {
  const parsed = StoredJudgment.safeParse(stored);
  return parsed.success && parsed.data.inputHash === inputHash && !hasNotJudged(parsed.data);
}

/**
 * Judges every record of a harness folder with every judge and writes the judgments into the
 * record files. Rejects on cancellation (finished records stay written) and on faults no record
 * can get past (bad key, unreachable server); a judge failing on one record is a value (a
 * `not-judged` judgment with a note), not a rejection.
 */
export async function judgeHarness(dir: string, options: JudgeHarnessOptions): Promise<JudgeHarnessResult> {
  // Judgments are written into the record files: one writer per folder (a generation run
  // rewrites them too). A missing folder has nothing to write; reading reports it.
  const lock = await lockFolder(dir, 'judge').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return undefined;
    throw e;
  });
  try {
    return await judgeHarnessLocked(dir, options);
  } finally {
    await lock?.release();
  }
}

async function judgeHarnessLocked(dir: string, options: JudgeHarnessOptions): Promise<JudgeHarnessResult> {
  const mode = options.mode ?? 'unsupervised';
  const read = await readHarness(dir);
  const records = read.records;
  const prompts = options.judges.some((j) => j.llm) ? (options.prompts ?? PromptLibrary.load()) : undefined;
  const before = new Map(options.judges.map((j) => [j.id, j.llm?.stats.snapshot()] as const));
  const counts = new Map<string, { judged: number; notJudged: number; skipped: number }>(
    options.judges.map((j) => [j.id, { judged: 0, notJudged: 0, skipped: 0 }]),
  );
  const total = records.length * options.judges.length;
  let done = 0;

  // Our own controller, so one fatal fault stops the other records too.
  const stop = new AbortController();
  // Every judge call of every record in flight listens to it (four per multi-turn record and judge): not a leak.
  setMaxListeners(0, stop.signal);
  const onOuterAbort = (): void => stop.abort(abortReason(options.signal));
  if (options.signal?.aborted) throw abortReason(options.signal);
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });

  const judgeOne = async (record: HarnessRecord, judge: HarnessJudge, save: () => Promise<void>): Promise<void> => {
    const trajectory = mode === 'oracle' ? options.trajectoryFor?.(record) : undefined;
    const count = counts.get(judge.id);
    if (!count) return;
    const report = (outcome: JudgeProgress['outcome'], j: { tc: number | null; coh: number | null } | undefined): void => {
      count[outcome === 'judged' ? 'judged' : outcome === 'skipped' ? 'skipped' : 'notJudged']++;
      options.onProgress?.({ done: ++done, total, recordId: record.id, judgeId: judge.id, outcome, tc: j?.tc ?? null, coh: j?.coh ?? null });
    };
    if (mode === 'oracle' && !trajectory) {
      report('skipped', undefined);
      return;
    }
    const promptVersions = judgePromptVersions(judge.llm ? prompts : undefined, mode);
    const hash = judgmentInputHash(record, options.spec, { id: judge.id, promptVersions, temperature: judge.llm ? JUDGE_TEMPERATURE : null, mode, trajectory });
    const existing = record.judgments?.[judge.id];
    if (!options.force && isCurrentJudgment(existing, hash)) {
      report('skipped', existing);
      return;
    }
    const judgment = await judgeRecord(record, options.spec, { llm: judge.llm, mode, trajectory, signal: stop.signal, prompts, judgeId: judge.id });
    record.judgments = { ...record.judgments, [judge.id]: judgment };
    await save();
    report(hasNotJudged(judgment) ? 'not-judged' : 'judged', judgment);
  };

  const judgeRecordAll = async (record: HarnessRecord): Promise<void> => {
    // Writes of one record are serialised; each writes every judgment finished so far.
    let writing: Promise<void> = Promise.resolve();
    // Back into the file the record came from: its id may have been edited to differ from the name.
    const file = read.files.get(record.id);
    const write = (): Promise<string> => (file ? writeRecordFile(dir, file, record) : writeRecord(dir, record));
    const save = (): Promise<void> => (writing = writing.then(() => write().then(() => undefined)));
    await Promise.all(options.judges.map((judge) => judgeOne(record, judge, save)));
    await writing;
  };

  let failure: { error: unknown } | undefined;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (!stop.signal.aborted && next < records.length) {
      const record = records[next++];
      if (!record) continue;
      try {
        await judgeRecordAll(record);
        // Back to the event loop between records: an offline judgment or an up-to-date skip
        // never waits on I/O, and without this a signal would wait for the whole harness.
        await nextTurn();
      } catch (e) {
        failure ??= { error: stop.signal.aborted && options.signal?.aborted ? abortReason(options.signal) : e };
        stop.abort(e);
      }
    }
  };
  try {
    const n = Math.max(1, Math.min(options.concurrency ?? DEFAULT_CONCURRENCY, records.length || 1));
    await Promise.all(Array.from({ length: n }, worker));
  } finally {
    options.signal?.removeEventListener('abort', onOuterAbort);
  }
  if (failure) throw failure.error;
  if (options.signal?.aborted) throw abortReason(options.signal);

  const judges: JudgeSummary[] = options.judges.map((judge) => {
    const parsed = records.map((r) => StoredJudgment.safeParse(r.judgments?.[judge.id])).flatMap((p) => (p.success ? [p.data] : []));
    // Scores are over views, as the paper counts records: a conversation view is a record of its own.
    const stored = parsed.flatMap((j) => (j.conversation ? [j, j.conversation] : [j]));
    const tcs = stored.map((j) => j.tc).filter((x): x is number => x !== null);
    const cohs = stored.map((j) => j.coh).filter((x): x is number => x !== null);
    const exacts = stored.map((j) => j.exact).filter((x): x is number => x !== null);
    const s0 = before.get(judge.id);
    const s1 = judge.llm?.stats.snapshot();
    const delta = (f: (s: NonNullable<typeof s1>) => number): number => (s1 ? f(s1) - (s0 ? f(s0) : 0) : 0);
    const c = counts.get(judge.id) ?? { judged: 0, notJudged: 0, skipped: 0 };
    return {
      id: judge.id,
      ...c,
      meanTc: meanOf(tcs),
      meanCoh: meanOf(cohs),
      meanExact: meanOf(exacts),
      views: records.reduce((n, r) => n + judgedViews(r, mode), 0),
      scoredTc: tcs.length,
      scoredCoh: cohs.length,
      disagreements: stored.reduce((n, j) => n + j.disagreements.length, 0),
      llmCalls: delta((s) => s.requests),
      cacheHits: delta((s) => s.cacheHits),
      reasks: delta((s) => s.reasks),
      inputTokens: delta((s) => s.inputTokens),
      outputTokens: delta((s) => s.outputTokens),
    };
  });
  return { records: records.length, judges, problems: read.problems };
}
