/**
 * `agent-seer diff A B`: what got worse and what got better between two judged harnesses (the
 * same spec before and after a change, regenerated and judged again) or two runs of agents
 * (`runs/<agent>/<run>` folders). Scenarios are paired by record id, then by title (ids change
 * when a harness is regenerated), and each pairing says how it was made. Per scenario and per
 * score: the change, the pass/fail verdict before and after (`judge/verdict.ts` for records,
 * `agents/score.ts` for runs), and the tools it uses that changed in the spec (`specDiff.ts`).
 *
 * `DiffModel` (zod) is the single source of the JSON output; `renderDiffText` prints the same
 * model as a Markdown table, worst regressions first.
 */
import { basename, dirname, join, resolve } from 'node:path';
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { readRuns } from '../agents/readRuns';
import { scoreTrajectory, type ScenarioScore } from '../agents/score';
import { judgmentScores, type HarnessManifest, type HarnessRecord } from '../harness/format';
import { diffSpecs, diffToolHashes, type SpecDiff } from '../harness/specDiff';
import { assertNotLocked } from '../harness/lock';
import { findHarnessSpec } from '../harness/specLookup';
import { readHarness, type HarnessProblem } from '../harness/store';
import { recordVerdict, storedJudgments } from '../judge/verdict';
import type { Spec } from '../spec/model';
import { byCodeUnit } from '../util/byCodeUnit';
import { MANIFEST_FILE, RECORDS_DIR, RUNS_DIR } from '../workspace/layout';

/** The one version of the diff JSON this code writes. */
export const DIFF_VERSION = 1;

/** File name of the published JSON Schema of `diff --format json` (under `schemas/`). */
export const DIFF_SCHEMA_FILE = 'diff.schema.json';

/** Which way a score moved. Scores are 0–1, higher better, except `determinacyFindings` (a count, lower better). */
const Direction = z.enum(['worse', 'better', 'same', 'unscored']);

/** One score of one scenario in A and in B. */
export const ScoreChange = z.object({
  score: z
    .enum(['tc', 'coh', 'exact', 'determined', 'determinacyFindings', 'callScore'])
    .describe(
      "tc, coh: an LLM judge's scores (0–1); exact: the exact argument score (0–1); determined: share of the grounded argument values the user's words and the outputs pin down (judgments' determinacy.determined / checked); determinacyFindings: count of determinacy findings (lower is better); callScore: an agent run's headline call score (0–1).",
    ),
  before: z.number().nullable().describe('In A; null when not scored there.'),
  after: z.number().nullable().describe('In B; null when not scored there.'),
  delta: z.number().nullable().describe('after − before; null when either is missing.'),
  direction: Direction,
});
export type ScoreChange = z.infer<typeof ScoreChange>;

/** A pass/fail verdict. */
const Verdict = z
  .enum(['pass', 'fail', 'stale', 'not-judged'])
  .describe('pass/fail as the editor shows it (judge/verdict.ts; for runs agents/score.ts `passed`); stale: a judgment older than its record or spec.');

/** One scenario of A, of B, or of both. */
export const ScenarioDiff = z.object({
  status: z.enum(['matched', 'new', 'vanished']).describe('matched: in both; new: only in B; vanished: only in A.'),
  matchedBy: z.enum(['id', 'title']).nullable().describe('How a matched scenario was paired: by record id, else by its (unique) title; null when not matched.'),
  idA: z.string().nullable(),
  idB: z.string().nullable(),
  title: z.string(),
  scores: z.array(ScoreChange),
  verdict: z.object({ before: Verdict.nullable(), after: Verdict.nullable() }),
  worse: z.array(z.string()).describe('What got worse: score names, and "verdict" when a passing scenario now fails.'),
  better: z.array(z.string()).describe('What got better, in the same terms.'),
  largestDrop: z.number().describe('The largest drop of a 0–1 score (0 when none dropped).'),
  failures: z.array(z.string()).describe("Why B's scenario fails: the verdict's reasons for a record, the failing calls for a run."),
  toolsChanged: z.array(z.string()).describe('Tools the scenario calls whose definition changed or that were removed between the specs.'),
});
export type ScenarioDiff = z.infer<typeof ScenarioDiff>;

/** The whole diff. */
export const DiffModel = z
  .object({
    diffVersion: z.literal(DIFF_VERSION),
    kind: z.enum(['harness', 'run']).describe('Two judged harnesses, or two agent runs (runs/<agent>/<run> folders).'),
    a: z.string().describe('A as given on the command line.'),
    b: z.string().describe('B as given on the command line.'),
    judge: z.string().nullable().describe('The judge whose scores are compared; null when none is common to A and B.'),
    specChanges: z
      .object({
        added: z.array(z.string()),
        removed: z.array(z.string()),
        changed: z.array(z.object({ name: z.string(), parts: z.array(z.string()).describe('Fields that differ; empty when only tool hashes were at hand.') })),
      })
      .nullable()
      .describe('Tools added, removed and changed from A’s spec to B’s; null when a spec could not be found.'),
    counts: z.object({
      matchedById: z.number().int(),
      matchedByTitle: z.number().int(),
      new: z.number().int(),
      vanished: z.number().int(),
      worse: z.number().int(),
      better: z.number().int(),
      unchanged: z.number().int(),
    }),
    scenarios: z.array(ScenarioDiff).describe('Paired scenarios that changed or were paired by title, worst regressions first; then new, then vanished ones.'),
    problems: z.array(z.string()).describe('Files of A or B that could not be used.'),
  })
  .describe('Agent Seer diff: what changed between two judged harnesses or two agent runs.');
export type DiffModel = z.infer<typeof DiffModel>;

/** The JSON Schema of `diff --format json`, generated from {@link DiffModel}. */
export function diffJsonSchema(): Record<string, unknown> {
  return {
    ...(z.toJSONSchema(DiffModel, { target: 'draft-7', io: 'output', unrepresentable: 'any' }) as Record<string, unknown>),
    title: `Agent Seer diff (diffVersion ${DIFF_VERSION})`,
  };
}

/** Bad input to the diff (a folder that is neither a harness nor a run, runs against harnesses): one line for the user. */
export class DiffInputError extends Error {
  override readonly name = 'DiffInputError';
}

/** Score names that are shares in 0–1 (a drop of these is what `--fail-on-regression` measures). */
const SHARE_SCORES = new Set(['tc', 'coh', 'exact', 'determined', 'callScore']);

/** A side of the diff: its scenarios (keyed by id) with their titles, tools and scores. */
interface Side {
  label: string;
  spec: Spec | undefined;
  manifest: HarnessManifest | undefined;
  scenarios: Map<string, SideScenario>;
  problems: string[];
}

interface SideScenario {
  id: string;
  title: string;
  tools: string[];
  toolHashes: Record<string, string>;
  scores: Partial<Record<ScoreChange['score'], number | null>>;
  verdict: z.infer<typeof Verdict>;
  failures: string[];
}

const isDir = (p: string): Promise<boolean> =>
  stat(p).then(
    (s) => s.isDirectory(),
    () => false,
  );
const exists = (p: string): Promise<boolean> =>
  stat(p).then(
    () => true,
    () => false,
  );

/** What a folder is: a harness (manifest or records/), a run (`runs/<agent>/<run>` under a harness), or neither. */
export async function diffInputKind(dir: string): Promise<'harness' | 'run' | undefined> {
  if (!(await isDir(dir))) return undefined;
  if ((await exists(join(dir, MANIFEST_FILE))) || (await isDir(join(dir, RECORDS_DIR)))) return 'harness';
  if (basename(dirname(dirname(dir))) === RUNS_DIR) return 'run';
  return undefined;
}

const problemLines = (label: string, problems: readonly HarnessProblem[]): string[] => problems.map((p) => `${label}: ${p.file}: ${p.message}`);

/** Loads a harness and its spec (the spec is optional: without it verdicts use the stored checks and the spec diff the manifests' hashes). */
async function loadHarness(
  dir: string,
  cwd: string,
): Promise<{ records: HarnessRecord[]; spec: Spec | undefined; manifest: HarnessManifest | undefined; problems: string[] }> {
  // A harness a generate or judge run is writing is partial: refused (naming the run), never compared half-written.
  await assertNotLocked(dir);
  const read = await readHarness(dir);
  if (!read.manifest && !read.records.length) throw new DiffInputError(`${dir}: not a harness folder (no manifest.json or records/)`);
  const found = await findHarnessSpec(dir, read.manifest, { cwd });
  return { records: read.records, spec: found.ok ? found.spec : undefined, manifest: read.manifest, problems: problemLines(dir, read.problems) };
}

/** The judge ids any record of the harness was judged by. */
function judgeIds(records: readonly HarnessRecord[]): Set<string> {
  return new Set(records.flatMap((r) => Object.keys(r.judgments ?? {})));
}

/** The judge to compare: the one asked for, else one both sides used (an LLM judge before the offline one), by name. */
function pickJudge(a: Set<string>, b: Set<string>, asked: string | undefined): string | null {
  if (asked !== undefined) {
    if (!a.has(asked) && !b.has(asked))
      throw new DiffInputError(
        `--judge ${asked}: no record of A or B was judged by it (judges: ${[...new Set([...a, ...b])].sort(byCodeUnit).join(', ') || 'none'})`,
      );
    return asked;
  }
  const common = [...a].filter((j) => b.has(j)).sort(byCodeUnit);
  return common.find((j) => j !== 'offline') ?? common[0] ?? null;
}

/** A record as one side of the diff, scored by `judge`. */
function recordSide(record: HarnessRecord, spec: Spec | undefined, judge: string | null): SideScenario {
  const v = recordVerdict(record, spec ? { spec } : {});
  const scores: SideScenario['scores'] = {};
  const judgment = judge === null ? undefined : record.judgments?.[judge];
  if (judgment) {
    const s = judgmentScores(judgment);
    scores.tc = s.tc;
    scores.coh = s.coh;
    scores.exact = s.exact;
    const stored = storedJudgments(record).find(([id]) => id === judge)?.[1];
    const d = stored?.determinacy;
    scores.determined = d && d.checked > 0 ? d.determined / d.checked : null;
    scores.determinacyFindings = d ? d.findings : null;
  }
  return {
    id: record.id,
    title: record.title,
    tools: [...new Set(record.expected_tools.map((c) => c.name))],
    toolHashes: record.provenance.toolHashes,
    scores,
    verdict: v.state,
    failures: v.state === 'fail' ? v.failures : [],
  };
}

/** One line per expected call an agent got wrong or missed, and one per call nobody asked for. */
function failingCalls(score: ScenarioScore): string[] {
  const out: string[] = [];
  score.calls.forEach((c, i) => {
    if (c.exact) return;
    if (!c.actual) return void out.push(`call ${i} ${c.expected.name}: not made`);
    const wrong = Object.entries(c.arguments)
      .filter(([, v]) => v !== 'ok')
      .map(([k, v]) => `${k} ${v}`);
    out.push(
      `call ${i} ${c.expected.name}: ${c.malformed ? 'malformed arguments' : wrong.length ? wrong.join(', ') : c.order ? `made ${c.order}` : 'refused'}`,
    );
  });
  for (const e of score.extraCalls) out.push(`extra call ${e.name}`);
  return out;
}

/** A loaded harness as one side, scored by `judge`. */
function harnessSide(label: string, judge: string | null, loaded: Awaited<ReturnType<typeof loadHarness>>): Side {
  const scenarios = new Map(loaded.records.map((r) => [r.id, recordSide(r, loaded.spec, judge)]));
  return { label, spec: loaded.spec, manifest: loaded.manifest, scenarios, problems: loaded.problems };
}

/** A run folder as one side: each trajectory scored against its harness's record (the first trajectory of a scenario when a folder holds several). */
async function runSide(dir: string, label: string, cwd: string): Promise<Side> {
  const runName = basename(dir);
  const agent = basename(dirname(dir));
  const harnessDir = dirname(dirname(dirname(dir)));
  const loaded = await loadHarness(harnessDir, cwd);
  if (!loaded.spec) throw new DiffInputError(`${label}: the spec of its harness ${harnessDir} was not found, so its calls cannot be scored`);
  const read = await readRuns(harnessDir);
  const run = read.agents.find((a) => a.agent === agent)?.runs.find((r) => r.run === runName);
  if (!run) throw new DiffInputError(`${label}: no trajectories in this run folder`);
  const records = new Map(loaded.records.map((r) => [r.id, r]));
  const scenarios = new Map<string, SideScenario>();
  const problems = [...loaded.problems, ...problemLines(harnessDir, read.problems)];
  for (const t of run.trajectories) {
    if (scenarios.has(t.scenarioId)) continue;
    const record = records.get(t.scenarioId);
    if (!record) {
      problems.push(`${label}: trajectory of scenario ${JSON.stringify(t.scenarioId)}, which its harness does not hold`);
      continue;
    }
    const score = scoreTrajectory(loaded.spec, record, t);
    scenarios.set(t.scenarioId, {
      id: record.id,
      title: record.title,
      tools: [...new Set(record.expected_tools.map((c) => c.name))],
      toolHashes: record.provenance.toolHashes,
      scores: { callScore: score.callScore },
      verdict: score.passed ? 'pass' : 'fail',
      failures: score.passed ? [] : failingCalls(score),
    });
  }
  return { label, spec: loaded.spec, manifest: loaded.manifest, scenarios, problems };
}

/**
 * Pairs A's scenarios with B's: by id first; then those left over, by title when exactly one
 * scenario on each side has it (two scenarios of one title are not guessed between).
 */
export function pairScenarios<T extends { id: string; title: string }>(
  a: readonly T[],
  b: readonly T[],
): { pairs: { a: T; b: T; by: 'id' | 'title' }[]; onlyA: T[]; onlyB: T[] } {
  const bById = new Map(b.map((s) => [s.id, s]));
  const pairs: { a: T; b: T; by: 'id' | 'title' }[] = [];
  const leftA: T[] = [];
  const usedB = new Set<string>();
  for (const s of a) {
    const other = bById.get(s.id);
    if (other) {
      pairs.push({ a: s, b: other, by: 'id' });
      usedB.add(other.id);
    } else leftA.push(s);
  }
  const leftB = b.filter((s) => !usedB.has(s.id));
  const byTitle = <U extends { title: string }>(list: readonly U[]): Map<string, U[]> => {
    const m = new Map<string, U[]>();
    for (const s of list) m.set(s.title.trim().toLowerCase(), [...(m.get(s.title.trim().toLowerCase()) ?? []), s]);
    return m;
  };
  const titlesA = byTitle(leftA);
  const titlesB = byTitle(leftB);
  const paired = new Set<string>();
  for (const [title, as] of titlesA) {
    const bs = titlesB.get(title);
    if (as.length === 1 && bs?.length === 1) {
      pairs.push({ a: as[0]!, b: bs[0]!, by: 'title' });
      paired.add(as[0]!.id);
      paired.add(`\u0000${bs[0]!.id}`);
    }
  }
  return { pairs, onlyA: leftA.filter((s) => !paired.has(s.id)), onlyB: leftB.filter((s) => !paired.has(`\u0000${s.id}`)) };
}

const SCORE_ORDER: ScoreChange['score'][] = ['callScore', 'tc', 'coh', 'exact', 'determined', 'determinacyFindings'];

/** Deltas smaller than this are rounding, not change. */
const EPSILON = 1e-9;

function scoreChanges(a: SideScenario | undefined, b: SideScenario | undefined): ScoreChange[] {
  // A score neither side has (TC and Coh under the offline judge) is left out, not listed as unscored.
  const names = SCORE_ORDER.filter((s) => (a?.scores[s] ?? null) !== null || (b?.scores[s] ?? null) !== null);
  return names.map((score) => {
    const before = a?.scores[score] ?? null;
    const after = b?.scores[score] ?? null;
    const delta = before !== null && after !== null ? after - before : null;
    const higherBetter = score !== 'determinacyFindings';
    const direction = delta === null ? 'unscored' : Math.abs(delta) < EPSILON ? 'same' : delta > 0 === higherBetter ? 'better' : 'worse';
    return { score, before, after, delta, direction };
  });
}

/** Tools a scenario calls that changed or were removed from A's spec to B's. */
function changedTools(a: SideScenario | undefined, b: SideScenario | undefined, spec: SpecDiff | null): string[] {
  const tools = [...new Set([...(a?.tools ?? []), ...(b?.tools ?? [])])];
  if (spec) {
    const touched = new Set([...spec.removed, ...spec.changed.map((c) => c.name)]);
    return tools.filter((t) => touched.has(t)).sort(byCodeUnit);
  }
  if (!a || !b) return [];
  return tools.filter((t) => a.toolHashes[t] !== undefined && b.toolHashes[t] !== undefined && a.toolHashes[t] !== b.toolHashes[t]).sort(byCodeUnit);
}

function scenarioDiff(a: SideScenario | undefined, b: SideScenario | undefined, matchedBy: 'id' | 'title' | null, spec: SpecDiff | null): ScenarioDiff {
  const scores = a && b ? scoreChanges(a, b) : scoreChanges(a, b).map((s) => ({ ...s, direction: 'unscored' as const }));
  const worse = scores.filter((s) => s.direction === 'worse').map((s) => s.score as string);
  const better = scores.filter((s) => s.direction === 'better').map((s) => s.score as string);
  if (a && b) {
    if (a.verdict === 'pass' && b.verdict === 'fail') worse.push('verdict');
    if (a.verdict === 'fail' && b.verdict === 'pass') better.push('verdict');
  }
  const drops = scores.filter((s) => SHARE_SCORES.has(s.score) && s.delta !== null && s.delta < 0).map((s) => -s.delta!);
  return {
    status: a && b ? 'matched' : b ? 'new' : 'vanished',
    matchedBy,
    idA: a?.id ?? null,
    idB: b?.id ?? null,
    title: (b ?? a)!.title,
    scores,
    verdict: { before: a?.verdict ?? null, after: b?.verdict ?? null },
    worse,
    better,
    largestDrop: drops.length ? Math.max(...drops) : 0,
    failures: b?.failures ?? [],
    toolsChanged: changedTools(a, b, spec),
  };
}

/** How bad a matched scenario's change is, for the ordering: a pass turned fail first, then by its largest drop. */
const severity = (s: ScenarioDiff): number => (s.worse.includes('verdict') ? 1 : 0) + s.largestDrop + (s.worse.length ? 1e-6 : 0);

/** Diffs two folders given as paths (`a`, `b`: as the user wrote them, for the output). */
export async function diffFolders(options: { a: string; b: string; dirA: string; dirB: string; cwd: string; judge?: string }): Promise<DiffModel> {
  const [kindA, kindB] = await Promise.all([diffInputKind(options.dirA), diffInputKind(options.dirB)]);
  if (!kindA) throw new DiffInputError(`${options.a}: neither a harness folder (manifest.json or records/) nor a run folder (runs/<agent>/<run> of a harness)`);
  if (!kindB) throw new DiffInputError(`${options.b}: neither a harness folder (manifest.json or records/) nor a run folder (runs/<agent>/<run> of a harness)`);
  if (kindA !== kindB)
    throw new DiffInputError(`${options.a} is a ${kindA} folder and ${options.b} a ${kindB} folder: diff compares two harnesses or two runs`);
  let sideA: Side;
  let sideB: Side;
  let judge: string | null = null;
  if (kindA === 'harness') {
    const [la, lb] = await Promise.all([loadHarness(resolve(options.dirA), options.cwd), loadHarness(resolve(options.dirB), options.cwd)]);
    judge = pickJudge(judgeIds(la.records), judgeIds(lb.records), options.judge);
    sideA = harnessSide(options.a, judge, la);
    sideB = harnessSide(options.b, judge, lb);
  } else {
    sideA = await runSide(resolve(options.dirA), options.a, options.cwd);
    sideB = await runSide(resolve(options.dirB), options.b, options.cwd);
  }
  return diffSides(kindA, sideA, sideB, judge);
}

function diffSides(kind: 'harness' | 'run', a: Side, b: Side, judge: string | null): DiffModel {
  const spec: SpecDiff | null =
    a.spec && b.spec ? diffSpecs(a.spec, b.spec) : a.manifest && b.manifest ? diffToolHashes(a.manifest.spec.toolHashes, b.manifest.spec.toolHashes) : null;
  const { pairs, onlyA, onlyB } = pairScenarios([...a.scenarios.values()], [...b.scenarios.values()]);
  const matched = pairs.map((p) => scenarioDiff(p.a, p.b, p.by, spec));
  const changed = matched.filter((s) => s.worse.length || s.better.length || s.matchedBy === 'title');
  changed.sort((x, y) => severity(y) - severity(x) || y.worse.length - x.worse.length || byCodeUnit(x.idA ?? '', y.idA ?? ''));
  const added = onlyB.map((s) => scenarioDiff(undefined, s, null, spec)).sort((x, y) => byCodeUnit(x.idB ?? '', y.idB ?? ''));
  const vanished = onlyA.map((s) => scenarioDiff(s, undefined, null, spec)).sort((x, y) => byCodeUnit(x.idA ?? '', y.idA ?? ''));
  return {
    diffVersion: DIFF_VERSION,
    kind,
    a: a.label,
    b: b.label,
    judge,
    specChanges: spec ? { added: spec.added, removed: spec.removed, changed: spec.changed } : null,
    counts: {
      matchedById: pairs.filter((p) => p.by === 'id').length,
      matchedByTitle: pairs.filter((p) => p.by === 'title').length,
      new: added.length,
      vanished: vanished.length,
      worse: matched.filter((s) => s.worse.length).length,
      better: matched.filter((s) => s.better.length && !s.worse.length).length,
      unchanged: matched.filter((s) => !s.worse.length && !s.better.length).length,
    },
    scenarios: [...changed, ...added, ...vanished],
    problems: [...a.problems, ...b.problems],
  };
}

/** What `--fail-on-regression X` found: the regressions over the bar, one line each, and the one line a CI log shows. */
export interface RegressionGate {
  failed: boolean;
  /** One line: which bar failed and by how much (or that it held). */
  line: string;
  /** One line per scenario over the bar. */
  offenders: string[];
}

const f2 = (n: number): string => n.toFixed(2);
const scenarioName = (s: ScenarioDiff): string => (s.idA === s.idB || s.idB === null ? (s.idA ?? '') : s.idA === null ? s.idB : `${s.idA} → ${s.idB}`);

/** The gate: fails when any matched scenario's 0–1 score dropped by more than `x`, or a passing scenario now fails. */
export function regressionGate(model: DiffModel, x: number): RegressionGate {
  const offenders: string[] = [];
  let worst: { s: ScenarioDiff; c: ScoreChange } | undefined;
  for (const s of model.scenarios) {
    if (s.status !== 'matched') continue;
    const reasons: string[] = [];
    for (const c of s.scores) {
      if (!SHARE_SCORES.has(c.score) || c.delta === null || -c.delta <= x + EPSILON) continue;
      reasons.push(`${c.score} ${f2(c.before!)} → ${f2(c.after!)} (−${f2(-c.delta)})`);
      if (!worst || c.delta < worst.c.delta!) worst = { s, c };
    }
    if (s.worse.includes('verdict')) reasons.push('passed, now fails');
    if (reasons.length) offenders.push(`${scenarioName(s)}: ${reasons.join(', ')}`);
  }
  const nowFail = model.scenarios.filter((s) => s.worse.includes('verdict'));
  if (!offenders.length)
    return { failed: false, line: `--fail-on-regression ${x}: no scenario dropped by more than ${x} and no passing scenario fails`, offenders };
  const parts: string[] = [];
  if (worst)
    parts.push(`${scenarioName(worst.s)} ${worst.c.score} dropped by ${f2(-worst.c.delta!)} (${f2(worst.c.before!)} → ${f2(worst.c.after!)}), more than ${x}`);
  if (nowFail.length)
    parts.push(
      `${nowFail.length} passing scenario${nowFail.length === 1 ? '' : 's'} now fail${nowFail.length === 1 ? 's' : ''} (${nowFail.slice(0, 3).map(scenarioName).join(', ')}${nowFail.length > 3 ? ', …' : ''})`,
    );
  return {
    failed: true,
    line: `--fail-on-regression ${x} failed: ${offenders.length} scenario${offenders.length === 1 ? '' : 's'} regressed; ${parts.join('; ')}`,
    offenders,
  };
}

/** A cell of a Markdown table: pipes and line breaks escaped. */
const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');
const num = (n: number | null): string => (n === null ? '–' : Number.isInteger(n) ? String(n) : f2(n));
const signed = (n: number | null): string => (n === null ? '' : n > 0 ? ` (+${num(n)})` : n < 0 ? ` (−${num(-n)})` : '');

/** The diff as Markdown: the spec changes, how scenarios were paired, then a table of the changed scenarios, worst first. */
export function renderDiffText(model: DiffModel): string {
  const lines: string[] = [`# Diff: ${model.a} → ${model.b} (${model.kind === 'harness' ? 'harnesses' : 'agent runs'})`, ''];
  if (model.kind === 'harness') lines.push(model.judge ? `Scores of judge \`${model.judge}\`.` : 'No judge common to A and B: verdicts only.', '');
  const c = model.counts;
  lines.push(
    `Scenarios: ${c.matchedById} matched by id, ${c.matchedByTitle} by title; ${c.worse} worse, ${c.better} better, ${c.unchanged} unchanged; ${c.new} new in B, ${c.vanished} vanished from A.`,
    '',
  );
  const sc = model.specChanges;
  lines.push('## Spec changes', '');
  if (!sc) lines.push('A spec was not found: tool changes unknown.');
  else if (!sc.added.length && !sc.removed.length && !sc.changed.length) lines.push('No tool changed.');
  else {
    if (sc.added.length) lines.push(`- added: ${sc.added.join(', ')}`);
    if (sc.removed.length) lines.push(`- removed: ${sc.removed.join(', ')}`);
    for (const t of sc.changed) lines.push(`- changed: ${t.name}${t.parts.length ? ` (${t.parts.join(', ')})` : ''}`);
  }
  lines.push('');
  const matched = model.scenarios.filter((s) => s.status === 'matched');
  lines.push('## Changed scenarios (worst first)', '');
  if (!matched.length) lines.push('None.');
  else {
    lines.push('| scenario | matched by | verdict | worse | better | tools changed | failures in B |', '|---|---|---|---|---|---|---|');
    for (const s of matched) {
      const byScore = (names: string[]): string =>
        names
          .map((n) => {
            if (n === 'verdict') return `verdict ${s.verdict.before} → ${s.verdict.after}`;
            const sc2 = s.scores.find((x) => x.score === n)!;
            return `${n} ${num(sc2.before)} → ${num(sc2.after)}${signed(sc2.delta)}`;
          })
          .join('; ');
      const failures = s.failures.slice(0, 3).join('; ') + (s.failures.length > 3 ? `; … (${s.failures.length})` : '');
      lines.push(
        `| ${cell(`${scenarioName(s)} ${s.title}`)} | ${s.matchedBy} | ${s.verdict.before} → ${s.verdict.after} | ${cell(byScore(s.worse)) || '–'} | ${cell(byScore(s.better)) || '–'} | ${cell(s.toolsChanged.join(', ')) || '–'} | ${cell(failures) || '–'} |`,
      );
    }
  }
  for (const [status, heading] of [
    ['new', 'New in B'],
    ['vanished', 'Vanished from A'],
  ] as const) {
    const list = model.scenarios.filter((s) => s.status === status);
    if (!list.length) continue;
    lines.push('', `## ${heading}`, '');
    for (const s of list) lines.push(`- ${cell(scenarioName(s))} ${cell(s.title)} (${status === 'new' ? s.verdict.after : s.verdict.before})`);
  }
  return lines.join('\n');
}
