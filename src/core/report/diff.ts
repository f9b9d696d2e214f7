/**
 * `agent-seer diff A B`: what got worse and what got better between two judged harnesses (the
 * same spec before and after a change, regenerated and judged again) or two runs of agents
 * (`runs/<agent>/<run>` folders). Scenarios are paired by record id, then by title (ids change
 * when a harness is regenerated), and each pairing says how it was made. Per scenario, per score
 * and per view (the single-turn task and the conversation, each judged as a record): the change,
 * the pass/fail verdict before and after (`judge/verdict.ts` for records, `agents/score.ts` for
 * runs), and the tools it uses that changed in the spec (`specDiff.ts`). The comparison itself is
 * `compare.ts`'s, which the report's "Since the previous report" section shares.
 *
 * `DiffModel` (zod) is the single source of the JSON output; `renderDiffText` prints the same
 * model as a Markdown table, worst regressions first.
 */
import { basename, dirname, join, resolve } from 'node:path';
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { readRuns } from '../agents/readRuns';
import { scoreTrajectory } from '../agents/score';
import type { HarnessManifest, HarnessRecord } from '../harness/format';
import { diffSpecs, diffToolHashes, type SpecDiff } from '../harness/specDiff';
import { assertNotLocked } from '../harness/lock';
import { findHarnessSpec } from '../harness/specLookup';
import { readHarness, type HarnessProblem } from '../harness/store';
import type { Spec } from '../spec/model';
import { byCodeUnit } from '../util/byCodeUnit';
import { MANIFEST_FILE, RECORDS_DIR, RUNS_DIR } from '../workspace/layout';
import {
  compareScenarios,
  recordSnapshot,
  regressionGate as gateOnScenarios,
  runSnapshot,
  scenarioName,
  ScenarioDiff,
  scoreLabel,
  type RegressionGate,
  type ScenarioSnapshot,
} from './compare';

export { pairScenarios, ScenarioDiff, ScoreChange } from './compare';
export type { RegressionGate } from './compare';

/** The one version of the diff JSON this code writes. */
export const DIFF_VERSION = 1;

/** File name of the published JSON Schema of `diff --format json` (under `schemas/`). */
export const DIFF_SCHEMA_FILE = 'diff.schema.json';

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

/** A side of the diff: its scenarios (keyed by id) with their titles, tools and scores. */
interface Side {
  label: string;
  spec: Spec | undefined;
  manifest: HarnessManifest | undefined;
  scenarios: Map<string, ScenarioSnapshot>;
  problems: string[];
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

/** A loaded harness as one side, scored by `judge`. */
function harnessSide(label: string, judge: string | null, loaded: Awaited<ReturnType<typeof loadHarness>>): Side {
  const scenarios = new Map(loaded.records.map((r) => [r.id, recordSnapshot(r, loaded.spec, judge)]));
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
  const scenarios = new Map<string, ScenarioSnapshot>();
  const problems = [...loaded.problems, ...problemLines(harnessDir, read.problems)];
  for (const t of run.trajectories) {
    if (scenarios.has(t.scenarioId)) continue;
    const record = records.get(t.scenarioId);
    if (!record) {
      problems.push(`${label}: trajectory of scenario ${JSON.stringify(t.scenarioId)}, which its harness does not hold`);
      continue;
    }
    scenarios.set(t.scenarioId, runSnapshot(record, scoreTrajectory(loaded.spec, record, t)));
  }
  return { label, spec: loaded.spec, manifest: loaded.manifest, scenarios, problems };
}

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
  const { counts, scenarios } = compareScenarios([...a.scenarios.values()], [...b.scenarios.values()], spec);
  return {
    diffVersion: DIFF_VERSION,
    kind,
    a: a.label,
    b: b.label,
    judge,
    specChanges: spec ? { added: spec.added, removed: spec.removed, changed: spec.changed } : null,
    counts,
    scenarios,
    problems: [...a.problems, ...b.problems],
  };
}

/** The `--fail-on-regression X` gate on a diff (`compare.ts`'s rule). */
export function regressionGate(model: DiffModel, x: number): RegressionGate {
  return gateOnScenarios(model.scenarios, x);
}

const f2 = (n: number): string => n.toFixed(2);

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
            const sc2 = s.scores.find((x) => scoreLabel(x) === n)!;
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
