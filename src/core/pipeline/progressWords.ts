/**
 * Progress in the user's words for the editor's notifications: "Writing scenario 550 of 800"
 * rather than "write 550/800". The one mapping from stage names to words.
 */
import type { PipelineProgress, PipelineStage } from './progress';

/** What a stage's counter counts, as a phrase that a number follows. */
export const STAGE_WORDS: Readonly<Record<PipelineStage | 'judge', string>> = {
  interpret: 'Reading tool',
  scenarios: 'Writing scenario batch',
  mock: 'Writing mock outputs for scenario',
  turns: 'Splitting into turns: scenario',
  write: 'Writing scenario',
  judge: 'Judging scenario',
};

/** "Writing scenario 550 of 800". */
export function countWords(stage: PipelineStage | 'judge', done: number, total: number): string {
  return `${STAGE_WORDS[stage]} ${done} of ${total}`;
}

/**
 * A generation run's progress: the first LLM stage still under way (they overlap, the earliest
 * is what holds the run up), else writing; then the records written and the LLM's calls.
 */
export function describePipelineProgress(p: PipelineProgress): string {
  const order = ['interpret', 'scenarios', 'mock', 'turns', 'write'] as const;
  const active = order.find((s) => p.stages[s].done < p.stages[s].total) ?? p.stage;
  const s = p.stages[active];
  const records = active === 'write' ? '' : ` · ${p.records} ${p.records === 1 ? 'record' : 'records'} written`;
  const llm = p.llm.calls || p.llm.cacheHits ? ` · ${p.llm.calls} LLM calls, ${p.llm.cacheHits} from the cache` : '';
  return `${countWords(active, s.done, s.total)}${records}${llm}`;
}
